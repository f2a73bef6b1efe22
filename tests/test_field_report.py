"""Issue 10, the field report: one test (or more) per numbered item, named by it.

Section 1 items are also held to golden data from the real ttnn 0.81.1 in tests/test_golden.py
(cases composer_dims, composer_overrides, no_composer, memory_configs, systems); the facts are in
docs/semantics.md sections 2, 3 and 5.
"""

import json
import os
import resource
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from cli_runner import invoke as run_cli
from conftest import make_scenario, run_steps
from meshspec.errors import ScenarioError
from meshspec.runner import run
from meshspec.scenario.loader import load, parse

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
EIGHT = {"from_torch": {"as": "src", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}}


def invoke(*args, **kw):
    return run_cli(args, **kw)


def scenario_file(tmp_path, steps, name="s.yaml", mesh="t3k", **top):
    doc = {"meshspec": 1, "mesh": mesh, **top, "steps": steps}
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


# -- 1.1 a composer on another dim than the mapper's ----------------------------------------------------
def test_1_1_composing_on_the_wrong_dim_claimed_equal_is_a_data_mismatch_that_says_where_shards_went():
    # docs/semantics.md section 5: shard i of (1,8,32,32) on dim 1 lands at columns 32i.. of dim 3;
    # issue 35: a finding only when the scenario's expect says the result equals src
    steps = [EIGHT, {"to_device": {"src": "src", "as": "dev"}}, {"to_torch": {"tensor": "dev", "mesh_composer": {"concat": 3}, "as": "y"}}]
    claimed = run(make_scenario(steps, expect={"tensors": {"y": {"values": {"equals": "src"}}}}), "current")
    [f] = claimed.findings
    assert f.kind.value == "data_mismatch" and f.device is None
    assert "the composed tensor is 1x1x32x256, but src, the tensor that was sent and that the scenario's expect says it equals, is 1x8x32x32" in f.message
    assert "(0,1)'s src[0:1, 1:2, 0:32, 0:32] landed at [0:1, 0:1, 0:32, 32:64]" in f.message
    assert claimed.exit_code == 1
    unclaimed = run_steps(steps)
    assert unclaimed.findings == () and unclaimed.exit_code == 0
    [rb] = unclaimed.readbacks
    assert rb.source == "src" and ((0, 1), (0, 1, 0, 0), (1, 1, 32, 32), (0, 0, 0, 32)) in rb.landed


def test_1_1_composing_on_the_mapper_dim_and_stacking_replicas_are_clean():
    ok = run_steps([EIGHT, {"to_torch": {"tensor": "src", "mesh_composer": {"concat": 1}}}])
    replicas = run_steps(
        [{"from_torch": {"as": "r", "shape": [1, 1, 32, 32], "mesh_mapper": "replicate"}},
         {"to_torch": {"tensor": "r", "mesh_composer": {"concat": 0}}}]
    )
    assert ok.findings == () and replicas.findings == ()


# -- 1.2 composer mesh_shape overrides -------------------------------------------------------------------
X2D = {"from_torch": {"as": "x", "shape": [1, 1, 64, 128], "dtype": "float32", "mesh_mapper": {"placements": [{"shard": 2}, {"shard": 3}]}}}


def test_1_2_a_smaller_override_composes_its_region_and_the_dropped_shards_are_findings():
    # tests/golden composer_overrides: (2,2) over [S(2),S(3)] on 2x4 composes (0,0),(0,1),(1,0),(1,1)
    report = run_steps([X2D, {"to_torch": {"tensor": "x", "mesh_composer": {"concat": [2, 3], "mesh_shape": [2, 2]}, "as": "y"}}])
    assert report.readbacks[0].devices == ((0, 0), (0, 1), (1, 0), (1, 1)) and report.readbacks[0].shape == (1, 1, 64, 64)
    dropped = sorted(f.device for f in report.findings)
    assert dropped == [(0, 2), (0, 3), (1, 2), (1, 3)]
    assert all("left it out of the composed tensor" in f.message for f in report.findings)


