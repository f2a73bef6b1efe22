"""meshspec import: ttnn's operation tracer and graph capture as scenarios that load and run.

The data: real ttnn 0.81.1 output recorded in the mock (tracer-example/, graph-example*.json from
the research notes; tracer-more/, graph-more*.json from tools/import-examples/, the graph without
its cluster_descriptor, both re-saved without indentation), and small hand-written inputs with
calls meshspec cannot map (tracer-unmapped/, graph-unmapped.json).
"""

from __future__ import annotations

import doctest
import json
import random
import re
import shutil
from pathlib import Path

import pytest
import yaml

from meshspec.bridge.importer import Imported, import_path
from meshspec.bridge.importer import common, steps
from meshspec.errors import MeshspecError, ScenarioError, UsageError
from meshspec.runner import run
from meshspec.scenario.loader import parse

DATA = Path(__file__).parent / "data"
TRACER = DATA / "tracer-example"
MORE = DATA / "tracer-more"
GRAPH = DATA / "graph-example.json"
GRAPH_MORE = DATA / "graph-more.json"
ROW_MAJOR_2x4 = [[r, c] for r in range(2) for c in range(4)]
NOT_A_STEP = "no meshspec step models this call"
NOT_MAPPED_YET = "meshspec runs {0} steps, but import does not map its calls yet: write the step by hand (meshspec explain {0})"


def runs(imported: Imported, profile: str = "current"):
    """The imported scenario, loaded by meshspec's loader from its text and run; the report as JSON."""
    assert yaml.safe_load(imported.text) == imported.scenario
    report = run(parse(imported.text, "imported.yaml"), profile)
    assert report.error is None, report.error
    return report.to_json()


def tensor(report: dict, name: str) -> dict:
    return next(t for t in report["tensors"] if t["name"] == name)


STEP_SOURCE = re.compile(r"  # (\S+\.json|node \d+): (ttnn|Tensor)\.\w+")


def steps_by_source(imported: Imported) -> dict[str, dict]:
    """Each step made from a traced call, keyed by the call's source (the comment above it)."""
    out, source = {}, None
    for line in imported.text.splitlines():
        m = STEP_SOURCE.fullmatch(line)
        if m:
            source = m.group(1)
        elif line.startswith("  - ") and source is not None:
            out[source] = yaml.safe_load(line[4:])
            source = None
    return out


def traced(folder: Path, prefix: str) -> dict:
    return json.loads(next(folder.glob(f"{prefix}_*.json")).read_text())


def placements(traced_placements: list[str]) -> list:
    return [{"shard": int(m.group(1))} if (m := re.match(r"PlacementShard\((-?\d+)\)", p)) else "R" for p in traced_placements]


# -- the operation tracer ----------------------------------------------------------------------
def test_real_tracer_example_becomes_these_steps():
    imported = import_path(TRACER)
    assert imported.scenario["mesh"] == [2, 4]
    assert imported.scenario["steps"] == [
        {"from_torch": {"as": "dev0", "shape": [2, 1, 32, 256], "dtype": "float32", "layout": "row_major",
                        "mesh_mapper": {"placements": [{"shard": 0}, {"shard": 3}]}, "memory_config": "DRAM_MEMORY_CONFIG", "device": "mesh_device"}},
        {"allocate_tensor_on_device": {"as": "dev1", "shape": [1, 1, 32, 64], "dtype": "bfloat16", "layout": "tile"}},
        {"from_torch": {"as": "host0", "shape": [2, 1, 32, 256], "dtype": "bfloat16", "layout": "tile",
                        "mesh_mapper": {"placements": [{"shard": 0}, {"shard": 3}]}}},
        {"copy_host_to_device_tensor": {"src": "host0", "dst": "dev1"}},
        {"to_torch": {"tensor": "dev1", "mesh_composer": {"concat": [0, 3]}}},
        {"deallocate": {"tensor": "dev0"}},
    ]
    assert imported.unmapped == ()
    assert list(imported.scenario) == ["meshspec", "name", "description", "mesh", "steps"]


def test_real_tracer_example_runs_with_the_topology_the_trace_recorded():
    report = runs(import_path(TRACER))
    # 4_ttnn_copy_host_to_device_tensor: the destination as the tracer wrote it, after the copy
    dst = traced(TRACER, "4")["args"][1]["value"]
    dev1 = tensor(report, "dev1")
    assert dev1["topology"]["distribution_shape"] == dst["mesh_device"]["distribution_shape"] == [2, 4]
    assert dev1["topology"]["placements"] == placements(dst["mesh_device"]["placements"]) == [{"shard": 0}, {"shard": 3}]
    assert dev1["topology"]["coords"] == ROW_MAJOR_2x4
    assert [d["coord"] for d in dev1["devices"] if d["recorded"]] == ROW_MAJOR_2x4
    assert len(dst["mesh_device"]["device_ids"]) == 8
    assert all(d["spec"]["shape"] == dst["shape"] for d in dev1["devices"])
    assert tensor(report, "dev0")["storage"] == "deallocated"
    assert report["readbacks"][0]["shape"] == traced(TRACER, "6")["return_value"]["shape"] == [2, 1, 32, 256]


