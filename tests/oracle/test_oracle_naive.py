"""The naive model on its own (no meshspec run): bytes of a spec, a mapper's shards, statuses and
never-written reads, each worked out by hand in the comments."""

import yaml
from pathlib import Path

from naive import Model, Record, Spec, expected_kind, status, statuses

T3K = (2, 4)
EVERY = [(r, c) for r in range(2) for c in range(4)]


def test_bytes_of_a_spec():
    # docs/semantics.md section 3: a TILE page is a 32x32 tile (2048 B of bfloat16, 1088 B of
    # bfloat8_b); a ROW_MAJOR page is a row, aligned to 32 B in Wormhole DRAM
    assert Spec((1, 1, 32, 32)).nbytes == 2048
    assert Spec((1, 1, 30, 50)).nbytes == 2 * 2048  # padded to 32x64: two tiles
    assert Spec((1, 1, 17, 32)).nbytes == Spec((1, 1, 32, 32)).nbytes  # 17 rows fill one tile
    assert Spec((4, 10, 31), "float32", "row_major").nbytes == 40 * 128  # 124 B rows, aligned to 128
    assert Spec((1, 1, 32, 32), "bfloat8_b").nbytes == 1088


def test_mapper_shards_like_torch_chunk():
    m = Model(T3K)
    # the seed: 7 rows over 8 devices, chunks of 1: seven shards, row-major, (1, 3) gets none
    shards = m._map(Spec((1, 7, 32, 32)), {"shard": 1})
    assert sorted(shards) == EVERY[:7] and all(s.shape == (1, 1, 32, 32) for s in shards.values())
    # 9 rows over 8: chunks of 2 -> 2, 2, 2, 2, 1 on the first five devices
    shards = m._map(Spec((1, 9, 32, 32)), {"shard": 1})
    assert [shards[c].shape[1] for c in EVERY[:5]] == [2, 2, 2, 2, 1] and len(shards) == 5
    # issue 35 item 1: [replicate, shard 3] on a (1, 4) submesh: row 0 only, a quarter each
    shards = m._map(Spec((1, 1, 32, 128)), {"create_mesh_mapper": {"placements": ["replicate", {"shard": 3}],
                                                                   "mesh_shape_override": [1, 4]}})
    assert sorted(shards) == EVERY[:4] and {s.shape for s in shards.values()} == {(1, 1, 32, 32)}
    # a 1-D override of 3 on the 2x4 mesh: the first three devices row-major
    shards = m._map(Spec((1, 6, 32, 32)), {"create_mesh_mapper": {"placements": [{"shard": 1}], "mesh_shape_override": [3]}})
    assert sorted(shards) == EVERY[:3]


def _seed(recorded, specs):
    """allocate (1,1,32,32) on a T3K, copy the seed's 7 shards into it; ``recorded``/``specs`` the record."""
    m = Model(T3K)
    rec = Record(Spec((1, 1, 32, 32)), tuple(recorded), specs)
    m.step(0, {"from_torch": {"as": "h", "shape": [1, 7, 32, 32], "mesh_mapper": {"shard": 1}}}, {})
    m.step(1, {"allocate_tensor_on_device": {"as": "d", "shape": [1, 1, 32, 32]}}, {})
    m.step(2, {"copy_host_to_device_tensor": {"src": "h", "dst": "d"}}, {"d": rec})
    return m, rec


def test_status_of_the_seed():
    # every device recorded with the uniform spec: (1, 3) was never written -> stale, the rest ok
    m, rec = _seed(EVERY, {c: Spec((1, 1, 32, 32)) for c in EVERY})
    got = statuses(m, {"d": rec})
    assert got[("d", (1, 3))] == "stale" and all(got[("d", c)] == "ok" for c in EVERY[:7])
    # no spec kept anywhere (before PR #18833): every written or claimed device is missing_spec
    m, rec = _seed(EVERY, {})
    assert set(statuses(m, {"d": rec}).values()) == {"missing_spec"}
    # the record drops (0, 0) although it was written (its spec kept): lost
    m, rec = _seed(EVERY[1:7], {c: Spec((1, 1, 32, 32)) for c in EVERY})
    got = statuses(m, {"d": rec})
    assert got[("d", (0, 0))] == "lost" and got[("d", (1, 3))] == "empty"


