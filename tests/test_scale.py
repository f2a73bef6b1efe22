"""Issue 5: metadata mode, the memory limit, uninitialized-memory modes, faithful values."""

from pathlib import Path

import numpy as np
import pytest

from conftest import make_scenario, run_steps
from cli_runner import invoke
from meshspec.cli import parse_bytes
from meshspec.errors import UsageError
from meshspec.sim.profiles import PROFILES, get_profile
from meshspec.runner import execute, run
from meshspec.sim.runtime import Runtime
from meshspec.scenario.loader import load

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.yaml"))


def _structural(report):
    return sorted((f.kind.value, f.tensor, f.device, f.step) for f in report.findings if f.kind.value != "data_mismatch")


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_metadata_mode_finds_the_same_record_lies(path):
    scenario = load(path)
    for profile in PROFILES:
        full, meta = run(scenario, profile), run(scenario, profile, with_data=False)
        assert _structural(meta) == _structural(full), profile
        assert (meta.error is None) == (full.error is None), profile
        assert [t.to_json()["devices"] for t in meta.tensors] == [t.to_json()["devices"] for t in full.tensors]
        assert [r.shape for r in meta.readbacks] == [r.shape for r in full.readbacks]
        # what each step wrote where (metadata mode records a run of devices with one spec at once)
        assert [(s.written, s.changes) for s in meta.steps] == [(s.written, s.changes) for s in full.steps], profile


def test_metadata_mode_handles_a_4_tib_tensor_on_1024_devices():
    # (1024, 1024, 2048, 1024) bfloat16 = 4 TiB, sharded over both axes of a 32x32 mesh
    steps = [
        {"allocate_tensor_on_device": {"as": "dst", "shape": [32, 32, 2048, 1024]}},
        {"from_torch": {"as": "src", "shape": [1024, 1000, 2048, 1024], "mesh_mapper": {"placements": [{"shard": 0}, {"shard": 1}]}}},
        {"copy_host_to_device_tensor": {"src": "src", "dst": "dst"}},
        {"to_torch": {"tensor": "dst", "mesh_composer": {"concat": [0, 1]}}},
    ]
    scenario = make_scenario(steps, mesh=[32, 32], data="none")
    report = run(scenario, "uniform-by-value")
    # dim 1: 1000 over 32 -> 31 chunks of 32 and a last one of 8 (legacy torch.chunk allows it), so
    # every device of mesh column 31 holds 8 of the 32 rows it is recorded with: partial
    assert report.error is None
    partial = {f.device for f in report.findings if f.kind.value == "partial"}
    assert partial == {(r, 31) for r in range(32)}
    assert {f.kind.value for f in report.findings} == {"partial", "data_mismatch"}
    # the current mapper refuses the unequal shards
    assert "Shard shape mismatch" in run(scenario, "current").error.message


def test_a_run_over_the_memory_limit_stops_before_allocating_and_suggests_no_data():
    steps = [{"allocate_tensor_on_device": {"as": "d", "shape": [1024, 1024, 1024]}}]
    report = run(make_scenario(steps), "current", max_memory=1 << 20)
    assert report.error is not None and "--no-data" in report.error.message and "16.0 GiB" in report.error.message
    assert run(make_scenario(steps), "current", max_memory=1 << 20, with_data=False).error is None


def test_parse_bytes():
    assert parse_bytes("8G") == 8 << 30 and parse_bytes("512M") == 512 << 20 and parse_bytes("1000") == 1000
    assert parse_bytes("1.5GiB") == 3 << 29
    with pytest.raises(UsageError):
        parse_bytes("lots")


def test_cli_no_data_and_max_memory():
    seed = str(SCENARIOS[[p.stem for p in SCENARIOS].index("seed-uneven-copy")])
    res = invoke(["run", seed, "--no-data"])
    assert res.exit_code == 1 and "stale" in res.stdout
    res = invoke(["run", seed, "--max-memory", "1K"])
    assert "--no-data" in res.stdout
    assert invoke(["run", seed, "--max-memory", "huge"]).exit_code == 2


SEED = [
    {"allocate_tensor_on_device": {"as": "dst", "shape": [1, 1, 32, 32], "dtype": "float32"}},
    {"from_torch": {"as": "src", "shape": [1, 7, 32, 32], "dtype": "float32", "mesh_mapper": {"shard": 1}}},
    {"copy_host_to_device_tensor": {"src": "src", "dst": "dst"}},
    {"to_torch": {"tensor": "dst", "mesh_composer": {"concat": 1}}},
]


