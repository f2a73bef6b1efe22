"""Allocate, distribute a numpy-built host tensor with distribute_tensor, copy, read back: the seed's
uneven copy (7 shards for 8 devices) as a user writes it without torch. Exits 3 to show the exit
code passes through."""
import sys
import numpy as np
import ttnn

mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
data = np.arange(7 * 32 * 32, dtype=np.float32).reshape(1, 7, 32, 32)
host = ttnn.Tensor(data, ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
mapper = ttnn.shard_tensor_to_mesh_mapper(mesh_device, 1)
sharded = ttnn.distribute_tensor(host, mapper)
dst = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, ttnn.BufferType.DRAM), mesh_device)
ttnn.copy_host_to_device_tensor(sharded, dst)
back = dst.cpu()
parts = ttnn.get_device_tensors(back)
print("parts", len(parts), "coords", [list(c) for c in dst.device_coords()])
sys.exit(3)
