"""The package's layout holds: imports flow one way, no cycles (lazy imports included), renderers
load none of numpy/yaml/pydantic, every op in the registry is complete, every format has a
renderer, and the code cites only documents inside the repository."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "meshspec"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str) -> set[str]:
    """meshspec modules ``name`` imports anywhere in its body (function-level imports too)."""
    path = MODULES[name]
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # "from . import x" may name a submodule
            targets = [module] + [f"{module}.{a.name}" for a in node.names]
        else:
            continue
        out |= {t for t in targets if t in MODULES}
    out.discard(name)
    return out


GRAPH = {name: _imports(name) for name in MODULES}


def _face(importer: str, imported: str) -> bool:
    """A package importing its own submodule is its face, not a cycle."""
    return MODULES[importer].name == "__init__.py" and imported.startswith(importer + ".")


def test_no_import_cycles():
    edges = {a: {b for b in bs if not _face(a, b)} for a, bs in GRAPH.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(edges[n]):
            if state.get(m) == 1:
                cycle = stack[stack.index(m) :] + [m]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)


PURE = {"meshspec.errors", "meshspec.text", "meshspec.names", "meshspec.frozen", "meshspec.kinds", "meshspec.sim", "meshspec.sim.mesh", "meshspec.sim.placement", "meshspec.sim.spec"}
#: layer -> the meshspec modules (or packages) it may import.
LAYERS = {
    "meshspec.sim": {"meshspec.sim", "meshspec.errors", "meshspec.text", "meshspec.names", "meshspec.typed", "meshspec.frozen", "meshspec.lazy"},
    "meshspec.typed": {"meshspec.errors", "meshspec.text"},  # text: a leaf (printable, flow)
    "meshspec.kinds": {"meshspec.frozen"},
    "meshspec.frozen": set(),
    "meshspec.lazy": set(),
    "meshspec.names": set(),  # a leaf: the one rule for names, used by every layer that reads or writes them
    "meshspec.report": PURE | {"meshspec.typed"},  # typed: the report format is declared in its records
    "meshspec.render": PURE | {"meshspec.render", "meshspec.report"},
    "meshspec.scenario": PURE | {"meshspec.scenario", "meshspec.sim", "meshspec.typed", "meshspec.lazy"},
    "meshspec.judge": PURE | {"meshspec.judge", "meshspec.report", "meshspec.sim", "meshspec.scenario", "meshspec.typed"},
    "meshspec.bridge": PURE | {"meshspec.bridge", "meshspec.scenario", "meshspec.sim", "meshspec.typed", "meshspec.report",
                               "meshspec.files", "meshspec.written"},  # a recording writes its files as every output is written
    "meshspec.files": {"meshspec.errors", "meshspec.text", "meshspec.names", "meshspec.written"},
    "meshspec.written": set(),
}


def _within(module: str, allowed: set[str]) -> bool:
    return any(module == a or module.startswith(a + ".") for a in allowed)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_imports_flow_one_way(layer):
    allowed = LAYERS[layer]
    bad = {
        (name, imported)
        for name, imported_set in GRAPH.items()
        if _within(name, {layer})
        for imported in imported_set
        if not _within(imported, allowed | {layer})
    }
    assert not bad, f"{layer} may import only {sorted(allowed)}: {sorted(bad)}"


def test_simulator_knows_no_yaml_reports_or_rendering():
    sim = [n for n in MODULES if n.startswith("meshspec.sim")]
    for name in sim:
        text = MODULES[name].read_text()
        assert not re.search(r"^\s*(import yaml|from yaml|import rich|from rich)", text, re.M), name
        assert not _within_any(GRAPH[name], ("meshspec.report", "meshspec.render", "meshspec.scenario", "meshspec.judge")), name


def _within_any(modules: set[str], packages: tuple[str, ...]) -> bool:
    return any(_within(m, set(packages)) for m in modules)


def _loaded_after_import(module: str) -> list[str]:
    code = f"import sys, {module}; print(' '.join(sorted(m for m in ('numpy', 'yaml', 'pydantic') if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return out.stdout.split()


RENDERERS = sorted(n for n in MODULES if n.startswith("meshspec.render")) + ["meshspec.report"]


@pytest.mark.parametrize("module", RENDERERS)
def test_renderers_load_no_numpy_yaml_or_pydantic(module):
    assert _loaded_after_import(module) == []


def test_the_simulated_mesh_runs_without_yaml_or_pydantic():
    # The runtime and its buffers are usable on their own (numpy only).
    assert _loaded_after_import("meshspec.sim.runtime") == ["numpy"]


def test_meshspec_needs_no_pydantic():
    # meshspec/typed.py validates scenarios and reports (pydantic cost a tenth of a second at start-up)
    for module in ("meshspec.runner", "meshspec.cli", "meshspec.judge.reports", "meshspec.scenario.schema"):
        assert "pydantic" not in _loaded_after_import(module), module


def _loaded_by_command(args: list[str], watched: tuple[str, ...]) -> list[str]:
    """The ``watched`` modules loaded by the time ``meshspec ARGS`` exits (a fresh process)."""
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: sys.stderr.write('LOADED ' + ' '.join(m for m in {watched!r} if m in sys.modules)))\n"
        f"sys.argv = ['meshspec', *{args!r}]\n"
        "from meshspec.cli import main\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    return out.stderr.rpartition("LOADED ")[2].split()


def test_start_up_loads_only_what_the_command_shows(tmp_path):
    """Start-up is a bench row (issue 11): --help loads no numpy, yaml or rich; the table view of a
    run draws no rich table unless it shows profiles side by side, the data view or the trace."""
    heavy = ("numpy", "yaml", "rich", "rich.table", "pydantic")  # pydantic: typer 0.29 reads every option through it
    # nor the mapping math, which the profile registry's names in the help text do not need (typer,
    # the floor of every command, loads dataclasses itself)
    assert _loaded_by_command(["--help"], (*heavy, "meshspec.sim.mapping")) == []
    seed = str(ROOT / "scenarios" / "seed-uneven-copy.yaml")
    assert _loaded_by_command(["run", seed, "-o", str(tmp_path / "seed.txt")], heavy) == ["numpy", "yaml", "rich"]
    assert (tmp_path / "seed.txt").read_text(encoding="utf-8").startswith("meshspec seed-uneven-copy")
    assert "rich.table" in _loaded_by_command(["run", seed, "--trace", "-o", str(tmp_path / "trace.txt")], heavy)
    assert "rich.table" in _loaded_by_command(["run", seed, "-p", "all", "-o", str(tmp_path / "all.txt")], heavy)


def test_a_seed_run_declares_no_frozen_dataclass_but_the_spec():
    """Start-up (issue 38 item 1): ``@dataclass(frozen=True)`` compiles six methods per class at
    import, about 4.5 M instructions each, so the values a JSON run of the seed loads are Frozen;
    TensorSpec stays a dataclass (it is compared and hashed far more often than it is made)."""
    seed = str(ROOT / "scenarios" / "seed-uneven-copy.yaml")
    code = (
        "import atexit, sys\n"
        "def frozen():\n"
        "    found = []\n"
        "    for name, module in list(sys.modules.items()):\n"
        "        if name.startswith('meshspec'):\n"
        "            for value in vars(module).values():\n"
        "                params = getattr(value, '__dataclass_params__', None)\n"
        "                if isinstance(value, type) and value.__module__ == name and params is not None and params.frozen:\n"
        "                    found.append(name + '.' + value.__name__)\n"
        "    sys.stderr.write('FROZEN ' + ' '.join(sorted(found)))\n"
        "atexit.register(frozen)\n"
        f"sys.argv = ['meshspec', 'run', {seed!r}, '--format', 'json']\n"
        "from meshspec.cli import main\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert '"meshspec.report/1"' in out.stdout
    assert out.stderr.rpartition("FROZEN ")[2].split() == ["meshspec.sim.spec.TensorSpec"]


def test_every_format_has_a_renderer():
    from meshspec.render import DIFF_RENDERERS, RENDERERS as TABLE, Format

    assert set(TABLE) == set(Format)
    assert set(DIFF_RENDERERS) == set(Format)


def test_an_unknown_format_is_an_error_not_a_fallthrough():
    from meshspec.errors import UsageError
    from meshspec.render import render

    with pytest.raises(UsageError, match="unknown format 'xml'; one of: table, json"):
        render([], "xml")


def test_code_cites_only_documents_in_the_repository():
    cited = set()
    for path in list(PACKAGE.rglob("*.py")) + list((ROOT / "tests").rglob("*.py")):
        cited |= set(re.findall(r"\b([\w/.-]+\.md)\b", path.read_text()))
    missing = sorted(c for c in cited if not (ROOT / c).exists())
    assert not missing, f"cited but not in the repository: {missing}"


def test_observe_imports_nothing_of_meshspec():
    # meshspec export inlines meshspec/bridge/observe.py and meshspec/written.py into a script that
    # runs where only ttnn is
    assert GRAPH["meshspec.bridge.observe"] == set()
    assert GRAPH["meshspec.written"] == set()


def test_scenario_loading_is_yaml_nodes_then_checks_then_load():
    """scenario/loader.py reads a file and expands its blocks; the YAML with positions it reads
    (scenario/nodes.py) knows no scenario, and the static checks (scenario/checks.py) load nothing."""
    assert GRAPH["meshspec.scenario.nodes"] <= {"meshspec.errors", "meshspec.text"}
    assert "meshspec.scenario.loader" not in GRAPH["meshspec.scenario.checks"]
    assert {"meshspec.scenario.nodes", "meshspec.scenario.checks"} <= GRAPH["meshspec.scenario.loader"]


def _op_names_in(node: ast.AST) -> list[str]:
    """The op names a literal set, tuple, list or dict (its keys) holds, or one built from such a literal."""
    from meshspec.sim.ops import OPS

    if isinstance(node, ast.Dict):  # its keys, and those of each **dict.fromkeys((...), value) in it
        spread = [v.args[0] for k, v in zip(node.keys, node.values) if k is None and isinstance(v, ast.Call)
                  and getattr(v.func, "attr", "") == "fromkeys" and v.args]
        return [*_op_names_in(ast.Tuple(elts=[k for k in node.keys if k is not None])), *(n for t in spread for n in _op_names_in(t))]
    elif isinstance(node, ast.BinOp):  # CONTINUES | {...}
        return [*_op_names_in(node.left), *_op_names_in(node.right)]
    elif isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        items = node.elts
    elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("frozenset", "set", "tuple") and node.args:
        return _op_names_in(node.args[0])
    else:
        return []
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value in OPS]


#: Module-level tables keyed by op name that are not yet facets of the op registry, and why they
#: stay. Anything else an op must provide is a field of Op (meshspec/sim/ops/base.py).
OP_TABLES_LEFT = {
    ("meshspec.bridge.calls", "TRANSLATORS"): "ttnn's functions, as a program calls them, -> steps: ttnn's vocabulary, "
                                              "many-to-one (from_device and Tensor.cpu are both cpu), as the importer's HANDLERS",
    ("meshspec.bridge.minimal", "MINIMAL"): "the minimal export's plain calls where they differ from the full export's",
    ("meshspec.bridge.export", "_MESH_METHODS"): "MeshDevice methods, not op names (reshape is one of each)",
    ("meshspec.hunt.programs", "VOCABULARY"): "what meshspec hunt writes by default, in the order it prefers",
    ("meshspec.hunt.programs", "WIDE_VOCABULARY"): "what hunt --ops may draw from: a search policy, as VOCABULARY",
    ("meshspec.hunt.real", "REAL_VOCABULARY"): "the ops hunt --real writes, those every mock runs as hardware would: a search policy",
    ("meshspec.hunt.programs", "HOST_OPS"): "which ops hunt draws on a host tensor: a search policy over ops, not a property of one",
    ("meshspec.hunt.programs", "_HOST_ONLY"): "which ops hunt draws only on host tensors: a search policy, as HOST_OPS",
    ("meshspec.hunt.programs", "_CORE"): "the ops every hunt vocabulary keeps so a program can start: a search policy, as HOST_OPS",
    ("meshspec.hunt.programs", "WEIGHTS"): "how often hunt draws each op: a search policy, as HOST_OPS",
    ("meshspec.sim.runtime", "FREED_USE"): "ttnn 0.81.1's observed use of a freed tensor, per op (the runtime may not import ops)",
    ("meshspec.sim.runtime", "CONTINUES"): "ttnn 0.81.1's observed use of a freed tensor, per op (the runtime may not import ops)",
    ("meshspec.sim.runtime", "FREED_USE_CHECKED"): "ttnn 0.66.0 / 0.67.0's observed use of a freed tensor, per op (as FREED_USE)",
    ("meshspec.sim.runtime", "CONTINUES_CHECKED"): "ttnn 0.66.0 / 0.67.0's views made on a freed buffer (as CONTINUES)",
}


def test_no_op_name_table_outside_the_op_registry():
    """What an op is (traced, recorded, generated by hunt, a fault site) is a field of its Op, not
    a set of op names kept elsewhere: a new op would have to be added there too, and was not."""
    found = set()
    for name, path in MODULES.items():
        if _within(name, {"meshspec.sim.ops"}):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                if isinstance(target, ast.Name) and len(_op_names_in(node.value)) >= 2:
                    found.add((name, target.id))
    assert found - set(OP_TABLES_LEFT) == set(), "op-name tables outside the registry: make each a field of Op"
    assert set(OP_TABLES_LEFT) - found == set(), "gone: take them off OP_TABLES_LEFT"


def test_hunt_writes_each_op_as_the_op_declares():
    """Every op hunt may write declares how (Op.generate); hunt's step is the registry's, not a
    chain over op names (meshspec/hunt/programs.py)."""
    from meshspec.hunt.programs import WIDE_VOCABULARY
    from meshspec.sim.ops import OPS

    assert [op for op in WIDE_VOCABULARY if OPS[op].generate is None] == []
    tree = ast.parse(MODULES["meshspec.hunt.programs"].read_text())
    step = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_step")
    assert not [c.value for c in ast.walk(step) if isinstance(c, ast.Constant) and c.value in OPS]


def _system_names_in(node: ast.AST) -> list[str]:
    from meshspec.sim.mesh import SYSTEMS

    if isinstance(node, ast.Dict):
        items = [*node.keys, *node.values]
    elif isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        items = node.elts
    else:
        return []
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str) and i.value in SYSTEMS]


def test_systems_are_one_table():
    """sim/mesh.SYSTEMS (and sim/chips.CHIPS, its chips) is the one table of systems: a system's
    name by its chips (meshspec record, meshspec import) is derived from it (mesh.system_of)."""
    tables = set()
    for name, path in MODULES.items():
        if name in ("meshspec.sim.mesh", "meshspec.sim.chips"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and len(_system_names_in(node.value)) >= 3:
                tables.add(name)
    assert tables == set()


def test_a_dim_is_read_by_one_rule():
    """A negative dim counts from the end: sim/dims.normal_dim says so once (it was written out
    thirteen times, in ops, mappers, composers and the judge), each caller keeping its own error."""
    copies = re.compile(r"\+ *rank\w* if \w+(\.\w+)* < 0|% *rank\b|-rank\w* <= ")
    found = [f"{name}:{i}" for name, path in MODULES.items() if name != "meshspec.sim.dims"
             for i, line in enumerate(path.read_text().splitlines(), 1) if copies.search(line)]
    assert found == []


def test_fault_kinds_are_one_enum():
    """A fault's kind is sim/faults.FaultKind, compared as a kind, not as a loose string."""
    from meshspec.sim.faults import FaultKind

    names = {k.value for k in FaultKind}
    loose = [f"{name}:{node.lineno}" for name, path in MODULES.items() if name != "meshspec.sim.faults"
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Constant) and node.value in names]
    assert loose == []