def test_1_2_dropping_a_replica_loses_nothing():
    rep = {"from_torch": {"as": "r", "shape": [1, 1, 64, 32], "mesh_mapper": {"placements": [{"shard": 2}, "replicate"]}}}
    report = run_steps([rep, {"to_torch": {"tensor": "r", "mesh_composer": {"concat": [2, 3], "mesh_shape": [2, 1]}}}])
    assert report.findings == ()


def test_1_2_one_dimensional_override_takes_the_first_shards_and_too_big_an_override_fails():
    seven = {"from_torch": {"as": "s", "shape": [1, 7, 32, 32], "mesh_mapper": {"shard": 1}}}
    report = run_steps([seven, {"to_torch": {"tensor": "s", "mesh_composer": {"concat": [1], "mesh_shape": [4]}}}])
    assert report.readbacks[0].shape == (1, 4, 32, 32)
    assert {f.device for f in report.findings} == {(1, 0), (1, 1), (1, 2)}
    big = run_steps([X2D, {"to_torch": {"tensor": "x", "mesh_composer": {"concat": [2, 3], "mesh_shape": [3, 4]}}}])
    assert big.error.message.startswith(
        "The size of the supplied mesh shape MeshShape([3, 4]) does not match the device shape size MeshShape([2, 4])"
    )


# -- 1.3 Blackhole DRAM alignment is 64 B ------------------------------------------------------------------
def test_1_3_blackhole_aligns_dram_pages_to_64_bytes():
    steps = [{"allocate_tensor_on_device": {"as": "t", "shape": [1, 1, 12, 10], "layout": "row_major"}}]
    for system, aligned in (("p150", 64), ("p150x8", 64), ("t3k", 32)):
        spec = run(make_scenario(steps, mesh=system), "current").tensors[0].devices[0].spec
        assert (spec.page_size, spec.aligned_page_size) == (20, aligned), system
    l1 = [{"allocate_tensor_on_device": {"as": "t", "shape": [1, 1, 12, 10], "layout": "row_major", "memory": "l1"}}]
    assert run(make_scenario(l1, mesh="p150"), "current").tensors[0].devices[0].spec.aligned_page_size == 32


# -- 1.4 to_device gives DRAM; Tensor.to keeps the host tensor's config --------------------------------------
def test_1_4_to_device_is_dram_and_to_keeps_the_host_memory_config():
    host = {"from_torch": {"as": "h", "shape": [1, 1, 32, 32], "memory": "l1"}}
    report = run_steps([host, {"to_device": {"src": "h", "as": "a"}}, {"to": {"tensor": "h", "as": "b"}}])
    memory = {t.name: t.spec.memory.value for t in report.tensors}
    assert memory == {"h": "l1", "a": "dram", "b": "l1"}


# -- 1.5 a system and a shape, with ttnn's checks --------------------------------------------------------------
def test_1_5_a_t3k_opened_as_1x8():
    s = parse("meshspec: 1\nmesh: {system: t3k, shape: [1, 8]}\nsteps:\n  - allocate_tensor_on_device: {as: t, shape: [1, 1, 32, 32]}\n")
    assert (s.mesh_name, s.mesh_shape) == ("t3k", (1, 8))


@pytest.mark.parametrize(
    "shape, message",
    [
        ([2, 2, 2], "Requested mesh shape dimensions mismatch: MeshShape([2, 2, 2]) != MeshShape([2, 4])"),
        ([4, 4], "Requested mesh shape MeshShape([4, 4]) requires 16 devices, but only 8 devices are available"),
    ],
)
def test_1_5_shapes_a_t3k_does_not_open_are_refused_where_written(shape, message):
    with pytest.raises(ScenarioError) as err:
        parse(f"meshspec: 1\nmesh: {{system: t3k, shape: {shape}}}\nsteps:\n  - allocate_tensor_on_device: {{as: t, shape: [1]}}\n", "x.yaml")
    assert str(err.value).startswith("x.yaml:2:") and message in str(err.value)