def test_tracer_text_says_where_each_step_came_from():
    imported = import_path(TRACER)
    text = imported.text
    assert text.startswith("# Imported by meshspec import from ttnn's operation tracer")
    assert f"#   {TRACER} (7 op files)" in text
    assert "from_torch steps use meshspec's default data (arange)" in text
    assert "  # 4_ttnn_copy_host_to_device_tensor_20261201_084717_938206.json: ttnn.copy_host_to_device_tensor\n  - copy_host_to_device_tensor: {src: host0, dst: dev1}\n" in text
    assert "  # 5_ttnn_from_device_20261201_084717_938967.json: ttnn.from_device, called by 6_ttnn_to_torch_20261201_084717_940423.json (ttnn.to_torch): part of its step\n" in text
    assert "mesh: [2, 4]\n" in text
    assert ("  - from_torch: {as: dev0, shape: [2, 1, 32, 256], dtype: float32, layout: row_major, memory_config: DRAM_MEMORY_CONFIG, "
            "mesh_mapper: {placements: [{shard: 0}, {shard: 3}]}, device: mesh_device}\n") in text  # docs/ttnn-spelling.md's order of fields


COPY_DESTINATION = {"copy_host_to_device_tensor": ("dst", "StorageType.DEVICE"), "copy_device_to_host_tensor": ("host_tensor", "StorageType.HOST")}


def test_every_traced_tensor_ends_the_run_with_its_last_traced_topology():
    imported = import_path(MORE)
    report = runs(imported)
    last = {}  # tensor name -> its last traced state: the result that made it, or a copy's destination after the copy
    for source, step in steps_by_source(imported).items():
        (op, args), = step.items()
        data = json.loads((MORE / source).read_text())
        if "as" in args:
            last[args["as"]] = data["return_value"]
        if op in COPY_DESTINATION:
            key, storage = COPY_DESTINATION[op]
            last[args[key]] = next(a["value"] for a in data["args"] if a["value"]["storage_type"] == storage)
    assert len(last) == 17
    for name, was in last.items():
        t = tensor(report, name)
        assert t["topology"]["distribution_shape"] == was["mesh_device"]["distribution_shape"], name
        assert t["topology"]["placements"] == placements(was["mesh_device"]["placements"]), name
        assert {tuple(d["spec"]["shape"]) for d in t["devices"] if d["spec"]} <= {tuple(was["shape"])}, name


def test_tracer_more_maps_each_kind_of_call():
    by = {src.split("_")[0]: step for src, step in steps_by_source(import_path(MORE)).items()}
    assert by["2"] == {"to_device": {"src": "host0", "as": "dev0", "memory_config": "L1_MEMORY_CONFIG"}}
    assert by["3"] == {"cpu": {"tensor": "dev0", "as": "host1"}}  # ttnn.from_device
    assert by["4"] == {"to_torch": {"tensor": "host1", "mesh_composer": {"concat": 3}}}
    assert by["6"]["from_torch"]["mesh_mapper"] == "ReplicateTensorToMesh"
    assert by["9"]["from_torch"]["mesh_mapper"] == {"shard": 1}  # 7 rows over 8 devices: distribution (7)
    assert by["12"] == {"to_torch": {"tensor": "dev2", "mesh_composer": {"concat": 1}}}
    assert "mesh_mapper" not in by["13"]["from_torch"]
    assert by["15"]["from_torch"]["mesh_mapper"] == {"placements": ["replicate", {"shard": 1}], "mesh_shape": [2, 3]}
    assert by["18"] == {"allocate_tensor_on_host": {"as": "host6", "shape": [7, 1, 32, 32], "dtype": "float32", "layout": "row_major"}}
    assert by["19"] == {"copy_device_to_host_tensor": {"device_tensor": "dev4", "host_tensor": "host6"}}
    assert by["20"] == {"zeros": {"as": "dev5", "shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile", "device": "mesh_device"}}
    assert "device" not in by["21"]["zeros"]
    assert "22" not in by  # from_torch inside as_tensor
    assert by["23"]["as_tensor"]["mesh_mapper"] == {"shard": 3}
    assert by["24"]["from_torch"]["tile"] == [16, 32]
    assert by["25"]["from_torch"]["device"] == "mesh_device"


