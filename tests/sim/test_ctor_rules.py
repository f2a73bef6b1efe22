"""The constructor and spec rules of ttnn 0.66.0 / 0.67.0 (docs/semantics.md section 23):
numpy_bfloat16 (the numpy ttnn.Tensor constructor), block_float_row_major (the TensorSpec check),
and the binding's words when mapper_offset is absent."""

import pytest

from meshspec.errors import TTFatal
from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import PROFILES, RULES, BlockFloatRowMajor, NumpyBfloat16
from meshspec.sim.spec import DataType, Layout, make_spec


def _run(steps: str, rules: str = ""):
    """The steps on a T3K under the profile ``p``: ``current`` with ``rules`` changed."""
    text = f"meshspec: 1\nname: r\nmesh: t3k\nprofiles:\n  p: {{base: current{rules}}}\nsteps:\n{steps}"
    return run(parse(text), "p")


def _array(dtype="bfloat16", layout="tile", numpy="true", extra=""):
    return (f"  - from_torch: {{as: h, shape: [1, 7, 32, 32], dtype: {dtype}, layout: {layout}, numpy: {numpy}, "
            f"mesh_mapper: {{shard: 1}}{extra}}}\n")


# --- numpy_bfloat16 ------------------------------------------------------------------------------

def test_the_versions_profiles_take_their_own_choice_and_current_converts():
    assert PROFILES["current"].numpy_bfloat16 is NumpyBfloat16.CONVERTED
    assert PROFILES["ttnn-0.67.0"].numpy_bfloat16 is NumpyBfloat16.EMPTY_BUFFER
    assert PROFILES["ttnn-0.66.0"].numpy_bfloat16 is NumpyBfloat16.INVALID_NDARRAY
    assert set(RULES["numpy_bfloat16"].meanings) == {c.value for c in NumpyBfloat16}


@pytest.mark.parametrize("choice, words", [
    ("empty_buffer", "Current buffer size is 0 different from shape volume 7168 ("),
    ("invalid_ndarray", "Number of elements from python tensor 0 must match volume of shape 7168! is_valid: false, itemsize: 0, "
                        "deviceid: 0, nbytes: 0, ndim: 0 dtype.code: 0, dtype.bits: 0 ("),
])
@pytest.mark.parametrize("layout", ["tile", "row_major"])
def test_a_refusing_era_refuses_a_bfloat16_array_in_its_own_words_in_either_layout(choice, words, layout):
    report = _run(_array(layout=layout), f", numpy_bfloat16: {choice}")
    assert report.error is not None and report.error.message.startswith(words)
    on_device = _run(_array(layout=layout, extra=", device: mesh_device"), f", numpy_bfloat16: {choice}")
    assert on_device.error is not None and on_device.error.message.startswith(words)


def test_the_volume_named_is_the_whole_tensors():
    steps = "  - from_torch: {as: h, shape: [1, 1, 32, 32], dtype: bfloat16, numpy: true, mesh_mapper: replicate}\n"
    assert _run(steps, ", numpy_bfloat16: empty_buffer").error.message.startswith("Current buffer size is 0 different from shape volume 1024 (")


@pytest.mark.parametrize("choice", [c.value for c in NumpyBfloat16])
@pytest.mark.parametrize("dtype, layout", [("float32", "row_major"), ("float32", "tile"), ("uint32", "tile"),
                                           ("int32", "row_major"), ("bfloat8_b", "tile"), ("bfloat4_b", "tile")])
def test_every_other_dtype_reads_in_every_era(choice, dtype, layout):
    assert _run(_array(dtype, layout), f", numpy_bfloat16: {choice}").error is None


@pytest.mark.parametrize("choice", [c.value for c in NumpyBfloat16])
def test_from_torch_of_a_torch_tensor_is_not_the_numpy_constructor(choice):
    assert _run(_array(numpy="false"), f", numpy_bfloat16: {choice}").error is None


def test_converted_makes_the_sharded_bfloat16_tensor():
    report = _run(_array(), ", numpy_bfloat16: converted")
    assert report.error is None
    h = next(t for t in report.tensors if t.name == "h")
    assert len(h.topology.coords) == 7


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


def test_an_exported_numpy_step_calls_the_numpy_constructor_itself():
    from meshspec.bridge.export import export

    text = "meshspec: 1\nname: r\nmesh: t3k\nsteps:\n" + _array()
    script = export(parse(text))
    # no flat-list stand-in for bfloat16 there: the script meets what the version's constructor does
    assert "tile=[32, 32], numpy=True)" in script
    assert "numpy=True)" not in export(parse(text.replace("numpy: true", "numpy: false")))