def test_1_5_n300_opens_2x1_by_default():
    assert parse("meshspec: 1\nmesh: n300\nsteps:\n  - allocate_tensor_on_device: {as: t, shape: [1]}\n").mesh_shape == (2, 1)


# -- 1.6 error texts start with the real library's words; expect.error takes {match: REGEX} -----------------------
def test_1_6_no_composer_error_is_ttnn_s_own_text():
    report = run_steps([EIGHT, {"to_torch": {"tensor": "src"}}])
    assert report.error.message.startswith(
        "Can't convert a tensor distributed on MeshShape([2, 4]) mesh to row-major logical tensor. "
        "Supply a mesh composer to concatenate multi-device shards."
    )


def test_1_6_expect_error_takes_a_regular_expression(tmp_path):
    steps = [EIGHT, {"to_torch": {"tensor": "src"}}]
    good = scenario_file(tmp_path, steps, "good.yaml", expect={"profiles": {"current": {"error": {"match": r"Supply a mesh \w+"}}}})
    bad = scenario_file(tmp_path, steps, "bad.yaml", expect={"profiles": {"current": {"error": {"match": r"^Supply"}}}})
    assert run(load(good), "current").expect.passed
    [mismatch] = run(load(bad), "current").expect.mismatches
    assert mismatch.startswith("error at step 1 (to_torch) does not match '^Supply'")
    broken = scenario_file(tmp_path, steps, "broken.yaml", expect={"profiles": {"current": {"error": {"match": "(unclosed"}}}})
    with pytest.raises(ScenarioError, match="is not a regular expression"):
        load(broken)


# -- 1.7 the 2-axis chunk-count error says what "mesh dimension size" is ------------------------------------------
def test_1_7_nd_chunk_error_is_ttnn_s_text_and_explains_the_size():
    # tests/golden (the mock, 8x4): [S(1), R] with override (32, 1) says "chunks 4 ... size 32"
    steps = [{"from_torch": {"as": "h", "shape": [1, 4, 32, 32], "mesh_mapper": {"placements": [{"shard": 1}, "replicate"], "mesh_shape": [32, 1]}}}]
    report = run(make_scenario(steps, mesh="galaxy"), "current")
    assert report.error.message.startswith("ND sharding requires the number of chunks 4 to match the mesh dimension size 32 (")
    assert "product of the sharded axes of the distribution shape [32, 1]: 32" in report.error.message


# -- 2.1 an empty .npy data file ----------------------------------------------------------------------------------
def test_2_1_an_empty_data_file_is_one_error_and_the_good_reports_stay(tmp_path):
    (tmp_path / "empty.npy").write_bytes(b"")
    bad = scenario_file(tmp_path, [{"from_torch": {"as": "h", "shape": [4], "data": {"file": "empty.npy"}}}], "bad.yaml")
    good = tmp_path / "good.yaml"
    good.write_text((SCENARIOS / "even-copy.yaml").read_text())
    res = invoke("run", bad, good, "--format", "json")
    assert res.exit_code == 2
    assert "data file 'empty.npy' is not a .npy array file (it is empty)" in res.stderr and "\n" not in res.stderr.strip()
    reports = json.loads(res.stdout)
    assert [r["scenario"] for r in reports] == [None, "even-copy"]
    junit = tmp_path / "out.xml"
    res = invoke("check", tmp_path, "--junit-xml", junit)
    assert res.exit_code == 2 and "ERROR" in res.stdout and "Aborted" not in res.stdout and junit.exists()


