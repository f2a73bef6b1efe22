"""Values a user can state and check (meshspec/judge/values.py; docs/semantics.md section 7)."""

import hashlib
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import run_steps
from meshspec.sim.mapping import parse_slice
from meshspec.scenario.loader import parse

SOURCE = [
    {"from_torch": {"as": "src", "shape": [1, 1, 64, 128], "mesh_mapper": {"shard": 3}}},
    {"get_device_tensors": {"tensor": "src", "as": "shards"}},
    {"to_torch": {"tensor": "shards[1]", "as": "second"}},
    {"to_torch": {"tensor": "src", "mesh_composer": {"concat": 3}, "as": "composed"}},
]


def bf16_arange(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float64).astype(ml_dtypes.bfloat16).reshape(shape)


def test_sha256_is_of_the_values_bytes_in_their_dtype():
    # computed here from numpy, independently of meshspec: arange in bfloat16, two bytes a value
    report = run_steps(SOURCE, mesh=[1, 2]).to_json()
    values = {t["name"]: t["values"] for t in report["tensors"]}
    whole = bf16_arange((1, 1, 64, 128))
    assert values["src"]["sha256"] == hashlib.sha256(whole.tobytes()).hexdigest()
    assert values["composed"]["sha256"] == values["src"]["sha256"]
    second = np.ascontiguousarray(whole[..., 64:128])
    assert values["second"]["sha256"] == hashlib.sha256(second.tobytes()).hexdigest()
    assert values["second"]["first"][:3] == [64.0, 65.0, 66.0]  # row 0 of the second shard
    assert values["second"]["shape"] == [1, 1, 64, 64] and values["second"]["dtype"] == "bfloat16"


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.int32, np.uint8])
@pytest.mark.parametrize("shape, index", [((3, 4, 5), np.s_[:, 1:3]), ((100, 7), np.s_[::3]), ((4, 6), np.s_[:, ::2]), ((5,), np.s_[:]), ((0, 3), np.s_[:]), ((), ())])
def test_sha256_reads_in_place_and_in_chunks_as_one_copy_would(monkeypatch, dtype, shape, index):
    from meshspec.judge import values as V

    a = np.arange(max(int(np.prod(shape)), 1), dtype=np.float64)[: int(np.prod(shape))].reshape(shape).astype(dtype)
    v = a[index]
    want = hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()
    assert V.sha256(v) == want
    monkeypatch.setattr(V, "CHUNK_BYTES", 16)  # many chunks of a non-contiguous slice
    assert V.sha256(v) == want


def scenario(expect: str, wrong: bool = False) -> str:
    lines = [
        "from_torch: {as: src, shape: [1, 1, 64, 128], mesh_mapper: {shard: 3}}",
        "get_device_tensors: {tensor: src, as: shards}",
        'to_torch: {tensor: "shards[1]", as: second}',
        "to_torch: {tensor: src, mesh_composer: {concat: 3}, as: composed}",
    ]
    if wrong:  # a composer on another dim than the mapper's: a data_mismatch, expected here
        lines.append("to_torch: {tensor: src, mesh_composer: {concat: 2}, as: wrong}")
        expect = "    src: {}\n" + expect
    steps = "\n".join(f"  - {line}" for line in lines)
    return f"meshspec: 1\nmesh: [1, 2]\nsteps:\n{steps}\nexpect:\n  tensors:\n{expect}"


def check(text: str) -> tuple:
    from meshspec.runner import run

    report = run(parse(text, Path("v.yaml")))
    return report.expect.mismatches


def test_equals_a_tensor_and_a_slice_of_one():
    ok = check(scenario('    composed: {values: {equals: src}}\n    second: {values: {equals: {tensor: src, slice: "[:, :, :, 64:128]"}}}\n'))
    assert ok == ()
    # the wrong slice, a wrong first value, and a composer on the wrong dim are each named
    bad = check(scenario(
        '    second: {values: {equals: {tensor: src, slice: "[:, :, :, 0:64]"}, first: [64, 65, 67]}}\n'
        "    wrong: {values: {equals: src}}\n",
        wrong=True,
    ))
    assert any("second: values: expected the values of src[:, :, :, 0:64]" in m for m in bad)
    assert any("first 3 expected [64, 65, 67], got [64.0, 65.0, 66.0]" in m for m in bad)
    assert any(m.startswith("wrong: values: expected src, shape [1, 1, 64, 128]; got shape [1, 1, 128, 64]") for m in bad)


