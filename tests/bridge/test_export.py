"""meshspec export --to ttnn (meshspec/bridge/export.py): every op has an emitter, every bundled
scenario exports to a script that compiles, and names become variables that shadow nothing. The
scripts are run against the real ttnn in the ttnn tier (tests_ttnn/), not here."""

import ast
import os
import sys
from pathlib import Path

import pytest

from meshspec.bridge.export import export
from cli_runner import invoke
from meshspec.scenario.loader import load, parse
from meshspec.sim.ops import OPS

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "real-tests").glob("*.yaml"))


def test_every_op_has_an_emitter():
    # each op's export is its own (Op.export), next to how it runs
    assert [name for name, op in OPS.items() if op.export is None] == []


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_scenarios_export_to_scripts_that_compile(path):
    scenario = load(path)
    text = export(scenario)
    tree = ast.parse(text)
    repro = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "repro")
    assert repro.args.args[0].arg == "mesh_device"
    # one marker per step, in order, naming the op and the scenario line
    for step in scenario.steps:
        assert f"    step({step.index})  # {step.op} (scenario line {step.line})\n" in text
    assert f"MESH_SHAPE = {list(scenario.mesh_shape)}" in text


def _scenario(steps: str, mesh: str = "t3k"):
    return parse(f"meshspec: 1\nname: names\nmesh: {mesh}\nsteps:\n{steps}", Path("names.yaml"))


def test_names_that_would_shadow_the_scripts_own_become_other_variables():
    s = _scenario(
        "  - from_torch: {as: host_tensor, shape: [1, 1, 32, 32]}\n"
        "  - to_device: {src: host_tensor, as: np}\n"
        "  - cpu: {tensor: np, as: list}\n"
    )
    text = export(s)
    assert "    host_tensor_ = host_tensor(" in text  # the helper stays callable
    assert "    np_ = ttnn.to_device(host_tensor_" in text or "np_ = " in text
    assert "list_ = " in text
    names = ast.literal_eval(text.split("NAMES = ", 1)[1].split("\n", 1)[0])
    assert names == {"host_tensor": "host_tensor_", "np": "np_", "list": "list_"}


def test_a_one_d_distribution_shape_is_a_list_for_mesh_shape():
    # ttnn 0.81.1: MeshShape(7) is "incompatible function arguments"; MeshShape([7]) is the 1-D shape
    s = _scenario(
        "  - allocate_tensor_on_device: {as: t, shape: [1, 1, 32, 32]}\n"
        "  - update_tensor_topology: {tensor: t, topology: {distribution_shape: [7], placements: [{shard: 1}], coords: [[0, 0]]}}\n"
    )
    assert ("ttnn.TensorTopology(distribution_shape=ttnn.MeshShape([7]), placements=[ttnn.PlacementShard(1)], "
            "mesh_coords=[ttnn.MeshCoordinate(0, 0)])") in export(s)


def test_creation_without_a_memory_config_leaves_it_to_ttnn():
    # ttnn 0.81.1 refuses memory_config=None for ttnn.empty/zeros ("incompatible function arguments")
    s = _scenario("  - zeros: {shape: [1, 1, 32, 32], device: mesh_device, as: z}\n")
    line = next(line for line in export(s).splitlines() if "ttnn.zeros(" in line)
    assert "memory_config" not in line and "device=mesh_device" in line


def test_data_files_are_read_relative_to_the_script(tmp_path):
    import numpy as np

    np.save(tmp_path / "x.npy", np.zeros((1, 1, 32, 32), dtype=np.float32))
    (tmp_path / "s.yaml").write_text("meshspec: 1\nname: d\nmesh: t3k\nsteps:\n  - from_torch: {as: a, shape: [1, 1, 32, 32], data: {file: x.npy}}\n")
    s = load(tmp_path / "s.yaml")
    assert "here = Path(__file__).resolve().parent  #" in export(s)
    assert "here = Path(__file__).resolve().parent / '..' / 'data'  #" in export(s, data_dir="../data")
    assert "np.load(here / 'x.npy')" in export(s)