def test_the_uneven_copy_records_the_seven_written_devices():
    report = runs(import_path(MORE))
    dst = traced(MORE, "10")["args"][1]["value"]["mesh_device"]
    dev2 = tensor(report, "dev2")
    assert dev2["topology"]["distribution_shape"] == dst["distribution_shape"] == [7]
    assert [d["coord"] for d in dev2["devices"] if d["recorded"]] == ROW_MAJOR_2x4[:7]


def test_an_ambiguous_argument_is_said_in_its_comment():
    text = import_path(MORE).text
    assert "  # 10_ttnn_copy_host_to_device_tensor_20261201_120730_720415.json: ttnn.copy_host_to_device_tensor\n  # args[1]: 2 earlier tensors have its spec: taken to be the latest\n" in text


def test_unmapped_tracer_calls_and_their_dependents_are_listed():
    imported = import_path(DATA / "tracer-unmapped")
    assert imported.unmapped == (
        f"2_ttnn_add_20260101_000000_000002.json: ttnn.add ({NOT_MAPPED_YET.format('add')}; its result is an opaque step, as the trace recorded it)",
        "7_ttnn_from_torch_20260101_000000_000007.json: ttnn.from_torch (memory_config HEIGHT_SHARDED: import reads no shard spec (grid, shard shape, "
        "orientation) from a trace, and a sharded step needs one: write its memory_config by hand (meshspec explain allocate_tensor_on_device))",
        "8_ttnn_from_device_20260101_000000_000008.json: ttnn.from_device (its input comes from 7_ttnn_from_torch_20260101_000000_000007.json (ttnn.from_torch), which was not imported)",
        "9_ttnn_to_torch_20260101_000000_000009.json: ttnn.to_torch (its input comes from 8_ttnn_from_device_20260101_000000_000008.json (ttnn.from_device), which was not imported)",
    )
    assert imported.scenario["steps"] == [
        {"from_torch": {"as": "dev0", "shape": [1, 1, 32, 256], "dtype": "float32", "layout": "row_major", "mesh_mapper": {"shard": 3}, "device": "mesh_device"}},
        {"opaque": {"call": "ttnn.add", "uses": ["dev0"], "as": "dev1", "shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "row_major", "storage": "device",
                    "topology": {"distribution_shape": [8], "placements": [{"shard": 3}], "coords": ROW_MAJOR_2x4}}},
        {"cpu": {"tensor": "dev1", "as": "host0"}},
        {"to_torch": {"tensor": "host0", "mesh_composer": {"concat": 3}}},
        {"to_torch": {"tensor": "dev0", "mesh_composer": {"concat": 3}}},
        {"deallocate": {"tensor": "dev0"}},
    ]
    assert f"  # not imported: 2_ttnn_add_20260101_000000_000002.json: ttnn.add ({NOT_MAPPED_YET.format('add')}; its result is an opaque step, as the trace recorded it)\n  - opaque: {{call: ttnn.add," in imported.text
    assert "  # not imported: 9_ttnn_to_torch_20260101_000000_000009.json: ttnn.to_torch (its input comes from" in imported.text
    assert "# 4 calls not imported (1 of them as an opaque step declaring what it returned): see the 'not imported' comments where they ran.\n" in imported.text
    assert "4 not imported (1 of them as an opaque step declaring what it returned)." in imported.scenario["description"]
    report = runs(imported)
    assert tensor(report, "dev0")["storage"] == "deallocated"
    added = traced(DATA / "tracer-unmapped", "2")["return_value"]  # the opaque step's tensor has the records the trace gave it
    dev1 = tensor(report, "dev1")
    assert dev1["topology"]["distribution_shape"] == added["mesh_device"]["distribution_shape"]
    assert [d["spec"]["dtype"] for d in dev1["devices"] if d["recorded"]] == ["bfloat16"] * 8
    assert tensor(report, "host0")["topology"] == dev1["topology"]


def test_a_tensor_no_traced_call_made_is_recreated_from_its_spec(tmp_path):
    folder = tmp_path / "trace"
    folder.mkdir()
    shutil.copy(next(TRACER.glob("4_*.json")), folder)  # the copy alone: both its tensors come from nowhere
    imported = import_path(folder)
    assert imported.scenario["steps"] == [
        {"from_torch": {"as": "host0", "shape": [2, 1, 32, 256], "dtype": "bfloat16", "layout": "tile", "mesh_mapper": {"placements": [{"shard": 0}, {"shard": 3}]}}},
        {"from_torch": {"as": "dev0", "shape": [2, 1, 32, 256], "dtype": "bfloat16", "layout": "tile",
                        "mesh_mapper": {"placements": [{"shard": 0}, {"shard": 3}]}, "device": "mesh_device"}},
        {"copy_host_to_device_tensor": {"src": "host0", "dst": "dev0"}},
    ]
    assert "  # host0: host 1x1x32x64 bfloat16 tile dram (2x4) [S(0), S(3)], used by 4_ttnn_copy" in imported.text
    runs(imported)


