"""Storage kinds and the faults of an implementation's read and transfer paths, as era rules
(docs/semantics.md section 19): ``unit_mesh`` (issue #15833), ``host_borrow`` (issue #18842; ttnn
0.66.0/0.67.0 observed), ``read_buffers`` (PR #19032) and ``to_device_record`` (PR #17513). Each
choice's default is ttnn 0.81.1's, which ``reference`` keeps."""

from __future__ import annotations

import pytest
from conftest import make_scenario

from meshspec.runner import run
from meshspec.sim.profiles import PROFILES

SEVEN = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)]


def run_rules(steps, mesh="t3k", with_data=None, **rules):
    scenario = make_scenario(steps, mesh, profiles={"era": {"base": "current", **rules}})
    return run(scenario, "era", **({} if with_data is None else {"with_data": with_data}))


def kinds(report):
    return {t.name: t.storage_kind for t in report.tensors}


def tensor(report, name):
    return next(t for t in report.tensors if t.name == name)


# -- unit_mesh: issue #15833 ------------------------------------------------------------------------
UNIT = [
    {"allocate_tensor_on_device": {"as": "dev", "shape": [1, 1, 64, 64]}},
    {"from_torch": {"as": "mapped", "shape": [1, 1, 64, 64], "mesh_mapper": {"shard": 0}}},
    {"from_torch": {"as": "plain", "shape": [1, 1, 64, 64]}},
]


def test_a_1x1_mesh_tensor_is_single_device_storage_in_the_era_and_refuses_a_mapped_host_tensor():
    # issue #15833: "the device tensor is created as a StorageType::Device tensor even though a
    # MeshDevice was passed in"; the host tensor made with a mapper is multi-device host storage
    report = run_rules([*UNIT, {"copy_host_to_device_tensor": {"src": "mapped", "dst": "dev"}}], [1, 1], unit_mesh="single_device")
    assert kinds(report)["dev"] == "single-device"
    assert report.error is not None and report.error.step == 3
    assert report.error.message.startswith(
        "TT_ASSERT @ ttnn/cpp/ttnn/tensor/tensor.cpp:922: std::holds_alternative<OwnedStorage>(async_safe_tensor.get_storage())")


def test_a_plain_host_tensor_still_copies_into_single_device_storage():
    # the assert holds for owned (single-buffer) host storage
    report = run_rules([*UNIT, {"copy_host_to_device_tensor": {"src": "plain", "dst": "dev"}}], [1, 1], unit_mesh="single_device")
    assert report.error is None and report.findings == ()


def test_only_a_1x1_mesh_becomes_single_device_storage():
    report = run_rules([*UNIT, {"copy_host_to_device_tensor": {"src": "mapped", "dst": "dev"}}], [1, 2], unit_mesh="single_device")
    assert kinds(report)["dev"] == "mesh"
    assert report.error is None


@pytest.mark.parametrize("profile", ["current", "reference"])
def test_today_a_1x1_mesh_tensor_is_mesh_storage_and_the_copy_goes_through(profile):
    # ttnn 0.66.0 to 0.81.1 (tests/golden/ttnn_storage.json): StorageType.DEVICE on 1x1 as on 2x4
    report = run(make_scenario([*UNIT, {"copy_host_to_device_tensor": {"src": "mapped", "dst": "dev"}}], [1, 1]), profile)
    assert report.error is None
    assert kinds(report) == {"dev": "mesh", "mapped": "owned", "plain": "owned"}


# -- host_borrow: issue #18842 ----------------------------------------------------------------------
def _borrow_steps(layout="row_major", dtype="float32", mapper=None):
    m = mapper or {"replicate_tensor_to_mesh_mapper": {}}
    return [
        {"from_torch": {"as": "x", "shape": [1, 8, 32, 32], "dtype": dtype, "layout": layout}},
        {"distribute_tensor": {"tensor": "x", "mesh_mapper": m, "as": "y"}},
    ]


def test_a_borrowed_tensor_replicated_fails_in_aggregate_as_tensor_in_march_2025():
    report = run_rules(_borrow_steps(), host_borrow="borrowed_refused")
    assert kinds(report)["x"] == "borrowed"
    assert report.error is not None and report.error.step == 1
    assert report.error.message.startswith("std::get device index fail")


def test_a_shard_mapper_copies_a_borrowed_tensor_into_owned_chunks():
    # the contrast: ShardTensorTo2dMesh "will return back a owned storage tensor"
    report = run_rules(_borrow_steps(mapper={"shard_tensor_to_mesh_mapper": {"dim": 1}}), host_borrow="borrowed_refused")
    assert report.error is None
    assert kinds(report) == {"x": "borrowed", "y": "owned"}


