"""Issue 34, section 5 (bounded work): partial writes keep page sets in time linear in the pages,
parts share their topology in a report, and --max-memory and the work bound hold in both modes."""

from __future__ import annotations

import pytest

from conftest import make_scenario
from meshspec.runner import run
from meshspec.sim.device import NOTHING, PageRanges


def _partial_nd(mesh, rows=65536):
    """The issue's 1 KB scenario: a [1,1,rows,16] uint32 row-major tensor in [1,1,1,16] ND shards
    round robin on an 8x8 grid (one page a row, page k on core k % 64), refreshed on cores
    (0,0)-(3,3): 16 of the 64 cores, so every device gets rows/4 pages in rows/16 runs of 4."""
    shape = [1, 1, rows, 16]
    return make_scenario([
        {"allocate_tensor_on_device": {"as": "kv", "shape": shape, "dtype": "uint32", "layout": "row_major", "memory_config": {
            "buffer_type": "l1",
            "nd_shard_spec": {"shard_shape": [1, 1, 1, 16], "grid": [[[0, 0], [7, 7]]], "distribution": "round_robin_1d"}}}},
        {"from_torch": {"as": "new", "shape": shape, "dtype": "uint32", "layout": "row_major",
                        "mesh_mapper": {"create_mesh_mapper": {"placements": ["replicate", "replicate"]}}}},
        {"copy_host_to_device_tensor_partial": {"src": "new", "dst": "kv", "core_filter": [[[0, 0], [3, 3]]]}},
    ], mesh=mesh, data="none")


def test_a_partial_write_makes_its_page_set_once_not_once_a_page(monkeypatch):
    made = []
    real = PageRanges.__init__

    def counting(self, ranges=()):
        made.append(len(ranges))
        real(self, ranges)

    monkeypatch.setattr(PageRanges, "__init__", counting)
    report = run(_partial_nd([4, 4]), "current")
    # the old code made one range set per page per device (16,384 x 16 here, 10 s a device): now
    # the pages become ranges once for the write and are merged once per distinct old page set
    assert len(made) <= 4, len(made)
    partial = [f for f in report.findings if f.kind.value == "partial"]
    assert len(partial) == 16 and all("16384 of 65536 pages" in f.message for f in partial)


def test_page_ranges_of_and_union_are_the_set_union():
    import random

    rng = random.Random(34)
    for _ in range(200):
        a = {rng.randrange(64) for _ in range(rng.randrange(20))}
        b = {rng.randrange(64) for _ in range(rng.randrange(20))}
        got = PageRanges.of(sorted(a)).union(PageRanges.of(list(b)))
        mask = got.mask(64)
        assert {i for i in range(64) if mask[i]} == a | b and got.count() == len(a | b)
        assert all(x[1] < y[0] for x, y in zip(got.ranges, got.ranges[1:]))  # disjoint, sorted, not touching
    assert PageRanges.of([]) is NOTHING
    full = PageRanges(((0, 10),))
    assert full.union(PageRanges.of([3, 4])) is full
