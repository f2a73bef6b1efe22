"""meshspec import of one parametrized test's runs (a tracer folder a case, as pytest --trace-params
of each test_x[...] writes them) as one scenario with a matrix (meshspec/bridge/importer/matrix.py;
docs/semantics.md section 21)."""

import shutil
from pathlib import Path

import pytest

from cli_runner import invoke
from meshspec.bridge.importer import import_paths
from meshspec.errors import UsageError
from meshspec.runner import run
from meshspec.scenario.loader import load, parse

DATA = Path(__file__).parent / "data"


def _case(tmp_path: Path, name: str, **swap: str) -> Path:
    """tracer-example as another case of its test: the trace's words swapped as that case's
    parameters would have made them (every BFLOAT16 tensor a FLOAT32 one, say)."""
    folder = tmp_path / name
    shutil.copytree(DATA / "tracer-example", folder)
    for f in folder.glob("*.json"):
        text = f.read_text()
        for old, new in swap.items():
            text = text.replace(f'"{old}"', f'"{new}"')
        f.write_text(text)
    return folder


def _four(tmp_path: Path) -> list[Path]:
    """Two parameters: the dtype of tracer-example's TILE tensors (bfloat16 or bfloat8_b) and of its
    one ROW_MAJOR tensor (float32 or bfloat16)."""
    tile = {"DataType.BFLOAT16": "DataType.BFLOAT8_B"}
    rm = {"DataType.FLOAT32": "DataType.BFLOAT16"}  # after the TILE swap: only the row-major tensor
    return [_case(tmp_path, "test_x[bfloat16-float32]"),
            _case(tmp_path, "test_x[bfloat16-bfloat16]", **rm),
            _case(tmp_path, "test_x[bfloat8_b-float32]", **tile),
            _case(tmp_path, "test_x[bfloat8_b-bfloat16]", **tile, **rm)]


def test_the_runs_of_a_parametrized_test_become_one_matrix_scenario(tmp_path):
    imported = import_paths(_four(tmp_path))
    s = imported.scenario
    # one variable per set of values that differ alike, named after its key when first met: step 0 is the
    # row-major tensor (dtype), steps 1 and 2 the TILE ones, which share one variable (dtype_2)
    assert s["matrix"] == {"dtype": ["float32", "bfloat16"], "dtype_2": ["bfloat16", "bfloat8_b"]}
    steps = [next(iter(step.values())) for step in s["steps"]]
    assert steps[0]["dtype"] == "$dtype" and steps[1]["dtype"] == steps[2]["dtype"] == "$dtype_2"
    assert steps[1]["layout"] == "tile"  # the same in every run: written as it is
    loaded = parse(imported.text, tmp_path / "imported.yaml")
    assert [c.case for c in loaded.cases] == ["float32-bfloat16", "float32-bfloat8_b", "bfloat16-bfloat16", "bfloat16-bfloat8_b"]
    assert [c.steps[1].args.dtype.value for c in loaded.cases] == ["bfloat16", "bfloat8_b"] * 2
    assert all(run(c, "current").error is None for c in loaded.cases)


def test_runs_that_are_not_every_combination_are_refused_saying_which_is_missing(tmp_path):
    runs = _four(tmp_path)
    with pytest.raises(UsageError, match=r"not every combination .*dtype: 2 x dtype_2: 2: 4 combinations; none is "
                                         r"dtype=bfloat16, dtype_2=bfloat8_b\)"):
        import_paths(runs[:3])


def test_runs_of_other_steps_are_refused_where_they_part_ways(tmp_path):
    with pytest.raises(UsageError, match=r"^tracer-example and tracer-more part ways at steps"):
        import_paths([DATA / "tracer-example", DATA / "tracer-more"])


def test_the_command_line_writes_the_matrix_scenario(tmp_path):
    out = tmp_path / "imported.yaml"
    r = invoke(["import", *map(str, _four(tmp_path)[:2]), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert [c.case for c in load(out).cases] == ["float32", "bfloat16"]
