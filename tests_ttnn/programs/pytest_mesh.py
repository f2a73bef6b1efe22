"""Tests with a module-scoped mesh fixture, recorded with pytest --meshspec-record (a test that
makes no ttnn call leaves no recording)."""
import numpy as np
import pytest
import ttnn


@pytest.fixture(scope="module")
def mesh_device():
    md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    yield md


def test_shard_copy(mesh_device):
    host = ttnn.Tensor(np.zeros((1, 8, 32, 32), dtype=np.float32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    sharded = ttnn.distribute_tensor(host, ttnn.shard_tensor_to_mesh_mapper(mesh_device, 1))
    dev = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, ttnn.BufferType.DRAM), mesh_device)
    ttnn.copy_host_to_device_tensor(sharded, dev)
    assert len(dev.device_coords()) == 8


def test_replicate(mesh_device):
    host = ttnn.Tensor(np.zeros((1, 1, 32, 32), dtype=np.float32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    dev = ttnn.to_device(host, mesh_device)
    assert dev.tensor_topology().distribution_shape() == ttnn.MeshShape([8])


def test_nothing():
    assert True
