"""Real tt-metal tests written as scenarios (real-tests/): each passes meshspec check, and its
expect block bites (a wrong expectation fails). Provenance: each file's description names the
test, its file and the tt-metal commit."""

from pathlib import Path

import pytest

from meshspec.check import check_file

REAL = Path(__file__).resolve().parents[1] / "real-tests"
FILES = sorted(REAL.glob("*.yaml"))


def test_there_is_one_from_each_source():
    described = " ".join(p.read_text() for p in FILES)
    for source in ("tests/ttnn/distributed/", "test_multi_device.py", "test_mesh_tensor.cpp", "test_distributed_tensor.cpp"):
        assert source in described


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_real_test_passes(path):
    results = check_file(path)
    assert results and all(r.outcome == "PASS" for r in results), [(r.profile, r.details) for r in results]


@pytest.mark.parametrize(
    "name, old, new",
    [
        ("multi-device-check-per-device-shard", '"[..., 64:128]"', '"[..., 0:64]"'),  # shard 1 is not shard 0
        ("partial-concat", "first: [0, 1, 2, 10, 11, 12]}", "first: [0, 1, 2, 0, 1, 2]}"),
        ("mesh-tensor-write-multi-device-host-tensor", "[1, 1], [1, 2]]", "[1, 1], [1, 2], [1, 3]]"),
        ("default-mesh-composer", "error: Supply a mesh composer\n      findings: []\n      tensors", "error: null\n      findings: []\n      tensors"),
        # issue 35: claiming the result is the tensor that was sent makes the other-dim layout a finding
        ("shard-1d-concat-dim-0", "values: {equals: expected_tensor}", "values: {equals: input_tensor}"),
        ("shard-dims-concat-dims-0-2", "shape: [2, 1, 4, 3]\n", "shape: [1, 2, 4, 3]\n"),
        ("galaxy-eltwise-mul-2d-fracture", "out_torch: {shape: [1, 4, 32, 28672]}", "out_torch: {shape: [1, 1, 32, 28672]}"),
    ],
)
def test_a_wrong_expectation_fails(tmp_path, name, old, new):
    text = (REAL / f"{name}.yaml").read_text()
    assert old in text
    (tmp_path / f"{name}.yaml").write_text(text.replace(old, new, 1))
    for data in REAL.glob("*.npy"):
        (tmp_path / data.name).write_bytes(data.read_bytes())
    results = check_file(tmp_path / f"{name}.yaml")
    assert any(r.outcome == "FAIL" for r in results), [(r.profile, r.outcome) for r in results]


@pytest.mark.parametrize("name, count", [("shard_1d", 8), ("shard_1d_fewer", 7), ("shard_dims", 8)])
def test_the_data_is_the_gtests_test_data(name, count):
    # test_distributed_tensor.cpp (4dd832b) fills test_data with {i * 1.F, i * 2.F, i * 3.F} for each
    # shard i; its expected_tensor is the same vector in the composed shape
    import numpy as np

    want = [float(i * k) for i in range(count) for k in (1, 2, 3)]
    data, expected = np.load(REAL / f"{name}.npy"), np.load(REAL / f"{name}_expected.npy")
    assert data.dtype == expected.dtype == np.float32
    assert data.ravel().tolist() == want and expected.ravel().tolist() == want
