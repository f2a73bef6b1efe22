"""A stand-in for ttnn, for tests of meshspec/hunt/worker.py where no ttnn is installed: a mesh
opened is an object; closing it appends a line to $FAKE_TTNN_LOG."""

import os


class _Mesh:
    def __init__(self, shape):
        self.shape = shape


def open_mesh_device(shape):
    return _Mesh(shape)


def close_mesh_device(mesh):
    with open(os.environ["FAKE_TTNN_LOG"], "a") as f:
        f.write(f"closed {mesh.shape}\n")
