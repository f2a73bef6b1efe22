"""Record more REAL ttnn 0.81.1 operation-tracer output in the mock (T3K 2x4), for meshspec import.

Run from a scratch folder (the mock writes generated/ into the cwd):
    source /tmp/ttnn-mock/env.sh
    TTNN_CONFIG_OVERRIDES='{"enable_fast_runtime_mode": false}' \
    TTNN_OPERATION_TRACE_DIR=$PWD/tracer-more python /work/main/tools/import-examples/record_tracer_more.py
The tracer only wraps the slow ttnn.decorators.Operation, hence fast runtime mode off.
torch_stub.py (a copy of the research script) stands in for torch, which has no wheel for Python 3.10.
Each numbered block is one case; a case the mock cannot run (a kernel) prints why and goes on.
"""
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import ttnn
import ttnn.operation_tracer as ot
import torch_stub

torch = torch_stub.install()
if not hasattr(ttnn, "tracer"):
    ttnn.tracer = types.SimpleNamespace(ENABLE_TRACER=False)
assert ttnn.CONFIG.enable_fast_runtime_mode is False, "set TTNN_CONFIG_OVERRIDES"
ot.enable_tracing(True)
ot._OPERATION_COUNTER = 0

md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))


def arange(*shape):
    return torch.from_numpy(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


def case(title, fn):
    try:
        fn()
        print("ok  ", title)
    except Exception as e:  # a kernel in the mock, or an error ttnn raises: say so and go on
        print("FAIL", title, "->", str(e).splitlines()[0][:160])


def one_d_shard_to_device_l1():
    # 1-D mapper on a 2-D mesh, host first, then to_device into L1
    h = ttnn.from_torch(arange(1, 1, 32, 256), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT,
                        mesh_mapper=ttnn.shard_tensor_to_mesh_mapper(md, 3))
    d = ttnn.to_device(h, md, memory_config=ttnn.L1_MEMORY_CONFIG)
    back = ttnn.from_device(d)
    ttnn.to_torch(back, mesh_composer=ttnn.concat_mesh_to_tensor_composer(md, 3))
    ttnn.deallocate(d)


def replicate_wrapper():
    h = ttnn.from_torch(arange(1, 1, 32, 32), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT,
                        mesh_mapper=ttnn.ReplicateTensorToMesh(md))
    ttnn.to_device(h, md)


def uneven_seven_of_eight():
    # the seed: 7 rows over 8 devices, copied into a uniform allocation
    dst = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT), md)
    src = ttnn.from_torch(arange(1, 7, 32, 32), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT,
                          mesh_mapper=ttnn.shard_tensor_to_mesh_mapper(md, 1))
    ttnn.copy_host_to_device_tensor(src, dst)
    ttnn.to_torch(dst, mesh_composer=ttnn.concat_mesh_to_tensor_composer(md, 1))


def plain_host_to_device():
    h = ttnn.from_torch(arange(1, 1, 32, 32), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT)
    ttnn.to_device(h, md)


def host_prealloc_round_trip():
    mapper = ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementReplicate(), ttnn.PlacementShard(1)],
                                                               ttnn.MeshShape(2, 3)))
    h = ttnn.from_torch(arange(7, 3, 32, 32), dtype=ttnn.float32, layout=ttnn.ROW_MAJOR_LAYOUT, mesh_mapper=mapper)
    dev = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([7, 1, 32, 32], ttnn.float32, ttnn.ROW_MAJOR_LAYOUT), md)
    ttnn.copy_host_to_device_tensor(h, dev)
    host = ttnn.allocate_tensor_on_host(ttnn.TensorSpec([7, 1, 32, 32], ttnn.float32, ttnn.ROW_MAJOR_LAYOUT), md)
    ttnn.copy_device_to_host_tensor(dev, host, blocking=True)


def creation_zeros():
    ttnn.zeros([1, 1, 32, 32], dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=md)


def creation_zeros_host():
    ttnn.zeros([1, 1, 32, 32], dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT)


def as_tensor_no_cache():
    ttnn.as_tensor(arange(1, 1, 32, 64), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT,
                   mesh_mapper=ttnn.shard_tensor_to_mesh_mapper(md, 3))


def tile_16():
    ttnn.from_torch(arange(1, 1, 32, 32), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, tile=ttnn.Tile([16, 32]))


def add_on_device():
    a = ttnn.from_torch(arange(1, 1, 32, 32), dtype=ttnn.float32, layout=ttnn.ROW_MAJOR_LAYOUT, device=md)
    ttnn.add(a, a)


for name, fn in list(globals().items()):
    if callable(fn) and getattr(fn, "__module__", None) == "__main__" and name not in ("arange", "case"):
        case(name, fn)
ttnn.close_mesh_device(md)
