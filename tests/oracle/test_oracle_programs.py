"""The differential oracle in the main suite: random hunt programs (fixed seed, up to 5 steps) on a
T3K and a 2x2 mesh, each under every built-in profile, meshspec's verdicts against the naive
model's (naive.py's docstring says which verdicts and how). The slower tier, thousands of
programs: ``python bench/oracle.py``.

Every disagreement must be of a known class (oracle_diff.OPEN); each known class has its own small
case, an xfail(strict=True) in test_oracle_cases.py, which the change that removes it flips. This
sample shows none of them today (the tier, bench/oracle.py, found the one open)."""

import functools

import pytest

from oracle_diff import KNOWN, PROFILE_NAMES, campaign

SEED, PROGRAMS, DATA_PROGRAMS = 35, 200, 40



@functools.lru_cache(maxsize=None)
def _summary(data: bool):
    return campaign(SEED + data, DATA_PROGRAMS if data else PROGRAMS, with_data=data, max_steps=5)


@pytest.mark.parametrize("data", [False, True], ids=["metadata", "data"])
def test_every_program_is_modelled_and_compared(data):
    s = _summary(data)
    assert s.runs == s.programs * len(PROFILE_NAMES) and s.skipped == 0
    assert s.compared > 5 * s.runs  # device statuses and op output devices, several a run
    assert s.agreeing > 0.8 * s.runs


@pytest.mark.parametrize("data", [False, True], ids=["metadata", "data"])
def test_every_disagreement_is_of_a_known_class(data):
    s = _summary(data)
    unknown = {c: s.example[c] for c in s.by_category if c not in KNOWN}
    assert not unknown, "\n\n".join(f"{c} under {prof}: {detail}\n{text}" for c, (text, prof, detail) in unknown.items())



def test_both_kinds_of_never_written_read_are_compared():
    """The sample holds output devices the naive model requires each kind on (docs/semantics.md
    section 12, "What an op read"), so the kind comparison is not vacuous."""
    s = _summary(False)
    assert s.kinds.get("stale_input", 0) > 10 and s.kinds.get("uninitialized_read", 0) > 10, s.kinds