def test_importing_writes_no_file(tmp_path):
    folder = tmp_path / "trace"
    shutil.copytree(TRACER, folder)
    shutil.copy(GRAPH, tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    import_path(folder)
    import_path(tmp_path / GRAPH.name)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


# -- the graph capture -------------------------------------------------------------------------
def test_real_graph_example_becomes_these_steps():
    imported = import_path(GRAPH)
    assert imported.scenario["mesh"] == [2, 4]  # MeshDevice(2x4 grid, 8 devices), from the sidecar
    assert imported.scenario["steps"] == [
        {"allocate_tensor_on_device": {"as": "dev0", "shape": [1, 1, 32, 64], "dtype": "bfloat16", "layout": "tile"}},
        {"from_torch": {"as": "host0", "shape": [2, 1, 32, 256], "dtype": "bfloat16", "layout": "tile",
                        "mesh_mapper": {"placements": [{"shard": 0}, {"shard": 3}]}}},
        {"copy_host_to_device_tensor": {"src": "host0", "dst": "dev0"}},
        {"cpu": {"tensor": "dev0", "as": "host1"}},
        {"deallocate": {"tensor": "dev0"}},
    ]
    assert imported.unmapped == ()
    text = imported.text
    assert "# Sidecar: graph-example.python_io.json, for topologies, torch shapes and mesh mappers.\n" in text
    assert "  # node 15: Tensor.cpu\n  - cpu: {tensor: dev0, as: host1}\n" in text
    assert "  # host0: host 1x1x32x64 bfloat16 tile dram (2x4) [S(0), S(3)], used by node 8; no traced call made it" in text


def test_real_graph_example_runs_with_the_topology_and_coords_the_capture_recorded():
    report = runs(import_path(GRAPH))
    # the python_io record of ttnn.deallocate: dev0 as it was after the copy
    summary = json.loads(GRAPH.with_suffix(".python_io.json").read_text())[2]["arguments"]["0"]
    coords = [json.loads(c) for c in re.findall(r"MeshCoordinate\((\[[\d, ]+\])\)", summary)]
    dev0 = tensor(report, "dev0")
    assert dev0["topology"]["coords"] == coords == ROW_MAJOR_2x4
    assert "distribution_shape=MeshShape([2, 4])" in summary and dev0["topology"]["distribution_shape"] == [2, 4]
    assert "placements=['PlacementShard(0)', 'PlacementShard(3)']" in summary
    assert dev0["topology"]["placements"] == [{"shard": 0}, {"shard": 3}]
    assert tensor(report, "host1")["topology"] == dev0["topology"]  # cpu() keeps it


def test_real_graph_more_maps_methods_creation_and_the_uneven_copy():
    imported = import_path(GRAPH_MORE)
    by = steps_by_source(imported)
    assert by["node 38"] == {"to_device": {"src": "host0", "as": "dev0", "memory_config": "L1_MEMORY_CONFIG"}}
    assert by["node 46"] == {"cpu": {"tensor": "dev0", "as": "host1"}}  # ttnn.from_device
    assert by["node 52"] == {"to_torch": {"tensor": "dev0", "mesh_composer": {"concat": 3}}}
    assert by["node 62"] == {"to": {"tensor": "host0", "as": "dev1"}}  # host.to(mesh_device): Tensor::to_device
    assert by["node 68"] == {"zeros": {"as": "dev2", "shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile", "device": "mesh_device"}}
    assert by["node 88"]["from_torch"]["shape"] == [1, 7, 32, 32]
    assert imported.unmapped == ()
    report = runs(imported)
    # the capture's tensor node for the destination after the copy lists the devices that hold a shard
    nodes = json.loads(GRAPH_MORE.read_text())["graph"]
    after_copy = json.loads(nodes[126]["params"]["device_tensors"])
    dev3 = tensor(report, "dev3")
    assert len(after_copy) == sum(d["recorded"] for d in dev3["devices"]) == 7
    assert dev3["topology"]["distribution_shape"] == [7]


def test_a_capture_without_its_sidecar_still_runs(tmp_path):
    shutil.copy(GRAPH, tmp_path)
    imported = import_path(tmp_path / GRAPH.name)
    assert imported.scenario["mesh"] == "t3k"  # 8 Wormhole chips, shape not recorded
    assert imported.scenario["steps"][1] == {"from_torch": {"as": "host0", "shape": [1, 1, 32, 64], "dtype": "bfloat16", "layout": "tile"}}
    assert "# Sidecar: no graph-example.python_io.json beside it" in imported.text
    assert "  # host0: its topology is not recorded: taken as one plain host tensor\n" in imported.text
    report = runs(imported)
    assert sum(d["recorded"] for d in tensor(report, "host1")["devices"]) == 8


def test_without_the_sidecar_a_host_result_is_joined_to_its_next_use_by_spec(tmp_path):
    shutil.copy(GRAPH_MORE, tmp_path)
    imported = import_path(tmp_path / GRAPH_MORE.name)
    by = steps_by_source(imported)
    assert by["node 38"]["to_device"]["src"] == "host0"  # the from_torch result, under the id ttnn gave it
    assert imported.unmapped == (
        "node 52: ttnn.to_torch (its mesh composer cannot be told from the trace: the input's placements are not recorded)",
        "node 128: ttnn.to_torch (its mesh composer cannot be told from the trace: the input's placements are not recorded)",
    )
    runs(imported)


def test_unmapped_graph_nodes_and_their_dependents_are_listed():
    imported = import_path(DATA / "graph-unmapped.json")
    assert imported.unmapped == (
        f"node 8: ttnn.matmul ({NOT_MAPPED_YET.format('matmul')})",
        "node 15: Tensor.cpu (its input comes from node 8 (ttnn.matmul), which was not imported)",
    )
    assert imported.scenario["steps"] == [
        {"allocate_tensor_on_device": {"as": "dev0", "shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile"}},
        {"deallocate": {"tensor": "dev0"}},
    ]
    assert tensor(runs(imported), "dev0")["storage"] == "deallocated"


def test_a_call_that_did_not_finish_is_not_imported(tmp_path):
    data = json.loads((DATA / "graph-unmapped.json").read_text())
    data["graph"] = [n for n in data["graph"] if n["counter"] not in (23, 24)]  # ttnn.deallocate never ends
    (tmp_path / "cut.json").write_text(json.dumps(data))
    imported = import_path(tmp_path / "cut.json")
    assert imported.unmapped[-1] == "node 19: ttnn.deallocate (it did not finish: the capture has no function_end for it (it raised))"


def test_the_content_decides_not_the_name(tmp_path):
    (tmp_path / "capture.txt").write_text(GRAPH.read_text())
    assert import_path(tmp_path / "capture.txt").scenario["steps"][0]["allocate_tensor_on_device"]["as"] == "dev0"
    nodes = json.loads(GRAPH.read_text())["graph"]  # what end_graph_capture() returns, saved with json.dump
    (tmp_path / "nodes.json").write_text(json.dumps(nodes))
    assert len(import_path(tmp_path / "nodes.json").scenario["steps"]) == 5


# -- errors: one line, naming the file, the bad value and the choices ---------------------------
def one_line(err: pytest.ExceptionInfo, *parts: str) -> str:
    text = str(err.value)
    assert isinstance(err.value, MeshspecError) and "\n" not in text
    for part in parts:
        assert part in text, text
    return text


def test_a_path_that_is_neither_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError) as err:
        import_path(tmp_path / "nope")
    one_line(err, "nope: no such file or folder; give a folder of ttnn operation-tracer files", "or a ttnn graph capture .json")
    (tmp_path / "s.yaml").write_text("meshspec: 1\n")
    with pytest.raises(UsageError) as err:
        import_path(tmp_path / "s.yaml")
    one_line(err, "s.yaml: neither a folder nor JSON; give a folder of ttnn operation-tracer files")
    (tmp_path / "other.json").write_text('{"foo": 1}')
    with pytest.raises(UsageError) as err:
        import_path(tmp_path / "other.json")
    one_line(err, "other.json: an object with keys foo, not a graph capture (an object with a 'graph' list of nodes); give")


