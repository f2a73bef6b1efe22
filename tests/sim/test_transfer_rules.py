"""The rules combine_check, host_buffer_shape and host_read_source (docs/semantics.md section 23):
each choice as ttnn 0.81.1 (the default) and 0.66.0 / 0.67.0 answer it, in the real library's words.
The steps run on a runtime as tests/test_golden_api.py replays them (a scenario file could not
even name some of these calls: its checker refuses a host tensor where a device one is needed)."""

from __future__ import annotations

import pytest

from meshspec.errors import Crash, TTFatal
from meshspec.runner import execute
from meshspec.scenario.loader import LoadedStep
from meshspec.sim.events import UseAfterFree
from meshspec.sim.ops import OPS
from meshspec.sim.profiles import PROFILES, define
from meshspec.sim.runtime import Runtime
from meshspec.typed import validate

TILE = {"shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile"}


def _runtime(**rule: str) -> Runtime:
    return Runtime((2, 4), define("era", "current", rule))


def _run(rt: Runtime, *steps: dict) -> None:
    for step in steps:
        (op, args), = step.items()
        execute(rt, LoadedStep(rt.step + 1, op, validate(OPS[op].args, args), 0))  # the runtime takes the step's index


def _two_storages(rt: Runtime) -> None:
    _run(rt, {"allocate_tensor_on_device": {"as": "a", **TILE}}, {"allocate_tensor_on_device": {"as": "b", **TILE}},
         {"get_device_tensors": {"tensor": "a", "as": "pa"}}, {"get_device_tensors": {"tensor": "b", "as": "pb"}})


OLD_WORDS = ("Error aggregating multichip tensors: tensor shards must be allocated on the same mesh buffer. "
             "Consider moving tensors to host, aggregating, and re-uploading on device storage.")


@pytest.mark.parametrize("choice, said", [("storages", "tensor shards must be allocated on the same mesh buffer."),
                                          ("mesh_buffer", OLD_WORDS)])
def test_parts_of_two_storages_are_refused_in_each_eras_words(choice, said):
    rt = _runtime(combine_check=choice)
    _two_storages(rt)
    with pytest.raises(TTFatal) as err:
        _run(rt, {"combine_device_tensors": {"tensors": ["pa[0]", "pb[1]"], "as": "c"}})
    assert str(err.value) == said


def _freed_part(rt: Runtime) -> None:
    _two_storages(rt)
    _run(rt, {"deallocate": {"tensor": "pa[3]"}})


def test_0_81_1_refuses_parts_of_a_freed_storage():
    rt = _runtime(combine_check="storages")
    _freed_part(rt)
    with pytest.raises(TTFatal) as err:
        _run(rt, {"combine_device_tensors": {"tensors": ["pa[0]", "pa[1]"], "as": "c"}})
    assert str(err.value).startswith("All DeviceStorages must be allocated; ")
    assert "c" not in rt.tensors


def test_0_6x_combines_parts_of_a_freed_storage_into_a_freed_tensor_and_the_judge_sees_each_use():
    rt = _runtime(combine_check="mesh_buffer")
    _freed_part(rt)
    _run(rt, {"combine_device_tensors": {"tensors": ["pa[0]", "pa[1]"], "as": "c"}})
    c = rt.tensors["c"]
    assert c.freed_step is not None  # is_allocated False (ttnn 0.66.0 / 0.67.0, tests/golden api deallocate_part)
    assert c.record.topology.to_json() == {"distribution_shape": [2], "placements": [{"shard": 0}], "coords": [[0, 0], [0, 1]]}
    assert [e.name for e in rt.events if isinstance(e, UseAfterFree)] == ["pa[0]", "pa[1]"]


def test_the_early_2026_profiles_take_the_older_aggregation_and_current_the_storages():
    assert PROFILES["current"].combine_check.value == "storages"
    assert {PROFILES[p].combine_check.value for p in ("ttnn-0.67.0", "ttnn-0.66.0")} == {"mesh_buffer"}


