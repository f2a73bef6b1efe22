"""Issue 34, section 5, fourth item: the total number of steps is bounded before any block is
expanded.

Three nested ``repeat: {times: 4096, ...}`` around one step (13 lines) are 4096**3 =
68,719,476,736 steps: the loader expanded and deep-copied them eagerly (2.7 GB in 23 s, then a
MemoryError, exit 3), as only each level's ``times`` was capped. Now the steps are counted on the
blocks as written and a scenario expanding to more than MAX_STEPS (100,000: a decode loop of 4,096
passes over 16 steps and the steps around it fit) is refused in one line at the outermost block
that takes the total past it. ``distribute`` blocks are counted the same way (their steps once).

Lines and columns are counted by hand: "  - repeat:" puts the key ``repeat`` at column 5.
"""

from __future__ import annotations

import pytest

from cli_runner import invoke
from meshspec.errors import ScenarioError
from meshspec.scenario import loader
from meshspec.scenario.loader import parse

NESTED = """\
meshspec: 1
mesh: [1, 2]
steps:
  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}
  - repeat:
      times: 4096
      steps:
        - repeat:
            times: 4096
            steps:
              - repeat:
                  times: 4096
                  steps:
                    - neg: {tensor: a, as: a}
"""


def _error(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse(text, "r.yaml")
    message = str(info.value)
    assert "\n" not in message, message
    return message


@pytest.fixture
def nothing_expanded(monkeypatch):
    """Expanding a block fails the test: a refusal must come before any expansion."""

    def expanded(*args, **kwargs):
        raise AssertionError("a block was expanded before the total was checked")

    monkeypatch.setattr(loader, "_flatten", expanded)


def test_nested_repeats_are_refused_at_the_outermost_before_expanding(nothing_expanded):
    message = _error(NESTED)
    assert message.startswith("r.yaml:5:5: repeat: this block expands to 68,719,476,736 steps, "), message
    assert 4096**3 == 68_719_476_736
    assert "68,719,476,737 with the 1 before it" in message and "at most 100,000 steps" in message, message


def test_the_command_refuses_it_in_one_line_with_exit_2(tmp_path):
    path = tmp_path / "nested.yaml"
    path.write_text(NESTED, encoding="utf-8")
    result = invoke(["run", path, "--max-memory", "500M"])
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:5:5: repeat: " in lines[0] and "100,000" in lines[0], result.stderr


def _repeat(times: int, body: str, indent: str = "  ") -> str:
    return f"{indent}- repeat:\n{indent}    times: {times}\n{indent}    steps:\n" + body


NEG = "        - neg: {tensor: a, as: a}\n"
HEAD = "meshspec: 1\nmesh: [1, 2]\ndata: none\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"


def test_the_limit_is_on_the_total_not_each_level(monkeypatch):
    """With a limit of 50: 1 step and 7 passes over 7 steps (50) load, 8 passes (57) do not."""
    monkeypatch.setattr(loader, "MAX_STEPS", 50)
    s = parse(HEAD + _repeat(7, NEG * 7), "r.yaml")
    assert len(s.steps) == 50
    message = _error(HEAD + _repeat(8, NEG * 7))
    assert message.startswith("r.yaml:6:5: repeat: this block expands to 56 steps, 57 with the 1 before it; "), message


def test_blocks_side_by_side_are_summed_and_the_one_past_the_limit_is_named(monkeypatch):
    monkeypatch.setattr(loader, "MAX_STEPS", 50)
    # lines 6-8 the first block (20 steps: lines 9-10 its two), lines 11-13 the second: at 11
    text = HEAD + _repeat(10, NEG * 2) + _repeat(15, NEG * 2)
    message = _error(text)
    assert message.startswith("r.yaml:11:5: repeat: this block expands to 30 steps, 51 with the 21 before it; "), message


def test_a_distribute_block_is_counted_with_the_repeats_inside_it(nothing_expanded):
    text = (
        "meshspec: 1\nmesh: [1, 2]\nsteps:\n"
        "  - distribute:\n"
        "      mesh_mapper: replicate\n"
        "      steps:\n"
        + _repeat(4096, _repeat(4096, "                - from_torch: {as: h, shape: [1, 1, 32, 32]}\n", "            "), "        ")
    )
    message = _error(text)
    # line 4: "  - distribute:": the key at column 5
    assert message.startswith("r.yaml:4:5: distribute: this block expands to 16,777,216 steps; "), message


def test_a_level_past_its_own_cap_still_says_so():
    message = _error(HEAD + _repeat(5000, NEG))
    assert "repeat: times 5000 is not a whole number from 1 to 4096" in message, message


def test_a_decode_loop_of_4096_passes_still_loads():
    s = parse(HEAD + _repeat(4096, NEG * 2), "r.yaml")
    assert len(s.steps) == 1 + 4096 * 2 and s.steps[-1].line == 10  # the second step of the loop, line 10
