"""Issue 34, section 1: a scenario is data. Every script ``meshspec export`` writes keeps to the
whitelist of tests/script_whitelist.py (every bundled scenario, every scenario the tests hold, a
few hundred random hunt programs), and each attack the issue lists is refused or re-emitted
harmlessly: an opaque step's code is parsed into a whitelisted form and the script's line is
generated from it (meshspec/scenario/code.py), never the text copied and rewritten."""

import ast
import random
from pathlib import Path

import pytest

from meshspec.scenario import ttnn_api
from meshspec.scenario.code import Call, parse as parse_code
from meshspec.bridge.export import export
from meshspec.bridge.minimal import export_minimal
from meshspec.hunt.programs import VOCABULARY, generate
from meshspec.errors import ScenarioError
from meshspec.scenario import checks
from meshspec.scenario.loader import load, parse
from script_whitelist import minimal_problems, problems

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "real-tests").glob("*.yaml"))
HEAD = "meshspec: 1\nname: t\nmesh: t3k\nsteps:\n"


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_scenario_exports_inside_the_whitelist(path):
    scenario = load(path)
    assert problems(export(scenario)) == []
    assert minimal_problems(export_minimal(scenario)) == []  # and export --minimal (issue 37)


def _test_scenarios():
    """The scenarios the test modules hold: whole files as strings, step lists written as strings
    (given a header), and step lists written as Python data (a list of one-op mappings), each
    tried on a few meshes."""
    import yaml

    from meshspec.sim.ops import OPS

    found = []
    for module in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if "meshspec: 1" in text and "steps:" in text:
                    found.append([text])
                elif text.lstrip(" ").startswith("- ") and ": {" in text:
                    found.append([HEAD.replace("t3k", mesh) + text for mesh in MESHES])
            elif isinstance(node, ast.List) and node.elts and all(
                    isinstance(e, ast.Dict) and len(e.keys) == 1 and isinstance(e.keys[0], ast.Constant) and e.keys[0].value in OPS
                    for e in node.elts):
                try:
                    steps = ast.literal_eval(node)
                except ValueError:
                    continue
                found.append([yaml.safe_dump({"meshspec": 1, "name": "t", "mesh": yaml.safe_load(mesh), "steps": steps}, sort_keys=False)
                              for mesh in MESHES])
    return found


MESHES = ("t3k", "[1, 1]", "[2, 2]", "galaxy")


def test_every_scenario_the_tests_hold_exports_inside_the_whitelist():
    loaded = 0
    for texts in _test_scenarios():
        for text in texts:  # the first mesh it loads on
            try:
                scenario = parse(text, Path("t.yaml"))
            except Exception:  # a scenario a test means to be refused, a template, another mesh
                continue
            loaded += 1
            assert problems(export(scenario)) == [], text
            assert minimal_problems(export_minimal(scenario)) == [], text
            break
    assert loaded >= 80  # the collection found the tests' scenarios (91 when this was written)


def test_random_hunt_programs_export_inside_the_whitelist():
    meshes = [((2, 4), "t3k"), ((1, 1), [1, 1]), ((2, 2), [2, 2]), ((4, 8), "galaxy")]
    for k in range(300):
        rng = random.Random(f"export-whitelist:{k}")
        shape, mesh = rng.choice(meshes)
        program = generate(rng, shape, mesh, VOCABULARY)
        scenario = parse(program.text(), Path("hunt.yaml"))
        assert problems(export(scenario)) == [], program.text()
        assert minimal_problems(export_minimal(scenario)) == [], program.text()


def test_the_whitelist_catches_what_the_issue_lists():
    """The check is not vacuous: each kind of node the issue names is found."""
    text = export(parse(HEAD + "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n", Path("t.yaml")))
    assert problems(text) == []
    head = "def repro(mesh_device, files):\n"
    for line, word in [
        ("x = ttnn.os.system(1)", "not a known ttnn callable"),
        ("x = ttnn.add(a, ttnn.sys.copyright)", "not a known ttnn function, constant or class"),
        ("x = ttnn.add(a, __builtins__[0])", "a subscript of '__builtins__'"),
        ("x = ttnn.add(a, a.__dict__)", "a dunder attribute"),
        ("x = a(a)", "a call of 'a'"),
        ("x = a.pop(0)", "a call of an expression"),
        ("x = ttnn.add(a, 10 ** 10 ** 10)", "a power of other than two small literals"),
        ("x = ttnn.add(a, [0] * 10 ** 18)", "arithmetic on a list"),
        ("x = ttnn.add(a, 'touch /tmp/owned')", "a text literal"),
        ("import os", "a Import statement"),
    ]:
        got = problems(text.replace(head, head + "    " + line + "\n"))
        assert any(word in p for p in got), (line, got)
    assert any("not in export's template" in p for p in problems(text.replace("import os\n", "import os\nos.system('x')\n")))


