"""Tests whose ids clean to one folder name (``x y``, ``x_y``, ``x/y`` ...), each allocating a
tensor of its own width: recorded with pytest --meshspec-record, each keeps its own folder."""
import pytest
import ttnn

IDS = ["x y", "x_y", "x/y", "x:y", "x+y", "x*y", "x?y", "x|y"]


@pytest.fixture(scope="module")
def mesh_device():
    yield ttnn.open_mesh_device(ttnn.MeshShape(2, 4))


@pytest.mark.parametrize("width", [pytest.param(32 * (i + 1), id=name) for i, name in enumerate(IDS)])
def test_c(mesh_device, width):
    ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, width], ttnn.bfloat16, ttnn.TILE_LAYOUT, ttnn.BufferType.DRAM), mesh_device)
