"""Physical device ids and device order (docs/semantics.md section 17; meshspec/sim/chips.py,
meshspec/sim/mesh.py ``device_ids``, meshspec/sim/meshdevice.py, the ``ccl_links`` check of
meshspec/sim/ops/collectives.py), against the real ttnn's answers recorded by
tools/golden/record_device_ids.py for every system with a mock cluster descriptor, every shape it
opens, under ttnn 0.81.1, 0.67.0 and 0.66.0."""

import json
from pathlib import Path

import pytest

from meshspec.errors import TTFatal
from conftest import run_steps
from meshspec.sim.chips import CHIPS
from meshspec.sim.mesh import SYSTEMS, coord_tuple, device_ids, open_shape
from meshspec.sim.meshdevice import MeshDevice, reshape, submesh, submeshes
from meshspec.sim.ops.collectives import check_links

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
VERSIONS = {v: json.loads((GOLDEN / f"ttnn_{v.replace('.', '_')}_device_ids.json").read_text())
            for v in ("0.81.1", "0.67.0", "0.66.0")}


def opened_rows():
    for version, golden in VERSIONS.items():
        for system in golden["systems"]:
            for row in system["shapes"]:
                if "device_ids" in row:
                    yield version, system["system"], row


ROWS = list(opened_rows())


@pytest.mark.parametrize("version, system, row", ROWS,
                         ids=[f"{v}-{s}-{r['shape']}" for v, s, r in ROWS])
def test_every_opened_shape_has_the_ids_ttnn_gives(version, system, row):
    shape = tuple(row["opened"])
    if row["shape"] is not None:
        assert open_shape(system, tuple(row["shape"])) == shape  # the shape opens as meshspec says
    assert device_ids(system, shape, early_2026=version != "0.81.1") == tuple(row["device_ids"])


def test_the_golden_covers_every_system_and_the_line_and_grid_of_each():
    assert {s for _, s, _ in ROWS} == {name for name, known in SYSTEMS.items() if known.chips is not None}
    assert len(ROWS) == 341 * 3 - 2 * 129  # bh-galaxy's descriptor opens no mesh on 0.66.0 / 0.67.0 (below)


@pytest.mark.parametrize("version", ["0.67.0", "0.66.0"])
def test_early_2026_opened_no_blackhole_galaxy_mesh(version):
    # not modelled: the mock's Blackhole Galaxy descriptor fails the fabric's mesh-graph mapping there
    rows = next(s for s in VERSIONS[version]["systems"] if s["system"] == "bh-galaxy")["shapes"]
    assert all("error" in r and "could not fit in the discovered physical topology" in r["error"] for r in rows)


def test_early_2026_differs_only_on_blackhole_p150x4_and_p150x8():
    new, old = VERSIONS["0.81.1"]["systems"], VERSIONS["0.66.0"]["systems"]
    differ = {a["system"] for a, b in zip(new, old) if a["shapes"] != b["shapes"]}
    assert differ == {"p150x4", "p150x8", "bh-galaxy"}
    assert {n for n, known in SYSTEMS.items() if known.chips_early_2026 is not None} == {"p150x4", "p150x8"}


@pytest.mark.parametrize("version", list(VERSIONS))
def test_links_are_the_descriptors(version):
    for system in VERSIONS[version]["systems"]:
        assert CHIPS[system["system"]].links == {tuple(p) for p in system["links"]}, system["system"]


def test_the_t3k_of_the_issue():
    # issue 36: the mock opens a T3K 2x4 as [[4,0,2,6],[5,1,3,7]] and 1x8 as 4,0,2,6,7,3,1,5
    assert device_ids("t3k", (2, 4)) == (4, 0, 2, 6, 5, 1, 3, 7)
    assert device_ids("t3k", (1, 8)) == device_ids("t3k", (8,)) == (4, 0, 2, 6, 7, 3, 1, 5)
    line = device_ids("t3k", (1, 8))
    links = CHIPS["t3k"].links
    assert all(tuple(sorted(p)) in links for p in zip(line, line[1:] + line[:1]))  # a ring: every neighbour linked
    assert (5, 6) not in links and (4, 7) not in links  # row-major 2x4 is no line and no ring


def t3k_root(shape):
    return MeshDevice("mesh_device", open_shape("t3k", shape), chips=CHIPS["t3k"])