def test_a_tensor_of_several_shards_has_no_single_value():
    text = "meshspec: 1\nmesh: [1, 2]\nsteps:\n  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\nexpect:\n  tensors:\n    d: {values: {first: [0]}}\n"
    assert check(text) == ("d: values: expected values, but the report has none (it holds no single array (several shards: compose it))",)


def test_an_integer_index_drops_the_dim_as_torch_does():
    # torch: src[0, 0] of a [1, 1, 64, 128] tensor is [64, 128], so it is not torch.equal to a
    # [1, 1, 64, 64] shard; src[0, 0, :, 64:128] is not either (shape [64, 64])
    bad = check(scenario('    second: {values: {equals: {tensor: src, slice: "[0, 0, :, 64:128]"}}}\n'))
    assert bad == ("second: values: expected src[0, 0, :, 64:128], shape [64, 64]; got shape [1, 1, 64, 64]",)
    ok = check(scenario('    second: {values: {equals: {tensor: src, slice: "[0:1, 0:1, :, 64:128]"}}}\n'))
    assert ok == ()
    # an index past the dim names a slice the tensor cannot give
    past = check(scenario('    second: {values: {equals: {tensor: src, slice: "[5]"}}}\n'))
    assert past == ("second: values: the slice [5] of src does not fit its shape [1, 1, 64, 128]",)


@pytest.mark.parametrize("text, shape, want", [
    ("[:, 4:5, :, :]", (1, 7, 32, 32), (slice(None), slice(4, 5), slice(None), slice(None))),
    ("[0, 1:]", (2, 3), (0, slice(1, None))),  # an integer picks and drops the dim, as in torch
    ("[-1]", (2, 3), (-1,)),
    ("[]", (2,), ()),
])
def test_slices_as_maps_print_them(text, shape, want):
    assert parse_slice(text, shape) == want


@pytest.mark.parametrize("text", ["0:1", "[a:b]", "[1, 2, 3]"])
def test_a_bad_slice_says_why(text):
    with pytest.raises(ValueError):
        parse_slice(text, (4, 4))


def test_a_composition_equal_to_its_source_is_hashed_once(monkeypatch):
    # composed equals src bit for bit (the judge compared them), so its digest is src's, and the
    # bytes are hashed once; a composition that differs is hashed on its own
    from meshspec.judge import values as V

    hashed = []
    real = V.sha256
    monkeypatch.setattr(V, "sha256", lambda v: hashed.append(v.shape) or real(v))
    report = run_steps(SOURCE, mesh=[1, 2]).to_json()
    values = {t["name"]: t["values"] for t in report["tensors"]}
    assert values["composed"]["sha256"] == values["src"]["sha256"] == hashlib.sha256(bf16_arange((1, 1, 64, 128)).tobytes()).hexdigest()
    assert hashed.count((1, 1, 64, 128)) == 1
    hashed.clear()
    wrong = SOURCE[:3] + [{"to_torch": {"tensor": "src", "mesh_composer": {"concat": 2}, "as": "composed"}}]  # the wrong dim
    values = {t["name"]: t["values"] for t in run_steps(wrong, mesh=[1, 2]).to_json()["tensors"]}
    assert values["composed"]["shape"] == [1, 1, 128, 64] and values["composed"]["sha256"] != values["src"]["sha256"]
    assert hashed.count((1, 1, 128, 64)) == 1


def test_a_sha256_expectation_that_is_no_digest_says_so():
    from meshspec.errors import ScenarioError

    text = scenario("    composed: {values: {sha256: xyz}}\n")
    with pytest.raises(ScenarioError, match="'xyz' is not a SHA-256: 64 lower-case hex digits"):
        parse(text, Path("v.yaml"))
