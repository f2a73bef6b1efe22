"""The step-by-step judge (meshspec/judge/findings.py; docs/semantics.md section 7)."""

from conftest import make_scenario
from meshspec.judge.findings import Judge, device_views
from meshspec.runner import execute, run
from meshspec.sim.profiles import get_profile
from meshspec.sim.runtime import Runtime

STALE_READ = [
    {"allocate_tensor_on_device": {"as": "dst", "shape": [1, 1, 32, 32]}},
    {"from_torch": {"as": "src", "shape": [1, 7, 32, 32], "mesh_mapper": {"shard": 1}}},
    {"copy_host_to_device_tensor": {"src": "src", "dst": "dst"}},
    {"to_torch": {"tensor": "dst", "mesh_composer": {"concat": 1}, "as": "out"}},
]


def test_a_host_tensor_made_from_data_is_judged_without_views_and_reported_with_them():
    # section 7: a from_torch tensor's shards hold what they were made from, so all are ok; the
    # judge leaves their views for the report, which has one per shard, as device_views gives them
    scenario = make_scenario(STALE_READ)
    rt = Runtime(scenario.mesh_shape, get_profile("uniform-by-value"), scenario.folder)
    judge = Judge(scenario.mesh_shape, rt.ops)
    for step in scenario.steps[:2]:
        execute(rt, step)
        judge.step(rt.tensors, rt.events, set(step.touched))
    assert "src" not in judge.views and judge.found["src"] == []
    reports, _ = judge.result(rt.tensors)
    src = next(t for t in reports if t.name == "src")
    assert [v.status.value for v in src.devices] == ["ok"] * 7
    assert list(src.devices) == device_views(rt.tensors["src"], scenario.mesh_shape)


def test_a_read_back_host_tensor_still_carries_the_stale_device():
    # the composed result of a stale read is judged at its step: its views are made and it lies
    report = run(make_scenario(STALE_READ), "uniform-by-value")
    kinds = {(f.kind.value, f.tensor, f.device) for f in report.findings}
    assert ("stale", "dst", (1, 3)) in kinds and ("data_mismatch", "dst", (1, 3)) in kinds
    out = next(t for t in report.tensors if t.name == "out")
    assert out.devices[0].status.value == "stale" and "composed from 1 bad shard" in out.devices[0].detail