# -- 2.2 -o onto a device or a FIFO writes through, never replaces it ----------------------------------------------
def test_2_2_output_to_dev_null_keeps_the_device():
    res = invoke("run", SCENARIOS / "even-copy.yaml", "-o", "/dev/null")
    assert res.exit_code == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_2_2_output_to_a_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    res = invoke("run", SCENARIOS / "even-copy.yaml", "--format", "json", "-o", fifo)
    out, _ = reader.communicate(timeout=10)
    assert res.exit_code == 0 and json.loads(out)["scenario"] == "even-copy"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_2_2_output_to_a_folder_is_refused(tmp_path):
    res = invoke("run", SCENARIOS / "even-copy.yaml", "-o", tmp_path)
    assert res.exit_code == 2 and "it is a folder" in res.stderr


# -- 2.3 every input of the run is protected, in every mode --------------------------------------------------------
def test_2_3_junit_never_over_a_scenario_outside_the_shard(tmp_path):
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text((SCENARIOS / "even-copy.yaml").read_text())
    before = (tmp_path / "b.yaml").read_text()
    res = invoke("check", tmp_path, "--shard", "1/2", "--junit-xml", tmp_path / "b.yaml")
    assert res.exit_code == 2 and "one of the run's inputs" in res.stderr
    assert (tmp_path / "b.yaml").read_text() == before


def test_2_3_output_never_over_a_data_file(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(4, dtype=np.float32))
    path = scenario_file(tmp_path, [{"from_torch": {"as": "h", "shape": [4], "data": {"file": "x.npy"}}}])
    before = (tmp_path / "x.npy").read_bytes()
    for flag in ("-o", "--svg", "--html"):
        res = invoke("run", path, flag, tmp_path / "x.npy")
        assert res.exit_code == 2 and "one of the run's inputs" in res.stderr, flag
    assert (tmp_path / "x.npy").read_bytes() == before


def test_2_3_bad_outputs_are_refused_before_the_run(tmp_path):
    # nothing is run or printed before the refusal: a long run is not wasted on a typo in --svg
    seed = SCENARIOS / "seed-uneven-copy.yaml"
    for flags, why in [
        (["--svg", tmp_path], "it is a folder; give a file name"),
        (["--html", tmp_path / "none" / "x.html"], "does not exist"),
        (["-o", tmp_path / "o.txt", "--svg", tmp_path / "o.txt"], "--output and --svg both name"),
    ]:
        res = invoke("run", seed, *flags)
        assert res.exit_code == 2 and why in res.stderr and res.stdout == "", flags
    assert not (tmp_path / "o.txt").exists()
    res = invoke("check", seed, "--junit-xml", tmp_path / "none" / "j.xml")
    assert res.exit_code == 2 and "does not exist" in res.stderr and "PASS" not in res.stdout


# -- 2.4 diff validates reports against meshspec.report/1 -------------------------------------------------------------
def _saved_report(tmp_path):
    res = invoke("run", SCENARIOS / "seed-uneven-copy.yaml", "--format", "json")
    return json.loads(res.stdout)


MUTATIONS = [
    lambda r: r.pop("tensors"),
    lambda r: r.update(mesh="2x4"),
    lambda r: r["tensors"][0].pop("devices"),
    lambda r: r["tensors"][0]["devices"][0].update(coord="(0,0)"),
    lambda r: r["tensors"][0]["devices"][0].update(recorded="yes"),
    lambda r: r["tensors"][0]["devices"][0].update(spec=[]),
    lambda r: r["tensors"][0]["topology"].update(placements=["X"]),
    lambda r: r["tensors"][0].update(storage="disk"),
    lambda r: r.update(tensors={}),
    lambda r: r["tensors"][0]["devices"][0].update(offset=[1.5]),
    lambda r: r["tensors"][0]["devices"][0]["spec"].update(num_pages=10**30),
    lambda r: r.update(error={"step": 1}),
]


