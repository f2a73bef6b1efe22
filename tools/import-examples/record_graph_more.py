"""Record a REAL ttnn 0.81.1 graph capture in the mock (T3K 2x4) with more ops, for meshspec import:
from_torch (1-D mapper), to_device (L1), from_device, to_torch, Tensor.to, get_device_tensors (not
captured: a nanobind function), zeros, deallocate, then the seed's uneven copy.

Run from a scratch folder (the mock writes generated/ into the cwd):
    source /tmp/ttnn-mock/env.sh; python /work/main/tools/import-examples/record_graph_more.py OUT.json
Writes OUT.json (the end_graph_capture_to_file report) and OUT.python_io.json (the sidecar).
Default (fast) runtime mode, as a user would run it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import ttnn
import torch_stub

torch = torch_stub.install()
out = sys.argv[1]
md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
x = torch.from_numpy(np.arange(1 * 1 * 32 * 256, dtype=np.float32).reshape(1, 1, 32, 256))

ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NORMAL)
host = ttnn.from_torch(x, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, mesh_mapper=ttnn.shard_tensor_to_mesh_mapper(md, 3))
dev = ttnn.to_device(host, md, memory_config=ttnn.L1_MEMORY_CONFIG)
back = ttnn.from_device(dev)
y = ttnn.to_torch(dev, mesh_composer=ttnn.concat_mesh_to_tensor_composer(md, 3))
dev2 = host.to(md)
parts = ttnn.get_device_tensors(dev2)
z = ttnn.zeros([1, 1, 32, 32], dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=md)
ttnn.deallocate(dev)
# the seed: 7 rows over 8 devices, copied into a uniform allocation, read back
dst = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT), md)
seven = torch.from_numpy(np.arange(7 * 32 * 32, dtype=np.float32).reshape(1, 7, 32, 32))
src = ttnn.from_torch(seven, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, mesh_mapper=ttnn.shard_tensor_to_mesh_mapper(md, 1))
ttnn.copy_host_to_device_tensor(src, dst)
ttnn.to_torch(dst, mesh_composer=ttnn.concat_mesh_to_tensor_composer(md, 1))
ttnn.graph.end_graph_capture_to_file(out)
ttnn.close_mesh_device(md)