# docs/semantics.md section 1: whatever never-written memory holds, (1,3) is stale under uniform-by-value.
@pytest.mark.parametrize("mode", ["poison", "zeros", "reuse"])
def test_stale_is_flagged_whatever_uninitialized_memory_holds(mode):
    report = run(make_scenario(SEED), "uniform-by-value", uninitialized=mode)
    assert {(f.kind.value, f.device) for f in report.findings} == {("stale", (1, 3)), ("data_mismatch", (1, 3))}


def test_reuse_hands_back_an_earlier_tensors_bytes():
    """The most misleading case: a freed buffer's bytes come back as the stale device's data."""
    earlier = [
        {"from_torch": {"as": "old", "shape": [1, 8, 32, 32], "dtype": "float32", "data": {"fill": 7.0}, "mesh_mapper": {"shard": 1}}},
        {"to_device": {"src": "old", "as": "olddev"}},
        {"deallocate": {"tensor": "olddev"}},
    ]
    scenario = make_scenario(earlier + SEED[:3])
    rt = Runtime(scenario.mesh_shape, get_profile("uniform-by-value"))
    from meshspec.sim.device import MemoryPool
    from meshspec.sim.modes import Uninitialized

    rt.pool = MemoryPool(Uninitialized.REUSE)
    for step in scenario.steps:
        execute(rt, step)
    stale = rt.tensors["dst"].buffer.read((1, 3), rt.tensors["dst"].record.specs[(1, 3)])
    assert (stale == 7.0).all()  # plausible data, from the freed tensor
    report = run(scenario, "uniform-by-value", uninitialized="reuse")
    assert ("stale", (1, 3)) in {(f.kind.value, f.device) for f in report.findings}


# -- faithful values ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bfloat8_b", "bfloat4_b"])
def test_block_float_round_trip_is_clean_and_stale_is_not(dtype):
    steps = [
        {"allocate_tensor_on_device": {"as": "dst", "shape": [1, 1, 32, 64], "dtype": dtype}},
        {"from_torch": {"as": "src", "shape": [1, 7, 32, 64], "dtype": dtype, "data": {"random": 3}, "mesh_mapper": {"shard": 1}}},
        {"copy_host_to_device_tensor": {"src": "src", "dst": "dst"}},
        {"to_torch": {"tensor": "dst", "mesh_composer": {"concat": 1}}},
    ]
    assert run_steps(steps, "current").findings == ()
    report = run_steps(steps, "uniform-by-value")
    assert ("data_mismatch", (1, 3)) in {(f.kind.value, f.device) for f in report.findings}


def test_a_wrong_composer_is_a_data_mismatch_with_no_device():
    # docs/semantics.md sections 5 and 7: composed readback differs from the source host tensor the
    # scenario says it equals (without that claim, issue 35, where the shards landed is a note)
    steps = [
        {"from_torch": {"as": "h", "shape": [1, 1, 64, 64], "dtype": "float32", "mesh_mapper": {"placements": [{"shard": 2}, {"shard": 3}]}}},
        {"to_device": {"src": "h", "as": "d"}},
        {"to_torch": {"tensor": "d", "mesh_composer": {"concat": [3, 2]}, "as": "y"}},
    ]
    claim = {"tensors": {"y": {"values": {"equals": "h"}}}}
    report = run(make_scenario(steps, mesh="p150x4", expect=claim), "current")
    assert [(f.kind.value, f.device) for f in report.findings] == [("data_mismatch", None)]
    assert "composer" in report.findings[0].message
    assert run_steps(steps, "current", mesh="p150x4").findings == ()
    steps[-1] = {"to_torch": {"tensor": "d", "mesh_composer": {"concat": [2, 3]}, "as": "y"}}
    assert run(make_scenario(steps, mesh="p150x4", expect=claim), "current").findings == ()


def test_bfloat16_conversion_is_round_to_nearest_even():
    import ml_dtypes

    from meshspec.sim.spec import DataType
    from meshspec.sim.values import to_dtype

    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8)])  # halfway cases
    assert to_dtype(x, DataType.BFLOAT16).astype(np.float64).tolist() == [1.0, 1 + 2**-6, -1.0]
    assert to_dtype(x, DataType.BFLOAT16).dtype == np.dtype(ml_dtypes.bfloat16)