def test_one_tracer_file_or_a_sidecar_names_what_to_import_instead():
    with pytest.raises(UsageError) as err:
        import_path(next(TRACER.glob("1_*.json")))
    one_line(err, "one operation-tracer file; import its folder,", str(TRACER))
    with pytest.raises(UsageError) as err:
        import_path(GRAPH.with_suffix(".python_io.json"))
    one_line(err, "a graph capture's python_io sidecar; import the capture beside it, graph-example.json")


def test_bad_json_names_the_file_line_and_column(tmp_path):
    (tmp_path / "g.json").write_text('{"graph": [\n  {"counter": 0,,}]}')
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path / "g.json")
    one_line(err, "g.json:2:17: not valid JSON: Expecting property name")
    folder = tmp_path / "trace"
    folder.mkdir()
    (folder / "1_ttnn_to_device_x.json").write_text("{")
    with pytest.raises(ScenarioError) as err:
        import_path(folder)
    one_line(err, "1_ttnn_to_device_x.json:1:2: not valid JSON")


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.pop("operation_name"), "missing key 'operation_name' (an operation-tracer file has operation_id, operation_name, args, kwargs)"),
        (lambda d: d.update(args={"0": 1}), "args: expected a list, got {\"0\": 1}"),
        (lambda d: d.update(operation_id="4"), 'operation_id: expected an integer, got "4"'),
        (lambda d: d["args"][0]["value"].pop("layout"), "args[0]: a ttnn.Tensor without 'layout'"),
        (lambda d: d["args"][0]["value"].update(shape="1x1"), 'args[0].shape: expected a list of integers, got "1x1"'),
        (lambda d: d["args"][0]["value"]["mesh_device"].update(placements=["Partial"]),
         "args[0].mesh_device.placements[0]: placement 'Partial' is neither PlacementShard(dim) nor PlacementReplicate"),
        (lambda d: d["args"].append(7), "args[2]: each argument is {\"position\": N, \"value\": ...}, got 7"),
    ],
)
def test_a_malformed_tracer_file_names_the_file_and_key(tmp_path, edit, message):
    data = traced(TRACER, "4")
    edit(data)
    (tmp_path / "4_ttnn_copy_host_to_device_tensor_x.json").write_text(json.dumps(data))
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path)
    one_line(err, f"4_ttnn_copy_host_to_device_tensor_x.json: {message}")


