"""Issue 34, attack round 1: ``mesh_device`` is the scenario's mesh, never a tensor's, list's or
trace's name.

``- allocate_tensor_on_device: {as: mesh_device, ...}`` then any step on the default mesh crashed
``run`` (KeyError in the runtime, exit 3): binding the tensor ended what the name meant before, the
mesh itself. It is refused at load now, at the name. A tensor named like a submesh is not: the
runtime rebinds the name as Python rebinds a variable, and the loader refuses a later step that
uses it as a mesh (the last test). Columns counted by hand: in
``  - allocate_tensor_on_device: {as: mesh_device, ...}`` the name starts at column 37.
"""

from __future__ import annotations

import pytest

from cli_runner import invoke
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse

HEAD = "meshspec: 1\nmesh: [2, 4]\nsteps:\n"
TENSOR = HEAD + "  - allocate_tensor_on_device: {as: mesh_device, shape: [1, 1, 32, 32]}\n" \
                "  - allocate_tensor_on_device: {as: b, shape: [1, 1, 32, 32]}\n"


def _error(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse(text, "r.yaml")
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_tensor_named_mesh_device_is_refused_at_the_name():
    message = _error(TENSOR)
    assert message.startswith("r.yaml:4:37: steps[0].allocate_tensor_on_device.as: 'mesh_device' is the scenario's mesh "), message
    assert message.endswith("not a name for a device tensor; give the device tensor another name"), message


def test_run_refuses_it_with_exit_2(tmp_path):
    (tmp_path / "s.yaml").write_text(TENSOR)
    res = invoke(["run", tmp_path / "s.yaml"])
    assert res.exit_code == 2 and res.exception is None, (res.exit_code, res.stderr)
    assert "s.yaml:4:37: " in res.stderr and "'mesh_device' is the scenario's mesh" in res.stderr


@pytest.mark.parametrize("step, where, thing", [
    # "  - get_device_tensors: {tensor: a, as: " is 40 characters
    ("get_device_tensors: {tensor: a, as: mesh_device}", "5:41: steps[1].get_device_tensors.as", "a list of tensors; give the list"),
    # "  - create_submeshes: {shape: [1, 4], as: " is 42
    ("create_submeshes: {shape: [1, 4], as: mesh_device}", "5:43: steps[1].create_submeshes.as", "a list of mesh devices; give the list"),
    # "  - begin_trace_capture: {trace: " is 33
    ("begin_trace_capture: {trace: mesh_device}", "5:34: steps[1].begin_trace_capture.trace", "a trace; give the trace"),
])
def test_a_list_or_trace_named_mesh_device_is_refused(step, where, thing):
    text = HEAD + "  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n  - " + step + "\n"
    message = _error(text)
    assert message.startswith(f"r.yaml:{where}: 'mesh_device' is the scenario's mesh"), message
    assert f"not a name for {thing} another name" in message, message


def test_a_tensor_named_like_a_submesh_rebinds_the_name():
    base = HEAD + "  - create_submesh: {shape: [1, 4], offset: [1, 0], as: row1}\n" \
                  "  - allocate_tensor_on_device: {as: row1, shape: [1, 1, 32, 32]}\n"
    assert len(parse(base + "  - neg: {tensor: row1, as: c}\n", "r.yaml").steps) == 3
    message = _error(base + "  - allocate_tensor_on_device: {as: b, shape: [1, 1, 32, 32], mesh_device: row1}\n")
    assert "'row1' is a device tensor since step 1 (allocate_tensor_on_device)" in message, message
