#!/usr/bin/env python3
"""Record what storage ttnn gives tensors on a 1x1 mesh and on a T3K, whether a mapped host tensor
copies into a 1x1 mesh tensor, and whether a host tensor made from numpy (and its replicas and
shards) owns its buffer or borrows the array's, for
tests/test_golden_storage.py (docs/semantics.md section 19: issue #15833's single-device storage
and issue #18842's borrowed storage are older eras; this is what each version that runs here says).

Run once per version, each in its own venv, in mock mode; each run adds its version's entry:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh && python tools/golden/record_storage.py          # 0.81.1
    source ${TMPDIR:-/tmp}/ttnn-mock-0.67.0/env.sh && python tools/golden/record_storage.py
    source ${TMPDIR:-/tmp}/ttnn-mock-0.66.0/env.sh && python tools/golden/record_storage.py

Host tensors are built with the flat-list constructor, which 0.66 and 0.67 read right
(../shared/ttnn-mock/README.md); the ownership checks use the numpy constructor in float32
ROW_MAJOR, which every version reads, and change the array after: a tensor that sees the change
borrows its memory. Deterministic.
"""

import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "golden" / "ttnn_storage.json"

import numpy as np  # noqa: E402
import ttnn  # noqa: E402

SHAPE = [1, 1, 32, 32]


def topo(t) -> dict:
    tp = t.tensor_topology()
    return {
        "distribution_shape": list(tp.distribution_shape()),
        "placements": [str(p) for p in tp.placements()],
        "coords": [list(c) for c in tp.mesh_coords()],
    }


def host(n: int):
    """A host tensor of ``n`` (1,1,32,32) blocks along dim 1, float32 ROW_MAJOR, arange values."""
    return ttnn.Tensor([float(i) for i in range(n * 1024)], [1, n, 32, 32], ttnn.float32, ttnn.ROW_MAJOR_LAYOUT)


def on_mesh(shape: tuple[int, int]) -> dict:
    md = ttnn.open_mesh_device(ttnn.MeshShape(*shape))
    try:
        n = shape[0] * shape[1]
        spec = ttnn.TensorSpec(tuple(SHAPE), ttnn.float32, ttnn.ROW_MAJOR_LAYOUT, ttnn.BufferType.DRAM)
        dev = ttnn.allocate_tensor_on_device(spec, md)
        mapper = ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementShard(1)], ttnn.MeshShape([n])))
        mapped = ttnn.distribute_tensor(host(n), mapper, None)
        out = {"device_storage": str(dev.storage_type()), "mapped_host_storage": str(mapped.storage_type())}
        try:
            ttnn.copy_host_to_device_tensor(mapped, dev)
            out["copy_error"] = None
        except Exception as e:  # noqa: BLE001 - the library's own words are the record
            out["copy_error"] = str(e).splitlines()[0]
        out["after_copy"] = {"storage": str(dev.storage_type()), **topo(dev),
                             "device_tensors": len(ttnn.get_device_tensors(dev))}
        back = dev.cpu()
        out["cpu"] = {"storage": str(back.storage_type()), "shards": len(ttnn.get_device_tensors(back))}
        plain = host(1)
        rep = ttnn.distribute_tensor(plain, ttnn.replicate_tensor_to_mesh_mapper(md), None)
        out["replicated_plain"] = {"storage": str(rep.storage_type()), "shards": len(ttnn.get_device_tensors(rep))}
        out["numpy_mapped"] = numpy_mapped(md, n)
        return out
    finally:
        ttnn.close_mesh_device(md)


def numpy_mapped(md, n: int) -> dict:
    """Host tensors made from numpy arrays, replicated and sharded over ``md``, the arrays changed
    after: which of their shards see the change (borrow the caller's memory)?"""
    a = np.arange(1024, dtype=np.float32).reshape(SHAPE)
    rep = ttnn.distribute_tensor(ttnn.Tensor(a, ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT),
                                 ttnn.replicate_tensor_to_mesh_mapper(md), None)
    b = np.arange(n * 1024, dtype=np.float32).reshape(1, n, 32, 32)
    mapper = ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementShard(1)], ttnn.MeshShape([n])))
    sh = ttnn.distribute_tensor(ttnn.Tensor(b, ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT), mapper, None)
    a[0, 0, 0, 0] = 99.0
    b[0, 0, 0, 0] = 77.0
    first = lambda t: [float(np.asarray(x.to_numpy()).ravel()[0]) for x in ttnn.get_device_tensors(t)]  # noqa: E731
    return {"replicas_first_after_change": first(rep), "shards_first_after_change": first(sh)}


def numpy_owned() -> dict:
    """A ttnn.Tensor made from a numpy array, the array changed after: does the tensor see it?"""
    a = np.arange(1024, dtype=np.float32).reshape(SHAPE)
    t = ttnn.Tensor(a, ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT)
    a[0, 0, 0, 0] = 99.0
    return {"storage": str(t.storage_type()), "first_after_change": float(np.asarray(t.to_numpy()).ravel()[0])}


def main() -> None:
    v = version("ttnn")
    entry = {
        "storage_types": sorted(m for m in dir(ttnn.StorageType) if not m.startswith("_")),
        "mesh_1x1": on_mesh((1, 1)),
        "mesh_2x4": on_mesh((2, 4)),
        "numpy_tensor": numpy_owned(),
    }
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    data[v] = entry
    OUT.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n")
    print(f"{v}: {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
