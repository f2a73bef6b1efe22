"""Sharded memory against ttnn 0.81.1 where an attacker found meshspec lying (docs/semantics.md
section 11); each expected value is the real library's, from the mock (meshspec export, then the
script's report) or from ttnn's own page-mapping call."""

from pathlib import Path


from cli_runner import invoke
from meshspec.runner import run
from meshspec.scenario.loader import parse

ROOT = Path(__file__).resolve().parents[2]


def _run(steps: str, profile: str = "current", **options):
    return run(parse(f"meshspec: 1\nname: r\nmesh: t3k\nsteps:\n{steps}", Path("r.yaml")), profile, **options).to_json()


def test_an_nd_spec_stays_nd_where_round_robin_is_not_the_block_placement():
    # 2x2 shards of 32x32 on an 8x8 grid: ttnn keeps ND_SHARDED and puts pages 0..3 on (0,0)..(3,0)
    report = _run("  - from_torch: {as: a, shape: [1, 1, 64, 64]}\n"
                  "  - to_device: {src: a, as: d, memory_config: {buffer_type: l1, nd_shard_spec: {shard_shape: [32, 32], grid: [[[0, 0], [7, 7]]]}}}\n",
                  device=(0, 0))
    d = next(t for t in report["tensors"] if t["name"] == "d")
    assert d["devices"][0]["spec"]["memory_config"]["memory_layout"] == "nd_sharded"
    held = {tuple(c["core"]): c["pages"] for c in d["cores"]["cores"] if c["pages"]}
    assert held == {(0, 0): [0], (1, 0): [1], (2, 0): [2], (3, 0): [3]}


def test_a_row_major_host_into_a_padding_width_sharded_buffer_is_refused_by_to_device():
    report = _run("  - from_torch: {as: h, shape: [1, 1, 64, 200], layout: row_major}\n"
                  "  - to_device: {src: h, as: d, memory_config: {memory_layout: width_sharded, buffer_type: l1, "
                  "shard_spec: {grid: [[[0, 0], [3, 0]]], shape: [64, 64]}}}\n")
    assert report["error"]["message"].startswith("Host data with total size 25600B does not match expected size 32768B of device buffer!")


def test_wormhole_l1_blocks_are_rounded_to_32_bytes():
    report = _run("\n".join([
        "  - allocate_tensor_on_device: {as: a, shape: [1, 8], layout: row_major, memory_config: {memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [0, 0]]], shape: [1, 8]}}}",
        "  - allocate_tensor_on_device: {as: b, shape: [3, 100], layout: row_major, memory_config: {memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [0, 0]]], shape: [3, 100]}}}",
        "  - allocate_tensor_on_device: {as: d, shape: [1, 40], layout: row_major, memory: l1}",
        "  - allocate_tensor_on_device: {as: f, shape: [1, 1, 32, 32], memory: l1}",
    ]) + "\n")
    addresses = [t["address"] for t in report["tensors"]]
    # the real T3K (mock): a 16 B shard takes 32 B, 3 rows of 200 B take 608 -> 640, an 80 B block 96
    assert addresses == [1499104, 1499104 - 640, 1499104 - 640 - 96, 1499104 - 640 - 96 - 2048]


def test_overlapping_ranges_in_a_partial_copys_filter_are_refused_as_coreRangeSet_does():
    report = _run("  - allocate_tensor_on_device: {as: d, shape: [1, 1, 96, 64], memory_config: {memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [2, 0]]], shape: [32, 64]}}}\n"
                  "  - from_torch: {as: h, shape: [1, 1, 96, 64], mesh_mapper: {create_mesh_mapper: {placements: [replicate, replicate]}}}\n"
                  "  - copy_host_to_device_tensor_partial: {src: h, dst: d, core_filter: [[[0, 0], [1, 0]], [[1, 0], [2, 0]]]}\n")
    assert report["error"]["message"] == ("Cannot create CoreRangeSet with specified core ranges because core ranges [0-0 - 1-0] and "
                                          "[1-0 - 2-0] overlap!")


def test_the_out_of_memory_message_gives_the_buffers_size():
    # 2 GiB tensors: 1048576 pages, 87382 per bank (178,958,336 B): five fit in a 1,072,693,184 B bank, the
    # sixth does not; ttnn names the buffer's 2147483648 B, not 12 x the per-bank share
    steps = "".join(f"  - allocate_tensor_on_device: {{as: t{i}, shape: [1, 1, 32768, 32768]}}\n" for i in range(7))
    report = _run(steps, with_data=False)
    assert report["error"]["step"] == 5
    assert "Not enough space to allocate 2147483648 B DRAM buffer across 12 banks, where each bank needs to store 178958336 B" in report["error"]["message"]


def test_a_composed_to_torch_result_is_a_plain_dram_host_tensor():
    report = _run("  - from_torch: {as: h, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}}\n"
                  "  - to_device: {src: h, as: d, memory_config: {memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [0, 0]]], shape: [32, 32]}}}\n"
                  "  - to_torch: {tensor: d, mesh_composer: {concat: 1}, as: out}\n")
    out = next(t for t in report["tensors"] if t["name"] == "out")
    assert out["devices"][0]["spec"]["memory"] == "dram" and "memory_config" not in out["devices"][0]["spec"]


def test_a_malformed_memory_config_in_a_report_is_one_line(tmp_path):
    import json

    good = _run("  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n")
    bad = json.loads(json.dumps(good))
    bad["tensors"][0]["devices"][0]["spec"]["memory_config"] = "garbage"
    (tmp_path / "a.json").write_text(json.dumps(good))
    (tmp_path / "b.json").write_text(json.dumps(bad))
    r = invoke(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    assert r.exit_code == 2 and "spec.memory_config: expected a mapping" in r.output
