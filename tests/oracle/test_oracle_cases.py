"""One small scenario per known disagreement class (tests/oracle/cases/), each under the profiles
where the class shows: today the oracle finds that class there and nothing else; the change that
removes it makes the xfail(strict=True) test pass, which fails the run until the case is flipped
(oracle_diff.OPEN says why each exists). The cases of classes gone (never-written reads meshspec
missed, issue 35 item 1 in item1-row0-gather.yaml, a gather of uneven shards, a copy that
recorded a device without a spec, an add run on more devices than the input recording the fewest)
stay as regression cases: clean under every
profile, with the kind of finding each output device carries worked out by hand."""

from pathlib import Path

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario.loader import load
from oracle_diff import KNOWN, PROFILE_NAMES, check

HERE = Path(__file__).parent
CURRENT_LIKE = ("current", "auto-compose", "ccl-union", "ccl-padded")

UNEVEN = ("uniform-by-value", "unpopulated")
"""The profiles whose mapper lays uneven shards (oracle_diff._UNEVEN)."""
CASES: list = []
AGREED = ["item1-row0-gather.yaml", "cases/gather-never-written.yaml", "cases/neg-never-written.yaml",
          "cases/gather-uneven-shards.yaml", "cases/copy-records-device-without-spec.yaml", "cases/add-input-recording-none.yaml",
          "cases/add-input-recording-fewer.yaml", "cases/add-input-recording-fewer-unwritten.yaml",
          "cases/after-add-input-recording-none.yaml", "cases/uneven-shards-tensor-spec-outputs.yaml",
          *(f"cases/uneven-shards-{op}-data.yaml" for op in ("slice", "concat", "pad", "matmul", "linear", "reshape")),
          "cases/linear-bias-not-broadcasting.yaml", "cases/host-ops-shard-by-shard.yaml"]
"""Cases of classes gone (oracle_diff.OPEN's docstring names them): clean under every profile."""
PARAMS = [pytest.param(path, profile, classes, id=f"{Path(path).stem}-{profile}")
          for path, profiles, classes in CASES for profile in profiles]


class OtherDisagreement(Exception):
    """A disagreement of another class than the case is about (a real failure, not the xfail)."""


@pytest.mark.parametrize("path,profile,classes", PARAMS)
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="a known disagreement class (oracle_diff.OPEN)")
def test_case_agrees(path, profile, classes):
    assert classes <= set(KNOWN)
    steps = yaml.safe_load((HERE / path).read_text())["steps"]
    out = check(load(HERE / path), steps, profile)
    other = [d for d in out.disagreements if d[0] not in classes]
    if other:
        raise OtherDisagreement(other)
    assert out.disagreements == [], sorted({c for c, _ in out.disagreements})


@pytest.mark.parametrize("path", sorted({p for p, _, _ in CASES} | set(AGREED)))
def test_case_agrees_under_the_other_profiles(path):
    """Under the profiles a case is not about, the oracle and meshspec agree on it."""
    steps = yaml.safe_load((HERE / path).read_text())["steps"]
    about = {prof for p, profiles, _ in CASES if p == path for prof in profiles}
    for profile in PROFILE_NAMES:
        if profile not in about:
            assert check(load(HERE / path), steps, profile).disagreements == [], profile


ROW0, ROW1 = [(0, j) for j in range(4)], [(1, j) for j in range(4)]
EVERY = ROW0 + ROW1
ALLOCATION_RECORDS_ALL = CURRENT_LIKE + ("uniform-by-value",)
KINDS = [  # (case, profiles, {output device of y: the finding kind it must carry}), worked out by hand
    # the allocation's topology lists the whole mesh and nothing was written: the program's own error
    ("cases/gather-never-written.yaml", PROFILE_NAMES, dict.fromkeys(EVERY, "uninitialized_read")),
    # neg runs on the devices the allocation records: every one in these eras, none in the others
    ("cases/neg-never-written.yaml", ALLOCATION_RECORDS_ALL, dict.fromkeys(EVERY, "uninitialized_read")),
    ("cases/neg-never-written.yaml", ("unpopulated", "reference"), {}),
    # issue 35 item 1: row 1 gathers row 1 of x, which x's topology (row 0) does not list: the
    # runtime's doing (tt-metal #31845); the reference cuts the group to row 0 (ccl_devices: tensor)
    ("item1-row0-gather.yaml", tuple(p for p in PROFILE_NAMES if p != "reference"), dict.fromkeys(ROW1, "stale_input")),
    ("item1-row0-gather.yaml", ("reference",), {}),
]


