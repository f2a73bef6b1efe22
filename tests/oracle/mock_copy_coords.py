"""What ttnn 0.81.1 records after a partial copy into a tensor that to_device made on fewer
devices: the question behind the oracle's former ``status:missing_spec/empty`` class (oracle_diff.OPEN's docstring).
Run in the ttnn mock (set up as docs/development.md, "Checked against the real ttnn", says), not by the suite:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh && python tests/oracle/mock_copy_coords.py

Seen on 2026-12-06 (ttnn 0.81.1, mock T3K)::

    x coords ['MeshCoordinate([0, 0])', 'MeshCoordinate([0, 1])']
    after the copy: coords ['MeshCoordinate([0, 0])', 'MeshCoordinate([0, 1])', 'MeshCoordinate([0, 2])'],
        topology TensorTopology(distribution_shape=MeshShape([3]), placements=SmallVector([PlacementShard(1)]),
        mesh_coords=MeshCoordinate([0, 0]), MeshCoordinate([0, 1]), MeshCoordinate([0, 2])), spec shape [1, 1, 32, 32]
    device tensors 3, shapes [[1, 1, 32, 32], [1, 1, 32, 32], [1, 1, 32, 32]]; cpu() shards 3

So (0, 2) is recorded and has the tensor's spec (one spec + coords): readable, and a device op runs
there. meshspec's ``current`` records (0, 2) with no per-device spec (sim/ops/copy.py, the
CopyRecord.CURRENT branch sets the recorded devices only), says ``missing_spec``, and its device ops
skip the device.
"""

import numpy as np
import ttnn


def main() -> None:
    md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))

    def shards(rows: int):
        values = np.arange(rows * 32 * 32, dtype=np.float32).reshape(1, rows, 32, 32)
        mapper = ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementShard(1)], ttnn.MeshShape([8])))
        return ttnn.distribute_tensor(ttnn.Tensor(values, ttnn.bfloat16, None, ttnn.TILE_LAYOUT), mapper, None)

    x = ttnn.to_device(shards(2), md)
    print("x coords", [str(c) for c in x.device_coords()])
    ttnn.copy_host_to_device_tensor(shards(3), x)
    topo = x.tensor_topology()
    print(f"after the copy: coords {[str(c) for c in x.device_coords()]}, topology {topo}, spec shape {list(x.shape)}")
    parts = ttnn.get_device_tensors(x)
    print(f"device tensors {len(parts)}, shapes {[list(p.shape) for p in parts]}; cpu() shards {len(ttnn.get_device_tensors(x.cpu()))}")


if __name__ == "__main__":
    main()