def t3k_rows(key):
    return next(s for s in VERSIONS["0.81.1"]["systems"] if s["system"] == "t3k")[key]


def reshape_rows():
    for system in VERSIONS["0.81.1"]["systems"]:
        for row in system.get("reshape", []):
            yield system["system"], row


def _same_as_recorded(mesh, to, row):
    """``reshape(mesh, to)`` ends as the mock's row did: its ids after, or its error's words."""
    if "error" in row:
        with pytest.raises(TTFatal) as err:
            reshape(mesh, to)
        assert str(err.value).startswith(row["error"].removeprefix("TT_FATAL: ")), err.value
    else:
        reshape(mesh, to)
        assert mesh.ids == tuple(row["after"])


@pytest.mark.parametrize("system, row", list(reshape_rows()), ids=lambda r: r if isinstance(r, str) else f"{r['open']}->{r['reshape']}")
def test_reshape_keeps_neighbours_neighbours(system, row):
    # issue #26118: an 8x4 galaxy reshaped to 2x16 or 16x2 is refused, too big and not rotatable
    mesh = MeshDevice("mesh_device", open_shape(system, tuple(row["open"])), chips=CHIPS[system])
    assert mesh.ids == tuple(row["before"])
    _same_as_recorded(mesh, tuple(row["reshape"]), row)


@pytest.mark.parametrize("row", t3k_rows("submesh_reshapes"), ids=lambda r: f"{r['create_submesh']}@{r['offset']}->{r['reshape']}")
def test_a_submesh_reshaped_to_a_grid_must_be_the_system_mesh_block_at_its_offset(row):
    # a T3K row (1x4: 4 0 2 6) is no 2x2 grid of linked chips; the second row's 2x2 would not fit
    sub = submesh(t3k_root((2, 4)), "s", tuple(row["create_submesh"]), tuple(row["offset"]))
    assert sub.ids == tuple(row["before"])
    _same_as_recorded(sub, tuple(row["reshape"]), row)


def test_reshape_before_pr_17646_kept_the_row_major_order():
    mesh = t3k_root((2, 4))
    reshape(mesh, (1, 8), connected=False)
    assert mesh.ids == (4, 0, 2, 6, 5, 1, 3, 7)  # 6 then 5: no link between them


def test_submeshes_take_their_block_of_ids():
    rows = t3k_rows("submeshes")
    root = t3k_root((2, 4))
    for row in rows:
        if "create_submeshes" in row and "first_reshaped_to" not in row:
            got = [m.ids for m in submeshes(root, "s", tuple(row["create_submeshes"]))]
            assert got == [tuple(ids) for ids in row["device_ids"]]
        elif "create_submesh" in row:
            assert submesh(root, "s", tuple(row["create_submesh"]), tuple(row["offset"])).ids == tuple(row["device_ids"])
        else:  # PR #18319's fix: the 2x2 submesh reshaped to 1x4 is a ring, 4 0 1 5
            first = submeshes(root, "s", tuple(row["create_submeshes"]))[0]
            assert first.ids == tuple(row["before"])
            reshape(first, tuple(row["first_reshaped_to"]))
            assert first.ids == tuple(row["after"])


def test_a_bare_mesh_shape_has_no_ids():
    assert MeshDevice("m", (2, 4)).ids is None


# -- the ccl_links rule: a ring or line over chips without a link --------------------------------------

def group(shape):
    return [coord_tuple(shape)]


def test_ring_over_row_major_2x4_names_the_first_unlinked_pair():
    with pytest.raises(TTFatal, match=r"^Device 4 is not connected to Device 7 "):
        check_links(t3k_root((2, 4)), group((2, 4)), ring=True)
    with pytest.raises(TTFatal, match=r"^Device 6 is not connected to Device 5 "):
        check_links(t3k_root((2, 4)), group((2, 4)), ring=False)


@pytest.mark.parametrize("system", [n for n, s in SYSTEMS.items() if s.chips is not None])
def test_every_line_a_system_opens_is_linked(system):
    # lines open on neighbouring chips on every system (the ttnn 0.81.1 ids): a line all-gather on them passes
    for n in range(2, SYSTEMS[system].shape[0] * SYSTEMS[system].shape[1] + 1):
        check_links(MeshDevice("m", (1, n), chips=SYSTEMS[system].chips), group((1, n)), ring=False)