@pytest.mark.parametrize("mutate", range(len(MUTATIONS)))
def test_2_4_a_malformed_report_is_one_line_exit_2(tmp_path, mutate):
    good = _saved_report(tmp_path)
    (tmp_path / "a.json").write_text(json.dumps(good))
    bad = json.loads(json.dumps(good))
    MUTATIONS[mutate](bad)
    (tmp_path / "b.json").write_text(json.dumps(bad))
    res = invoke("diff", tmp_path / "a.json", tmp_path / "b.json")
    assert res.exit_code == 2, res.stderr
    assert res.stderr.count("\n") == 1 and "is not a valid meshspec.report/1 report" in res.stderr


@pytest.mark.parametrize("text", ["[" * 100000 + "]" * 100000, '{"format": "meshspec.report/1", "mesh": [' + "9" * 5000 + "]}"])
def test_2_4_deep_nesting_and_huge_integers_are_one_line(tmp_path, text):
    (tmp_path / "a.json").write_text(text)
    (tmp_path / "b.json").write_text(text)
    res = invoke("diff", tmp_path / "a.json", tmp_path / "b.json")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1


def test_2_4_the_report_schema_is_published():
    schema = json.loads(invoke("schema", "--report").stdout)
    assert schema["title"] == "meshspec report (meshspec.report/1)" and "tensors" in schema["properties"]


# -- 2.5 lone surrogates and file names that are not UTF-8 ------------------------------------------------------------
def test_2_5_a_lone_surrogate_in_a_name_is_refused_where_it_stands(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text('meshspec: 1\nname: "a\\ud800b"\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {as: t, shape: [1]}\n')
    for args in (("run", path), ("run", path, "-o", tmp_path / "o.txt"), ("check", path, "--junit-xml", tmp_path / "j.xml")):
        res = invoke(*args)
        assert res.exit_code == 2, args
        # libyaml refuses the escape itself; the pure-Python reader lets it through to meshspec's check
        said = res.stderr + res.stdout
        assert "s.yaml:2:" in said and ("the lone surrogate \\ud800" in said or "invalid Unicode character escape" in said)


def test_2_5_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path):
    raw = os.fsencode(str(tmp_path)) + b"/\xff.yaml"
    with open(raw, "w") as f:
        f.write((SCENARIOS / "even-copy.yaml").read_text())
    name = os.fsdecode(raw)
    out = tmp_path / "out.json"
    res = invoke("run", name, "--format", "json", "-o", out)
    assert res.exit_code == 0 and "\\udcff.yaml" in out.read_text()  # JSON's own escape of it
    res = invoke("check", name, "--junit-xml", tmp_path / "j.xml")
    assert res.exit_code == 0 and "\\udcff" in res.stdout


# -- 2.6 fills as torch.full takes them ----------------------------------------------------------------------------------
def _fill(value, dtype):
    return run_steps([{"from_torch": {"as": "h", "shape": [4], "dtype": dtype, "layout": "row_major", "data": {"fill": value}}}, {"to_torch": {"tensor": "h", "as": "v"}}], mesh=[1])


@pytest.mark.parametrize(
    "value, dtype",
    [(2**64, "uint32"), (2**32, "uint32"), (-1, "uint32"), (10**400, "float32"), (10**39, "bfloat16"), (float("nan"), "int32")],
)
def test_2_6_a_fill_the_dtype_cannot_hold_is_refused(value, dtype):
    report = _fill(value, dtype)
    assert report.error is not None and report.error.message.startswith(f"value cannot be converted to type {dtype} without overflow")
    assert report.exit_code == 1


def test_2_6_integer_fills_are_exact():
    report = _fill(2**31 + 1, "uint32")  # through a float32 this would round
    values = [t for t in report.tensors if t.name == "v"]
    assert values
    from meshspec.sim.values import generate
    from meshspec.sim.spec import DataType

    assert int(generate("fill", (2,), DataType.UINT32, 2**31 + 1)[0]) == 2**31 + 1
    assert int(generate("fill", (2,), DataType.INT32, -(2**31))[0]) == -(2**31)


