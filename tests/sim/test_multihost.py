"""Multi-host meshes (docs/semantics.md section 15): which host owns which devices, what each call
sees on a host that holds only some of them, and the eras of issues #48267, #35441, #48477 and
ttnn-visualizer #1672. The mock cannot run several hosts: the expectations come from tt-metal's
source as section 15 cites it, worked out by hand."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from meshspec.errors import ScenarioError
from meshspec.judge.findings import Judge
from meshspec.render import render
from meshspec.runner import run
from meshspec.scenario.loader import load
from meshspec.sim.events import Shown
from meshspec.sim.hosts import Hosts, host_blocks, topology_error
from meshspec.sim.tensor import Read

T3K_HOST1 = "mesh: t3k\nhosts: {topology: [1, 2], rank: 1}\n"
SHARDED = "  - from_torch: {as: host, shape: [1, 8, 32, 32], data: {random: 5}, mesh_mapper: {shard: 1}}\n" \
          "  - to_device: {src: host, as: dev}\n"


def scenario(tmp_path, head: str, steps: str, name: str = "s.yaml"):
    path = tmp_path / name
    path.write_text(f"meshspec: 1\n{head}steps:\n{steps}")
    return path


def kinds(report) -> set:
    return {(f.kind.value, f.device) for f in report.findings}


# -- who owns what (tt_metal/fabric/mesh_graph.cpp @ 00da45c5) -----------------------------------
@pytest.mark.parametrize("mesh, hosts, blocks", [
    ((2, 4), (1, 2), (((0, 0), (1, 1)), ((0, 2), (1, 3)))),  # t3k_dual_host_mesh_graph_descriptor
    ((8, 8), (1, 2), (((0, 0), (7, 3)), ((0, 4), (7, 7)))),  # dual_galaxy_mesh_graph_descriptor
    ((8, 16), (1, 4), (((0, 0), (7, 3)), ((0, 4), (7, 7)), ((0, 8), (7, 11)), ((0, 12), (7, 15)))),  # quad_galaxy
    ((8, 4), (2, 2), (((0, 0), (3, 1)), ((0, 2), (3, 3)), ((4, 0), (7, 1)), ((4, 2), (7, 3)))),  # ranks row-major
])
def test_each_rank_owns_its_block_of_the_mesh(mesh, hosts, blocks):
    assert host_blocks(mesh, hosts) == blocks
    for c in itertools.product(*(range(n) for n in mesh)):  # every device: one owner, local to it alone
        owners = [r for r in range(len(blocks)) if Hosts(mesh, hosts, r).is_local(c)]
        assert owners == [Hosts(mesh, hosts, 0).owner(c)]


def test_a_topology_that_does_not_cut_the_mesh_is_the_mesh_graphs_error():
    assert topology_error((2, 4), (3, 1)).startswith("MeshGraph: Mesh shape 2x4 must be divisible by host shape 3x1")
    assert topology_error((8, 8), (1, 2)) is None


@pytest.mark.parametrize("hosts, where, words", [
    ("{topology: [3, 1], rank: 0}", ":3:19:", "MeshGraph: Mesh shape 2x4 must be divisible by host shape 3x1"),
    ("{topology: [1, 2], rank: 2}", ":3:33:", "hosts.rank: 2 is not a host of topology [1, 2], which has 2 (ranks 0 to 1"),
])
def test_a_bad_hosts_field_is_one_line_at_its_place(tmp_path, hosts, where, words):
    path = scenario(tmp_path, f"mesh: t3k\nhosts: {hosts}\n", SHARDED)
    with pytest.raises(ScenarioError) as err:
        load(path)
    text = str(err.value)
    assert words in text and "\n" not in text
    assert f":{err.value.line}:{err.value.column}:" == where


# -- the cost of asking who owns a device (issue 36: it was devices x hosts) ---------------------
def test_asking_which_devices_are_local_never_lists_every_hosts_block(monkeypatch):
    """is_local and owner of every device of a 32x32 mesh on 32x32 hosts: each answer is worked
    out from the coordinate or the rank, never by making all 1,024 hosts' blocks (it was, on every
    call: a visualize_tensor of a one-device tensor on 64x64 hosts took about 20 s)."""
    import meshspec.sim.hosts as hosts_module

    made = []
    real = hosts_module.host_blocks
    monkeypatch.setattr(hosts_module, "host_blocks", lambda *a: made.append(a) or real(*a))
    mesh, grid = (32, 32), (32, 32)
    here = Hosts(mesh, grid, 33)
    local = [c for c in itertools.product(range(32), range(32)) if here.is_local(c)]
    assert local == [(1, 1)] and here.owner((31, 0)) == 992 and here.local == ((1, 1), (1, 1))
    assert made == []


def test_visualize_walks_every_coordinate_of_the_mesh_and_counts_it_as_work(tmp_path):
    """visualize_tensor asks is_local of every coordinate of the mesh (a 32x32 mesh: 1,024), even
    for a tensor on one device: that walk is charged to the run's work bound like a buffer's devices."""
    head = "mesh: [32, 32]\nhosts: {topology: [32, 32], rank: 0}\n"
    steps = ("  - from_torch: {as: h, shape: [1, 1, 1, 16], layout: row_major, mesh_mapper: {create_mesh_mapper: "
             "{placements: [replicate, replicate], mesh_shape_override: [1, 1]}}}\n  - to_device: {src: h, as: x}\n")
    path = scenario(tmp_path, head, steps + "  - visualize_tensor: {tensor: x}\n")
    assert run(load(scenario(tmp_path, head, steps, "made.yaml")), max_work=1100).error is None  # 1,024 devices' buffer and a write
    stopped = run(load(path), max_work=1100).error
    assert stopped is not None and "visualizing x (every coordinate of the mesh) on 1,024 device(s)" in stopped.message
    assert run(load(path), max_work=1100 + 1024).error is None


def test_a_host_grid_past_meshspecs_bound_is_one_line_at_its_place(tmp_path):
    path = scenario(tmp_path, "mesh: [64, 64]\nhosts: {topology: [64, 32], rank: 0}\n", "  - from_torch: {as: h, shape: [1, 1, 32, 32]}\n")
    with pytest.raises(ScenarioError) as err:
        load(path)
    text = str(err.value)
    assert "hosts.topology: [64, 32] has 2,048 hosts; meshspec spreads a mesh over up to 1,024" in text and "\n" not in text
    assert (err.value.line, err.value.column) == (3, 19)
    assert load(scenario(tmp_path, "mesh: [64, 64]\nhosts: {topology: [32, 32], rank: 0}\n", "  - from_torch: {as: h, shape: [1, 1, 32, 32]}\n", "ok.yaml")).hosts


# -- to_string (issue #48267, PR #52708) --------------------------------------------------------
def test_printing_on_rank_0_before_52708_drops_shards_without_mislabelling(tmp_path):
    """PR #52708's own account of rank 0: (0,0) and (0,1) printed, correctly labelled "by luck",
    and (1,0), (1,1) left out (paired with remote (0,2) and (0,3))."""
    head = "mesh: t3k\nhosts: {topology: [1, 2], rank: 0}\nprofile: {base: current, print_coords: prefix}\n"
    report = run(load(scenario(tmp_path, head, SHARDED + "  - to_string: {tensor: dev}\n")))
    assert kinds(report) == {("locality", (1, 0)), ("locality", (1, 1))}
    assert all("left it out" in f.message for f in report.findings)


def test_printing_on_rank_1_before_52708_shows_shards_under_other_coordinates(tmp_path):
    head = T3K_HOST1 + "profile: {base: current, print_coords: prefix}\n"
    report = run(load(scenario(tmp_path, head, SHARDED + "  - to_string: {tensor: dev}\n")))
    shown = sorted((f.device, f.message.split("showed the shard of ")[1][:5]) for f in report.findings if "showed" in f.message)
    assert shown == [((0, 2), "(1,2)"), ((0, 3), "(1,3)")]


@pytest.mark.parametrize("data", ["", "data: none\n"])
def test_printing_a_replica_under_another_replicas_coordinate_shows_true_data(tmp_path, data):
    """A new user's trial (issue 36): host 1 before PR #52708 prints (1,2)'s shard under (0,2) and
    (1,3)'s under (0,3), but every device holds the same replica, so what is printed under (0,2)
    and (0,3) is what they hold: not a finding. What is left out is the headers of (1,2) and (1,3)
    (as on rank 0 of a sharded tensor, PR #52708). Data mode compares the values read; metadata
    mode, the slice of the one write each device holds."""
    head = T3K_HOST1 + data + "profile: {base: current, print_coords: prefix}\n"
    steps = ("  - from_torch: {as: r, shape: [1, 1, 32, 32], mesh_mapper: replicate, device: mesh_device}\n"
             "  - to_string: {tensor: r}\n")
    report = run(load(scenario(tmp_path, head, steps)))
    assert kinds(report) == {("locality", (1, 2)), ("locality", (1, 3))}
    assert all("left it out" in f.message for f in report.findings)


def test_a_shard_printed_under_a_coordinate_of_other_data_is_still_shown_wrong(tmp_path):
    """The same print of a sharded tensor: under (0,2) it shows (1,2)'s shard. Filled with one value,
    the two shards are the same data and the label does not lie; filled at random, it does."""
    head = T3K_HOST1 + "profile: {base: current, print_coords: prefix}\n"
    steps = ("  - from_torch: {as: host, shape: [1, 8, 32, 32], data: {fill: 1.0}, mesh_mapper: {shard: 1}}\n"
             "  - to_device: {src: host, as: dev}\n  - to_string: {tensor: dev}\n")
    report = run(load(scenario(tmp_path, head, steps)))
    assert kinds(report) == {("locality", (1, 2)), ("locality", (1, 3))}  # equal shards: only the headers are missing
    random = run(load(scenario(tmp_path, head, SHARDED + "  - to_string: {tensor: dev}\n", "random.yaml")))
    wrong = [f for f in random.findings if "does not hold" in f.message]
    assert sorted(f.device for f in wrong) == [(0, 2), (0, 3)]


def test_one_host_prints_every_shard_under_its_own_coordinate_in_either_era(tmp_path):
    head = "mesh: t3k\nprofile: {base: current, print_coords: prefix}\n"
    assert run(load(scenario(tmp_path, head, SHARDED + "  - to_string: {tensor: dev}\n"))).findings == ()


def test_a_call_that_reads_a_remote_device_is_a_locality_finding():
    """The judge's side alone: a read of a device outside the host's own is reported where it happened."""
    judge = Judge((2, 4), {3: "to_string"})
    remote = Read("dev", (0, 0), 1, 0, True, None, None, 2048, True, 1)
    found = judge.step({}, [Shown(3, "to_string", "dev", (((0, 0), (0, 0)),), (), frozenset({(0, 2)}), (remote,))], set())
    assert [(f.kind.value, f.device, f.step) for f in found] == [("locality", (0, 0), 3)]
    assert "another host owns it" in found[0].message


# -- visualize_tensor (issue #35441, PR #35464) --------------------------------------------------
def test_visualize_before_35464_fails_on_the_first_remote_coordinate(tmp_path):
    head = "mesh: t3k\nhosts: {topology: [1, 2], rank: 0}\nprofile: {base: current, visualize_remote: fatal}\n"
    report = run(load(scenario(tmp_path, head, SHARDED + "  - visualize_tensor: {tensor: dev}\n")))
    assert report.error.message.startswith("Cannot get device for remote device at coordinate MeshCoordinate([0, 2])")


# -- what a host holds: get_device_tensors (issue #22042), cpu ------------------------------------
def test_get_device_tensors_gives_the_local_parts_only(tmp_path):
    report = run(load(scenario(tmp_path, T3K_HOST1, SHARDED + "  - get_device_tensors: {tensor: dev, as: parts}\n")))
    parts = sorted((t.name, tuple(v.coord for v in t.devices if v.recorded)) for t in report.tensors if t.name.startswith("parts["))
    assert [c for _, c in parts] == [((0, 2),), ((0, 3),), ((1, 2),), ((1, 3),)]


def test_reading_back_remote_devices_is_refused_in_one_line(tmp_path):
    report = run(load(scenario(tmp_path, T3K_HOST1, SHARDED + "  - cpu: {tensor: dev, as: back}\n")))
    assert "MeshCoordinate([0, 0]) first: meshspec does not model reading back" in report.error.message
    assert "\n" not in report.error.message


def test_reshaping_a_multi_host_mesh_is_refused(tmp_path):
    report = run(load(scenario(tmp_path, T3K_HOST1, "  - MeshDevice.reshape: {shape: [1, 8]}\n")))
    assert report.error is not None and "not modelled" in report.error.message


# -- large writes (issue #48477, PR #46138) ------------------------------------------------------
def test_a_small_write_takes_no_pinned_memory(tmp_path):
    assert run(load(scenario(tmp_path, T3K_HOST1, SHARDED))).error is None  # 16 KiB: under 32 MiB


def test_a_large_write_on_rank_0_asks_its_first_remote_device(tmp_path):
    steps = "  - from_torch: {as: w, shape: [1, 8, 1024, 2048], mesh_mapper: {shard: 1}}\n  - to_device: {src: w, as: d}\n"
    head = "mesh: t3k\nhosts: {topology: [1, 2], rank: 0}\ndata: none\n"
    report = run(load(scenario(tmp_path, head, steps)))
    assert report.error.message.startswith("Cannot get device for remote device at coordinate MeshCoordinate([0, 2])")
    assert run(load(scenario(tmp_path, head, steps)), "reference").error is None


# -- graph capture (ttnn-visualizer #1672, PR #47846) --------------------------------------------
def test_graph_capture_on_one_host_tracks_every_device_without_harm(tmp_path):
    head = "mesh: t3k\nprofile: {base: current, graph_capture: every_coord}\n"
    steps = "  - begin_graph_capture: {}\n" + SHARDED + "  - neg: {tensor: dev, as: y}\n  - end_graph_capture: {}\n"
    report = run(load(scenario(tmp_path, head, steps)))
    assert report.error is None and report.findings == ()


# -- reports say which devices are local ---------------------------------------------------------
def test_reports_name_the_host_and_its_devices_and_the_line_pastes_back(tmp_path):
    report = run(load(scenario(tmp_path, T3K_HOST1, SHARDED)))
    assert json.loads(render([report], "json"))["hosts"] == {"topology": [1, 2], "rank": 1, "local": [[0, 2], [1, 3]]}
    text = render([report], "table")
    line = next(l for l in text.splitlines() if l.startswith("hosts: "))
    assert "local (0,2)..(1,3)" in line
    pasted = re.match(r"(hosts: \{[^}]*\})", line).group(1)
    again = load(scenario(tmp_path, f"mesh: t3k\n{pasted}\n", SHARDED, "again.yaml"))
    assert again.hosts == Hosts((2, 4), (1, 2), 1)
    assert "local to host 1: (0,2)..(1,3)" in render([report], "table")


def test_one_host_of_one_says_no_device_is_remote(tmp_path):
    """hosts: {topology: [1, 1], rank: 0}: the one host owns the whole mesh; neither the header nor
    the map may say other devices are remote (it did: "every other device is remote")."""
    report = run(load(scenario(tmp_path, "mesh: t3k\nhosts: {topology: [1, 1], rank: 0}\n", SHARDED)))
    lines = [l for l in render([report], "table").splitlines() if "remote" in l]
    assert len(lines) == 2 and all(l.endswith("the only host: no device is remote)") or l.endswith(
        "the only host: no device is remote") for l in lines)  # the header, and the line under the map
    two = render([run(load(scenario(tmp_path, T3K_HOST1, SHARDED, "two.yaml")))], "table")
    assert two.count("every other device is remote") == 2


def test_printing_a_host_tensor_shows_the_shards_this_host_loads():
    """A DistributedHostBuffer holds the local shards only (PRs #22653, #22848): host 1 prints 4 of 8."""
    from meshspec.runner import execute
    from meshspec.sim.profiles import get_profile
    from meshspec.sim.runtime import Runtime
    from conftest import make_scenario

    s = make_scenario([{"from_torch": {"as": "h", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}},
                       {"to_string": {"tensor": "h"}}], "t3k")
    rt = Runtime(s.mesh_shape, get_profile("current"), hosts=Hosts((2, 4), (1, 2), 1))
    for step in s.steps:
        done = execute(rt, step)
    (event,) = [e for e in done.events if isinstance(e, Shown)]
    assert [at for at, _ in event.shown] == [(0, 2), (0, 3), (1, 2), (1, 3)]