def test_a_malformed_graph_names_the_node_and_key(tmp_path):
    data = json.loads(GRAPH.read_text())
    del data["graph"][3]["node_type"]
    (tmp_path / "g.json").write_text(json.dumps(data))
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path / "g.json")
    one_line(err, "g.json: graph[3]: missing key 'node_type' (a node has counter, node_type, params, connections)")
    data = json.loads(GRAPH.read_text())
    data["graph"][6]["params"]["shape"] = "unknown"
    (tmp_path / "g.json").write_text(json.dumps(data))
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path / "g.json")
    one_line(err, "g.json: node 6: a tensor node has shape (Shape([...])), dtype and layout")
    (tmp_path / "h.json").write_text('{"graph": {"nodes": []}}')
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path / "h.json")
    one_line(err, "h.json: a graph capture holds a JSON object with a 'graph' list of nodes")


def test_folders_without_op_files(tmp_path):
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path)
    one_line(err, "no operation-tracer files (N_ttnn_<op>_<time>.json) in this folder")
    for run_id in ("a1b2", "c3d4"):  # tt-metal's plugin: one sub-folder per test
        (tmp_path / run_id).mkdir()
        shutil.copy(next(TRACER.glob("1_*.json")), tmp_path / run_id)
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path)
    one_line(err, "holds one trace folder per test (2); import one of them: a1b2, c3d4")


def test_two_runs_in_one_folder_and_nothing_to_import(tmp_path):
    shutil.copy(next(TRACER.glob("1_*.json")), tmp_path / "1_ttnn_from_torch_a.json")
    shutil.copy(next(TRACER.glob("1_*.json")), tmp_path / "1_ttnn_from_torch_b.json")
    with pytest.raises(ScenarioError) as err:
        import_path(tmp_path)
    one_line(err, "operation_id 1 is in both", "the folder mixes traced runs")
    nothing = tmp_path / "sync"
    nothing.mkdir()
    sync = {"operation_id": 1, "operation_name": "ttnn.synchronize_device", "args": [{"position": 0, "value": traced(TRACER, "2")["args"][1]["value"]}], "kwargs": {}}
    (nothing / "1_ttnn_synchronize_device_x.json").write_text(json.dumps(sync))
    with pytest.raises(ScenarioError) as err:
        import_path(nothing)
    one_line(err, "none of its 1 calls maps to a meshspec step (first: 1_ttnn_synchronize_device_x.json: ttnn.synchronize_device (no meshspec step models this call")


def test_a_sidecar_that_does_not_match_is_not_used(tmp_path):
    shutil.copy(GRAPH, tmp_path)
    records = json.loads(GRAPH.with_suffix(".python_io.json").read_text())
    (tmp_path / "graph-example.python_io.json").write_text(json.dumps(records[1:]))
    imported = import_path(tmp_path / GRAPH.name)
    assert "# Sidecar: graph-example.python_io.json does not match the capture's Python-level calls, so it is not used.\n" in imported.text
    assert imported.scenario["mesh"] == "t3k"


def test_a_tensor_on_another_mesh_device_is_not_imported(tmp_path):
    data = traced(TRACER, "2")
    data["return_value"]["mesh_device"]["shape"] = [1, 4]  # a 1x4 submesh of the 2x4 mesh the MeshDevice argument is
    (tmp_path / "2_ttnn_allocate_tensor_on_device_x.json").write_text(json.dumps(data))
    shutil.copy(next(TRACER.glob("1_*.json")), tmp_path)
    imported = import_path(tmp_path)
    assert imported.unmapped == (
        "2_ttnn_allocate_tensor_on_device_x.json: ttnn.allocate_tensor_on_device (a tensor on a mesh device of shape [1, 4], "
        "not the scenario's [2, 4]: meshspec import models one mesh device)",
    )


