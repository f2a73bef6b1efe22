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


# -- values, not only steps (attack round 1) ----------------------------------------------------
# A step is copied with all it holds: 4,096 passes over one allocate step holding a 60,000-item
# `junk` list (a 120 KB file) made 245 million values (1.3 GB, then MemoryError, exit 3). The values
# the blocks expand to are counted before expanding (loader.MAX_VALUES, 2,000,000). Counted by hand:
# a step `{op: {k: v, ...}}` is its mapping, the op's key, the args mapping, each key and each value,
# a list itself and each item: `neg: {tensor: a, as: a}` holds 7, HEAD's allocate step 11
# (1 + 1 + 1, as and shape: 2 keys, "a", the list and its 4 items).
ALLOCATE = "        - allocate_tensor_on_device: {{as: b, shape: [1, 1, 32, 32], junk: [{junk}]}}\n"


def test_a_step_holding_many_values_repeated_is_refused_before_expanding(nothing_expanded):
    # the step: 1 + 1 + 1 + 3 keys + "b" + the shape's list and 4 items + junk's list and 1,000 items = 1,013
    message = _error(HEAD + _repeat(4096, ALLOCATE.format(junk=", ".join(["1"] * 1000))))
    assert 1013 * 4096 == 4_149_248
    assert message.startswith("r.yaml:6:5: repeat: this block expands to steps holding 4,149,248 values, "
                              "4,149,259 with the 11 before it; "), message
    assert "at most 2,000,000 values" in message, message


def test_the_value_limit_is_on_the_total(monkeypatch):
    """With a limit of 60: the allocate step (11) and 7 passes over a neg (49) load, 8 (56) do not."""
    monkeypatch.setattr(loader, "MAX_VALUES", 60)
    assert len(parse(HEAD + _repeat(7, NEG), "r.yaml").steps) == 8
    message = _error(HEAD + _repeat(8, NEG))
    assert message.startswith("r.yaml:6:5: repeat: this block expands to steps holding 56 values, 67 with the 11 before it; "), message


def test_a_distribute_blocks_mapper_counts_in_each_of_its_steps(monkeypatch):
    """A from_torch in a distribute block is given the block's mapper: 4 + 1 + 2 values each."""
    monkeypatch.setattr(loader, "MAX_VALUES", 11 + 7 * 10)
    step = "          - from_torch: {as: h, shape: [1]}\n"  # 1 + 1 + 1 + 2 keys + "h" + list + 1 item = 8
    text = HEAD + "  - distribute:\n      mesh_mapper: {shard: 0}\n      steps:\n" + step * 10
    # 10 steps of 8 values, each given mesh_mapper (its key, the mapping, shard, 0: 4 values): 120 > 81
    message = _error(text)
    assert message.startswith("r.yaml:6:5: distribute: this block expands to steps holding 120 values, 131 with the 11 before it; "), message


def test_100000_steps_of_a_usual_size_still_load():
    step = "        - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32], dtype: bfloat16, layout: TILE}\n"  # 15 values
    s = parse(HEAD + _repeat(4096, step * 24), "r.yaml")
    assert len(s.steps) == 1 + 4096 * 24 and 4096 * 24 * 15 + 11 < loader.MAX_VALUES


def test_an_opaque_steps_code_is_parsed_once_however_often_it_repeats(monkeypatch):
    """24 opaque steps x 4,096 passes of 550-character code took 34 s to load: the same code was
    parsed for every expanded step. Each distinct (code, call, uses) is parsed once now."""
    from meshspec.scenario import code

    calls = []
    real = code.parse
    monkeypatch.setattr(code, "parse", lambda *args: calls.append(args) or real(*args))
    head = "meshspec: 1\nmesh: [1, 1]\ndata: none\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"
    step = ("        - opaque: {{as: out, call: ttnn.add, uses: [a], shape: [1, 1, 32, 32], code: \"out = ttnn.add(a, {k})\", "
            "topology: {{distribution_shape: [1], placements: [R], coords: [[0, 0]]}}}}\n")
    s = parse(head + _repeat(50, step.format(k=1) + step.format(k=2) + step.format(k=1)), "r.yaml")
    assert len(s.steps) == 1 + 150
    assert sorted(c[0] for c in calls) == ["out = ttnn.add(a, 1)", "out = ttnn.add(a, 2)"]
