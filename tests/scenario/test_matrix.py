"""One scenario over several values, as pytest.mark.parametrize (meshspec/scenario/matrix.py;
docs/semantics.md section 21): each combination a case named by its values, its own expectations
where ``expect.cases`` says so, a bounded count, and one-line errors at their place."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from cli_runner import invoke
from meshspec.check import check_file
from meshspec.errors import ScenarioError
from meshspec.runner import run, run_paths
from meshspec.scenario.loader import load, parse
from meshspec.scenario.matrix import MAX_CASES

BUNDLED = Path(__file__).resolve().parents[2] / "scenarios" / "seed-uneven-copy-matrix.yaml"

TEXT = """meshspec: 1
name: m
matrix:
  dtype: [bfloat16, float32]
  shape: [[1, 1, 32, 32], [1, 1, 32, 64]]
mesh: t3k
steps:
  - from_torch: {as: x, shape: $shape, dtype: $dtype, mesh_mapper: replicate, device: mesh_device}
expect:
  tensors:
    x: {dtype: $dtype, shape: $shape}
  cases:
    - when: {dtype: float32}
      tensors: {x: {layout: tile}}
"""


def test_each_combination_is_a_case_named_by_its_values_last_variable_fastest():
    s = parse(TEXT, Path("m.yaml"))
    assert [c.case for c in s.cases] == ["bfloat16-1x1x32x32", "bfloat16-1x1x32x64", "float32-1x1x32x32", "float32-1x1x32x64"]
    assert [c.name for c in s.cases][1] == "m[bfloat16-1x1x32x64]" and s.name == "m[bfloat16-1x1x32x32]"
    # the values went where $name stood, in the steps and the expect block alike
    assert [c.steps[0].args.shape for c in s.cases] == [[1, 1, 32, 32], [1, 1, 32, 64]] * 2
    assert [c.steps[0].args.dtype.value for c in s.cases] == ["bfloat16", "bfloat16", "float32", "float32"]
    assert [c.expect.tensors["x"].dtype.value for c in s.cases[:2]] == ["bfloat16", "bfloat16"]


def test_a_case_entry_replaces_the_blocks_expectation_of_its_tensors_where_when_matches():
    s = parse(TEXT, Path("m.yaml"))
    x = [c.expect.tensors["x"] for c in s.cases]
    assert x[0].shape == [1, 1, 32, 32] and x[0].layout is None
    assert x[2].layout.value == "tile" and x[2].shape is None  # replaced whole, by name
    assert all(c.expect.cases is None for c in s.cases)


def test_every_case_runs_and_checks_under_its_own_name(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(TEXT)
    results = check_file(path)
    assert [(r.case, r.outcome) for r in results] == [(c, "PASS") for c in ("bfloat16-1x1x32x32", "bfloat16-1x1x32x64", "float32-1x1x32x32", "float32-1x1x32x64")]
    reports = run_paths([path], "current")
    assert [r.scenario for r in reports] == [f"m[{r.case}]" for r in results]


def test_the_bundled_seed_matrix_shows_the_stale_device_of_each_mesh():
    s = load(BUNDLED)
    assert len(s.cases) == 8
    for case in s.cases:
        report = run(case, "uniform-by-value")
        stale = {f.device for f in report.findings if f.kind.value == "stale" and f.tensor == "dst"}
        if case.case.startswith("bfloat8_b-row_major"):  # from_torch refuses it first, in every era
            assert "Only TILE layout" in report.error.message and not stale
        else:  # the eighth device of the mesh: row-major (1, 3) on 2x4, (0, 7) on 1x8
            assert stale == ({(1, 3)} if case.case.endswith("2x4") else {(0, 7)}), case.case
            assert report.expect.passed, report.expect.mismatches
        assert run(case, "reference").expect.passed, case.case


def test_the_matrix_and_its_placeholders_validate_against_the_schema():
    schema = json.loads(invoke(["schema"]).stdout)
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(yaml.safe_load(BUNDLED.read_text()))
    assert not validator.is_valid({**yaml.safe_load(TEXT), "matrix": {"Bad-Name": [1]}})


def _error(text: str) -> str:
    with pytest.raises(ScenarioError) as err:
        parse(text, Path("m.yaml"))
    line = str(err.value)
    assert "\n" not in line
    return line


def test_too_many_combinations_is_one_line_at_the_matrix():
    many = TEXT.replace("  shape: [[1, 1, 32, 32], [1, 1, 32, 64]]", "  shape: [" + ", ".join(["[1, 1, 32, 32]"] * 33) + "]")
    assert _error(many).startswith(f"m.yaml:4:3: matrix: 2 x 33 = 66 combinations; a matrix makes at most {MAX_CASES} cases")


@pytest.mark.parametrize("change, where, said", [
    (("dtype: $dtype, mesh", "dtype: $dtyp, mesh"), "8:47", "'$dtyp' names no matrix variable (did you mean 'dtype'?)"),
    (("x: {dtype: $dtype, shape: $shape}", "x: {shape: $shape}"), None, None),  # $dtype still used in the steps
    (("$dtype", "bfloat16"), "4:10", "'dtype' is used nowhere"),
    (("when: {dtype: float32}", "when: {dtype: float16}"), "13:21", "'float16' is none of dtype's values"),
    (("when: {dtype: float32}", "when: {dtyp: float32}"), "13:20", "'dtyp' is no matrix variable"),
    # a value a step refuses: said where the value is written in the matrix, naming the case
    (("dtype: [bfloat16, float32]", "dtype: [float33, float32]"), "4:11",
     "unknown value 'float33' (did you mean 'float32'?)"),
])
def test_a_matrix_mistake_is_one_line_at_its_place(change, where, said):
    text = TEXT.replace(*change)
    assert text != TEXT
    if where is None:
        parse(text, Path("m.yaml"))
        return
    line = _error(text)
    assert line.startswith(f"m.yaml:{where}: ") and said in line, line
    if "float33" in change[1]:
        assert line.endswith("(the value of $dtype in matrix case [float33-1x1x32x32])")


# -- bounded cost, bounded lines (issue 36's new-user trial: trial/adversarial-matrix-*.yaml) -----
def _never_built(monkeypatch):
    """Make building a case's document an error: a refusal must come before any is built."""
    import meshspec.scenario.matrix as matrix

    def built(*args):
        raise AssertionError("a case's document was built before the size was counted")

    monkeypatch.setattr(matrix, "_substitute", built)


