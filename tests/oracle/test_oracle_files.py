"""The naive model's tensor files (naive.py's table: dump_tensor, load_tensor, as_tensor; docs/semantics.md
section 20) against meshspec, under each tensor_file rule: the seed's seven shards dumped and loaded
back onto the T3K are seven devices when the file keeps every shard, eight when it keeps one and a
load replicates it (tt-xla #5177), and eight when a load puts the first on every device (#8228)."""

from pathlib import Path

import pytest
import yaml

from meshspec.scenario.loader import parse
from naive import Model
from oracle_diff import check

SEVEN = """meshspec: 1
name: seven
mesh: t3k
profiles:
  era: {{base: current, tensor_file: {rule}}}
steps:
  - from_torch: {{as: src, shape: [1, 7, 32, 32], mesh_mapper: {{shard: 1}}}}
  - dump_tensor: {{file_name: src.tensorbin, tensor: src}}
  - load_tensor: {{file_name: src.tensorbin, device: mesh_device, as: dev}}
  - as_tensor: {{as: first, shape: [1, 7, 32, 32], mesh_mapper: {{ShardTensorToMesh: {{dim: 1}}}}, device: mesh_device, memory_config: DRAM_MEMORY_CONFIG, cache_file_name: w}}
  - as_tensor: {{as: second, shape: [1, 7, 32, 32], mesh_mapper: {{ShardTensorToMesh: {{dim: 1}}}}, device: mesh_device, memory_config: DRAM_MEMORY_CONFIG, cache_file_name: w}}
  - neg: {{tensor: second, as: out}}
  - dump_tensor: {{file_name: out.tensorbin, tensor: out}}
  - load_tensor: {{file_name: out.tensorbin, device: mesh_device, as: again}}
"""

RULES = ("collapse_replicated", "every_shard", "replicate_on_load", "replicated_config", "first_shard")


@pytest.mark.parametrize("rule", RULES)
def test_the_naive_model_agrees_on_what_a_load_writes(rule):
    text = SEVEN.format(rule=rule)
    outcome = check(parse(text, Path("seven.yaml")), yaml.safe_load(text)["steps"], "era")
    assert outcome.skipped is None and outcome.disagreements == []


def _written(rule: str) -> dict:
    """The naive model's devices written by each load of SEVEN under ``rule``."""
    m = Model((2, 4), tensor_file=rule)
    for i, step in enumerate(yaml.safe_load(SEVEN.format(rule=rule))["steps"][:5]):
        m.step(i, step, {})
    return {name: sorted(m.handles[name].shape_written) for name in ("dev", "second")}


def test_a_file_of_one_shard_writes_every_device_and_a_file_of_seven_seven():
    every = [(r, c) for r in range(2) for c in range(4)]
    assert _written("every_shard") == {"dev": every[:7], "second": every[:7]}
    assert _written("first_shard") == {"dev": every, "second": every}
    assert _written("replicate_on_load") == {"dev": every, "second": every}  # (the miss puts its own seven: "first")
    assert _written("replicated_config") == {"dev": every[:7], "second": every[:7]}  # a sharding mapper's config
