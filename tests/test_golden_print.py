"""Printing a mesh tensor on one host, as ttnn 0.81.1 prints it (tests/golden/ttnn_0_81_1_print.json,
recorded in mock mode by tools/golden/record_print.py; docs/semantics.md section 15).

On one host every coordinate is local (the golden's ``is_local``) and ``print(t)`` writes one
``device_id: N, MeshCoordinate([r, c])`` header per recorded device, each shard under its own
coordinate, row-major: what meshspec's to_string shows under every era's rule (``prefix`` pairs
the i-th held shard with the i-th coordinate, and on one host those are the same device).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_scenario

from meshspec.runner import execute
from meshspec.sim.events import Shown
from meshspec.sim.profiles import define, get_profile
from meshspec.sim.runtime import Runtime

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_print.json").read_text())

SHARDED = [{"from_torch": {"as": "h", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}},
           {"to_device": {"src": "h", "as": "t"}}]
SEED = [{"allocate_tensor_on_device": {"as": "t", "shape": [1, 1, 32, 32]}},
        {"from_torch": {"as": "h", "shape": [1, 7, 32, 32], "mesh_mapper": {"shard": 1}}},
        {"copy_host_to_device_tensor": {"src": "h", "dst": "t"}}]
CASES = {"sharded_8": SHARDED, "seed_7": SEED}


PROFILES = {"own": get_profile("current"), "prefix": define("prefix", "current", {"print_coords": "prefix"})}


def shown(steps, profile) -> list:
    """``(coordinate shown, whose shard)`` for each shard meshspec's to_string shows of t, in order."""
    scenario = make_scenario(steps + [{"to_string": {"tensor": "t"}}], "t3k")
    rt = Runtime(scenario.mesh_shape, profile)
    for step in scenario.steps:
        done = execute(rt, step)
    (event,) = [e for e in done.events if isinstance(e, Shown)]
    return list(event.shown)


def test_the_golden_is_one_host_owning_every_device():
    assert GOLDEN["is_local"] == [[r, c] for r in range(2) for c in range(4)]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("rule", sorted(PROFILES))
def test_each_recorded_shard_is_printed_under_its_own_coordinate(case, rule):
    got = shown(CASES[case], PROFILES[rule])
    assert [at for at, _ in got] == [tuple(c) for _, c in GOLDEN["printed"][case]]
    assert all(at == whose for at, whose in got)