def _steps(n: int, value: str = "$v") -> str:
    return "".join(f"  - from_torch: {{as: x{i}, shape: {value}}}\n" for i in range(n))


def test_a_case_whose_value_fills_in_too_large_is_refused_before_it_is_built(monkeypatch):
    from meshspec.scenario.loader import MAX_VALUES

    # 5,000 items written in 500 steps: 2.5 million values once filled in (the trial's 190,000
    # in 1,000 steps took 120 s and 1.8 GB before its first case was refused)
    text = "meshspec: 1\nmatrix: {v: [[" + ", ".join(["32"] * 5000) + "]]}\nmesh: n150\nsteps:\n" + _steps(500)
    _never_built(monkeypatch)
    line = _error(text)
    assert line.startswith("m.yaml:2:14: matrix.v[0]: case [") and f"at most {MAX_VALUES:,}" in line, line
    assert "$v is 5,001 values, written 500 times" in line and len(line) < 1000


def test_cases_too_large_together_are_refused_before_any_is_built(monkeypatch):
    # each case 40,000 values or so, 64 cases: 2.6 million together
    values = ", ".join("[" + ", ".join([str(i)] * 400) + "]" for i in range(64))
    text = f"meshspec: 1\nmatrix: {{v: [{values}]}}\nmesh: n150\nsteps:\n" + _steps(100)
    _never_built(monkeypatch)
    line = _error(text)
    assert line.startswith("m.yaml:2:9: matrix: its cases hold ") and "at most 2,000,000 in all" in line, line