def test_partial_and_shape_mismatch():
    m, _ = _seed(EVERY, {})
    buf = m.handles["d"]
    # recorded with two tiles, one written: partial
    assert status(buf, Record(Spec((1, 1, 32, 32)), ((0, 0),), {(0, 0): Spec((1, 2, 32, 32))}), (0, 0)) == "partial"
    # recorded (1,1,17,32): the same one tile was written, with another shape: shape_mismatch
    assert status(buf, Record(Spec((1, 1, 32, 32)), ((0, 0),), {(0, 0): Spec((1, 1, 17, 32))}), (0, 0)) == "shape_mismatch"
    # a squeeze view's record (leading 1 dropped) of the same bytes: ok
    assert status(buf, Record(Spec((1, 32, 32)), ((0, 0),), {(0, 0): Spec((1, 32, 32))}), (0, 0)) == "ok"
    # nothing written to the buffer yet: uninitialized where recorded, empty elsewhere
    m.step(3, {"allocate_tensor_on_device": {"as": "e", "shape": [1, 1, 32, 32]}}, {})
    assert status(m.handles["e"], Record(Spec((1, 1, 32, 32)), ((0, 0),), {(0, 0): Spec((1, 1, 32, 32))}), (0, 0)) == "uninitialized"
    assert status(m.handles["e"], Record(Spec((1, 1, 32, 32)), ((0, 0),), {(0, 0): Spec((1, 1, 32, 32))}), (0, 1)) == "empty"


def test_item1_reads_row_1_never_written():
    """Issue 35 item 1 (tests/oracle/item1-row0-gather.yaml): the gather along cluster axis 1 reads
    every device of each row; row 1 of x was never written."""
    steps = yaml.safe_load((Path(__file__).parent / "item1-row0-gather.yaml").read_text())["steps"]
    m = Model(T3K)
    m.step(0, steps[0], {})
    quarter = Spec((1, 1, 32, 32))
    row0 = EVERY[:4]
    x = Record(Spec((1, 1, 32, 32)), tuple(row0), {c: quarter for c in row0}, tuple(row0))  # what 0.81.1 records
    m.step(1, steps[1], {"x": x})
    never = {(r.out_device, r.in_device) for r in m.reads if r.never_written}
    assert never == {((1, i), (1, j)) for i in range(4) for j in range(4)}
    assert {r.in_status for r in m.reads if r.never_written} == {"empty"}
    assert all(r.op == "all_gather" and r.step == 1 and r.out == "y" for r in m.reads)
    # x's topology lists row 0 only: row 1's never-written reads are the runtime's doing
    kinds = {c: expected_kind([r for r in m.reads if r.out_device == c]) for c in EVERY}
    assert kinds == {**dict.fromkeys(row0), **dict.fromkeys(EVERY[4:], "stale_input")}


def test_the_reference_cuts_each_group_to_the_tensors_devices():
    """ccl_devices ``tensor`` (the reference, docs/semantics.md section 12): item 1's gather runs on
    x's row 0 only, each group (a row, cluster_axis 1) cut to x's devices: four reads per output
    device, all written; the output is written on row 0 only, four quarters wide."""
    steps = yaml.safe_load((Path(__file__).parent / "item1-row0-gather.yaml").read_text())["steps"]
    m = Model(T3K, ccl_tensor=True)
    m.step(0, steps[0], {})
    row0, quarter = EVERY[:4], Spec((1, 1, 32, 32))
    m.step(1, steps[1], {"x": Record(quarter, tuple(row0), {c: quarter for c in row0}, tuple(row0))})
    assert {(r.out_device, r.in_device) for r in m.reads} == {(i, j) for i in row0 for j in row0}
    assert not any(r.never_written for r in m.reads)
    y = m.handles["y"]
    assert sorted(y.last) == row0 and {y.shape_written[c][1] for c in row0} == {(1, 1, 32, 128)}
    # a tensor on (0, 0), (0, 1) and (1, 0) gathered along axis 1: (1, 0)'s group is itself alone
    m = Model(T3K, ccl_tensor=True)
    three = ((0, 0), (0, 1), (1, 0))
    m.step(0, {"allocate_tensor_on_device": {"as": "x", "shape": [1, 1, 32, 32]}}, {})
    m.step(1, {"all_gather": {"tensor": "x", "dim": 3, "cluster_axis": 1, "as": "y"}},
           {"x": Record(quarter, three, {c: quarter for c in three}, three)})
    assert {c: m.handles["y"].shape_written[c][1][3] for c in m.handles["y"].last} == {(0, 0): 64, (0, 1): 64, (1, 0): 32}


