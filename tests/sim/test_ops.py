"""The op registry is the only list of ops, and every op in it is complete: arguments model,
uses and binds, handler, doc, ttnn call. Everything else that knows the ops derives from it."""

import pytest
from meshspec.typed import Typed

from meshspec.explain import explain, step_table
from meshspec.scenario.model import STEP_TYPES
from meshspec.scenario.schema import json_schema
from meshspec.sim.ops import OPS, TensorKind


@pytest.mark.parametrize("name", list(OPS))
def test_every_op_is_complete(name):
    op = OPS[name]
    assert op.name == name
    assert isinstance(op.args, type) and issubclass(op.args, Typed) and op.args.__doc__
    assert callable(op.run) and op.run.__module__.startswith("meshspec.sim.ops.")
    assert op.doc and "\n" not in op.doc and op.doc.endswith("."), op.doc
    assert op.ttnn
    fields = set(op.args.fields())
    for use in op.uses + ((op.binds,) if op.binds else ()):
        assert use.field in fields, (name, use.field)
        assert isinstance(use.kind, TensorKind)


def test_everything_that_knows_the_ops_derives_from_the_registry():
    assert list(STEP_TYPES) == list(OPS)
    schema_steps = {key for d in json_schema()["$defs"].values() for key in d.get("properties", {}) if key in OPS}
    assert schema_steps == set(OPS)
    for name in OPS:
        assert explain(name).startswith(f"{name}\n")
    assert all(f"| `{name}` |" in step_table() for name in OPS)


def test_touched_names_follow_field_order():
    from meshspec.sim.ops.copy import CopyHostToDevice

    from meshspec.typed import validate

    args = validate(CopyHostToDevice, {"src": "h", "dst": "d"})
    assert OPS["copy_host_to_device_tensor"].touched(args) == ("h", "d")


def test_a_ttnn_mesh_argument_hint_names_the_steps_own_spelling():
    # to_device takes device:, most steps mesh_device:; a step with neither runs where its tensors are
    from meshspec.sim.ops import OPS

    assert OPS["to_device"].hint("mesh_device") == "to_device names its mesh device `device:`"
    assert OPS["allocate_tensor_on_device"].hint("device") == "allocate_tensor_on_device names its mesh device `mesh_device:`"
    assert "runs where its tensors are" in OPS["neg"].hint("mesh_device")