# -- the attacks of issue 34, section 1 -----------------------------------------------------------
def _opaque(call: str, code: str, uses: list, more: tuple = ()) -> str:
    """A scenario: tensors for each use (a list for those in ``more``), then an opaque step."""
    steps = ""
    for u in uses:
        if u in more:
            steps += f"  - get_device_tensors: {{tensor: a, as: {u!r}}}\n"
        elif u != "a":
            steps += f"  - allocate_tensor_on_device: {{as: {u!r}, shape: [1, 1, 32, 32]}}\n"
    return (HEAD + "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n" + steps
            + f"  - opaque: {{as: out, call: {call}, uses: {uses!r}, shape: [1, 1, 32, 32], code: {code!r},\n"
            "      topology: {distribution_shape: [2, 4], placements: [R, R], coords: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}}\n")


def _repro_node(text: str) -> ast.FunctionDef:
    return next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == "repro")


def _words(text: str) -> set:
    """Every name and attribute repro() holds."""
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(_repro_node(text)) if isinstance(n, (ast.Name, ast.Attribute))}


def _calls(text: str) -> list[str]:
    """The functions repro() calls, as source text."""
    return [ast.unparse(n.func) for n in ast.walk(_repro_node(text)) if isinstance(n, ast.Call)]


@pytest.mark.parametrize("call, code, uses, more, why", [
    # a list named like ttnn's namespace: the regex made ttnn.experimental.pop(n) a method call on it
    ("ttnn.experimental.pop", "out = ttnn.experimental.pop(a)", ["a", "ttnn.experimental"], ("ttnn.experimental",),
     "ttnn.experimental.pop is not a ttnn function"),
    ("ttnn.experimental.insert", "out = ttnn.experimental.insert(a, 0, a)", ["a", "ttnn.experimental"], ("ttnn.experimental",),
     "ttnn.experimental.insert is not a ttnn function"),
    # a string spelt from ttnn.sys.copyright, an index from ttnn.is_sharded
    ("ttnn.add", "out = ttnn.add(a, ttnn.sys.copyright[ttnn.is_sharded(a)])", ["a", "ttnn.sys"], (),
     "the attribute ttnn.sys.copyright"),
    ("ttnn.run", "out = ttnn.run(a)", ["a", "ttnn.run"], (), "ttnn.run is not a ttnn function"),
    # ttnn's module holds what it imports: neither is a ttnn op
    ("ttnn.ModuleType", "out = ttnn.ModuleType(a)", ["a"], (), "ttnn.ModuleType is not a ttnn function"),
    ("ttnn.os", "out = ttnn.os(a)", ["a"], (), "ttnn.os is not a ttnn function"),
    ("ttnn.add", "out = ttnn.add(a, ttnn.os.system)", ["a"], (), "the attribute ttnn.os.system"),
    # a power that does not end
    ("ttnn.add", "out = ttnn.add(a, 10**10**10)", ["a"], (), "a power of other than two literals"),
    ("ttnn.add", "out = ttnn.add(a, 2**65)", ["a"], (), "a power with an exponent other than 0 to 64"),
    ("ttnn.add", "out = ttnn.add(a, [0] * 10**18)", ["a"], (), "arithmetic on [0], not a number"),
    ("ttnn.add", "out = ttnn.add(a, 10**400)", ["a"], (), "a power with an exponent"),
    ("ttnn.add", "out = ttnn.add(a, " + "9" * 30 + ")", ["a"], (), "an integer of 30 digits"),
    # _-dict-_ is a subtraction to Python's parser, and was made a.__dict__ by the rewrite
    ("ttnn.add", "out = ttnn.add(a, a._-dict-_)", ["a", "_-dict-_", "dict", "_"], (), "the attribute a._"),
    # the call that runs is the step's call
    ("ttnn.add", "out = ttnn.sub(a, a)", ["a"], (), "it does not call ttnn.add, the step's call"),
    ("ttnn.add", "out = ttnn.add(a, ttnn.sub(a, a))", ["a"], (), "a call of ttnn.sub, not of a ttnn config class"),
    ("ttnn.add", "out = ttnn.add(a, lambda: 0)", ["a"], (), "a Lambda expression"),
    ("ttnn.add", "out = ttnn.add(a, **a)", ["a"], (), "a ** argument"),
    ("ttnn.add", "out = ttnn.add(a, a.shape.__class__)", ["a"], (), "the attribute a.shape.__class__"),
    ("ttnn.add", "out = ttnn.add(a, a.buffer_address)", ["a"], (), "the attribute a.buffer_address"),
])
def test_each_attack_is_not_run_and_says_why_in_one_line(call, code, uses, more, why, monkeypatch):
    """The loader refuses each at the code itself (a scenario is data); and export's own guard,
    for a scenario made without the loader, does not run it either and says why."""
    text = _opaque(call, code, uses, more)
    with pytest.raises(ScenarioError) as err:
        parse(text, Path("t.yaml"))
    assert why in err.value.message and "opaque.code: not a line an exported script runs" in err.value.message
    assert (err.value.line, "\n" in str(err.value)) == (text.count("\n") - 1, False)
    monkeypatch.setattr(checks, "check_code", lambda *args: None)
    text = export(parse(text, Path("t.yaml")))
    assert problems(text) == []
    lines = [line for line in text.splitlines() if "the scenario's code for this step is not run here" in line]
    assert len(lines) == 1 and why in lines[0], lines
    assert "out = ttnn.allocate_tensor_on_device(" in text
    words = _words(text)
    assert not {"pop", "insert", "copyright", "__dict__", "sys", "os", "run", "ModuleType"} & words, words


