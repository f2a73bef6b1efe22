"""The constructor and spec rules of ttnn 0.66.0 / 0.67.0 (docs/semantics.md section 23):
block_float_row_major (the TensorSpec check), and the binding's words when mapper_offset is absent."""

import pytest

from meshspec.errors import TTFatal
from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import PROFILES, RULES, BlockFloatRowMajor
from meshspec.sim.spec import DataType, Layout, make_spec


def _run(steps: str, rules: str = ""):
    """The steps on a T3K under the profile ``p``: ``current`` with ``rules`` changed."""
    text = f"meshspec: 1\nname: r\nmesh: t3k\nprofiles:\n  p: {{base: current{rules}}}\nsteps:\n{steps}"
    return run(parse(text), "p")


def _array(dtype="bfloat16", layout="tile", extra=""):
    return f"  - from_torch: {{as: h, shape: [1, 7, 32, 32], dtype: {dtype}, layout: {layout}, mesh_mapper: {{shard: 1}}{extra}}}\n"


# --- block_float_row_major --------------------------------------------------------------------------

def test_the_spec_check_refuses_by_default_and_makes_the_spec_when_told():
    with pytest.raises(TTFatal, match=r"^Only TILE layout is supported for BFLOAT8_B dtype! \(bfloat4_b"):
        make_spec((1, 1, 7, 13), DataType.BFLOAT4_B, Layout.ROW_MAJOR)
    spec = make_spec((1, 1, 7, 13), DataType.BFLOAT8_B, Layout.ROW_MAJOR, row_major_block_float=True)
    # stored as full floats (rm_element_size_bytes): 13 x 4 bytes a row, one row a page, 32-byte aligned in DRAM
    assert (spec.padded_shape, spec.page_size, spec.aligned_page_size, spec.num_pages) == ((1, 1, 7, 13), 52, 64, 7)
    # a spec made from it for another shape or memory keeps what it was made with
    assert spec.with_shape((1, 1, 7, 26)).page_size == 104
    # but a layout changed to ROW_MAJOR is a new check: refused by default
    tiled = spec.with_shape((1, 1, 7, 26), layout=Layout.TILE)
    with pytest.raises(TTFatal):
        tiled.with_shape((1, 1, 7, 26), layout=Layout.ROW_MAJOR)


def test_the_versions_profiles_allocate_and_current_refuses():
    assert PROFILES["current"].block_float_row_major is BlockFloatRowMajor.REFUSED
    for name in ("ttnn-0.67.0", "ttnn-0.66.0"):
        assert PROFILES[name].block_float_row_major is BlockFloatRowMajor.ALLOCATED
    assert set(RULES["block_float_row_major"].meanings) == {c.value for c in BlockFloatRowMajor}


ROUND_TRIP = """  - allocate_tensor_on_device: {as: d, shape: [1, 1, 7, 13], dtype: bfloat8_b, layout: row_major}
  - allocate_tensor_on_host: {as: h, shape: [1, 1, 7, 13], dtype: bfloat8_b, layout: row_major}
  - copy_host_to_device_tensor: {src: h, dst: d}
  - cpu: {tensor: d, as: back}
  - copy_device_to_host_tensor: {device_tensor: d, host_tensor: h}
  - empty: {as: e, shape: [1, 1, 7, 13], dtype: bfloat4_b, layout: row_major, device: mesh_device}
"""


def test_allocated_makes_allocates_copies_and_reads_back_such_a_tensor():
    # what 0.66.0 and 0.67.0 do in the mock with a ROW_MAJOR block float (docs/semantics.md section 23)
    report = _run(ROUND_TRIP, ", block_float_row_major: allocated")
    assert report.error is None
    made = {t.name: t for t in report.tensors}
    assert made["d"].spec.padded_shape == (1, 1, 7, 13) and made["d"].spec.dtype is DataType.BFLOAT8_B
    assert made["back"].storage == "host" and made["e"].spec.dtype is DataType.BFLOAT4_B


@pytest.mark.parametrize("step", [0, 1, 5])  # the calls that make a spec (the others follow the allocations)
def test_refused_stops_each_call_that_makes_such_a_spec(step):
    report = _run(ROUND_TRIP.splitlines(keepends=True)[step], ", block_float_row_major: refused")
    assert report.error.message.startswith("Only TILE layout is supported for BFLOAT8_B dtype!")


def test_from_torch_of_a_row_major_block_float_is_refused_in_either_choice():
    # the constructor's own check (Layout must be Layout::TILE ..., observed on every version)
    for choice in ("allocated", "refused"):
        assert _run(_array("bfloat8_b", "row_major"), f", block_float_row_major: {choice}").error is not None


# --- mapper_offset: absent, in the binding's words ------------------------------------------------

BINDING = "__init__(): incompatible function arguments. The following argument types are supported: "


def test_an_offset_in_a_mapper_config_is_the_bindings_type_error():
    steps = ("  - from_torch: {as: h, shape: [1, 4, 32, 32], mesh_mapper: {create_mesh_mapper: "
             "{placements: [replicate, {shard: 1}], mesh_shape_override: [1, 4], mesh_offset_override: [1, 0]}}}\n")
    assert _run(steps).error is None
    message = _run(steps, ", mapper_offset: absent").error.message
    assert message.startswith(BINDING + "MeshMapperConfig(placements, mesh_shape_override=None), ")
    assert "mesh_offset_override [1, 0]" in message


def test_an_offset_in_a_composer_config_is_the_bindings_type_error():
    steps = ("  - from_torch: {as: h, shape: [1, 1, 64, 128], mesh_mapper: {create_mesh_mapper: {placements: [{shard: 2}, {shard: 3}]}}}\n"
             "  - aggregate_tensor: {tensor: h, as: a, mesh_composer: {create_mesh_composer: "
             "{dims: [2, 3], mesh_shape_override: [1, 2], mesh_offset_override: [1, 2]}}}\n")
    assert _run(steps).error is None
    message = _run(steps, ", mapper_offset: absent").error.message
    assert message.startswith(BINDING + "MeshComposerConfig(dims, mesh_shape_override=None), ")