def test_the_runs_a_matrix_asks_for_under_every_profile_are_bounded():
    from meshspec.scenario.matrix import MAX_RUNS
    from meshspec.sim.profiles import PROFILES

    own = MAX_RUNS // MAX_CASES - len(PROFILES) + 1  # one profile too many for 64 cases
    profiles = "".join(f"  p{i}: {{base: current}}\n" for i in range(own))
    values = ", ".join(str(32 * (i + 1)) for i in range(MAX_CASES))
    text = (f"meshspec: 1\nmatrix: {{a: [{values}]}}\nprofiles:\n{profiles}mesh: n150\nsteps:\n"
            "  - from_torch: {as: x, shape: [1, 1, 32, $a]}\n")
    runs = MAX_CASES * (len(PROFILES) + own)
    line = _error(text)
    assert line.startswith(f"m.yaml:2:9: matrix: 64 cases x {len(PROFILES) + own} profiles (meshspec's {len(PROFILES)} and "
                           f"{own} of the scenario's own) = {runs:,} runs under --profile all; a scenario asks for at most "
                           f"{MAX_RUNS:,} runs"), line
    assert runs > MAX_RUNS >= MAX_CASES * len(PROFILES)  # 64 cases with none of their own still load


def test_a_long_case_name_is_a_prefix_and_a_hash_and_the_error_line_stays_short():
    from meshspec.errors import MAX_LINE
    from meshspec.scenario.matrix import MAX_CASE_ID, case_id

    a, b = case_id({f"v{i}": 1 for i in range(100)}), case_id({**{f"v{i}": 1 for i in range(99)}, "v99": 2})
    assert a != b and a.startswith("1-1-1-") and len(a) == len(b) == 59 <= MAX_CASE_ID
    # 5,000 variables (each written somewhere), one refused: a 10,179-character line before
    names = [f"v{i}" for i in range(5000)]
    text = ("meshspec: 1\nmatrix: {" + ", ".join(f"{n}: [1]" for n in names) + "}\nmesh: n150\nsteps:\n"
            "  - from_torch: {as: x, shape: [1, 1, 32, 32], dtype: $v0, tile: [" + ", ".join(f"${n}" for n in names[1:]) + "]}\n")
    line = _error(text)
    assert len(line) <= MAX_LINE and "got 1 (the value of $v0 in matrix case [1-1-1-" in line, line
    # a mistake that lists the variables lists some of them
    line = _error(text.replace("dtype: $v0", "dtype: $w0"))
    assert len(line) <= MAX_LINE and "the matrix has v0, v1," in line and "and 4,980 more" in line, line
    assert len(str(ScenarioError("x" * 20_000, "m.yaml", 1, 1))) <= MAX_LINE  # any message: its middle cut


@pytest.mark.parametrize("command", [["export"], ["diff"]])
def test_export_and_diff_take_the_case_named_and_say_which_they_took_when_none_is(command, tmp_path):
    first = invoke([*command, str(BUNDLED)])
    assert first.exit_code in (0, 1), first.output
    assert "a matrix of 8 cases; " + command[0] + " takes the first, [bfloat16-tile-2x4]: --case NAME picks another" in first.stderr
    other = invoke([*command, str(BUNDLED), "--case", "bfloat16-tile-1x8"])
    assert "takes the first" not in other.stderr
    if command == ["export"]:  # the script of the case picked: its mesh is the 1x8 one
        assert "MESH_SHAPE = [1, 8]" in other.stdout and "MESH_SHAPE = [2, 4]" in first.stdout
    else:
        assert "[bfloat16-tile-1x8]" in other.stdout and "mesh 1x8" in other.stdout
    bad = invoke([*command, str(BUNDLED), "--case", "bfloat16-tile-1x9"])
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1
    assert "has no case 'bfloat16-tile-1x9' (did you mean 'bfloat16-tile-1x8'?); its cases: bfloat16-tile-2x4," in bad.stderr
    plain = Path(__file__).resolve().parents[2] / "scenarios" / "seed-uneven-copy.yaml"
    assert invoke([*command, str(plain), "--case", "x"]).exit_code == 2


def test_a_case_whose_value_holds_a_line_break_is_named_on_one_line(tmp_path):
    """A value used in free text (a description) may hold a newline; the case's name, printed
    beside every result, escapes it (the one rule for what meshspec prints: text.one_line)."""
    path = tmp_path / "m.yaml"
    path.write_text('meshspec: 1\nname: m\nmesh: [1, 2]\ndescription: $d\nmatrix:\n  d: ["one", "two\\nlines"]\n'
                    "steps:\n  - from_torch: {as: h, shape: [1, 1, 32, 32]}\n")
    assert [r.case for r in check_file(path)] == ["one", "two\\nlines"]
    result = invoke(["check", str(path), "-p", "current"])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 3, result.stdout
