"""Issue 6, section 2: hostile and broken input never gives a traceback or a hang.

A short fuzz campaign runs here (every outcome a report or a one-line error, each bounded in
time); `python bench/fuzz.py --minutes N` runs a long one.
"""

import textwrap

import pytest

from fuzzing import campaign, families, outcome
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse


def test_short_fuzz_campaign():
    counts = campaign(400, seed=1)
    assert sum(n for outcome, n in counts.items() if ":" not in outcome) == 400  # the families' are FAMILY:OUTCOME
    assert sum(counts.values()) == 400 + 20 * len(families())  # and 400 // 20 of each family (tests/fuzz_families)
    assert counts["invalid"] > 0 and counts["clean"] + counts["findings"] > 0, counts


@pytest.mark.parametrize(
    "text, message",
    [
        ("meshspec: 1\nmesh: !!python/object/apply:os.system ['true']\nsteps: []\n", "could not determine a constructor"),
        ("meshspec: 1\nmesh: !!binary aGVsbG8=\nsteps: []\n", "mesh"),
        ("meshspec: 1\nmeshspec: 1\n", "duplicate key 'meshspec'"),
        # an alias of an anchored key is the key's own node (bench/fuzz.py seed 2026: StopIteration)
        ("meshspec: 1\n&a mesh: [1, 2]\n*a : [2, 4]\nsteps: []\n", "duplicate key 'mesh' (an alias of the key at line 2)"),
        ("meshspec: 1\nmesh: [1, 2]\nmesh: [2, 4]\nsteps: []\n", "duplicate key 'mesh' (first at line 2)"),
        # past Python's 4,300 digits (int() refuses; a hex one is made, then cannot be printed), no such day
        ("meshspec: 1\nmesh: t3k\nname: " + "9" * 5000 + "\nsteps: []\n", "the integer 9999999999"),
        ("meshspec: 1\nmesh: [2, 0x" + "f" * 5000 + "]\nsteps: []\n", "is 5,002 characters long; a scenario's numbers are far shorter"),
        ("meshspec: 1\nmesh: t3k\nname: 2024-02-30\nsteps: []\n", "2024-02-30 reads as a timestamp in YAML, and is none (day is out of range for month)"),
    ],
)
def test_only_plain_yaml(text, message):
    with pytest.raises(ScenarioError) as err:
        parse(text, "x.yaml")
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "text, where",
    [
        ("meshspec: 1\n&a mesh: [1, 2]\n*a : [2, 4]\nsteps: []\n", (3, 1)),
        ("meshspec: 1\n&a mesh: t3k\nsteps: []\nname: x\n*a :   t3k\n", (5, 1)),
        # in a flow mapping the alias stands after the first pair: '*k' is the 16th character
        ("meshspec: 1\nmesh: t3k\nsteps:\n  - {&k as: a, *k : b}\n", (4, 16)),
    ],
)
def test_a_duplicate_alias_key_is_pointed_at_where_it_is_written(text, where):
    """The composer gives an alias its anchor's node, marks included; the error must still name
    the line the user wrote the alias on, not the anchor's."""
    with pytest.raises(ScenarioError, match="an alias of the key at line") as err:
        parse(text, "x.yaml")
    assert (err.value.line, err.value.column) == where


def test_billion_laughs_fails_fast():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    text = "meshspec: 1\nmesh: t3k\nsteps: []\n" + "\n".join(lines) + "\n"
    assert outcome(text, seconds=5) == "invalid"
    with pytest.raises(ScenarioError, match="more than 200,000 values"):
        parse(text, "bomb.yaml")


def test_deep_nesting_is_refused():
    text = "meshspec: 1\nmesh: t3k\nsteps: " + "[" * 200 + "]" * 200 + "\n"
    with pytest.raises(ScenarioError, match="nesting deeper than 32"):
        parse(text, "deep.yaml")


def test_deep_nesting_names_the_first_key_past_the_limit():
    """Key k0 stands at depth 2 (the document is 1), so k31 is the first value at depth 33: the
    error points at that key, on its own line 32 (its mapping value starts on line 33)."""
    text = "".join(f"{'  ' * i}k{i}:\n" for i in range(40)) + "  " * 40 + "1\n"
    with pytest.raises(ScenarioError, match="nesting deeper than 32") as err:
        parse(text, "deep.yaml")
    assert (err.value.line, err.value.column) == (32, 63)


def test_huge_files_are_refused(tmp_path):
    from meshspec.scenario.loader import load

    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (5 << 20) + "\n")
    with pytest.raises(ScenarioError, match="limited to"):
        load(big)


def test_huge_meshes_are_refused():
    with pytest.raises(ScenarioError, match="up to 65,536"):
        parse("meshspec: 1\nmesh: [1000, 1000]\nsteps:\n  - from_torch: {as: h, shape: [1]}\n", "m.yaml")


def test_data_files_stay_in_the_scenario_folder(tmp_path):
    import numpy as np

    np.save(tmp_path / "outside.npy", np.zeros((2,), dtype=np.float32))
    inner = tmp_path / "scenarios"
    inner.mkdir()
    text = textwrap.dedent(
        """\
        meshspec: 1
        mesh: n150
        steps:
          - from_torch: {as: h, shape: [2], dtype: float32, data: {file: ../outside.npy}}
        """
    )
    with pytest.raises(ScenarioError, match="outside the scenario's folder"):
        parse(text, inner / "s.yaml")
    assert parse(text, inner / "s.yaml", allow_outside_data=True).steps[0].op == "from_torch"
    (inner / "link.npy").symlink_to(tmp_path / "outside.npy")
    with pytest.raises(ScenarioError, match="outside"):
        parse(text.replace("../outside.npy", "link.npy"), inner / "s.yaml")


def test_oversize_shapes_are_refused_before_allocating():
    text = "meshspec: 1\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {as: d, shape: [1099511627776, 1099511627776]}\n"
    assert outcome(text) == "error"


def test_a_huge_bad_value_is_named_in_a_short_line():
    """An error names the bad value; one of a million characters is cut to its first 60 with its
    length (text.py shorten_values), not echoed whole in a 1 MB line."""
    text = "meshspec: 1\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32], dtype: " + "x" * 1_000_000 + "}\n"
    with pytest.raises(ScenarioError) as err:
        parse(text, "long.yaml")
    line = str(err.value)
    assert len(line) < 400 and "'" + "x" * 60 + "...' (1,000,000 characters); expected one of bfloat16" in line


def test_a_file_of_too_many_values_without_aliases_does_not_blame_aliases():
    text = "meshspec: 1\nmesh: t3k\nsteps:\n" + "  - cpu: {tensor: a}\n" * 70_000
    with pytest.raises(ScenarioError, match=r"the file holds more than 200,000 values; a scenario needs far fewer$"):
        parse(text, "many.yaml")
