"""Issue 34, attack round 1: an ``expect`` error pattern ``{match: REGEX}`` whose matching time is
not bounded is refused at load.

Python's ``re`` backtracks and has no timeout: ``(x+x+)+y`` searched in an error message naming a
60-character file (``load_tensor: {file_name: xxx...}``) made ``run`` and ``check`` hang for ever.
A repeated group holding a quantifier or ``|``, and a backreference, are now refused in one line
at the pattern (``error: {match: ...}`` on line 8 puts the value at column 22, counted by hand).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from cli_runner import invoke
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse
from meshspec.scenario.regex import unbounded

SCENARIO = """\
meshspec: 1
mesh: [1, 2]
steps:
  - load_tensor: {{as: a, file_name: {name}}}
expect:
  profiles:
    default:
      error: {{match: {pattern}}}
"""

REFUSED = [
    "(x+x+)+y", "(a|aa)*b", "(?:a*)*b", "(?P<n>a+)+", "((a)b+)*", "(a{2,3}){2}", "(a+)?", "(a+)*?", "(a+)++",
    "(?i:a|b)+", "([)]+)*", "(?x)( a + )+", "(?x:(a #)\n +)+)", r"(a)\1", "(?P<n>a)(?P=n)", "(a)?(?(1)b|c)",
]
ACCEPTED = [
    "Shard shape mismatch", r"Supply a mesh \w+", r"^Supply", "x+y", "(ab)+", "(a+)", "[(a+)]+", r"\(a+\)+",
    "(a){}", r"(?#c(a+\)+)b", r"a\123", "[^]a+(]*", "[]|]+", "(?:ab){3}", r"\\(a)", "(?i)Shard.*mismatch",
    "(?x) a \\  b # (c+)+",
]


@pytest.mark.parametrize("pattern", REFUSED)
def test_unbounded_patterns_are_named(pattern):
    re.compile(pattern)  # each is a valid pattern: refused for its time, not its syntax
    assert unbounded(pattern) is not None


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_bounded_patterns_pass(pattern):
    re.compile(pattern)
    assert unbounded(pattern) is None


def _scenario(pattern: str, name: str = "x" * 60) -> str:
    return SCENARIO.format(name=name, pattern='"' + pattern.replace("\\", "\\\\").replace("\n", "\\n") + '"')


def test_the_attack_is_refused_at_the_pattern_in_one_line():
    with pytest.raises(ScenarioError) as info:
        parse(_scenario("(x+x+)+y"), "r.yaml")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("r.yaml:8:22: expect.profiles.default.error.match: '(x+x+)+y' is refused: ")
    assert "nested repetition can take exponential time" in message
    assert "write the text the error must contain" in message


def test_a_pattern_over_lines_is_named_on_one_line():
    with pytest.raises(ScenarioError) as info:
        parse(_scenario("(?x:(a #)\n +)+)"), "r.yaml")
    assert "'(?x:(a #)\\n +)+)' is refused" in str(info.value)


def test_run_refuses_with_exit_2_before_running(tmp_path):
    # a pattern quick to match (this test must fail, not hang, where the check is missing)
    (tmp_path / "s.yaml").write_text(_scenario("(no|such)+"))
    res = invoke(["run", str(tmp_path / "s.yaml")])
    assert res.exit_code == 2
    assert "s.yaml:8:22:" in res.stderr and "is refused" in res.stderr


def test_a_pattern_python_warns_about_prints_no_warning(tmp_path):
    """``[a||]`` compiled with a FutureWarning ("Possible set union"): two lines on stderr."""
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("load_tensor: {{as: a, file_name: {name}}}",
                                                      "allocate_tensor_on_device: {{as: a, shape: [1, 1, 32, 32]}}")
                                     .format(pattern='"[a||]"'))
    # a process of its own: pytest would catch the warning, and re's cache keep it from showing twice
    res = subprocess.run([sys.executable, "-m", "meshspec", "run", "--format", "json", str(tmp_path / "s.yaml")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, (res.returncode, res.stderr)  # the expectation fails: the run had no error
    assert res.stderr == "", res.stderr


@pytest.mark.parametrize("pattern, accepted", [
    ("x*x*x*x*y", False),        # 3.3 s on 200 x's: the 5th power of the length
    ("a+b+c+", False),
    ("a{0,1000}b{0,1000}c{0,1000}", False),
    (r"expected .* got .*", True),
    (r"Shape\(\[\d+, \d+, \d+, 32\]\)", False),  # three \d+: say the text instead
    (r"\d+, \d+", True),
    ("a{0,64}b{0,64}c{0,64}d*", True),  # small bounds do not count
])
def test_more_than_two_repetitions_without_a_small_bound_are_refused(pattern, accepted):
    """meshspec/scenario/regex.py: with k open-ended repetitions a search takes time growing as the
    k+1-th power of the text's length; two (cubic) stay under a second on the longest error a
    scenario can cause (file names at most 1,024 characters)."""
    from meshspec.scenario.regex import unbounded

    why = unbounded(pattern)
    assert (why is None) == accepted, why
    if not accepted and "group" not in why:
        assert "repetitions without a small bound" in why


def test_the_worst_accepted_pattern_on_the_longest_file_name_is_refused_or_quick(tmp_path):
    """The cubic worst case, '.*a.*b', against an error quoting a file name of the longest length
    a scenario takes: a longer name is refused at load, so the match has at most about a thousand
    characters to search."""
    from meshspec.errors import ScenarioError
    from meshspec.scenario.loader import parse

    steps = "steps:\n  - load_tensor: {as: a, file_name: " + "a" * 1025 + "}\n"
    with pytest.raises(ScenarioError, match="1,024|1024"):
        parse("meshspec: 1\nmesh: t3k\n" + steps, tmp_path / "s.yaml")