def _leaves(value, path=()):
    if isinstance(value, (dict, list)):
        for k, v in (value.items() if isinstance(value, dict) else enumerate(value)):
            yield path + (k,)
            yield from _leaves(v, path + (k,))


def test_mutated_inputs_import_and_run_or_fail_in_one_line(tmp_path):
    """Real inputs with a value or two replaced by junk: an import that succeeds loads and runs;
    one that fails says so in one line."""
    rng = random.Random(7)
    junk = [None, 0, -1, 2**60, 1.5, "x", "", [], {}, [1, "a"], True, "Shape([0, -1])", {"type": "ttnn.Tensor"}]
    outcomes = set()
    for i in range(60):
        case = tmp_path / str(i)
        if i % 2:
            shutil.copytree(MORE, case)
            target, victim = case, rng.choice(sorted(case.iterdir()))
        else:
            case.mkdir()
            shutil.copy(GRAPH, case)
            shutil.copy(GRAPH.with_suffix(".python_io.json"), case)
            target, victim = case / GRAPH.name, rng.choice(sorted(case.iterdir()))
        data = json.loads(victim.read_text())
        for _ in range(rng.randint(1, 2)):
            *where, last = rng.choice(list(_leaves(data)))
            parent = data
            for k in where:
                parent = parent[k]
            parent[last] = json.loads(json.dumps(rng.choice(junk)))
        victim.write_text(json.dumps(data))
        try:
            imported = import_path(target)
        except MeshspecError as err:
            text = str(err)
            assert "\n" not in text and (target.name in text or victim.name in text), text
            outcomes.add("refused")
            continue
        run(parse(imported.text, "imported.yaml"))
        outcomes.add("imported")
    assert outcomes == {"refused", "imported"}


# -- the shared mapping ------------------------------------------------------------------------
def traced_tensor(shape, dist, placements, storage="device"):
    return common.Traced(0, storage, tuple(shape), "bfloat16", "tile", distribution=common.Distribution(tuple(dist), tuple(placements)))


@pytest.mark.parametrize(
    "shard, dist, placements, result, expected",
    [
        ((1, 1, 32, 64), (2, 4), (0, 3), (2, 1, 32, 256), {"concat": [0, 3]}),
        ((1, 1, 32, 32), (8,), (3,), (1, 1, 32, 256), {"concat": 3}),
        ((7, 1, 32, 32), (2, 3), (None, 1), (14, 3, 32, 32), {"concat": [0, 1], "mesh_shape": [2, 3]}),
        ((1, 1, 32, 32), (8,), (None,), (8, 1, 32, 32), {"concat": 0}),
        ((1, 1, 32, 32), (1,), (None,), (1, 1, 32, 32), {"concat": 0}),
    ],
)
def test_the_composer_is_read_back_from_the_shapes(shard, dist, placements, result, expected):
    assert steps.composer(traced_tensor(shard, dist, placements), result, (2, 4)) == expected


def test_a_composer_the_shapes_do_not_give_is_unmappable():
    with pytest.raises(steps.Unmappable, match=r"cannot be told from the shapes: shard \[1, 1, 32, 32\], \(8\) \[S\(3\)\], result \[1, 1, 32, 96\]"):
        steps.composer(traced_tensor((1, 1, 32, 32), (8,), (3,)), (1, 1, 32, 96), (2, 4))


@pytest.mark.parametrize(
    "shape, shard, dist, placements, expected",
    [
        ((1, 7, 32, 32), (1, 1, 32, 32), (7,), (1,), {"shard": 1}),
        ((1, 1, 32, 256), (1, 1, 32, 32), (8,), (3,), {"shard": 3}),
        ((1, 1, 32, 32), (1, 1, 32, 32), (8,), (None,), "replicate"),
        ((1, 8, 32, 32), (1, 2, 32, 32), (2, 4), (None, 1), {"placements": ["replicate", {"shard": 1}]}),
        ((1, 4, 32, 32), (1, 1, 32, 32), (4,), (1,), {"shard": 1}),  # torch.chunk(4, 8): 4 chunks
        ((1, 8, 32, 32), (1, 2, 32, 32), (4,), (1,), {"placements": [{"shard": 1}], "mesh_shape": [4]}),
    ],
)
def test_the_mapper_is_read_back_from_its_result(shape, shard, dist, placements, expected):
    assert steps.mapper("CppTensorToMesh", shape, traced_tensor(shard, dist, placements, "host"), (2, 4)) == expected