def test_a_row_of_the_galaxy_is_linked_along_cluster_axis_1():
    mesh = MeshDevice("m", (8, 4), chips=CHIPS["galaxy"])
    rows = [tuple((r, c) for c in range(4)) for r in range(8)]
    check_links(mesh, rows, ring=False)


# -- storage order: get_device_tensors walks the storage in row-major coordinate order -----------------

@pytest.mark.parametrize("row", t3k_rows("storage_order"), ids=lambda r: str(r["mesh"]))
def test_device_tensors_are_in_the_order_of_mesh_coords(row):
    """A (1, 8, 1, 32) arange tensor sharded on dim 1 onto a 2x4 and a 1x8 T3K: mesh_coords() and
    device_coords() are row-major, and part i of get_device_tensors holds shard i (first value 32*i),
    though the devices under those coordinates are 4 0 2 6 5 1 3 7 or 4 0 2 6 7 3 1 5."""
    steps = [{"from_torch": {"as": "x", "shape": [1, 8, 1, 32], "dtype": "float32", "layout": "row_major",
                             "mesh_mapper": {"shard": 1}}},
             {"to_device": {"src": "x", "as": "d"}},
             {"get_device_tensors": {"tensor": "x", "as": "parts"}}]
    report = run_steps(steps, mesh={"system": "t3k", "shape": row["mesh"]}, data=True)
    assert report.error is None
    by_name = {t.name: t for t in report.tensors}
    assert [list(c) for c in by_name["d"].topology.coords] == row["device_mesh_coords"] == row["host_mesh_coords"]
    assert [list(v.coord) for v in by_name["d"].devices if v.recorded] == row["device_coords"]
    assert [by_name[f"parts[{i}]"].values["first"][0] for i in range(8)] == row["host_part_first_values"]


ETHERNET = {"ethernet-ccl": {"base": "current", "ccl_links": "ethernet"}}
GATHER = [{"from_torch": {"as": "x", "shape": [1, 1, 32, 256], "mesh_mapper": {"shard": 3}, "device": "mesh_device"}},
          {"all_gather": {"tensor": "x", "dim": 3, "topology": "ring", "as": "g"}}]


def test_issue_13693s_fix_a_1x8_ring_gathers_in_the_ethernet_era():
    from conftest import make_scenario
    from meshspec.runner import run

    on_2x4 = run(make_scenario(GATHER, "t3k", profiles=ETHERNET), "ethernet-ccl")
    assert on_2x4.error is not None and on_2x4.error.message.startswith("Device 4 is not connected to Device 7 ")
    on_1x8 = run(make_scenario(GATHER, {"system": "t3k", "shape": [1, 8]}, profiles=ETHERNET), "ethernet-ccl")
    assert on_1x8.error is None and on_1x8.findings == ()
    # a gather along cluster axis 1 of the 2x4 is a line per row: 4 0 2 6 and 5 1 3 7 are linked
    rows = [GATHER[0], {"all_gather": {"tensor": "x", "dim": 3, "cluster_axis": 1, "as": "g"}}]
    assert run(make_scenario(rows, "t3k", profiles=ETHERNET), "ethernet-ccl").error is None


def test_systems_stay_hashable_values_with_their_chips():
    # System is a Frozen value; a dict inside (the galaxies' short lines once were) made it unhashable
    assert len(set(SYSTEMS.values())) == len(SYSTEMS)


def test_a_reshaped_submesh_is_described_as_reshaped_not_as_a_block_of_its_parent():
    # a tester's defect on issue 36: a 1x4 row reshaped was described as "2x2 at (0,0) of mesh_device"
    report = run_steps([{"create_submesh": {"shape": [1, 4], "offset": [0, 0], "as": "row0"}},
                        {"MeshDevice.reshape": {"shape": [4, 1], "mesh_device": "row0"}},
                        {"create_submesh": {"shape": [1, 4], "offset": [1, 0], "as": "row1"}}])
    described = {m.name: m.describe() for m in report.meshes}
    assert described["row0"] == "row0: 4x1, reshaped from 1x4 at (0,0) of mesh_device"
    assert described["row1"] == "row1: 1x4 at (1,0) of mesh_device"
