"""Each tensor's SHA-256 in a report is of its own values (meshspec/judge/values.py: Digests).

Regression: digests were remembered by ``id()`` of arrays read afresh for the report (a device
part's values), which were freed at once; the next part's fresh array got the same id and so
the first part's digest: seven parts of different values, one digest.
"""

import hashlib
from pathlib import Path

import numpy as np
import pytest

from meshspec.runner import run
from meshspec.scenario.loader import load, parse
from meshspec.sim.profiles import PROFILES

ROOT = Path(__file__).resolve().parents[2]


def _values(report) -> list[tuple[str, dict]]:
    return [(t["name"], t["values"]) for t in report.to_json()["tensors"] if t.get("values")]


def test_each_device_part_has_the_digest_of_its_own_shard():
    # parts[i] (a T3K's devices in row-major order) holds shard i of the (1, 7, 32, 32) arange:
    # its 1024 values from 1024 * i, made as torch makes them (through float32 to bfloat16,
    # docs/semantics.md on data generation; tests/sim/test_values.py)
    import ml_dtypes

    report = run(parse(
        "meshspec: 1\nmesh: t3k\nsteps:\n"
        "  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}\n"
        "  - from_torch: {as: src, shape: [1, 7, 32, 32], data: arange, mesh_mapper: {shard: 1}}\n"
        "  - copy_host_to_device_tensor: {src: src, dst: dst}\n"
        "  - get_device_tensors: {tensor: dst, as: parts}\n"
    ), "current")
    got = dict(_values(report))
    digests = set()
    for i in range(7):
        want = np.arange(1024 * i, 1024 * (i + 1), dtype=np.float32).astype(ml_dtypes.bfloat16)
        assert got[f"parts[{i}]"]["sha256"] == hashlib.sha256(want.tobytes()).hexdigest(), i
        digests.add(got[f"parts[{i}]"]["sha256"])
    assert len(digests) == 7


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.yaml")), ids=lambda p: p.stem)
def test_tensors_with_other_values_have_other_digests(path):
    scenario = load(path)
    for profile in (*PROFILES, *scenario.profiles):
        seen: dict[str, tuple] = {}
        for name, v in _values(run(scenario, profile)):
            key = (tuple(v["shape"]), v["dtype"], tuple(map(str, v["first"])))
            other = seen.setdefault(v["sha256"], (name, key))
            assert other[1] == key, f"{path.name} [{profile}]: {name} and {other[0]} hold other values, one digest"
