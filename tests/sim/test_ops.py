"""The op registry is the only list of ops, and every op in it is complete: arguments model,
uses and binds, handler, doc, ttnn call. Everything else that knows the ops derives from it."""

import pytest
from pathlib import Path
from meshspec.typed import Typed

from meshspec.explain import explain, step_table
from meshspec.scenario.model import STEP_TYPES
from meshspec.scenario.schema import json_schema
from meshspec.sim.ops import MODULES, OPS, TensorKind


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


def test_the_registry_table_names_every_op_each_module_defines_and_no_other():
    # meshspec/sim/ops/__init__.py lists the ops by name so that a run imports only the modules its
    # ops need; the table must say what the modules define, module by module, in docs/ttnn-spelling.md's order
    import importlib
    import pkgutil

    import meshspec.sim.ops as ops
    from meshspec.sim.ops import MODULES, Op

    defined: dict[str, list[str]] = {}
    for info in pkgutil.iter_modules(ops.__path__):
        module = importlib.import_module(f"meshspec.sim.ops.{info.name}")
        for value in vars(module).values():
            for op in value if isinstance(value, tuple) else (value,):
                if isinstance(op, Op) and op.run.__module__ == module.__name__ and op.name not in defined.get(info.name, []):
                    defined.setdefault(info.name, []).append(op.name)
    assert {m: sorted(n) for m, n in defined.items()} == {m: sorted(n) for m, n in MODULES.items()}
    assert [OPS[name].run.__module__ for name in OPS] == [f"meshspec.sim.ops.{m}" for m, names in MODULES.items() for _ in names]


def test_a_run_imports_the_modules_of_its_own_ops_only():
    import subprocess
    import sys

    code = ("import sys; from pathlib import Path; from meshspec.runner import run_paths; "
            "run_paths([Path('scenarios/seed-uneven-copy.yaml')], None); "
            "print(' '.join(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('meshspec.sim.ops.'))))")
    from pathlib import Path

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    # the seed's four ops and what they share (base, exporting, fields, generating, mappers, output,
    # transfer): whether a step joins a trace being captured is its op's own (Op.captured), so no
    # trace module is read
    assert out.stdout.split() == [
        "allocate", "base", "copy", "exporting", "fields", "from_torch", "generating", "mappers", "output", "to_torch", "transfer",
    ]


def test_an_op_that_takes_a_printed_spec_declares_every_key_a_report_prints():
    # a report's device spec (TensorSpec.to_json) pastes into the op: each key it prints is a field
    from meshspec.sim.ops import OPS
    from meshspec.sim.ops.fields import PrintedSpec
    from meshspec.sim.spec import make_spec

    takers = [op for op in OPS.values() if issubclass(op.args, PrintedSpec)]
    assert [op.name for op in takers] == ["allocate_tensor_on_device"]
    printed = set(make_spec((1, 1, 32, 32)).to_json())
    for op in takers:
        assert printed <= set(op.args.keys()), printed - set(op.args.keys())


#: The modules op modules share; every other module of meshspec/sim/ops defines ops (MODULES).
SHARED = {"base", "exporting", "fields", "generating", "mappers", "output", "transfer"}


def test_op_modules_are_peers_that_never_import_each_other():
    # issue 35: a device op reads as "compute per device, hand the result to the one output
    # primitive"; op modules share base/fields/mappers/output/transfer and import no other op module
    # (they imported 45 private helpers of each other's, a 7-floor tower)
    import ast

    folder = Path(__file__).resolve().parents[2] / "meshspec" / "sim" / "ops"
    assert {p.stem for p in folder.glob("*.py")} - {"__init__"} == SHARED | set(MODULES)
    for module in MODULES:
        tree = ast.parse((folder / f"{module}.py").read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported |= {node.module} if node.module else {a.name for a in node.names}
        others = imported - SHARED - {None}
        assert not others or others == {"OPS"} and module == "trace", (module, others)  # trace replays ops by the registry
