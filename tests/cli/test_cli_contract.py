"""The command line behaves as recorded before it moved from argparse to typer (issue 38, item 1).

tests/cli/contract.json was written by tools/cli_contract.py on the argparse tree: every command's
``--help``, and for each command line of ``cli_contract.cases()`` its exit code and stderr. Here
the command line of this tree runs the same cases:

- each case's exit code and stderr line are the recorded ones, except the few in :data:`CHANGED`,
  each with what it says now and why;
- each command's help keeps its words: its description, every option with its flags, the value it
  takes, its help sentence, its default, its limit and its choices, and every argument with its help.
  The layout (where lines wrap, the usage line, the section titles) is typer's and is not compared:
  the words are compared with the line breaks taken out.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import cli_contract  # noqa: E402

CONTRACT = json.loads(cli_contract.CONTRACT.read_text(encoding="utf-8"))

CHANGED: dict[tuple[str, ...], tuple[int, str, str]] = {}
"""Command lines that say something else now: (exit code, stderr, why)."""


def _id(args: list[str]) -> str:
    return " ".join(a or "''" for a in args) or "(none)"


def test_the_contract_covers_every_command_and_each_way_a_command_line_goes_wrong():
    """What the recorder holds, so that a smaller contract is not taken for a kept one."""
    cases = CONTRACT["cases"]
    assert set(CONTRACT["help"]) == {"", *cli_contract.COMMANDS}
    commands = {c["args"][0] for c in cases if c["args"] and c["args"][0] in cli_contract.COMMANDS}
    assert commands == set(cli_contract.COMMANDS)
    said = " ".join(c["stderr"] for c in cases)
    for words in ("no option", "no command", "(did you mean", "needs a value", "not one of", "not a whole number", "at least",
                  "missing", "unexpected argument", "takes no value", "is empty", "is an option of", "meshspec's own option"):
        assert words in said, words
    assert {c["exit"] for c in cases} == {0, 1, 2, 4}
    assert [c["args"] for c in cases] == cli_contract.cases()  # the recorder's cases are the ones recorded


@pytest.mark.parametrize("case", CONTRACT["cases"], ids=lambda c: _id(c["args"]))
def test_each_command_line_exits_and_says_what_it_did_before(case):
    now = cli_contract.capture(case["args"])
    if case["stderr"].startswith("usage:"):  # the help, printed where it was not asked for: its words are compared below
        assert now["exit"] == case["exit"] and now["stdout"] == "" and now["stderr"].strip(), now
        return
    exit_code, stderr = case["exit"], case["stderr"]
    if tuple(case["args"]) in CHANGED:
        exit_code, stderr, _ = CHANGED[tuple(case["args"])]
    assert (now["exit"], now["stderr"]) == (exit_code, stderr)
    if exit_code == 2 and case["stdout"] == "":
        assert now["stdout"] == ""


# -- help ------------------------------------------------------------------------------------------
def _words(text: str) -> str:
    """Text with its line breaks and runs of spaces made one space; a word cut at a hyphen is joined."""
    text = re.sub(r"(?<=[a-z])-\n\s*(?=[a-z])", "-", text)
    return re.sub(r"\s+", " ", text).strip()


def help_facts(text: str) -> dict:
    """What argparse's help (the recorded one) says: the description, and each entry of its
    sections as (invocation, help); an option's invocation is its flags and the value it takes."""
    sections: dict[str, list[list[str]]] = {}
    description: list[str] = []
    current = None
    for line in text.split("\n")[1:]:
        if re.fullmatch(r"[a-z ]+:", line):
            current = sections.setdefault(line[:-1], [])
        elif current is None:
            if not line.startswith(" "):  # the usage line's continuations are indented
                description.append(line)
        elif re.match(r"  \S", line):
            invocation, _, rest = line.strip().partition("  ")
            current.append([invocation, rest.strip()])
        elif line.strip():
            current[-1][1] += "\n" + line.strip()
    return {"description": _words("\n".join(description)),
            "sections": {k: [(inv, _words(h)) for inv, h in v] for k, v in sections.items()}}


@pytest.mark.parametrize("command", ["", *cli_contract.COMMANDS])
def test_each_help_keeps_its_description_options_defaults_and_choices(command):
    recorded = help_facts(CONTRACT["help"][command])
    now = cli_contract.capture([*([command] if command else []), "--help"])
    assert now["exit"] == 0 and now["stderr"] == ""
    text = _words(now["stdout"])
    assert recorded["description"] and recorded["description"] in text
    entries = [e for section in recorded["sections"].values() for e in section]
    assert entries
    for invocation, help_text in entries:
        if invocation.startswith("-h, --help"):
            assert "-h, --help" in text
            continue
        assert invocation in text, invocation  # '-f, --format {table,json}', 'SCENARIO', 'run'
        assert help_text in text, (invocation, help_text)  # its sentence, with '(default: table)', '(at least 1)'
    options = {f for inv, _ in entries if inv.startswith("-") for f in re.findall(r"(?<![\w-])--?[\w-]+", inv.split(" {")[0])}
    shown = set(re.findall(r"(?m)^\s+(-[\w-]+(?:, --[\w-]+)?)", now["stdout"]))
    assert {f for s in shown for f in s.split(", ")} == options  # no option more, none less


def test_version_and_help_flags():
    assert cli_contract.capture(["--version"])["stdout"] == f"meshspec {__import__('meshspec').__version__}\n"
    for flags in (["-h"], ["--help"], ["run", "-h"]):
        assert cli_contract.capture(flags)["exit"] == 0
