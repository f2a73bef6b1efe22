"""The simulator: the mesh, spec and page math, mapping, device buffers, tensors, the runtime,
era profiles and the ops. It knows nothing of YAML, reports or rendering."""