def _mapped_for(rt: Runtime, shape: list) -> None:
    """A host tensor whose distributed host buffer is ``shape`` (from_host_shards, as the golden scenario)."""
    n = shape[0] * shape[1]
    _run(rt, *({"from_torch": {"as": f"s{i}", **TILE}} for i in range(n)),
         {"from_host_shards": {"tensors": [f"s{i}" for i in range(n)], "mesh_shape": shape, "as": "h"}})


@pytest.mark.parametrize("choice, said", [
    ("coords", "Coordinate MeshCoordinate([2, 0]) not found in mesh MeshShape([2, 4])"),
    ("same_shape", "Distributed host buffer has different shape MeshShape([4, 2]) than the mesh device MeshShape([2, 4])"),
])
@pytest.mark.parametrize("op", ["to_device", "copy_host_to_device_tensor"])
def test_a_host_buffer_of_another_shape_is_refused_at_a_coordinate_or_up_front(choice, said, op):
    rt = _runtime(host_buffer_shape=choice)
    _mapped_for(rt, [4, 2])
    _run(rt, {"allocate_tensor_on_device": {"as": "dst", **TILE}})
    before = rt.tensors["dst"].record.topology
    with pytest.raises(TTFatal) as err:
        _run(rt, {"to_device": {"src": "h", "as": "d"}} if op == "to_device" else {op: {"src": "h", "dst": "dst"}})
    assert str(err.value).startswith(said)
    assert rt.tensors["dst"].record.topology == before and "d" not in rt.tensors


def test_a_one_dimensional_host_buffer_aborts_0_81_1_and_is_refused_by_0_6x():
    for choice, kind in (("coords", Crash), ("same_shape", TTFatal)):
        rt = _runtime(host_buffer_shape=choice)
        _run(rt, *({"from_torch": {"as": f"s{i}", **TILE}} for i in range(8)),
             {"from_host_shards": {"tensors": [f"s{i}" for i in range(8)], "mesh_shape": [8], "as": "h"}})
        with pytest.raises(kind) as err:
            _run(rt, {"to_device": {"src": "h", "as": "d"}})
        if choice == "same_shape":
            assert str(err.value).startswith("Distributed host buffer has different shape MeshShape([8]) than the mesh device MeshShape([2, 4])")
        else:
            assert isinstance(err.value, Crash) and "SIGABRT" in str(err.value)


@pytest.mark.parametrize("choice", ["coords", "same_shape"])
def test_a_host_buffer_of_the_meshs_shape_and_a_plain_tensor_go_on_in_both_eras(choice):
    rt = _runtime(host_buffer_shape=choice)
    _mapped_for(rt, [2, 4])
    _run(rt, {"to_device": {"src": "h", "as": "d"}}, {"from_torch": {"as": "p", **TILE}},
         {"create_submesh": {"shape": [1, 4], "as": "sub"}}, {"to_device": {"src": "p", "device": "sub", "as": "q"}})
    assert len(rt.tensors["d"].record.recorded) == 8
    assert len(rt.tensors["q"].record.recorded) == 4  # a 1x1 host buffer is replicated onto any mesh


@pytest.mark.parametrize("choice, kind, said", [("crash", Crash, "h8 is a host tensor: the real library crashes here (SIGSEGV"),
                                                ("checked", TTFatal, "Source tensor is not on device.")])
def test_a_host_tensor_as_the_source_of_copy_device_to_host_tensor(choice, kind, said):
    rt = _runtime(host_read_source=choice)
    _run(rt, {"from_torch": {"as": "h8", **TILE}}, {"allocate_tensor_on_host": {"as": "h", **TILE}})
    with pytest.raises(kind) as err:
        _run(rt, {"copy_device_to_host_tensor": {"device_tensor": "h8", "host_tensor": "h"}})
    assert str(err.value).startswith(said)
    assert isinstance(err.value, Crash) == (choice == "crash")
