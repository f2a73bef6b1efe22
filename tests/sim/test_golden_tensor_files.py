"""What a tensor file keeps per shard and what a load gives, replayed against ttnn itself
(tests/golden/ttnn_tensor_files.json, recorded in the mock by tools/golden/record_tensor_files.py;
docs/semantics.md section 20): ttnn 0.81.1 keeps one shard for each group of devices its label's
Replicate axes join, so a label that says Replicate over different slices loads back with the
first device's slice on the whole group; the reference keeps every shard."""

import json
from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "ttnn_tensor_files.json").read_text())
T3K = [[r, c] for r in range(2) for c in range(4)]

#: The recorder's cases (tools/golden/record_tensor_files.py CASES) as meshspec steps: the tensor x.
MAKE = {
    "sharded_8": ("[1, 8, 32, 32]", "{placements: [{shard: 1}], mesh_shape: [8]}", None),
    "sharded_2d": ("[1, 1, 64, 128]", "{placements: [{shard: 2}, {shard: 3}]}", None),
    "replicated": ("[1, 1, 32, 32]", "{placements: [replicate, replicate]}", None),
    "plain": ("[1, 1, 32, 32]", None, None),
    "sharded_labelled_replicated": ("[1, 8, 32, 32]", "{placements: [{shard: 1}], mesh_shape: [8]}", ([8], "[replicate]")),
    "sharded_2d_labelled_replicate_rows": ("[1, 1, 64, 128]", "{placements: [{shard: 2}, {shard: 3}]}", ([2, 4], "[replicate, {shard: 3}]")),
    "replicated_labelled_sharded": ("[1, 1, 32, 32]", "{placements: [replicate, replicate]}", ([2, 4], "[{shard: 2}, {shard: 3}]")),
}


def _scenario(case: str, device: bool) -> str:
    shape, mapper, label = MAKE[case]
    mapped = f", mesh_mapper: {mapper}" if mapper else ""
    steps = [f"from_torch: {{as: x, shape: {shape}, dtype: float32, layout: ROW_MAJOR_LAYOUT{mapped}}}"]
    if label:
        steps.append(f"update_tensor_topology: {{tensor: x, topology: {{distribution_shape: {label[0]}, placements: {label[1]}, coords: {T3K}}}}}")
    steps += ["dump_tensor: {file_name: x.tensorbin, tensor: x}",
              f"load_tensor: {{file_name: x.tensorbin, as: y{', device: mesh_device' if device else ''}}}",
              "get_device_tensors: {tensor: x, as: xs}"]
    if not device:
        steps.append("get_device_tensors: {tensor: y, as: ys}")
    return "meshspec: 1\nname: f\nmesh: t3k\nsteps:\n" + "".join(f"  - {s}\n" for s in steps)


def _run(case: str, device: bool, profile: str = "current") -> dict:
    report = run(parse(_scenario(case, device), Path("f.yaml")), profile).to_json()
    assert report["error"] is None
    return {t["name"]: t for t in report["tensors"]}


def _firsts(tensors: dict, prefix: str) -> list:
    parts = sorted((n for n in tensors if n.startswith(prefix + "[")), key=lambda n: int(n[len(prefix) + 1 : -1]))
    return [tensors[n]["values"]["first"][0] for n in parts]


@pytest.mark.parametrize("case", sorted(MAKE))
def test_a_host_load_gives_what_ttnn_0_81_1_gives(case):
    seen = GOLDEN["0.81.1"][case]
    t = _run(case, device=False)
    assert _firsts(t, "xs") == seen["dumped"]["first_values"]
    assert _firsts(t, "ys") == seen["host_load"]["first_values"]
    assert t["y"]["topology"]["distribution_shape"] == seen["host_load"]["topology"]["distribution_shape"]


@pytest.mark.parametrize("case", sorted(MAKE))
def test_a_device_load_is_recorded_where_ttnn_0_81_1_puts_it(case):
    seen = GOLDEN["0.81.1"][case]["device_load"]
    y = _run(case, device=True)["y"]
    assert y["topology"]["distribution_shape"] == seen["topology"]["distribution_shape"]
    assert [d["coord"] for d in y["devices"] if d["recorded"]] == seen["device_coords"]


def test_a_label_that_says_copies_loses_the_other_slices_in_0_81_1_and_not_in_the_reference():
    golden = GOLDEN["0.81.1"]["sharded_2d_labelled_replicate_rows"]
    assert golden["file_bytes"] < GOLDEN["0.81.1"]["sharded_2d"]["file_bytes"]  # four shards written, not eight
    assert _firsts(_run("sharded_2d_labelled_replicate_rows", False), "ys") == [0.0, 32.0, 64.0, 96.0] * 2
    assert _firsts(_run("sharded_2d_labelled_replicate_rows", False, "reference"), "ys") == golden["dumped"]["first_values"]