def test_a_use_named_like_the_call_does_not_become_the_call(monkeypatch):
    """A tensor named ``ttnn.add``: the rewrite made ``ttnn.add(a, a)`` a call of the local
    ``ttnn_add``; now the call is generated from the step's declared call, and a name that is no
    identifier cannot be named in code at all (``ttnn.add`` there is ttnn's function)."""
    text = export(parse(_opaque("ttnn.add", "out = ttnn.add(a, a)", ["a", "ttnn.add"]), Path("t.yaml")))
    assert problems(text) == []
    assert "    out = ttnn.add(a, a)\n" in text
    assert "ttnn.add" in _calls(text) and "ttnn_add" not in _calls(text)
    with pytest.raises(ScenarioError, match="the attribute ttnn.add"):
        parse(_opaque("ttnn.add", "out = ttnn.add(a, ttnn.add)", ["a", "ttnn.add"]), Path("t.yaml"))
    monkeypatch.setattr(checks, "check_code", lambda *args: None)  # export's own guard
    text = export(parse(_opaque("ttnn.add", "out = ttnn.add(a, ttnn.add)", ["a", "ttnn.add"]), Path("t.yaml")))
    assert "not run here: the attribute ttnn.add (not a ttnn constant" in text and "ttnn_add" not in _calls(text)


def test_a_use_named_e_5_leaves_a_float_literal_alone():
    """``1.e-5`` holds the text ``e-5``: the rewrite made it ``1.e_5`` (a SyntaxError)."""
    text = export(parse(_opaque("ttnn.add", "out = ttnn.add(a, 1.e-5)", ["a", "e-5"]), Path("t.yaml")))
    assert problems(text) == []
    assert "    out = ttnn.add(a, 1e-05)\n" in text


def test_a_use_named_dict_between_underscores_is_no_dunder_variable():
    text = export(parse(HEAD + "  - allocate_tensor_on_device: {as: _-dict-_, shape: [1, 1, 32, 32]}\n", Path("t.yaml")))
    assert problems(text) == [] and not any(w.startswith("__") and w.endswith("__") for w in _words(text))


