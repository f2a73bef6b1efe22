"""A stand-in for the few ttnn names meshspec/bridge/observe.py reads, and tensors duck-typed like
ttnn's: enough to draw a tensor's records without ttnn (the ttnn tier draws real ones,
tests_ttnn/test_view.py)."""

import itertools
import types


class _Enum:
    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class PlacementShard:
    def __init__(self, dim: int) -> None:
        self.dim = dim


class PlacementReplicate:
    pass


def module() -> types.ModuleType:
    ttnn = types.ModuleType("ttnn")
    ttnn.PlacementShard = PlacementShard
    ttnn.StorageType = types.SimpleNamespace(DEVICE="DEVICE", HOST="HOST")
    ttnn.get_device_tensors = lambda t: [t] * len(t.coords)
    return ttnn


class Mesh:
    def __init__(self, shape, ids):
        self.shape = tuple(shape)
        self._ids = list(ids)

    def get_device_ids(self):
        return list(self._ids)


class Topology:
    def __init__(self, distribution, placements, coords):
        self._d, self._p, self._c = distribution, placements, coords

    def distribution_shape(self):
        return list(self._d)

    def placements(self):
        return list(self._p)

    def mesh_coords(self):
        return [list(c) for c in self._c]


class DeviceTensor:
    """A device tensor as ttnn 0.81.1 answers for it (device_coords, no page numbers)."""

    def __init__(self, mesh: Mesh, coords, shape, topology: Topology, address: int = 1048640):
        self.mesh, self.coords, self.shape, self.padded_shape = mesh, [list(c) for c in coords], list(shape), list(shape)
        self.dtype, self.layout = _Enum("DataType.BFLOAT16"), _Enum("Layout.TILE")
        self.tile = types.SimpleNamespace(tile_shape=[32, 32])
        self.topology, self.address = topology, address

    def storage_type(self):
        return "DEVICE"

    def is_allocated(self):
        return True

    def device_coords(self):
        return [list(c) for c in self.coords]

    def memory_config(self):
        return types.SimpleNamespace(buffer_type=_Enum("BufferType.DRAM"), memory_layout=_Enum("TensorMemoryLayout.INTERLEAVED"),
                                     shard_spec=None)

    def device(self):
        return self.mesh

    def tensor_topology(self):
        return self.topology

    def buffer_address(self):
        return self.address


T3K_IDS = [4, 0, 2, 6, 5, 1, 3, 7]
"""A T3K's physical device ids, row-major over its 2x4 mesh (ttnn 0.81.1 in the mock, tests_ttnn/test_view.py)."""


def seed_dst() -> DeviceTensor:
    """The seed's destination after the copy, as ttnn 0.81.1 records it: seven devices of eight."""
    seven = [c for c in itertools.product(range(2), range(4))][:7]
    return DeviceTensor(Mesh((2, 4), T3K_IDS), seven, [1, 1, 32, 32], Topology([7], [PlacementShard(1)], seven))
