"""An exported script on every version the tier verifies (issue 37; docs/semantics.md section 10):
it sets up the fabric for its collectives as tt-metal's tests do, lists the ttnn names it calls and
stops first, in one line, on a version without one, and builds bfloat16 host tensors from the flat
list where the numpy constructor refuses them. Run here against stand-ins of ttnn; the tier
(tests_ttnn/test_export.py) runs the scripts on 0.81.1, 0.67.0 and 0.66.0."""

import ast
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from meshspec.bridge.export import ABSENT_IN, export
from meshspec.scenario.loader import load

ROOT = Path(__file__).resolve().parents[2]


def _data(text: str, name: str):
    line = next(line for line in text.splitlines() if line.startswith(f"{name} = "))
    return ast.literal_eval(line.split(" = ", 1)[1])


@pytest.mark.parametrize("scenario, fabric", [
    ("ring-all-gather-row-major", "FABRIC_1D_RING"),  # a ring: tt-metal's CCL tests pair Topology.Ring with FABRIC_1D_RING
    ("all-gather-padding-2024", "FABRIC_1D"),
    ("seed-uneven-copy", None),
])
def test_a_script_with_collectives_sets_up_the_fabric_and_says_so_at_its_top(scenario, fabric):
    text = export(load(ROOT / "scenarios" / f"{scenario}.yaml"))
    assert _data(text, "FABRIC") == fabric
    head = text[: text.index("import os")]
    assert ("# Needs the fabric between chips" in head) == (fabric is not None)
    if fabric:
        assert f"ttnn.set_fabric_config(ttnn.FabricConfig.{fabric})" in head


def test_a_script_lists_the_ttnn_names_its_steps_call_and_says_which_a_version_lacks():
    text = export(load(ROOT / "scenarios" / "dump-replicate-label-keeps-one-shard.yaml"))
    needs = _data(text, "NEEDS")
    assert "ttnn.Tensor.update_tensor_topology" in needs and "ttnn.dump_tensor" in needs
    assert "ttnn.Topology" not in needs and not any(n.startswith("ttnn.TensorTopology.") for n in needs)
    assert "# Calls ttnn.Tensor.update_tensor_topology, which ttnn 0.66.0 and 0.67.0 have not" in text[: text.index("import os")]
    seed = export(load(ROOT / "scenarios" / "seed-uneven-copy.yaml"))
    assert not set(_data(seed, "NEEDS")) & set(ABSENT_IN) and "# Calls" not in seed[: seed.index("import os")]


class _Tensor:
    """A stand-in of ttnn.Tensor: the numpy constructor refuses bfloat16 (0.66.0, 0.67.0); the
    flat-list one records what it was given."""

    made: list = []

    def __init__(self, data, *args, **kwargs):
        if isinstance(data, np.ndarray) and args[0] == "bfloat16":
            raise RuntimeError("TT_FATAL @ tensor.cpp:184: buffer.size() == volume\ninfo:\nCurrent buffer size is 0 different from shape volume 2")
        _Tensor.made.append(("numpy" if isinstance(data, np.ndarray) else "list", data, args, kwargs))


def _script(monkeypatch, tmp_path, scenario, **ttnn_attrs):
    fake = types.ModuleType("ttnn")
    fake.Tensor, fake.bfloat16, fake.float32, fake.ROW_MAJOR_LAYOUT, fake.TILE_LAYOUT = _Tensor, "bfloat16", "float32", "RM", "TILE"
    fake.ReplicateTensorToMeshWrapper = type("ReplicateTensorToMeshWrapper", (), {})
    for k, v in ttnn_attrs.items():
        setattr(fake, k, v)
    monkeypatch.setitem(sys.modules, "ttnn", fake)
    script = tmp_path / "repro.py"
    script.write_text(export(load(ROOT / "scenarios" / f"{scenario}.yaml")))
    namespace = {"__name__": "repro", "__file__": str(script)}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    namespace["torch"] = None  # host tensors through numpy, as where ttnn runs without torch (the mock)
    return namespace


def test_a_version_without_a_name_the_steps_call_stops_first_in_one_line(monkeypatch, tmp_path):
    calls = []
    ns = _script(monkeypatch, tmp_path, "dump-replicate-label-keeps-one-shard", open_mesh_device=lambda *a: calls.append(a))
    with pytest.raises(SystemExit) as stop:
        ns["main"](str(tmp_path / "real.json"))
    message = str(stop.value)
    assert "this script calls " in message and "ttnn.Tensor.update_tensor_topology" in message and "\n" not in message
    assert message.endswith("has not: it cannot run on this version")
    assert calls == [] and not (tmp_path / "real.json").exists()  # nothing opened, nothing written


def test_bfloat16_host_tensors_come_from_the_flat_list_where_the_numpy_constructor_refuses_them(monkeypatch, tmp_path):
    ns = _script(monkeypatch, tmp_path, "seed-uneven-copy")
    _Tensor.made.clear()
    ns["host_tensor"](np.arange(6, dtype=np.float32).reshape(1, 2, 3), "bfloat16", "TILE")
    ns["host_tensor"](np.arange(6, dtype=np.float32).reshape(1, 2, 3), "float32", "TILE")
    (kind, data, args, _), (kind32, _, args32, _) = _Tensor.made
    assert (kind, data, args) == ("list", [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], ([1, 2, 3], "bfloat16", "TILE"))
    assert kind32 == "numpy" and args32 == ("float32", None, "TILE")  # the numpy constructor wherever it reads the dtype


def test_the_fabric_is_set_up_before_the_mesh_opens_and_a_mesh_that_will_not_open_ends_it_in_one_line(monkeypatch, tmp_path):
    calls = []

    def open_mesh_device(shape):
        calls.append("open")
        raise RuntimeError("TT_THROW @ program.cpp:419: tt::exception\ninfo:\nFailed to generate binaries for fabric_erisc_router\nbacktrace:\n --- x")

    ns = _script(monkeypatch, tmp_path, "ring-all-gather-row-major", open_mesh_device=open_mesh_device, MeshShape=lambda *a: a,
                 FabricConfig=types.SimpleNamespace(FABRIC_1D_RING="ring"), set_fabric_config=lambda c: calls.append(c))
    ns["NEEDS"][:] = []  # the stand-in has none of the steps' calls: only the mesh is asked for
    with pytest.raises(SystemExit) as stop:
        ns["main"](str(tmp_path / "real.json"))
    assert calls == ["ring", "open"]
    assert str(stop.value).endswith("the mesh did not open with the fabric its collectives need "
                                    "(ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D_RING)): Failed to generate binaries for "
                                    f"fabric_erisc_router; no report written to {tmp_path / 'real.json'}")