def test_reuse_gives_a_buffer_the_bytes_left_at_its_address():
    # docs/semantics.md section 11: a buffer allocated where a freed one was (the allocator's first
    # fit) finds its bytes; one allocated elsewhere, while the first is alive, finds poison
    steps = [
        {"from_torch": {"as": "old", "shape": [1, 8, 32, 32], "dtype": "float32", "data": {"fill": 7.0}, "mesh_mapper": {"shard": 1}}},
        {"to_device": {"src": "old", "as": "first"}},
        {"allocate_tensor_on_device": {"as": "elsewhere", "shape": [1, 1, 32, 32], "dtype": "float32"}},
        {"deallocate": {"tensor": "first"}},
        {"allocate_tensor_on_device": {"as": "again", "shape": [1, 1, 32, 32], "dtype": "float32"}},
        {"get_device_tensors": {"tensor": "again", "as": "a"}},
        {"get_device_tensors": {"tensor": "elsewhere", "as": "e"}},
    ]
    report = run(make_scenario(steps), "current", uninitialized="reuse").to_json()
    first = {t["name"]: t for t in report["tensors"]}
    assert first["again"]["address"] == 1048640 and first["elsewhere"]["address"] == 1048640 + 4096
    again = first["a[0]"]["values"]["first"]
    assert again[:4] == [7.0, 7.0, 7.0, 7.0]  # what `first` left at the address
    assert first["e[0]"]["values"]["first"][:4] != [7.0] * 4


def test_to_torch_of_a_device_tensor_counts_the_bytes_read_back_once():
    """to_torch reads each device straight into its block of the result (meshspec/sim/ops/to_torch.py),
    so the memory limit counts the read-back bytes once: a run whose readback fits under the limit
    but not twice over completes (it stopped at 'composing d ... needs 4.0 MiB' when the shards and
    their concatenation were both held). Composing a host tensor still counts its result."""
    steps = [
        {"from_torch": {"as": "src", "shape": [1, 1, 1024, 1024], "dtype": "float32", "mesh_mapper": {"shard": 3}}},
        {"to_device": {"src": "src", "as": "d"}},
        {"to_torch": {"tensor": "d", "mesh_composer": {"concat": 3}, "as": "out"}},
    ]
    scenario = make_scenario(steps, mesh=[1, 2])
    assert run(scenario, "current", max_memory=17 << 20).error is None
    stopped = run(scenario, "current", max_memory=15 << 20).error
    assert stopped is not None and stopped.source == "meshspec" and "reading back d from 2 device(s) needs 4.0 MiB" in stopped.message
    host = run(make_scenario(steps[:1] + [{"to_torch": {"tensor": "src", "mesh_composer": {"concat": 3}}}], mesh=[1, 2]),
               "current", max_memory=(8 << 20) + (3 << 20)).error
    assert host is not None and "composing src (2 shard(s)) needs 4.0 MiB" in host.message


def test_cli_max_work_refuses_with_exit_4_and_takes_only_a_whole_number():
    seed = str(SCENARIOS[[p.stem for p in SCENARIOS].index("seed-uneven-copy")])
    res = invoke(["run", seed, "--no-data", "--max-work", "10"])
    assert res.exit_code == 4 and "work bound of 10 work units" in res.stdout and "--max-work" in res.stdout
    assert invoke(["run", seed, "--max-work", "0"]).exit_code == 2
    assert invoke(["run", seed, "--max-work", "many"]).exit_code == 2
    assert invoke(["run", seed, "--max-work", "1000"]).exit_code == 1  # the seed's findings: the bound is not reached


# -- issue 34: get_device_tensors parts on big meshes, and the report under --max-memory -------------------------------
def _parts_yaml(tmp_path, mesh, data="none"):
    path = tmp_path / "parts.yaml"
    path.write_text(f"meshspec: 1\nname: parts\nmesh: [{mesh[0]}, {mesh[1]}]\ndata: {data}\nsteps:\n"
                    "  - from_torch: {as: x, shape: [1, 1, 32, 32], device: mesh_device}\n"
                    "  - get_device_tensors: {tensor: x, as: g}\n")
    return path


