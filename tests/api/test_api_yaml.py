"""A scenario built in Python and one loaded from YAML are one object; either writes YAML that loads back equal."""

from pathlib import Path

import pytest
import yaml

import meshspec
from meshspec.api.builder import Builder, UnknownOp
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import LoadedScenario, load, parse
from meshspec.scenario.write import to_yaml
from meshspec.sim.ops import OPS

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "scenarios").glob("*.yaml"))
HERE = Path(__file__).name


def _placeless(s: LoadedScenario) -> LoadedScenario:
    """``s`` without the lines its steps were on (text written anew puts them elsewhere)."""
    return s.replace(steps=tuple(step.replace(line=0) for step in s.steps), cases=tuple(_placeless(c) for c in s.cases))


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_every_bundled_scenario_writes_yaml_that_loads_back_equal(path):
    scenario = load(path)
    text = to_yaml(scenario)
    again = parse(text, path)  # the same place: its data files are found as the file's are
    assert _placeless(again) == _placeless(scenario)
    assert to_yaml(again) == text  # and writes the same text


def test_a_matrix_is_written_as_its_matrix_and_a_case_as_a_plain_scenario():
    matrix = load(ROOT / "scenarios" / "seed-uneven-copy-matrix.yaml")
    written = yaml.safe_load(to_yaml(matrix))
    assert written["matrix"] == {"dtype": ["bfloat16", "bfloat8_b"], "layout": ["tile", "row_major"], "mesh": [[2, 4], [1, 8]]}
    assert written["steps"][0]["from_torch"]["dtype"] == "$dtype"
    case = yaml.safe_load(to_yaml(matrix.cases[6]))
    assert "matrix" not in case and case["mesh"] == {"system": "t3k", "shape": [2, 4]}
    assert case["steps"][0]["from_torch"]["dtype"] == "bfloat8_b" and case["steps"][0]["from_torch"]["layout"] == "row_major"


def _seed() -> Builder:
    """seed-uneven-copy.yaml's steps, built in Python."""
    s = Builder(mesh="t3k", name="seed-uneven-copy", profile="uniform-by-value")
    dst = s.allocate_tensor_on_device(as_="dst", shape=(1, 1, 32, 32), dtype="bfloat16", layout="tile")
    src = s.from_torch(as_="src", shape=(1, 7, 32, 32), dtype="bfloat16", layout="tile", mesh_mapper={"shard": 1})
    s.copy_host_to_device_tensor(src=src, dst=dst)
    s.to_torch(tensor=dst, mesh_composer={"concat": 1})
    return s


def test_a_built_scenario_is_a_loaded_scenario_and_runs_as_the_file_does(monkeypatch):
    built = _seed().build()
    assert type(built) is LoadedScenario
    monkeypatch.chdir(ROOT)
    file = load("scenarios/seed-uneven-copy.yaml")
    assert built.steps == tuple(s.replace(line=b.line) for s, b in zip(file.steps, built.steps))  # the same steps, arguments and all
    report, expected = meshspec.run(built), meshspec.run("scenarios/seed-uneven-copy.yaml")
    for r in (report, expected):
        r.pop("path"), r.pop("description", None), r.pop("expect", None)  # the file has a description and an expect block; the Python one has neither
        for step in r["steps"]:
            del step["line"]
    assert report == expected
    assert [(f["kind"], f["device"]) for f in report["findings"]] == [("stale", [1, 3]), ("data_mismatch", [1, 3])]


def test_a_built_scenario_writes_yaml_that_loads_back_equal():
    s = _seed()
    s.expect(profiles={"uniform-by-value": {"findings": [{"kind": "stale", "tensor": "dst", "device": (1, 3)},
                                                         {"kind": "data_mismatch", "tensor": "dst"}]}})
    built = s.build()
    text = meshspec.to_yaml(s)
    assert text == to_yaml(built)
    assert parse(text, built.path) == built  # the builder's steps are on the lines the text puts them
    assert text.splitlines()[:5] == ["meshspec: 1", "name: seed-uneven-copy", "mesh: t3k", "profile: uniform-by-value", "steps:"]
    assert "  - from_torch: {as: src, shape: [1, 7, 32, 32], dtype: bfloat16, layout: tile, mesh_mapper: {shard: 1}}" in text
    assert built.expect is not None and meshspec.run(s)["expect"]["passed"] is True


def test_a_step_that_binds_returns_the_name_and_names_one_it_must_bind():
    s = Builder(mesh=(1, 2))
    t = s.allocate_tensor_on_device(shape=(1, 1, 32, 32))
    assert t == "t0"
    assert s.neg(tensor=t, as_="n") == "n"
    assert s.to_torch(tensor="n") is None  # as is optional there: nothing bound, nothing named
    assert [st.op for st in s.build().steps] == ["allocate_tensor_on_device", "neg", "to_torch"]


def test_mesh_and_system():
    assert Builder(mesh=(1, 8), system="t3k").document["mesh"] == {"system": "t3k", "shape": [1, 8]}
    s = Builder(mesh=(1, 8), system="t3k")
    s.from_torch(as_="x", shape=(1, 1, 32, 32))
    assert s.build().mesh_shape == (1, 8) and s.build().mesh_name == "t3k"