@pytest.mark.parametrize("version", ["0.66.0", "0.67.0"])
def test_earlier_versions_keep_an_honest_label_as_0_81_1_does(version):
    """0.66 and 0.67 have no update_tensor_topology, so no label can lie there; what they keep of an
    honest one is 0.81.1's (nothing distinguishes an era of the tensor_file rule among them)."""
    for case in ("sharded_8", "sharded_2d", "replicated", "plain"):
        old, new = GOLDEN[version][case], GOLDEN["0.81.1"][case]
        assert old["host_load"]["first_values"] == new["host_load"]["first_values"] == old["dumped"]["first_values"]
        assert old["device_load"]["device_coords"] in (None, new["device_load"]["device_coords"])


def test_an_as_tensor_hit_asking_for_another_mapper_gets_the_file():
    """The cache file's name has neither mapper in it (section 9): a hit asking for [R, R] gets the
    miss's eight slices, in every recorded version."""
    for version, cases in GOLDEN.items():
        seen = cases["as_tensor_cache"]
        assert seen["hit"]["first_values"] == seen["miss"]["first_values"] == [1024.0 * i for i in range(8)], version
        assert seen["files"] == ["weights_dtype_FLOAT32_layout_ROW_MAJOR.tensorbin"]
    scenario = ("meshspec: 1\nname: f\nmesh: t3k\nsteps:\n"
                "  - as_tensor: {as: miss, shape: [1, 8, 32, 32], dtype: float32, mesh_mapper: {placements: [{shard: 1}], mesh_shape: [8]}, cache_file_name: weights}\n"
                "  - as_tensor: {as: hit, shape: [1, 8, 32, 32], dtype: float32, mesh_mapper: {placements: [replicate, replicate]}, cache_file_name: weights}\n"
                "  - get_device_tensors: {tensor: hit, as: parts}\n")
    t = {t["name"]: t for t in run(parse(scenario, Path("f.yaml")), "current").to_json()["tensors"]}
    assert _firsts(t, "parts") == GOLDEN["0.81.1"]["as_tensor_cache"]["hit"]["first_values"]


DRAM_SHARDED = GOLDEN["0.81.1"]["dram_width_sharded"]


def _dram_sharded(profile: str, load_memory: str = "", file_name: str = "weight.tensorbin"):
    """Issue #26763's weight, cut to (256, 128), dumped and loaded onto the mesh (tools/golden/record_tensor_files.py)."""
    spec = DRAM_SHARDED["dumped"]["shard_spec"]
    memory = ("{memory_layout: width_sharded, buffer_type: dram, shard_spec: "
              f"{{grid: {spec['grid']}, shape: {spec['shape']}, orientation: row_major}}}}")
    own = f"profiles:\n  era: {{base: current, load_memory: {load_memory}}}\n" if load_memory else ""
    text = ("meshspec: 1\nname: f\nmesh: t3k\n" + own + "steps:\n"
            f"  - from_torch: {{as: w, shape: [256, 128], layout: tile, device: mesh_device, memory_config: {memory}}}\n"
            f"  - dump_tensor: {{file_name: {file_name}, tensor: w}}\n"
            f"  - load_tensor: {{file_name: {file_name}, device: mesh_device, as: y}}\n")
    return run(parse(text, Path("f.yaml")), profile).to_json()


def test_a_load_onto_the_device_keeps_the_dumped_sharded_memory_config_as_0_81_1_does():
    # tester's defect on issue 36: load_tensor dropped the shard spec (DRAM interleaved) in every profile
    t = {t["name"]: t for t in _dram_sharded("current")["tensors"]}
    assert t["y"]["devices"][0]["spec"]["memory_config"] == DRAM_SHARDED["device_load"] == DRAM_SHARDED["dumped"]


def test_before_pr_26831_a_load_was_dram_interleaved():
    report = _dram_sharded("era", load_memory="interleaved")
    t = {t["name"]: t for t in report["tensors"]}
    spec = t["y"]["devices"][0]["spec"]
    assert spec["memory"] == "dram" and "memory_config" not in spec  # interleaved: no shard spec to show


@pytest.mark.parametrize("name", sorted(DRAM_SHARDED["refused_names"]))
def test_a_file_name_without_the_tensorbin_extension_is_refused_with_ttnn_s_words(name):
    error = _dram_sharded("current", file_name=name)["error"]
    assert error["op"] == "dump_tensor" and error["message"].startswith(DRAM_SHARDED["refused_names"][name])