def test_a_bare_allocation_read_is_the_programs_error():
    """neg of an allocation nothing was written to, whose topology lists every device: each output
    device read never-written bytes of a listed, uninitialized device: uninitialized_read."""
    m = Model(T3K)
    one = Spec((1, 1, 32, 32))
    m.step(0, {"allocate_tensor_on_device": {"as": "x", "shape": [1, 1, 32, 32]}}, {})
    m.step(1, {"neg": {"tensor": "x", "as": "y"}}, {"x": Record(one, tuple(EVERY), {c: one for c in EVERY}, tuple(EVERY))})
    assert {r.in_status for r in m.reads} == {"uninitialized"}
    assert {expected_kind([r]) for r in m.reads} == {"uninitialized_read"}


def test_reads_are_not_transitive():
    """A neg of y reads y's bytes, which the gather wrote: no never-written read, although y's row 1
    came from never-written memory."""
    m = Model(T3K)
    m.step(0, {"from_torch": {"as": "x", "shape": [1, 1, 32, 128], "device": "mesh_device", "mesh_mapper": {
        "create_mesh_mapper": {"placements": ["replicate", {"shard": 3}], "mesh_shape_override": [1, 4]}}}}, {})
    x = Record(Spec((1, 1, 32, 32)), tuple(EVERY[:4]), {c: Spec((1, 1, 32, 32)) for c in EVERY[:4]})
    m.step(1, {"all_gather": {"tensor": "x", "dim": 3, "cluster_axis": 1, "as": "y"}}, {"x": x})
    y = Record(Spec((1, 1, 32, 128)), tuple(EVERY), {c: Spec((1, 1, 32, 128)) for c in EVERY})
    m.step(2, {"neg": {"tensor": "y", "as": "z"}}, {"x": x, "y": y})
    assert [r for r in m.reads if r.out == "z" and r.not_current] == []


def test_the_oracle_sees_a_write_meshspec_did_not_make():
    """A fault makes meshspec's runtime record device (0, 2) but skip its write (sim/faults.py
    skip_write): meshspec then says stale, the naive model, which writes what the steps write,
    says ok, and the oracle reports exactly that device. The two faults that change only a record
    (drop_record, alter_shape) reach the naive model through the records: no disagreement."""
    from meshspec.scenario.loader import load
    from meshspec.sim.faults import Fault
    from oracle_diff import check

    path = Path(__file__).parents[2] / "scenarios" / "even-copy.yaml"
    steps = yaml.safe_load(path.read_text())["steps"]
    write = next(i for i, s in enumerate(steps) if "copy_host_to_device_tensor" in s)
    dst = steps[write]["copy_host_to_device_tensor"]["dst"]
    assert check(load(path), steps, "current").disagreements == []
    out = check(load(path), steps, "current", fault=Fault("skip_write", write, (0, 2)))
    made = next(op for s in steps for op, a in s.items() if a.get("as") == dst)
    assert out.disagreements == [(f"status:ok/stale:{made}", f"{dst} (0, 2)")]
    for kind in ("drop_record", "alter_shape"):
        assert check(load(path), steps, "current", fault=Fault(kind, write, (0, 2))).disagreements == []


def test_docstring_examples_hold():
    import doctest

    import naive
    import oracle_diff

    assert doctest.testmod(naive).failed == 0 and doctest.testmod(oracle_diff).failed == 0


