"""Names as Python variables: one meaning at a time, lists of tensors and of submeshes, handles on
one storage (meshspec/sim/runtime.py, meshspec/scenario/loader.py; docs/semantics.md section 9)."""

import pytest

from conftest import make_scenario, run_steps
from meshspec.errors import ScenarioError

SHARDED = [
    {"from_torch": {"as": "src", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}},
    {"to_device": {"src": "src", "as": "d"}},
    {"get_device_tensors": {"tensor": "d", "as": "parts"}},
]


def finding_kinds(report):
    return {(f.kind.value, f.tensor) for f in report.findings}


def refusal(steps) -> str:
    with pytest.raises(ScenarioError) as err:
        make_scenario(steps)
    return err.value.message


# -- handles on one storage ---------------------------------------------------------------------
def test_deallocating_the_parent_frees_every_part():
    # ttnn 0.81.1 (tests/golden api "deallocate_part"): every handle reads is_allocated False, and
    # combine refuses with its own words
    r = run_steps(SHARDED + [{"deallocate": {"tensor": "d"}}, {"combine_device_tensors": {"tensors": ["parts[0]", "parts[1]"], "as": "c"}}])
    assert r.error is not None and r.error.step == 4
    assert r.error.message.startswith("All DeviceStorages must be allocated; parts[0]'s storage was freed by step 3 (deallocate of d")
    assert ("use_after_free", "parts[0]") in finding_kinds(r)


def test_deallocating_a_part_frees_the_parent_and_the_other_parts():
    r = run_steps(SHARDED + [{"deallocate": {"tensor": "parts[3]"}}, {"to_torch": {"tensor": "parts[4]", "as": "p4"}}])
    assert r.error is not None and "parts[4]'s storage was freed by step 3 (deallocate of parts[3]" in r.error.message
    storages = {t.name: t.storage for t in r.tensors}
    assert storages["d"] == storages["parts[0]"] == "deallocated"


def test_a_second_deallocate_through_another_handle_is_a_double_free():
    # ttnn 0.81.1 ignores a second deallocate (tests/golden runtime "deallocate"); meshspec reports it
    r = run_steps(SHARDED + [{"deallocate": {"tensor": "d"}}, {"deallocate": {"tensor": "parts[2]"}}])
    assert r.error is None
    (f,) = r.findings
    assert (f.kind.value, f.tensor) == ("use_after_free", "parts[2]")
    assert f.message.endswith("parts[2]'s storage was freed by step 3 (deallocate of d, which shares it) and is deallocated again")


# -- one meaning per name -----------------------------------------------------------------------
def test_a_list_rebound_shorter_has_no_old_items():
    # parts = ttnn.get_device_tensors(parts[0]) leaves one part: parts[5] is Python's IndexError
    steps = SHARDED + [{"get_device_tensors": {"tensor": "parts[0]", "as": "parts"}}, {"to_torch": {"tensor": "parts[5]", "as": "p5"}}]
    r = run_steps(steps)
    assert r.error is not None and r.error.step == 4
    assert r.error.message == "list index out of range: parts[5] (the step that bound parts made 1 tensor)"
    assert [t.name for t in r.tensors if t.name.startswith("parts")] == ["parts[0]"]


def test_a_submesh_list_index_past_its_end_is_a_step_error():
    steps = [{"create_submeshes": {"shape": [1, 4], "as": "subs"}}, {"allocate_tensor_on_device": {"as": "t", "shape": [1, 1, 32, 32], "mesh_device": "subs[2]"}}]
    r = run_steps(steps)
    assert r.error is not None and r.error.message == "list index out of range: subs[2] (the step that bound subs made 2 submeshes)"
    assert r.exit_code == 1


def test_a_tensor_name_rebound_to_a_mesh_retires_the_tensor():
    steps = [SHARDED[0], {"create_submesh": {"shape": [1, 4], "as": "src"}}]
    r = run_steps(steps)
    assert "src" not in {t.name for t in r.tensors}
    assert "src" in {m.name for m in r.meshes}


@pytest.mark.parametrize("steps, message", [
    (SHARDED + [SHARDED[0] | {"from_torch": {"as": "parts", "shape": [1, 8, 32, 32]}}, {"to_torch": {"tensor": "parts[0]"}}],
     "'parts[0]' names an item of 'parts', but 'parts' is a host tensor since step 3 (from_torch), not a list"),
    ([SHARDED[0], {"create_submesh": {"shape": [1, 4], "as": "src"}}, {"to_torch": {"tensor": "src"}}],
     "'src' is a mesh device since step 1 (create_submesh); to_torch needs a tensor here"),
    ([{"create_submeshes": {"shape": [1, 4], "as": "subs"}}, {"to_torch": {"tensor": "subs[0]"}}],
     "'subs' is a list of mesh devices since step 0 (create_submeshes); to_torch needs a tensor here"),
    (SHARDED + [{"allocate_tensor_on_device": {"as": "t", "shape": [1, 1, 32, 32], "mesh_device": "parts[0]"}}],
     "'parts' is a list of tensors since step 2 (get_device_tensors); allocate_tensor_on_device needs a mesh device here"),
    (SHARDED + [{"combine_device_tensors": {"tensors": "d", "as": "c"}}],
     "'d' is a device tensor since step 1 (to_device); combine_device_tensors takes a list: write [d], or name a list"),
])
def test_a_name_of_another_kind_says_what_it_is_and_since_when(steps, message):
    assert message in refusal(steps)


def test_a_whole_list_is_one_name_as_in_ttnn_code():
    # ttnn.combine_device_tensors(tensors=parts)
    r = run_steps(SHARDED + [{"combine_device_tensors": {"tensors": "parts", "as": "c"}}])
    assert r.error is None
    assert {t.name for t in r.tensors} >= {"c", "parts[7]"}


def test_a_file_name_is_a_path_as_code_writes_it():
    steps = [{"as_tensor": {"as": "w", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}, "device": "mesh_device",
                            "memory_config": "DRAM_MEMORY_CONFIG", "cache_file_name": "/tmp/cache/model.layers.0.weight"}},
             {"dump_tensor": {"file_name": "sub/dir/w.tensorbin", "tensor": "w"}},
             {"load_tensor": {"file_name": "sub/dir/w.tensorbin", "as": "back"}}]
    r = run_steps(steps)
    assert r.error is None