@pytest.mark.parametrize("path,profile,want", [pytest.param(p, prof, w, id=f"{Path(p).stem}-{prof}")
                                                for p, profiles, w in KINDS for prof in profiles])
def test_read_finding_kinds(path, profile, want):
    """meshspec reports the kind of never-written read the rule of docs/semantics.md section 12
    ("What an op read") gives, and the oracle, which works the kind out from its own written masks
    and the records' topology coords, agrees."""
    report = run(load(HERE / path), profile)
    got = {f.device: f.kind.value for f in report.findings if f.kind.value in ("stale_input", "uninitialized_read")}
    assert got == want
    steps = yaml.safe_load((HERE / path).read_text())["steps"]
    assert check(load(HERE / path), steps, profile).disagreements == []


def test_the_oracle_holds_meshspec_to_the_kind(monkeypatch):
    """Were meshspec to call every never-written read a stale_input (the rule before
    uninitialized_read), the oracle reports each output device of the bare allocation's gather as
    the wrong kind; were it to call item 1's a user error, likewise."""
    import meshspec.judge.findings as judge
    from meshspec.kinds import Kind

    real = judge._bad_read

    def as_(kind):
        def bad(r):
            got = real(r)
            return None if got is None else (kind, got[1])
        return bad

    steps = yaml.safe_load((HERE / "cases/gather-never-written.yaml").read_text())["steps"]
    monkeypatch.setattr(judge, "_bad_read", as_(Kind.STALE_INPUT))
    out = check(load(HERE / "cases/gather-never-written.yaml"), steps, "current")
    assert sorted(out.disagreements) == [("kind:uninitialized_read/stale_input", f"y {c} names ('x', (0, 0))") for c in EVERY]
    steps = yaml.safe_load((HERE / "item1-row0-gather.yaml").read_text())["steps"]
    monkeypatch.setattr(judge, "_bad_read", as_(Kind.UNINITIALIZED_READ))
    out = check(load(HERE / "item1-row0-gather.yaml"), steps, "current")
    assert {c for c, _ in out.disagreements} == {"kind:stale_input/uninitialized_read"} and len(out.disagreements) == 4


ERA_CASES = ["cases/load-one-shard-replicate-on-load.yaml", "cases/load-file-of-no-shard.yaml"]
"""Regression cases of classes the era programs found (oracle_diff.ERAS, a rule of issue 36 changed
from current's): clean under the built-in profiles and under each profile the case defines."""


@pytest.mark.parametrize("path", ERA_CASES)
def test_era_case_agrees(path):
    scenario = load(HERE / path)
    steps = yaml.safe_load((HERE / path).read_text())["steps"]
    for profile in (*PROFILE_NAMES, *scenario.profiles):
        out = check(scenario, steps, profile)
        assert out.skipped is None and out.disagreements == [], profile


def _written(report) -> dict:
    return {t.name: sorted(v.coord for v in t.devices if v.status.value != "empty") for t in report.tensors if t.storage == "device"}


def test_a_load_under_replicate_on_load_puts_a_one_shard_file_on_every_device():
    """docs/semantics.md section 20 (#8228): the loaded storage lost its distribution, so a load onto
    the mesh puts the first shard on every device, a file of one shard as well as one of seven;
    under 0.81.1's rule the one shard goes back where it was dumped from."""
    scenario = load(HERE / "cases/load-one-shard-replicate-on-load.yaml")
    every = [(r, c) for r in range(4) for c in range(2)]
    assert _written(run(scenario, "may-2024"))["d3"] == every
    assert _written(run(scenario, "current"))["d3"] == [(0, 0)]


def test_a_load_of_a_file_of_no_shard_onto_the_mesh_is_refused():
    """An allocation that records no device (allocation none) dumps a file of no shard: a host load
    is an empty host tensor, a load onto the mesh a step error (as to_device of an empty host
    tensor), not a Python exception."""
    report = run(load(HERE / "cases/load-file-of-no-shard.yaml"), "unpopulated")
    assert report.error is not None and report.error.step == 3 and not report.error.crash
    assert report.error.message.startswith("load_tensor: f4.tensorbin holds no shard (it was dumped from d3, which records no device)")
