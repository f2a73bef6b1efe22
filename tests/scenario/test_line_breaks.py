"""Issue 34, section 2, first item: line breaks only YAML sees.

PyYAML (and libyaml) end a line at ``\\r``, U+0085, U+2028 and U+2029 as well as at ``\\n``, so a
step written after one of them inside what an editor or a diff shows as one comment line is live.
meshspec refuses these characters anywhere in a scenario file (comments, strings, keys), at the
line and column a person counts (lines end at ``\\n`` only). ``\\r\\n`` (Windows line endings) is
allowed: every editor shows it as the line break it is, so it hides nothing.

Lines and columns below are counted by hand from the text of each test.
"""

from __future__ import annotations

import pytest

from cli_runner import invoke
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse

HIDDEN = ["\r", "\x85", "\u2028", "\u2029"]
NAMES = {"\r": "carriage return", "\x85": "U+0085", "\u2028": "U+2028", "\u2029": "U+2029"}

# line 4 is "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}  # note" + the break:
# "  - allocate_tensor_on_device: " is 31 characters, "{as: a, shape: [1, 1, 32, 32]}" 30 more (to
# column 61), two spaces, then "# note" at columns 64-69: the break is column 70.

HIDING = (
    "meshspec: 1\n"
    "mesh: [1, 2]\n"
    "steps:\n"
    "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}  # note{brk}  - deallocate: {tensor: a}\n"
)


def _hiding(brk: str) -> str:
    return HIDING.replace("{brk}", brk)


def _error(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse(text, "s.yaml")
    return info.value


@pytest.mark.parametrize("brk", HIDDEN, ids=lambda b: NAMES[b])
def test_a_break_inside_a_comment_is_refused_where_it_stands(brk):
    err = _error(_hiding(brk))
    text = str(err)
    assert "\n" not in text and "\r" not in text and "\u2028" not in text, repr(text)
    assert text.startswith("s.yaml:4:70: "), text
    assert NAMES[brk] in text and "delete it" in text


def test_what_the_comment_hid_was_a_live_step_for_yaml():
    """The attack itself, as YAML reads it: the comment ends at U+2028 and a second step follows.
    (This is why the loader refuses the character before YAML sees it.)"""
    import yaml

    data = yaml.safe_load(_hiding("\u2028"))
    assert [next(iter(s)) for s in data["steps"]] == ["allocate_tensor_on_device", "deallocate"]


STEPS = "steps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"


@pytest.mark.parametrize("brk", HIDDEN, ids=lambda b: NAMES[b])
@pytest.mark.parametrize(
    "text, line, col",
    [
        # line 5: '  - deallocate: {tensor: "a' -> the quote at 26, 'a' at 27, the break at 28
        ("meshspec: 1\nmesh: [1, 2]\n" + STEPS + '  - deallocate: {tensor: "a{brk}"}\n', 5, 28),
        # line 5: "  - deallocate: {" is 17 characters: the key's 'ten' at 18-20, the break at 21
        ("meshspec: 1\nmesh: [1, 2]\n" + STEPS + "  - deallocate: {ten{brk}sor: a}\n", 5, 21),
        # line 2: "name: x" then the break at 8 (before "y": a lone \r, not a Windows line end)
        ("meshspec: 1\nname: x{brk}y\nmesh: [1, 2]\n" + STEPS, 2, 8),
    ],
    ids=["string", "key", "top-level value"],
)
def test_a_break_in_a_string_or_a_key_is_refused_too(brk, text, line, col):
    err = _error(text.replace("{brk}", brk))
    assert (err.line, err.column) == (line, col), str(err)
    assert NAMES[brk] in str(err)


def test_the_first_break_is_named_where_a_person_sees_it():
    """Two lone carriage returns in a comment on line 2 (YAML would count three lines there): the
    error names the first, on line 2, as an editor that shows them as no break counts."""
    text = "meshspec: 1\n# a\rb\rc\nmesh: [1, 2]\n"
    err = _error(text)
    assert (err.line, err.column) == (2, 4), str(err)


def test_windows_line_endings_load_as_unix_ones():
    """CRLF is the break every editor shows: the same steps, lines and values as with LF."""
    unix = (
        "meshspec: 1\nmesh: [1, 2]\nsteps:  # the steps\n"
        "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}  # note\n"
        "  - deallocate: {tensor: a}\n"
        "description: >\n  two\n  lines\n"
    )
    a, b = parse(unix, "s.yaml"), parse(unix.replace("\n", "\r\n"), "s.yaml")
    assert [(s.op, s.line) for s in a.steps] == [(s.op, s.line) for s in b.steps] == [
        ("allocate_tensor_on_device", 4), ("deallocate", 5)]
    assert a.description == b.description == "two lines\n"


def test_a_carriage_return_before_a_windows_line_end_is_still_lone():
    """``\\r\\r\\n``: the first ``\\r`` is no part of a line ending (old editors show it as one)."""
    err = _error("meshspec: 1\nmesh: [1, 2]  # x\r\r\nsteps: []\r\n")
    assert (err.line, err.column) == (2, 18), str(err)


def test_the_command_says_it_in_one_line_and_exits_2(tmp_path):
    path = tmp_path / "hidden.yaml"
    path.write_text(_hiding("\u2028"), encoding="utf-8")
    result = invoke(["run", path])
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:4:70: " in lines[0] and "U+2028" in lines[0], result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize("control", ["\u202e", "\u2066", "\u200f", "\u061c"], ids=["RLO", "LRI", "RLM", "ALM"])
def test_a_bidirectional_control_in_a_comment_is_refused(control):
    """Trojan Source (CVE-2021-42574): a bidi control reorders how the rest of its line is shown.
    A scalar refused it already (not printable); a comment kept it. Line 2 is "mesh: [1, 2]  # "
    (16 characters) and the control at column 17."""
    err = _error(f"meshspec: 1\nmesh: [1, 2]  # {control}x\nsteps:\n  - allocate_tensor_on_device: {{as: a, shape: [1]}}\n")
    assert (err.line, err.column) == (2, 17), str(err)
    assert f"U+{ord(control):04X}" in str(err) and "bidirectional" in str(err)