def test_the_generated_call_is_the_declared_call_on_the_scripts_variables():
    code = ("out = ttnn.experimental.all_gather_async(x, dim=3, memory_config=ttnn.MemoryConfig(ttnn.TensorMemoryLayout.INTERLEAVED), "
            "topology=ttnn.Topology.Linear, num_links=x.shape[-1] // 32 + (2**4 - 16), scale=-1.5, flags={1: [True, None]})")
    text = export(parse(_opaque("ttnn.experimental.all_gather_async", code, ["a", "x"]), Path("t.yaml")))
    assert problems(text) == []
    line = next(line for line in text.splitlines() if "all_gather_async(" in line and "=" in line)
    assert line.strip() == ("out = ttnn.experimental.all_gather_async(x, dim=3, memory_config=ttnn.MemoryConfig("
                            "ttnn.TensorMemoryLayout.INTERLEAVED), topology=ttnn.Topology.Linear, num_links=x.shape[-1] // 32 + "
                            "(2 ** 4 - 16), scale=-1.5, flags={1: [True, None]})")


def test_names_that_are_not_identifiers_cannot_be_named_in_code():
    """A use ``dst.cpu`` is a tensor, but in code ``dst.cpu`` is an attribute of ``dst``: refused."""
    got = parse_code("out = ttnn.add(dst.cpu)", "ttnn.add", ["dst.cpu"])
    assert got == "its first argument is not one of the step's tensors"


def test_parsing_is_bounded():
    deep = "out = ttnn.add(a, " + "[" * 50 + "]" * 50 + ")"
    assert "more than 12 deep" in parse_code(deep, "ttnn.add", ["a"])
    wide = "out = ttnn.add(a, [" + ", ".join(["1"] * 300) + "])"
    assert "more than 200 values" in parse_code(wide, "ttnn.add", ["a"])
    assert "more than 2,000" in parse_code("out = ttnn.add(a, " + " " * 3000 + ")", "ttnn.add", ["a"])


def test_a_reason_is_one_line_whatever_the_code():
    got = parse_code("out = ttnn.add(a, b\u2028)", "ttnn.add", ["a"])
    assert "\n" not in got and "\u2028" not in got
    got = parse_code("out = ttnn.add(a, x\n)", "ttnn.add", ["a"])
    assert got == "the name 'x', not one of the step's tensors"


def test_the_recorded_lists_hold_real_ops_and_not_what_ttnn_imports():
    assert {"ttnn.add", "ttnn.to_layout", "ttnn.experimental.all_gather_async", "ttnn.get_device_tensors"} <= ttnn_api.FUNCTIONS
    assert not {"ttnn.os", "ttnn.sys", "ttnn.ModuleType", "ttnn.json", "ttnn.dump_tensor", "ttnn.load_tensor",
                "ttnn.experimental.pop", "ttnn.save_config_to_json_file"} & (ttnn_api.FUNCTIONS | ttnn_api.CONFIG_CLASSES)
    assert {"ttnn.bfloat16", "ttnn.TILE_LAYOUT", "ttnn.Topology.Linear", "ttnn.DRAM_MEMORY_CONFIG"} <= ttnn_api.CONSTANTS
    assert all(not any(p.startswith("_") for p in n.split(".")) for n in ttnn_api.FUNCTIONS | ttnn_api.CONSTANTS | ttnn_api.CONFIG_CLASSES)


def test_record_and_export_take_the_same_lines():
    """record keeps a program's line only when export would run it (one parse, the same reasons)."""
    from meshspec.bridge.record import _portable

    assert _portable("out = ttnn.add(a, a)", "ttnn.add", ["a"]) == "out = ttnn.add(a, a)"
    assert _portable("out = ttnn.os(a)", "ttnn.os", ["a"]) is None
    assert isinstance(parse_code("out = ttnn.add(a, a)", "ttnn.add", ["a"]), Call)


@pytest.mark.parametrize("source", ["tracer-example", "tracer-more", "tracer-unmapped", "graph-example.json", "graph-more.json",
                                    "graph-unmapped.json"])
def test_imported_scenarios_export_inside_the_whitelist(source):
    """import's opaque steps (a call the trace shows but meshspec does not map) carry no code: they
    reach the script through the same opaque emitter, as a tensor with the traced records."""
    from meshspec.bridge.importer import import_path

    imported = import_path(Path(__file__).resolve().parent / "data" / source)
    scenario = parse(imported.text, Path("imported.yaml"))
    text = export(scenario)
    assert problems(text) == []
    assert minimal_problems(export_minimal(scenario)) == []
    ops = {next(iter(s)) for s in imported.scenario["steps"]}
    if "opaque" in ops:
        assert "is not modeled by meshspec: put the call here" in text
