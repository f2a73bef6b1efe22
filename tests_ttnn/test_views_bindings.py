"""What ttnn 0.81.1's bindings refuse before a device op runs (docs/semantics.md section 12): the
mock runs no device kernel, but a binding's refusal comes first, so the mock shows it."""

from conftest import mock_json

PROGRAM = """
import json, ttnn
mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, 1))
a = ttnn.allocate_tensor_on_device(ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT), mesh)
try:
    ttnn.pad(a, [(0, 0), (0, 0), (0, 0), (0, 32)], 10**400)
    out = "ran"
except TypeError as e:
    out = str(e).strip().splitlines()[0]
ttnn.close_mesh_device(mesh)
print(json.dumps(out))
"""


def test_pad_refuses_a_value_no_float_holds_as_meshspec_does(tmp_path):
    from meshspec.errors import ScenarioError
    from meshspec.scenario.loader import parse

    real = mock_json(PROGRAM, "n150", tmp_path)
    assert real == "ttnn.pad(): incompatible function arguments."
    try:
        parse("meshspec: 1\nmesh: n150\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"
              "  - pad: {as: p, tensor: a, padding: [[0, 32]], value: 1" + "0" * 400 + "}\n", "pad.yaml")
    except ScenarioError as err:
        assert "'ttnn.pad(): incompatible function arguments'" in str(err)
    else:
        raise AssertionError("meshspec took a pad value the real binding refuses")