def test_an_unknown_op_is_the_loaders_error_where_it_was_named():
    s = Builder(mesh="t3k")
    s.from_torch(as_="x", shape=(1, 1, 32, 32))
    with pytest.raises(UnknownOp) as raised:
        s.frm_torch(as_="y")
    line = raised.traceback[-1].lineno  # not this test's line: the error's own place, checked below
    err = raised.value
    assert isinstance(err, ScenarioError) and isinstance(err, AttributeError)
    assert err.file.endswith(HERE) and err.line is not None and err.line != line
    text = str(err)
    assert "steps[1]: unknown step 'frm_torch' (did you mean 'from_torch'?); one of: allocate_tensor_on_device, from_torch" in text
    assert text.startswith(f"{err.file}:{err.line}: ") and "\n" not in text
    assert not hasattr(s, "frm_torch")
    assert len(s.document["steps"]) == 1  # nothing was added


def test_an_error_names_the_python_line_that_added_the_step():
    s = Builder(mesh="t3k")
    s.from_torch(as_="src", shape=(1, 1, 32, 32))
    with pytest.raises(ScenarioError) as raised:
        s.to_torch(tensor="scr")  # the line named
    import inspect

    here = inspect.currentframe().f_lineno - 3
    assert (raised.value.file, raised.value.line) == (__file__, here)
    assert raised.value.message == "steps[1].to_torch.tensor: unknown tensor 'scr' (did you mean 'src'?); defined so far: src"


@pytest.mark.parametrize("op, args, words", [
    ("from_torch", {"as_": "y", "shape": (1, 1, 32, 32), "dtype": "bfloat61"},
     "steps[1].from_torch.dtype: unknown value 'bfloat61' (did you mean 'bfloat16'?); expected one of bfloat16, float32"),
    ("from_torch", {"as_": "y", "shap": (1, 1, 32, 32)}, "unknown key 'shap' in steps[1].from_torch (did you mean 'shape'?); valid keys:"),
    ("from_torch", {"as_": "y", "shape": object()}, "object <object object at"),
])
def test_a_bad_argument_is_the_loaders_one_line(op, args, words):
    s = Builder(mesh="t3k")
    s.from_torch(as_="x", shape=(1, 1, 32, 32))
    with pytest.raises(ScenarioError) as raised:
        s.step(op, **args)
    assert words in str(raised.value) and "\n" not in str(raised.value)
    assert [next(iter(st)) for st in s.document["steps"]] == ["from_torch"]


def test_a_bad_mesh_is_said_at_the_first_step():
    s = Builder(mesh="t3j")
    with pytest.raises(ScenarioError, match=r"mesh: unknown system 't3j' \(did you mean 't3k'\?\); one of: n150"):
        s.from_torch(as_="x", shape=(1, 1, 32, 32))


def test_an_empty_builder_says_what_to_add():
    with pytest.raises(ScenarioError, match="has no steps yet"):
        Builder(mesh="t3k").build()


def test_every_op_with_a_python_name_is_a_method():
    s = Builder(mesh="t3k")
    named = [op for op in OPS if op.isidentifier()]
    assert len(named) == len(OPS) - 1  # MeshDevice.reshape alone is step("MeshDevice.reshape", ...)
    for op in named:
        assert getattr(s, op).__name__ == op and getattr(s, op).__doc__ == OPS[op].doc


def test_blocks_are_written_as_written_and_load_back_equal():
    text = """meshspec: 1
mesh: t3k
steps:
  - distribute:
      mesh_mapper: {shard: 1}
      steps:
        - from_torch: {as: src, shape: [1, 8, 32, 32]}
  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
  - repeat:
      times: 3
      steps:
        - copy_host_to_device_tensor: {src: src, dst: dst}
"""
    scenario = parse(text, "blocks.yaml")
    assert [s.op for s in scenario.steps] == ["from_torch", "allocate_tensor_on_device", *["copy_host_to_device_tensor"] * 3]
    written = to_yaml(scenario)
    assert "  - repeat: {times: 3, steps: [{copy_host_to_device_tensor: {src: src, dst: dst}}]}" in written  # not three copies
    assert written.count("distribute:") == 1
    assert _placeless(parse(written, "blocks.yaml")) == _placeless(scenario)


@pytest.mark.parametrize("description", ["hello", "a: colon and # hash", "x " * 80, "two\nlines"])
def test_a_description_of_any_length_writes_and_loads_back(description, tmp_path):
    """Every bundled description is long or multi-line; a one-line one was written as a flow mapping
    ({description: hello}), which is no key at all and no YAML the loader takes."""
    b = Builder(mesh="t3k", description=description)
    b.allocate_tensor_on_device(as_="d", shape=(1, 1, 32, 32))
    text = to_yaml(b)
    assert yaml.safe_load(text)["description"] == description
    again = parse(text, tmp_path / "s.yaml")
    assert again.document == b.build().document and again.description == description
