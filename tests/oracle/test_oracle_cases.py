"""One small scenario per known disagreement class (tests/oracle/cases/, plus issue 35 item 1 in
item1-row0-gather.yaml), each under the profiles where the class shows: today the oracle finds that
class there and nothing else; the change that removes it makes the xfail(strict=True) test pass,
which fails the run until the case is flipped (oracle_diff.LEAD and OPEN say why each exists)."""

from pathlib import Path

import pytest
import yaml

from meshspec.scenario.loader import load
from oracle_diff import KNOWN, PROFILE_NAMES, check

HERE = Path(__file__).parent
CURRENT_LIKE = ("current", "auto-compose", "ccl-union", "ccl-padded")

CASES = [
    ("item1-row0-gather.yaml", PROFILE_NAMES, {"stale_input:missed:gather:empty"}),
    ("cases/gather-never-written.yaml", CURRENT_LIKE + ("uniform-by-value",), {"stale_input:missed:gather:uninitialized"}),
    ("cases/gather-never-written.yaml", ("unpopulated", "reference"), {"stale_input:missed:gather:empty"}),
    ("cases/neg-never-written.yaml", CURRENT_LIKE + ("uniform-by-value",), {"stale_input:missed:per_device:uninitialized"}),
    ("cases/gather-uneven-shards.yaml", ("uniform-by-value", "unpopulated"), {"status:shape_mismatch/ok", "stale_input:missed:gather:empty"}),
    ("cases/copy-records-device-without-spec.yaml", CURRENT_LIKE, {"status:missing_spec/empty"}),
]
PARAMS = [pytest.param(path, profile, classes, id=f"{Path(path).stem}-{profile}")
          for path, profiles, classes in CASES for profile in profiles]


class OtherDisagreement(Exception):
    """A disagreement of another class than the case is about (a real failure, not the xfail)."""


@pytest.mark.parametrize("path,profile,classes", PARAMS)
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="a known disagreement class (oracle_diff.LEAD / OPEN)")
def test_case_agrees(path, profile, classes):
    assert classes <= set(KNOWN)
    steps = yaml.safe_load((HERE / path).read_text())["steps"]
    out = check(load(HERE / path), steps, profile)
    other = [d for d in out.disagreements if d[0] not in classes]
    if other:
        raise OtherDisagreement(other)
    assert out.disagreements == [], sorted({c for c, _ in out.disagreements})


@pytest.mark.parametrize("path", sorted({p for p, _, _ in CASES}))
def test_case_agrees_under_the_other_profiles(path):
    """Under the profiles a case is not about, the oracle and meshspec agree on it."""
    steps = yaml.safe_load((HERE / path).read_text())["steps"]
    about = {prof for p, profiles, _ in CASES if p == path for prof in profiles}
    for profile in PROFILE_NAMES:
        if profile not in about:
            assert check(load(HERE / path), steps, profile).disagreements == [], profile
