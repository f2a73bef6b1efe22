"""An op meshspec does not model (to_layout: opaque), a copy that raises and is caught, a 2-D
mapper and composer, a deallocate."""
import numpy as np
import ttnn

md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
a = ttnn.Tensor(np.ones((1, 8, 32, 32), dtype=np.float32), ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT)
tiled = ttnn.to_layout(a, ttnn.TILE_LAYOUT)
on_dev = ttnn.distribute_tensor(tiled, ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementReplicate(), ttnn.PlacementShard(1)])), md)
try:
    wrong = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 64], ttnn.float32, ttnn.TILE_LAYOUT, ttnn.BufferType.DRAM), md)
    ttnn.copy_host_to_device_tensor(tiled, wrong)
except RuntimeError as e:
    print("caught", str(e)[:60])
back = ttnn.from_device(on_dev)
whole = ttnn.aggregate_tensor(back, ttnn.create_mesh_composer(md, ttnn.MeshComposerConfig([0, 1])))
ttnn.deallocate(on_dev)
print("done")