def test_a_blackhole_mesh_is_its_system():
    assert common.mesh_value((2, 4), "blackhole") == "p150x8"
    assert common.mesh_value((1, 8), "blackhole") == {"system": "p150x8", "shape": [1, 8]}
    assert common.mesh_value((2, 4), "wormhole_b0") == [2, 4]


@pytest.mark.parametrize("module", [common, steps])
def test_the_docstring_examples_hold(module):
    assert doctest.testmod(module).failed == 0


def test_every_step_the_handlers_write_is_a_meshspec_step():
    from meshspec.sim.ops import OPS

    written = {"from_torch", "as_tensor", "allocate_tensor_on_device", "allocate_tensor_on_host", "copy_host_to_device_tensor",
               "copy_device_to_host_tensor", "to_device", "to", "cpu", "to_torch", "deallocate", "dump_tensor", "load_tensor",
               "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like", "opaque"}
    assert written <= set(OPS)
    assert {op.split(".")[-1] for op in steps.HANDLERS} - {"from_device", "to"} <= written


def test_creation_like_dump_and_load_calls_map_and_run():
    R8 = common.Distribution((8,), (None,))
    dev = lambda key, dtype="bfloat16": common.Traced(key, "device", (1, 1, 32, 32), dtype, "tile", distribution=R8, mesh=(2, 4))
    calls = [
        common.Call("c1", "ttnn.full", outputs=(dev(1),), fill_value=2.5),
        common.Call("c2", "ttnn.zeros_like", inputs=(dev(1),), outputs=(dev(2, "float32"),)),
        common.Call("c3", "ttnn.dump_tensor", inputs=(dev(2, "float32"),), file_name="w.tensorbin"),
        common.Call("c4", "ttnn.load_tensor", outputs=(dev(3, "float32"),), file_name="w.tensorbin"),
        common.Call("c5", "ttnn.load_tensor", outputs=(dev(4),), file_name="other.tensorbin"),
        common.Call("c6", "ttnn.to_torch", inputs=(dev(4),), composer=True, result_shape=(8, 1, 32, 32)),
    ]
    built = steps.build(calls, (2, 4))
    assert built.steps == [
        {"full": {"as": "dev0", "shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile", "fill_value": 2.5, "device": "mesh_device"}},
        {"zeros_like": {"tensor": "dev0", "as": "dev1", "dtype": "float32"}},
        {"dump_tensor": {"file_name": "w.tensorbin", "tensor": "dev1"}},
        {"load_tensor": {"file_name": "w.tensorbin", "as": "dev2", "device": "mesh_device"}},
        {"opaque": {"call": "ttnn.load_tensor", "as": "dev3", "shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile", "storage": "device",
                    "topology": {"distribution_shape": [8], "placements": ["replicate"], "coords": ROW_MAJOR_2x4}}},
        {"to_torch": {"tensor": "dev3", "mesh_composer": {"concat": 0}}},
    ]
    assert built.unmapped == ("c5: ttnn.load_tensor (it loads other.tensorbin, which no traced dump_tensor wrote; in meshspec, files live in the run; "
                              "its result is an opaque step, as the trace recorded it)",)
    scenario = {"meshspec": 1, "mesh": [2, 4], "steps": built.steps}
    report = run(parse(yaml.safe_dump(scenario, sort_keys=False), "built.yaml"))
    assert report.error is None, report.error


def test_a_long_trace_finds_each_argument_by_its_signature_not_by_a_scan(tmp_path, monkeypatch):
    # The tracer records no tensor ids: an argument is the latest live earlier tensor with its spec
    # and topology. The example's 7 calls repeated 50 times (fresh operation ids): a scan of every
    # earlier tensor computed _sig 30,624 times here (16 s for 1,600 repeats); an index 900, a few
    # times a tensor. The steps are the example's ops, repeated.
    import json

    from meshspec.bridge.importer import tracer

    files = sorted(TRACER.glob("*.json"), key=lambda p: int(p.name.split("_")[0]))
    op = 0
    for _ in range(50):
        for f in files:
            op += 1
            doc = json.loads(f.read_text(encoding="utf-8"))
            doc["operation_id"] = op
            (tmp_path / f"{op}_{f.name.split('_', 1)[1]}").write_text(json.dumps(doc), encoding="utf-8")
    calls = []
    sig = tracer._sig
    monkeypatch.setattr(tracer, "_sig", lambda t, loose: calls.append(1) or sig(t, loose))
    imported = import_path(tmp_path)
    once = import_path(TRACER).scenario["steps"]
    assert [next(iter(s)) for s in imported.scenario["steps"]] == [next(iter(s)) for s in once] * 50
    assert len(calls) < 20 * op