# -- 2.7 .npy path edge cases open what was checked ------------------------------------------------------------------------
def test_2_7_a_symlink_loop_and_a_missing_folder_are_one_line(tmp_path):
    os.symlink("l2.npy", tmp_path / "l1.npy")
    os.symlink("l1.npy", tmp_path / "l2.npy")
    np.save(tmp_path / "good.npy", np.arange(4, dtype=np.float32))
    for name, message in (("l1.npy", "a symlink loop"), ("sub/../good.npy", "not found")):
        path = scenario_file(tmp_path, [{"from_torch": {"as": "h", "shape": [4], "data": {"file": name}}}])
        res = invoke("run", path)
        assert res.exit_code == 2 and message in res.stderr and res.stderr.count("\n") == 1, name


def test_2_7_the_runtime_opens_the_file_the_loader_checked(tmp_path):
    (tmp_path / "sub").mkdir()
    np.save(tmp_path / "good.npy", np.arange(4, dtype=np.float32))
    path = scenario_file(tmp_path, [{"from_torch": {"as": "h", "shape": [4], "data": {"file": "sub/../good.npy"}}}])
    scenario = load(path)
    assert scenario.files == {"sub/../good.npy": (tmp_path / "good.npy").resolve()}
    assert run(scenario, "current").error is None


# -- 2.8 SIGTERM is handled like SIGINT ---------------------------------------------------------------------------------------
def _big_scenario(tmp_path, name="big.yaml"):
    steps = [{"from_torch": {"as": f"h{i}", "shape": [1, 8, 1024, 1024], "dtype": "float32", "mesh_mapper": {"shard": 1}}} for i in range(6)]
    steps += [{"to_device": {"src": f"h{i}", "as": f"d{i}"}} for i in range(6)]
    return scenario_file(tmp_path, steps, name)


def _children(pid):
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _long_scenario(tmp_path):
    """A run of many seconds on any machine: 400 ``neg`` steps, each computing 2 M values (the
    copies this test used before became fast enough to end before the signal came)."""
    made = {"from_torch": {"as": "h", "shape": [1, 8, 512, 512], "mesh_mapper": {"shard": 1}, "device": "mesh_device", "layout": "tile"}}
    return scenario_file(tmp_path, [made, {"repeat": {"times": 400, "steps": [{"neg": {"tensor": "h", "as": "h"}}]}}], "long.yaml")


def _cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used (Linux /proc): how far a process is into its work, whatever
    else the machine is doing."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_2_8_sigterm_during_a_run_leaves_no_debris(tmp_path):
    path = _long_scenario(tmp_path)
    out = tmp_path / "report.json"
    proc = subprocess.Popen([sys.executable, "-m", "meshspec", "run", str(path), "--format", "json", "-o", str(out)], stderr=subprocess.PIPE)
    # past start-up (about 0.2 s of CPU) and into the steps, so the signal finds meshspec's handler
    while proc.poll() is None and _cpu_seconds(proc.pid) < 0.8:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    assert not out.exists()


