"""deallocate, then cpu(): ttnn 0.81.1 dies here (SIGSEGV); the recording must survive it."""
import numpy as np
import ttnn

md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
t = ttnn.Tensor(np.ones((1, 1, 32, 32), dtype=np.float32), ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT)
d = ttnn.to_device(t, md)
ttnn.deallocate(d)
x = d.cpu()
