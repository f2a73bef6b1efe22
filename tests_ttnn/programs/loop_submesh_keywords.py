"""A decode-style loop that rebinds one variable (Python frees each old buffer: a deallocate step),
a submesh and a mapper made for it, keyword arguments everywhere, and an op meshspec does not model
written over several lines (opaque; exported as its records, since it names a program variable)."""
import numpy as np
import ttnn

md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
spec = ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, ttnn.BufferType.DRAM)
for i in range(3):
    kv = ttnn.allocate_tensor_on_device(tensor_spec=spec, mesh_device=md)
row1 = md.create_submesh(ttnn.MeshShape(1, 4), ttnn.MeshCoordinate(1, 0))
data = np.arange(4 * 32 * 32, dtype=np.float32).reshape(1, 4, 32, 32)
host = ttnn.Tensor(data, ttnn.bfloat16, None, ttnn.ROW_MAJOR_LAYOUT)
layout = ttnn.TILE_LAYOUT
tiled = ttnn.to_layout(
    host,
    layout,
)
on_row1 = ttnn.distribute_tensor(tiled, ttnn.shard_tensor_to_mesh_mapper(mesh_device=row1, dim=1), row1)
back = ttnn.from_device(tensor=on_row1)
print("coords", [list(c) for c in on_row1.device_coords()])