def test_2_8_sigterm_to_check_stops_its_workers(tmp_path):
    for i in range(4):
        _big_scenario(tmp_path, f"big{i}.yaml")
    proc = subprocess.Popen([sys.executable, "-m", "meshspec", "check", str(tmp_path), "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 20
    workers = []
    while time.time() < deadline and len(workers) < 2:
        workers = _children(proc.pid)
        time.sleep(0.1)
    assert len(workers) >= 2, "check -j 2 started no workers"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    time.sleep(0.5)
    alive = [w for w in workers if Path(f"/proc/{w}").exists() and "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]]
    assert alive == [] and proc.returncode == 128 + signal.SIGTERM


# -- 2.9 --max-memory counts the data file's temporaries -------------------------------------------------------------------------
def test_2_9_a_float64_file_into_uint8_stays_within_the_limit(tmp_path):
    n = 1 << 24  # 128 MiB of float64, 16 MiB as uint8
    np.save(tmp_path / "big.npy", np.zeros(n, dtype=np.float64))
    path = scenario_file(tmp_path, [{"from_torch": {"as": "h", "shape": [n], "dtype": "uint8", "layout": "row_major", "data": {"file": "big.npy"}}}], mesh=[1])
    # peak from VmHWM: ru_maxrss carries over the parent's peak through fork and exec (Linux keeps
    # the larger of the two), so under pytest it would measure pytest
    code = (
        "import re, sys; from meshspec.cli import main; sys.argv = ['meshspec', 'run', sys.argv[1], '--max-memory', '100M', '--format', 'json', '-o', '/dev/null']\n"
        "try:\n    main()\nexcept SystemExit as e:\n"
        "    print(e.code, int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) // 1024)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True).stdout.split()
    exit_code, peak_mb = int(out[0]), int(out[1])
    assert exit_code == 0
    assert peak_mb < 180, f"peak {peak_mb} MB: the file's 128 MB of float64 were held whole"


# -- 2.10 expectation matching is linear --------------------------------------------------------------------------------------------
def test_2_10_each_finding_is_keyed_once_per_pattern_shape(monkeypatch):
    from meshspec.judge import expect
    from meshspec.scenario.model import FindingExpect

    calls = []
    real = expect._key_of
    monkeypatch.setattr(expect, "_key_of", lambda f, keys: calls.append(1) or real(f, keys))
    findings = [{"kind": "stale", "tensor": "t", "device": [i // 64, i % 64], "step": 0, "message": ""} for i in range(4096)]
    patterns = [FindingExpect(kind="stale", device=[i // 64, i % 64]) for i in range(3000)] + [FindingExpect(tensor="t")]
    assert expect._check_findings(findings, patterns) == []
    assert len(calls) == 2 * len(findings)  # two pattern shapes; never findings x patterns


# -- 2.11 -j is capped ------------------------------------------------------------------------------------------------------------------
def test_2_11_jobs_are_capped_at_the_files_and_it_says_so(tmp_path):
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text((SCENARIOS / "even-copy.yaml").read_text())
    res = invoke("check", tmp_path, "-j", "500")
    assert res.exit_code == 0 and "-j 500 lowered to 2: no more workers than the number of files (2)" in res.stderr


# -- 2.12 init quotes what it writes ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("stem", ["2024", "yes", "on", "1.5", "1:30", "[x]", "*a", "%x", "null"])
def test_2_12_init_writes_a_scenario_meshspec_accepts(tmp_path, stem):
    path = tmp_path / f"{stem}.yaml"
    assert invoke("init", path).exit_code == 0
    assert load(path).name == stem


# -- 2.14 control characters, base-60 numbers, float tiles, dangling links and FIFOs ------------------------------------------------------
@pytest.mark.parametrize(
    "line, message",
    [
        ('name: "a\\x1b[31mred"', "the control character \\x1b"),
        ("mesh: [1:30]", "mesh"),
        ("tile: [32.0, 32]", "tile"),
    ],
)
def test_2_14_refused_where_written(line, message):
    if line.startswith("tile"):
        text = f"meshspec: 1\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {{as: t, shape: [1], {line}}}\n"
    else:
        text = f"meshspec: 1\n{line}\n" + ("mesh: t3k\n" if not line.startswith("mesh") else "") + "steps:\n  - allocate_tensor_on_device: {as: t, shape: [1]}\n"
    with pytest.raises(ScenarioError) as err:
        parse(text, "x.yaml")
    text = str(err.value)
    assert message in text and text.startswith("x.yaml:") and "\x1b" not in text


def test_2_14_check_reports_dangling_links_and_fifos(tmp_path):
    os.symlink(tmp_path / "gone.yaml", tmp_path / "dangling.yaml")
    os.mkfifo(tmp_path / "fifo.yaml")
    res = invoke("check", tmp_path)
    assert res.exit_code == 2
    assert "ERROR " + str(tmp_path / "dangling.yaml") + ": no such file" in res.stdout
    assert "ERROR " + str(tmp_path / "fifo.yaml") + ": is not a regular file" in res.stdout


# -- section 3: what the new user stumbled on ------------------------------------------------------------------------------------------------
def test_3_profile_all_shows_each_profile_s_error():
    res = invoke("run", SCENARIOS / "mapper-error-nine-over-eight.yaml", "--profile", "all", env={"COLUMNS": "200"})
    assert "                  error: Shard shape mismatch: expected Shape([1, 2, 32, 32])" in res.stdout


def test_3_a_real_ttnn_argument_gets_a_hint():
    with pytest.raises(ScenarioError) as err:
        parse("meshspec: 1\nmesh: t3k\nsteps:\n  - to_device: {tensor: h, as: d}\n", "x.yaml")
    assert "unknown key 'tensor' in steps[0].to_device: to_device names its tensor `src`" in str(err.value)


def test_3_a_host_tensor_header_shows_the_global_shape_and_labels_the_shard_spec():
    res = invoke("run", SCENARIOS / "seed-uneven-copy.yaml", env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert "src  host  1x7x32x32 in shards of 1x1x32x32 bfloat16 tile dram  topology (7) [S(1)] on 7 devices" in res.stdout


def test_3_diff_with_one_report_says_what_is_missing(tmp_path):
    (tmp_path / "one.json").write_text("{}")
    res = invoke("diff", tmp_path / "one.json")
    assert res.exit_code == 2 and "diff compares two reports" in res.stderr


def test_3_a_meshspec_limit_is_its_own_exit_code_and_an_error_in_check(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text((SCENARIOS / "even-copy.yaml").read_text())
    res = invoke("run", path, "--max-memory", "1K")
    assert res.exit_code == 4 and "stopped by meshspec's own limit" in res.stdout
    # no expect verdict from an incomplete run (its mismatches would only follow from the stop), as check
    assert "not checked: meshspec stopped the run at step 0" in res.stdout and "expect (current): FAIL" not in res.stdout
    from meshspec.check import check_scenario

    report_like = check_scenario(load(path), "current")
    assert report_like.outcome == "PASS"  # the default limit is not reached
    import meshspec.sim.runtime as runtime

    old = runtime.default_max_memory
    runtime.default_max_memory = lambda: 1024
    try:
        assert check_scenario(load(path), "current").outcome == "ERROR"
    finally:
        runtime.default_max_memory = old


def test_3_explain_lists_everything_and_explains_statuses():
    listing = invoke("explain").stdout
    assert "uninitialized" in listing and "copy_host_to_device_tensor" in listing
    assert invoke("explain", "empty").stdout.startswith("empty\n\nWhat it means")


def test_3_data_view_mentions_metadata_mode_only_in_metadata_mode():
    plain = invoke("run", SCENARIOS / "even-copy.yaml", "--view", "data", env={"NO_COLOR": "1"}).stdout
    meta = invoke("run", SCENARIOS / "even-copy.yaml", "--view", "data", "--no-data", env={"NO_COLOR": "1"}).stdout
    assert "metadata mode" not in plain and "metadata mode" in meta


def test_3_the_schema_names_the_systems_and_tiles():
    import jsonschema

    schema = json.loads(invoke("schema").stdout)
    doc = {"meshspec": 1, "mesh": "t4k", "steps": [{"allocate_tensor_on_device": {"as": "t", "shape": [1]}}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    doc["mesh"] = "t3k"
    jsonschema.validate(doc, schema)
    doc["steps"][0]["allocate_tensor_on_device"]["tile"] = [7, 32]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_2_14_every_error_in_a_file_has_its_location():
    # a raw control character is refused by the YAML reader itself, which gives a position, not a mark
    with pytest.raises(ScenarioError) as err:
        parse("meshspec: 1\nmesh: t3k\nname: a\x12b\n", "x.yaml")
    assert str(err.value).startswith("x.yaml:3:8: invalid YAML: unacceptable character #x0012")
