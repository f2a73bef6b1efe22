"""Trace replay (meshspec/sim/ops/trace.py; docs/semantics.md section 12): each replay computes its
captured steps again into their captured outputs."""

from conftest import make_scenario
from meshspec.runner import execute
from meshspec.sim.profiles import get_profile
from meshspec.sim.runtime import Runtime


def _replayed(times: int) -> Runtime:
    steps = [
        {"allocate_tensor_on_device": {"as": "tokens", "shape": [1, 1, 32, 32]}},
        {"begin_trace_capture": {"trace": "decode"}},
        {"all_gather": {"tensor": "tokens", "dim": 1, "as": "gathered"}},
        {"end_trace_capture": {"trace": "decode"}},
    ] + [{"execute_trace": {"trace": "decode"}}] * times
    scenario = make_scenario(steps)
    rt = Runtime(scenario.mesh_shape, get_profile("current"))
    for step in scenario.steps:
        execute(rt, step)
    return rt


def _live_blocks(rt: Runtime) -> int:
    return sum(allocated for table in rt.allocators[id(rt.root)].by_type.values() for _, _, allocated in table.blocks)


def test_a_replay_gives_back_the_memory_of_the_output_it_computed_aside():
    # the replay computes into a fresh buffer, copies it into the captured output and drops it:
    # forty replays hold what one capture holds (a decode loop must not creep up to --max-memory)
    once, forty = _replayed(1), _replayed(40)
    assert forty._reserved == once._reserved
    assert _live_blocks(forty) == _live_blocks(once)


def test_a_trace_released_while_captured_fails_where_the_capture_ends():
    """docs/semantics.md section 12 (ttnn 0.81.1 in mock mode, tests_ttnn/test_trace.py): the
    release goes through, the steps after it are run but captured nowhere, and ending the capture
    is the TT_FATAL; no crash in meshspec (found by bench/fuzz.py, seed 77)."""
    from meshspec.runner import run

    scenario = make_scenario([
        {"allocate_tensor_on_device": {"as": "tokens", "shape": [1, 1, 32, 32]}},
        {"begin_trace_capture": {"trace": "decode"}},
        {"release_trace": {"trace": "decode"}},
        {"all_gather": {"tensor": "tokens", "dim": 1, "as": "gathered"}},
        {"end_trace_capture": {"trace": "decode"}},
    ])
    report = run(scenario, "current")
    assert report.error is not None and (report.error.step, report.error.op) == (4, "end_trace_capture")
    assert report.error.message.startswith("Trace instance decode must exist on device 0's active sub-device manager 0 (release_trace")
    assert report.steps_run == 4  # the all_gather ran