def test_replicas_of_a_borrowed_tensor_borrow_in_0_66():
    # ttnn 0.66.0 / 0.67.0: all 8 replicas see a change to the caller's array (tests/golden storage)
    report = run_rules(_borrow_steps(), host_borrow="borrowed")
    assert report.error is None
    assert kinds(report) == {"x": "borrowed", "y": "borrowed"}


@pytest.mark.parametrize("layout, dtype", [("tile", "float32"), ("row_major", "bfloat8_b"), ("tile", "bfloat16")])
def test_a_tensor_converted_on_the_host_is_owned_even_when_the_era_borrows(layout, dtype):
    # tilizing or block-float packing makes a new buffer ("newly created non-bfp_b types", PR #18555)
    layout = "tile" if dtype == "bfloat8_b" else layout
    report = run_rules(_borrow_steps(layout, dtype), host_borrow="borrowed_refused")
    assert report.error is None
    assert kinds(report)["x"] == "owned"


# -- read_buffers: PR #19032 ------------------------------------------------------------------------
SEED = [
    {"allocate_tensor_on_device": {"as": "dst", "shape": [1, 1, 32, 32]}},
    {"from_torch": {"as": "src", "shape": [1, 7, 32, 32], "mesh_mapper": {"shard": 1}, "data": {"random": 3}}},
    {"copy_host_to_device_tensor": {"src": "src", "dst": "dst"}},
]


def test_a_read_loop_resized_to_the_devices_gives_every_shard_a_default_buffer():
    report = run_rules([*SEED, {"to_torch": {"tensor": "dst", "mesh_composer": {"concat": 1}, "as": "out"}}],
                       read_buffers="devices")
    # every record is right (7 devices, each written) and every device reads back what it never held
    assert [v.coord for v in tensor(report, "dst").devices if v.recorded] == SEVEN
    assert {(f.kind.value, f.device) for f in report.findings} == {("data_mismatch", c) for c in SEVEN}
    assert all("1024 of 1024 values differ from what step 2 wrote: the shard is a default-initialized host buffer" in f.message
               for f in report.findings)


def test_cpu_under_the_resized_loop_holds_no_value_read():
    report = run_rules([*SEED, {"cpu": {"tensor": "dst", "as": "back"}},
                        {"to_torch": {"tensor": "back", "mesh_composer": {"concat": 1}, "as": "out"}}], read_buffers="devices")
    assert {f.device for f in report.findings if f.kind.value == "data_mismatch"} == set(SEVEN)


@pytest.mark.parametrize("profile", ["current", "reference"])
def test_one_host_buffer_a_shard_reads_the_data(profile):
    report = run(make_scenario([*SEED, {"to_torch": {"tensor": "dst", "mesh_composer": {"concat": 1}, "as": "out"}}]), profile)
    assert report.findings == ()


# -- to_device_record: PR #17513 --------------------------------------------------------------------
def _to_device(n):
    return [
        {"from_torch": {"as": "src", "shape": [1, n, 32, 32], "mesh_mapper": {"shard": 1}}},
        {"to_device": {"src": "src", "as": "dev"}},
    ]


def test_to_device_records_its_replicated_allocation_and_leaves_the_eighth_device_stale():
    report = run_rules(_to_device(7), to_device_record="replicated")
    dev = tensor(report, "dev")
    assert [v.coord for v in dev.devices if v.recorded] == [*SEVEN, (1, 3)]
    assert {(f.kind.value, f.device) for f in report.findings} == {("stale", (1, 3)), ("topology_mismatch", None)}


def test_a_replicated_allocation_is_right_when_every_device_gets_a_shard():
    # the PR's assumption: "all shards map 1:1 to devices"
    assert run_rules(_to_device(8), to_device_record="replicated").findings == ()


@pytest.mark.parametrize("profile", ["current", "reference"])
def test_to_device_records_the_shards_written(profile):
    report = run(make_scenario(_to_device(7)), profile)
    assert [v.coord for v in tensor(report, "dev").devices if v.recorded] == SEVEN
    assert report.findings == ()


def test_the_defaults_are_0_81_1s_and_the_references():
    for name in ("current", "reference"):
        p = PROFILES[name]
        assert (p.unit_mesh.value, p.host_borrow.value, p.read_buffers.value, p.to_device_record.value) == (
            "mesh", "owned", "shards", "written")


def test_the_storage_kind_is_in_the_json_report_and_the_title():
    from meshspec.render.common import tensor_title

    report = run_rules(_borrow_steps(), host_borrow="borrowed")
    j = tensor(report, "y").to_json()
    assert j["storage"] == "host" and j["storage_kind"] == "borrowed"
    assert "(borrowed storage)" in tensor_title(tensor(report, "y")).plain
    owned = run(make_scenario(_borrow_steps()), "current")
    assert "storage)" not in tensor_title(tensor(owned, "y")).plain  # the usual kinds go unsaid