def test_add_runs_on_the_input_with_fewer_devices():
    """ttnn's workload is the first input's devices, replaced by a later input's that has fewer
    (mesh_device_operation_utils.hpp, extract_tensor_coordinates): add(a on 7, b on 1) runs on b's one
    device, and reads nothing never written."""
    m = Model((1, 8))
    row = [(0, j) for j in range(8)]
    m.step(0, {"from_torch": {"as": "b", "shape": [1, 1, 32, 32], "mesh_mapper": {"shard": 1}, "device": "mesh_device"}}, {})
    m.step(1, {"from_torch": {"as": "a", "shape": [1, 7, 32, 32], "mesh_mapper": {"shard": 1}, "device": "mesh_device"}}, {})
    one = Spec((1, 1, 32, 32))
    records = {"a": Record(one, tuple(row[:7]), {c: one for c in row[:7]}), "b": Record(one, (row[0],), {row[0]: one})}
    m.step(2, {"add": {"a": "a", "b": "b", "as": "c"}}, records)
    assert {(r.out_device, r.input, r.in_device) for r in m.reads} == {((0, 0), "a", (0, 0)), ((0, 0), "b", (0, 0))}
    assert not any(r.not_current for r in m.reads)


def test_a_slice_reads_only_the_pages_its_region_lies_in():
    """docs/semantics.md section 12 ("What an op read"): a slice reads the pages its region lies in.
    x (1, 1, 32, 64) is two tiles; a (1, 1, 32, 32) shard written on every device fills the first
    only, so x is partial on each (the runtime refuses that copy; the model, handed the steps
    directly, just writes it: a one-tile write, as a partial core write makes). A slice of columns 0-31 reads written bytes only (no finding
    although x is partial); one of columns 32-63 reads the never-written second tile of a device
    whose record lies (partial): stale_input."""
    m = Model(T3K)
    one, two = Spec((1, 1, 32, 32)), Spec((1, 1, 32, 64))
    m.step(0, {"from_torch": {"as": "h", "shape": [1, 1, 32, 32]}}, {})
    m.step(1, {"allocate_tensor_on_device": {"as": "x", "shape": [1, 1, 32, 64]}}, {})
    x = Record(two, tuple(EVERY), {c: two for c in EVERY}, tuple(EVERY))
    m.step(2, {"copy_host_to_device_tensor": {"src": "h", "dst": "x"}}, {"x": x})
    m.step(3, {"slice": {"tensor": "x", "starts": [0, 0, 0, 0], "ends": [1, 1, 32, 32], "as": "left"}}, {"x": x})
    m.step(4, {"slice": {"tensor": "x", "starts": [0, 0, 0, 32], "ends": [1, 1, 32, 64], "as": "right"}}, {"x": x})
    assert not any(r.never_written for r in m.reads if r.out == "left") and len([r for r in m.reads if r.out == "left"]) == 8
    assert {expected_kind([r]) for r in m.reads if r.out == "left"} == {None}
    assert {expected_kind([r]) for r in m.reads if r.out == "right"} == {"stale_input"}
    # both outputs are one tile on each device
    assert {m.handles["right"].shape_written[c][1] for c in EVERY} == {one.shape}


def test_the_input_itself_and_a_view():
    """What ttnn returns as it is (a whole slice, no padding, to_layout to its own layout) is the
    same tensor under a second name, carrying what it was computed from; a view is the same buffer
    but a tensor of its own, its shape compared by pages (section 12, view)."""
    m = Model(T3K)
    one = Spec((1, 1, 32, 32))
    rec = Record(one, tuple(EVERY), {c: one for c in EVERY}, tuple(EVERY))
    m.step(0, {"allocate_tensor_on_device": {"as": "x", "shape": [1, 1, 32, 32]}}, {})
    m.step(1, {"neg": {"tensor": "x", "as": "y"}}, {"x": rec})
    m.step(2, {"pad": {"tensor": "y", "padding": [[0, 0]], "as": "p"}}, {"x": rec, "y": rec})
    m.step(3, {"view": {"tensor": "y", "shape": [32, 32], "as": "v"}}, {"x": rec, "y": rec})
    assert m.handles["p"] is m.handles["y"] is m.handles["v"]
    assert len([r for r in m.reads if r.out == "p"]) == 8 and [r for r in m.reads if r.out == "v"] == []
    view = Record(Spec((32, 32)), tuple(EVERY), {c: Spec((32, 32)) for c in EVERY}, tuple(EVERY))
    assert status(m.handles["v"], view, (0, 0), view=True) == "ok"
