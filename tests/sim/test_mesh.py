"""Device coordinates and their boxes (meshspec/sim/mesh.py; docs/semantics.md section 2)."""

import itertools

from hypothesis import given, strategies as st

from meshspec.sim.mesh import coords, fmt_range, range_size, ranges


def expand(boxes):
    out = []
    for start, end in boxes:
        out += itertools.product(*(range(a, b + 1) for a, b in zip(start, end)))
    return out


def test_seven_of_a_t3k():
    # all but (1,3) of 2x4: row 0 whole, row 1 up to (1,2)
    assert ranges([(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)]) == (((0, 0), (0, 3)), ((1, 0), (1, 2)))


def test_a_whole_mesh_is_one_box_and_order_does_not_matter():
    devices = list(coords((8, 4)))
    assert ranges(reversed(devices)) == (((0, 0), (7, 3)),)


def test_rows_with_the_same_columns_merge():
    # a 4x4 mesh without its last column, and without (2,1): rows 0-1 merge, row 2 splits, row 3 alone
    devices = [(r, c) for r in range(4) for c in range(3) if (r, c) != (2, 1)]
    assert ranges(devices) == (
        ((0, 0), (1, 2)),
        ((2, 0), (2, 0)),
        ((2, 2), (2, 2)),
        ((3, 0), (3, 2)),
    )
    assert [fmt_range(b) for b in ranges(devices)] == ["(0,0)..(1,2)", "(2,0)", "(2,2)", "(3,0)..(3,2)"]


def test_empty_and_duplicates():
    assert ranges([]) == ()
    assert ranges([(1,), (1,), (2,)]) == (((1,), (2,)),)


@given(st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 3)), max_size=80))
def test_boxes_cover_exactly_the_devices_once(devices):
    boxes = ranges(devices)
    covered = expand(boxes)
    assert sorted(covered) == sorted(devices)  # exactly, and no device twice
    assert sum(range_size(b) for b in boxes) == len(devices)
    assert list(boxes) == sorted(boxes)  # row-major by start


def test_a_topology_s_coordinate_set_and_those_off_a_mesh_are_worked_out_once():
    # get_device_tensors parts share their tensor's topology: the judge and the table ask each
    # part's about the same coordinates (docs/semantics.md section 9)
    from meshspec.sim.placement import Replicate, Topology

    topo = Topology((2, 4), (Replicate(), Replicate()), tuple((r, c) for r in range(2) for c in range(4)))
    assert topo.coord_set() == frozenset(topo.coords) and topo.coord_set() is topo.coord_set()
    assert topo.off_mesh((2, 4)) == () and topo.off_mesh((1, 4)) == tuple((1, c) for c in range(4))
    assert topo.off_mesh((1, 2)) == ((0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3))  # in the topology's order
    same = Topology((2, 4), (Replicate(), Replicate()), topo.coords)
    assert topo == same and hash(topo) == hash(same) and topo.replace() == same  # the memo is no field


def test_a_cluster_of_so_many_chips_of_an_architecture_is_one_system():
    # meshspec record and meshspec import name the system by its chips (a 1x2 mesh of a T3K is a T3K)
    from meshspec.sim.mesh import SYSTEMS, system_of, volume

    for name, system in SYSTEMS.items():
        assert system_of(system.arch, volume(system.shape)) == name
    assert system_of("wormhole_b0", 4) is None and system_of("blackhole", 16) is None