def test_parts_list_their_shared_topology_once_and_the_report_reads_back(tmp_path):
    import json

    import jsonschema

    from meshspec.judge.reports import report_schema, validate_report

    res = invoke(["run", _parts_yaml(tmp_path, (16, 16)), "-f", "json", "-o", tmp_path / "r.json"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    tensors = {t["name"]: t for t in doc["tensors"]}
    assert len(tensors["x"]["topology"]["coords"]) == 256
    assert all(tensors[f"g[{i}]"]["topology"] == {"same_as": "x"} for i in range(256))  # not 256 copies of 256 coordinates
    jsonschema.validate(doc, report_schema())  # schema --report declares the reference
    read = validate_report(json.loads((tmp_path / "r.json").read_text()), "r.json")
    parts = [t for t in read["tensors"] if t["name"].startswith("g[")]
    assert all(t["topology"] is read["tensors"][0]["topology"] for t in parts)  # read as the one listed, not a copy
    assert invoke(["diff", tmp_path / "r.json", tmp_path / "r.json"]).exit_code == 0
    # a small topology stays in each tensor (reports of a T3K read as before)
    small = json.loads(invoke(["run", _parts_yaml(tmp_path, (2, 4)), "-f", "json"]).stdout)
    assert all("coords" in t["topology"] for t in small["tensors"])


def test_a_reference_to_no_earlier_tensor_is_refused_in_one_line(tmp_path):
    import json

    doc = json.loads(invoke(["run", _parts_yaml(tmp_path, (16, 16)), "-f", "json"]).stdout)
    doc["tensors"][1]["topology"] = {"same_as": "nowhere"}
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    res = invoke(["diff", tmp_path / "bad.json", tmp_path / "bad.json"])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "'nowhere', which no earlier tensor" in res.stderr


def test_a_report_over_max_memory_is_refused_before_it_is_made(tmp_path):
    out = tmp_path / "r.json"
    # 64x64: 4,096 parts and their parent, 8,192 device entries: about 32 MiB to render, over 20 MiB
    res = invoke(["run", _parts_yaml(tmp_path, (64, 64)), "-f", "json", "--max-memory", "20M", "-o", out])
    assert res.exit_code == 4 and not out.exists()
    assert res.stderr.count("\n") == 1 and "8,192 device entries of 4,097 tensors" in res.stderr and "--max-memory" in res.stderr
    assert invoke(["run", _parts_yaml(tmp_path, (64, 64)), "-f", "json", "--max-memory", "64M", "-o", out]).exit_code == 0


def test_the_parts_on_a_big_mesh_are_one_map_of_the_mesh_not_a_map_each(tmp_path):
    text = invoke(["run", _parts_yaml(tmp_path, (16, 16)), "--view", "map", "--device", "1,1"], env={"NO_COLOR": "1"}).stdout
    # the parent and its 256 parts: two compressed maps of the mesh (the parts', each device naming its part)
    assert text.count("256 devices: 256 ok") == 2 and "g[0:256]  device" in text and text.count("\n") < 40
    part = text[text.index("g[0:256]") :].splitlines()
    at = part.index("--device:")
    assert part[at + 1].split() == ["part", "device", "status", "slice", "recorded"]
    assert part[at + 2].split()[:3] == ["g[17]", "[(1,1)]", "ok"]


def test_the_data_view_is_bounded_in_tables_and_rows(tmp_path):
    from meshspec.render.data import MAX_ROWS, MAX_TABLES

    text = invoke(["run", _parts_yaml(tmp_path, (32, 32), data="full"), "--view", "data"], env={"NO_COLOR": "1"}).stdout
    assert f"... and {1024 - MAX_ROWS} more devices (every one: --format json)" in text  # the parent's 1,024
    assert f"... and {1024 - MAX_ROWS} more rows (every one: --format json)" in text  # its 1,024 parts: one table
    assert text.count("\n") < 2 * (MAX_TABLES * 4 + MAX_ROWS * 2)
    # more device tensors than MAX_TABLES: the rest are counted
    many = tmp_path / "many.yaml"
    many.write_text("meshspec: 1\nname: many\nmesh: [1, 2]\nsteps:\n" + "".join(
        f"  - from_torch: {{as: t{i}, shape: [1, 1, 32, 32], device: mesh_device}}\n" for i in range(MAX_TABLES + 3)))
    text = invoke(["run", many, "--view", "data"], env={"NO_COLOR": "1"}).stdout
    assert "... and 3 more device tensors (every one: --format json)" in text and text.count("t66  device") == 0