def test_cli_writes_the_script_and_refuses_an_unknown_target(tmp_path):
    out = tmp_path / "repro.py"
    r = invoke(["export", str(ROOT / "scenarios" / "seed-uneven-copy.yaml"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    compile(out.read_text(), str(out), "exec")
    r = invoke(["export", str(ROOT / "scenarios" / "seed-uneven-copy.yaml"), "--to", "jax"])
    assert r.exit_code == 2 and "--to 'jax'" in r.output and "ttnn" in r.output


def test_the_script_run_without_ttnn_says_so_in_one_line(tmp_path):
    """Run by a Python without ttnn (a laptop's), the script names what it lacks and where to run it."""
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("ttnn") is not None:
        pytest.skip("this Python has ttnn: the script would run for real (the ttnn tier runs it)")
    out = tmp_path / "repro.py"
    r = invoke(["export", str(ROOT / "scenarios" / "seed-uneven-copy.yaml"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    res = subprocess.run([sys.executable, str(out)], capture_output=True, text=True, check=False)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr == (f"{out}: this script runs on ttnn (tt-metal), and this Python ({sys.executable}) has no 'ttnn': "
                          "run it in the environment where ttnn is installed (hardware, or the mock on a CPU)\n")


def test_export_never_writes_over_the_scenario(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text((ROOT / "scenarios" / "seed-uneven-copy.yaml").read_text())
    before = scenario.read_bytes()
    r = invoke(["export", str(scenario), "-o", str(scenario)])
    assert r.exit_code == 2 and "refusing to overwrite" in r.output and scenario.read_bytes() == before


def test_a_description_with_backslashes_and_triple_quotes_exports_to_a_script_that_compiles():
    s = parse('meshspec: 1\nname: d\ndescription: \'recorded from C:\\Users\\N150\\runs, see """this"""\'\nmesh: t3k\nsteps:\n'
              "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n", Path("d.yaml"))
    text = export(s)  # export compiles what it writes
    assert ast.get_docstring(ast.parse(text)).count("C:\\Users\\N150") == 1


OPAQUE = (
    "  - allocate_tensor_on_device: {{as: a, shape: [1, 1, 32, 32]}}\n"
    "  - opaque: {{as: out, call: {call}, uses: [a], shape: [1, 1, 32, 32], code: {code},\n"
    "      topology: {{distribution_shape: [2, 4], placements: [R, R], coords: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}}}}\n"
)


@pytest.mark.parametrize("call, code, why", [
    ("ttnn.add", "\"out = ttnn.add(a, a); ttnn.__dict__['__builtins__']['exec']('import os')\"", "it is 2 statements, not one"),
    ("ttnn.add", "\"out = ttnn.add(a, ().__class__.__base__.__subclasses__())\"", "a call of an expression"),
    ("ttnn.add", "\"out = ttnn.add(a, a)\\nimport os\"", "it is 2 statements, not one"),
    ("ttnn.add", "\"out = ttnn.add(a, a\"", "it is not Python"),
    ("ttnn.os.system", "\"out = ttnn.os.system('touch /tmp/owned')\"", "ttnn.os.system is not a ttnn function an exported script runs"),
    ("ttnn.add", "\"out = ttnn.add(a, ttnn.subprocess.Popen(['touch', '/tmp/owned']))\"", "a call of ttnn.subprocess.Popen, not of a ttnn config class"),
])
def test_an_opaque_steps_code_is_run_only_when_it_is_plainly_the_steps_own_call(call, code, why, monkeypatch):
    """A scenario is text anyone can write, and the exported script runs on a machine with
    hardware: its opaque code is written into the script only when it is one call of the step's
    ttnn op on the step's tensors and ttnn's constants (meshspec/scenario/code.py). The loader
    refuses any other code where it stands; and export's own guard, for a scenario made without
    the loader, makes a tensor with the recorded records and says why, never quoting the text."""
    from meshspec.errors import ScenarioError
    from meshspec.scenario import checks

    with pytest.raises(ScenarioError, match="opaque.code: not a line an exported script runs") as err:
        _scenario(OPAQUE.format(call=call, code=code))
    assert why in err.value.message and err.value.line == 6
    monkeypatch.setattr(checks, "check_code", lambda *args: None)
    text = export(_scenario(OPAQUE.format(call=call, code=code)))
    compile(text, "repro.py", "exec")  # it was an IndentationError or a SyntaxError for some
    assert f"# the scenario's code for this step is not run here: {why}" in text
    body = text.split("def repro", 1)[1]
    assert "import os" not in body and "owned" not in text and "__subclasses__" not in text and "exec" not in body
    assert "out = ttnn.allocate_tensor_on_device(" in text


def test_an_opaque_steps_own_call_on_its_tensors_is_written_back():
    code = "\"out = ttnn.experimental.all_gather_async(a, dim=3, memory_config=ttnn.MemoryConfig(ttnn.TensorMemoryLayout.INTERLEAVED), topology=ttnn.Topology.Linear)\""
    text = export(_scenario(OPAQUE.format(call="ttnn.experimental.all_gather_async", code=code)))
    assert "    out = ttnn.experimental.all_gather_async(a, dim=3, memory_config=ttnn.MemoryConfig(" in text


def test_a_file_name_stays_inside_the_scripts_own_folder():
    """In a scenario, dumped files live in the run; a script writes them into its temporary folder,
    whatever path the scenario names (an absolute one, or one climbing out with ..)."""
    text = export(_scenario(
        "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"
        "  - dump_tensor: {tensor: a, file_name: /root/.bashrc}\n"
        "  - load_tensor: {file_name: /root/.bashrc, as: b}\n"
        "  - dump_tensor: {tensor: a, file_name: ../../x.bin}\n"
    ))
    assert "ttnn.dump_tensor(files / '%2Froot%2F.bashrc', a)" in text and "ttnn.load_tensor(files / '%2Froot%2F.bashrc')" in text
    assert "ttnn.dump_tensor(files / '%2E.%2F..%2Fx.bin', a)" in text and "/root/" not in text.split("def repro", 1)[1]


def test_an_opaque_call_name_is_a_dotted_name():
    with pytest.raises(Exception, match="a dotted name such as ttnn.add"):
        _scenario(OPAQUE.format(call="\"ttnn.add\\nimport os\"", code="x"))


@pytest.mark.parametrize("call, code, uses, why", [
    # a call on a path or a config, not on the step's tensors (ttnn/__init__.py exports these)
    ("ttnn.save_config_to_json_file", "\"out = ttnn.save_config_to_json_file('/tmp/owned')\"", "[a]", "ttnn.save_config_to_json_file is not a ttnn function"),
    ("ttnn.add", "\"out = ttnn.add(ttnn.bfloat16, a)\"", "[a]", "its first argument is not one of the step's tensors"),
    ("ttnn.add", "\"out = ttnn.add(a, '/tmp/owned')\"", "[a]", "a text literal"),
    # Python reads a fullwidth name as the ASCII one: the tensor 'exec' would be the builtin exec
    ("ttnn.add", "\"out = ttnn.add(a, ｅｘｅｃ)\"", "[a, exec]", "it is not ASCII"),
])
def test_an_opaque_call_on_anything_but_the_steps_tensors_is_not_run(call, code, uses, why, monkeypatch):
    from meshspec.errors import ScenarioError
    from meshspec.scenario import checks

    steps = OPAQUE.format(call=call, code=code).replace("uses: [a]", f"uses: {uses}")
    if "exec" in uses:
        steps = "  - allocate_tensor_on_device: {as: exec, shape: [1, 1, 32, 32]}\n" + steps
    with pytest.raises(ScenarioError, match="opaque.code: not a line an exported script runs"):
        _scenario(steps)
    monkeypatch.setattr(checks, "check_code", lambda *args: None)  # export's own guard
    text = export(_scenario(steps))
    assert f"# the scenario's code for this step is not run here: {why}" in text
    assert "owned" not in text and "ｅｘｅｃ" not in text


def test_a_non_finite_fill_is_written_as_python_that_means_it():
    """repr(float('nan')) is the bare name nan: a NameError in the script, or a tensor of that name."""
    text = export(_scenario(
        "  - full: {as: f, shape: [1, 1, 32, 32], fill_value: .nan}\n"
        "  - from_torch: {as: h, shape: [1, 1, 32, 32], dtype: float32, data: {fill: -.inf}}\n"
    ))
    assert "fill_value=float('nan')" in text and "np.full((1, 1, 32, 32), -float('inf'), dtype=np.float64)" in text
    compile(text, "repro.py", "exec")


def test_a_pad_value_no_float_can_hold_is_refused_where_it_is_written():
    from meshspec.errors import ScenarioError

    with pytest.raises(ScenarioError, match="pad.value: an integer of 401 digits is too large for a float"):
        _scenario("  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"
                  "  - pad: {as: p, tensor: a, padding: [[0, 0], [0, 32]], value: 1" + "0" * 400 + "}\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_the_script_writes_its_report_through_a_fifo_and_records_only_a_regular_file(tmp_path, monkeypatch):
    """write_report records what it wrote so the next run may replace it (meshspec/written.py);
    it never reads its output back: a FIFO or /dev/stdout would block it for ever."""
    import threading
    import types

    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setitem(sys.modules, "ttnn", types.ModuleType("ttnn"))  # the script's functions, without the library
    script = tmp_path / "repro.py"
    script.write_text(export(load(ROOT / "scenarios" / "seed-uneven-copy.yaml")))
    namespace = {"__name__": "repro", "__file__": str(script)}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    writer = threading.Thread(target=namespace["write_report"], args=({"format": "meshspec.report/1"}, str(fifo)), daemon=True)
    writer.start()
    writer.join(timeout=10)
    reader.join(timeout=10)
    assert not writer.is_alive() and got == ['{\n "format": "meshspec.report/1"\n}\n']
    regular = tmp_path / "real.json"
    namespace["write_report"]({"format": "meshspec.report/1"}, str(regular))
    assert namespace["may_replace"](str(regular))  # recorded: the next run replaces it
    regular.write_text(regular.read_text() + "notes\n")
    assert not namespace["may_replace"](str(regular))
