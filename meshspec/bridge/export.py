"""``meshspec export SCENARIO --to ttnn``: the scenario as one standalone Python script on the real
ttnn API, readable enough to paste into a tt-metal issue.

The script performs the steps in order; after the last one (or the step that raised) it writes a
``meshspec.report/1`` of what the real runtime recorded (meshspec/bridge/observe.py, inlined), to
the path given or stdout, so ``meshspec diff simulated.json real.json`` compares the two. Host
tensors come from ``ttnn.from_torch`` when torch is importable, else from numpy through
``ttnn.Tensor(array, dtype, None, layout)`` and ``ttnn.distribute_tensor`` (the mock's Python has no
torch). Each step is emitted by its op's own :attr:`~meshspec.sim.ops.Op.export`; every op has one.
"""

from __future__ import annotations

import functools
import keyword
import re
from pathlib import Path
from typing import Any, Callable

from ..scenario.loader import LoadedScenario
from ..sim.ops import OPS
from ..text import printable


class Context:
    """What emitters share: Python names for the scenario's tensors and meshes."""

    def __init__(self, scenario: LoadedScenario, reserved: frozenset[str] = frozenset()) -> None:
        self.scenario = scenario
        self.reserved = reserved
        self.names: dict[str, str] = {"mesh_device": "mesh_device"}

    def var(self, name: str) -> str:
        """A Python expression for a scenario name: ``parts[3]`` stays ``parts[3]``; other names are
        made identifiers (``dst.cpu`` -> ``dst_cpu``)."""
        m = re.fullmatch(r"(.*)\[(\d+)\]", name)
        if m:
            return f"{self.var(m.group(1))}[{m.group(2)}]"
        if name not in self.names:
            ident = re.sub(r"[^A-Za-z0-9_]", "_", name)
            if not ident.strip("_") or ident[0].isdigit() or ident.startswith("__"):  # no dunder: _-dict-_ is not __dict__
                ident = f"t_{ident}"  # and no '_' alone: the script's throwaway (a cpu() with no 'as')
            if keyword.iskeyword(ident) or ident in self.reserved:  # a name the script uses (host_tensor, np)
                ident += "_"
            while ident in self.names.values():
                ident += "_"
            self.names[name] = ident
        return self.names[name]

    def mesh(self, name) -> str:
        return self.var(name) if name else "mesh_device"

    def trace(self, name: str) -> str:
        """A trace's variable: traces are named apart from tensors in a scenario (a trace and a
        tensor may both be ``a``), so their variables are too (``trace_a``)."""
        return self.var(f"trace {name}")

    @functools.cached_property
    def lists(self) -> frozenset[str]:
        """The names of the lists steps bind (get_device_tensors' parts), worked out once: an op
        taking tensors asks for each of its names, and a scan a call made export quadratic."""
        return frozenset(OPS[s.op].bound(s.args) for s in self.scenario.steps if OPS[s.op].binds is not None and OPS[s.op].binds.many)

    def code(self, a: Any) -> Any:
        """What meshspec/scenario/code.py makes of an opaque step's ``code``: the call an exported
        script may run (a :class:`~meshspec.scenario.code.Call`), why not (one line), or None
        when the step has no code."""
        from ..scenario.code import parse

        return parse(a.code, a.call, list(a.uses)) if a.code else None


Emitter = Callable[[Any, Context], list[str]]


HELPERS = '''
def show(t):
    """print(t): Tensor.__repr__, which is ttnn::to_string."""
    print(t)


def graph_capture(begin):
    """ttnn.graph.begin_graph_capture(RunMode.NORMAL), or end_graph_capture() (its graph unused)."""
    if begin:
        ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NORMAL)
    else:
        ttnn.graph.end_graph_capture()


def ccl_semaphores(mesh_device, n):
    """n global semaphores on every worker core, as the experimental CCLs take them."""
    grid = mesh_device.compute_with_storage_grid_size()
    cores = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(grid.x - 1, grid.y - 1))})
    return [ttnn.create_global_semaphore(mesh_device, cores, 0) for _ in range(n)]

def arange(shape):
    """0, 1, 2, ... in row-major order (float32: exact to 2**24, as torch.arange(n).float())."""
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def random(shape, seed):
    return np.random.default_rng(seed).standard_normal(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def host_tensor(array, dtype, layout, mapper=None, device=None, memory_config=None, tile=(32, 32), numpy=False):
    """ttnn.from_torch(...) when torch is importable; else the same through numpy: ttnn.Tensor on
    host, then ttnn.distribute_tensor (which puts it on the device when given). ``numpy``: the step
    is the numpy constructor itself, called as it is (no flat-list stand-in for bfloat16)."""
    tile = ttnn.Tile(list(tile)) if list(tile) != [32, 32] else None
    if isinstance(mapper, ttnn.ReplicateTensorToMeshWrapper) and (torch is None or numpy):
        mapper = mapper.unwrap()  # from_torch unwraps it; distribute_tensor takes the mapper inside
    if torch is not None and not numpy:
        return ttnn.from_torch(torch.from_numpy(np.ascontiguousarray(array)), dtype=dtype, layout=layout, tile=tile,
                               mesh_mapper=mapper, device=device, memory_config=memory_config)
    extra = {} if tile is None else {"tile": tile}
    if mapper is None:
        t = host_array_tensor(array, dtype, layout, None, extra, numpy)
        return t if device is None else ttnn.to_device(t, device, memory_config=memory_config)
    if layout == ttnn.TILE_LAYOUT and not extra and not numpy and from_torch_reads_numpy():
        # from_torch tilizes each shard on its own. A whole tensor tilized by the flat-list or the
        # numpy constructor in a block float keeps its whole padded shape as its alignment, and
        # 0.66/0.67's distribute_tensor gives every shard that padding (docs/semantics.md section 24)
        if not flat_list(dtype):
            return ttnn.from_torch(np.ascontiguousarray(array), dtype=dtype, layout=layout, mesh_mapper=mapper, device=device,
                                   memory_config=memory_config)
        t = ttnn.distribute_tensor(host_array_tensor(array, dtype, ttnn.ROW_MAJOR_LAYOUT, None, extra), mapper)
        t = ttnn.to_layout(t, layout)
        return t if device is None else ttnn.to_device(t, device, memory_config=memory_config)
    t = host_array_tensor(array, dtype, layout, memory_config, extra, numpy)
    return ttnn.distribute_tensor(t, mapper, device)


def host_array_tensor(array, dtype, layout, memory_config, extra, numpy=False):
    """ttnn.Tensor(array, dtype, None, layout) on host; where that constructor misreads a bfloat16
    array (ttnn 0.66.0 and 0.67.0 refuse it: "Number of elements from python tensor 0 must match
    ...", "Current buffer size is 0 ..."), the flat-list constructor ttnn.Tensor(values, shape,
    dtype, layout), which reads it in every version (docs/semantics.md section 10), unless the
    step is that numpy constructor itself (``numpy``)."""
    if flat_list(dtype) and not numpy:
        config = {} if memory_config is None else {"device": None, "memory_config": memory_config}
        return ttnn.Tensor(array.astype(np.float32).reshape(-1).tolist(), list(array.shape), dtype, layout, **config, **extra)
    return ttnn.Tensor(array.astype(np.float32), dtype, None, layout, mem_config=memory_config, **extra)


def flat_list(dtype):
    """Whether a host tensor of dtype is built with the flat-list constructor here (see host_array_tensor)."""
    return dtype == ttnn.bfloat16 and not numpy_reads_bfloat16()


def from_torch_reads_numpy():
    """Whether this ttnn's from_torch takes a numpy array (0.66.0 and 0.67.0: it converts without
    torch; 0.81.1 imports torch first), asked once."""
    if not FROM_TORCH_NUMPY:
        try:
            ttnn.from_torch(np.zeros((1, 2), dtype=np.float32), dtype=ttnn.float32)
            FROM_TORCH_NUMPY.append(True)
        except (ImportError, RuntimeError, TypeError):
            FROM_TORCH_NUMPY.append(False)
    return FROM_TORCH_NUMPY[0]


FROM_TORCH_NUMPY = []


def numpy_reads_bfloat16():
    """Whether this ttnn's numpy constructor takes a float32 array as bfloat16 (asked once)."""
    if not NUMPY_BFLOAT16:
        try:
            ttnn.Tensor(np.zeros((1, 2), dtype=np.float32), ttnn.bfloat16, None, ttnn.ROW_MAJOR_LAYOUT)
            NUMPY_BFLOAT16.append(True)
        except RuntimeError:
            NUMPY_BFLOAT16.append(False)
    return NUMPY_BFLOAT16[0]


NUMPY_BFLOAT16 = []


def to_torch(t, mesh_composer=None):
    """ttnn.to_torch(t, mesh_composer), kept as a ttnn host tensor so the report can describe it:
    the composition of ttnn.aggregate_tensor, or, without a composer, the one shard (as to_torch, a
    tensor of several raises)."""
    host = t.cpu() if t.storage_type() == ttnn.StorageType.DEVICE else t
    if mesh_composer is None:
        host.to_numpy()  # raises as to_torch does for a tensor of several shards
    if host.memory_config().is_sharded():
        # aggregate_tensor and the one shard keep the sharded memory config and the padded shape
        # (aggregate_tensor refuses a composed shape it does not fit); to_torch makes a plain
        # buffer of the logical values, as to_numpy does
        values = ttnn.to_dtype(host, ttnn.float32)
        values = values.to_numpy(mesh_composer) if mesh_composer is not None else values.to_numpy()
        return host_array_tensor(values, host.dtype, host.layout, None, {})
    if mesh_composer is not None:
        return ttnn.aggregate_tensor(host, mesh_composer)
    return ttnn.get_device_tensors(host)[0]


def as_tensor(array, dtype, layout, mapper=None, device=None, memory_config=None, cache_file_name=None):
    """ttnn.as_tensor(...) when torch is importable; else what it does (ttnn/operations/core.py), in
    ttnn's own calls: the cache file {name}_dtype_{DTYPE}_layout_{LAYOUT}.tensorbin is loaded if it
    exists, else the tensor is made on host (a ReplicateTensorToMesh one unsharded), dumped, and put
    on the device."""
    if torch is not None:
        return ttnn.as_tensor(torch.from_numpy(np.ascontiguousarray(array)), dtype=dtype, layout=layout, mesh_mapper=mapper,
                              device=device, memory_config=memory_config, cache_file_name=cache_file_name)
    if device is not None and memory_config is None:
        raise RuntimeError("memory_config must be specified when device is specified")
    if cache_file_name is None:
        return host_tensor(array, dtype, layout, mapper, device, memory_config)
    path = f"{cache_file_name}_dtype_{str(dtype).split('.')[-1]}_layout_{str(layout).split('.')[-1].removesuffix('_LAYOUT')}.tensorbin"
    if Path(path).exists():
        return ttnn.load_tensor(path, device=device)
    unwrapped = None if isinstance(mapper, ttnn.ReplicateTensorToMeshWrapper) else mapper
    t = host_tensor(array, dtype, layout, unwrapped)
    ttnn.dump_tensor(path, t)
    return t if device is None else t.to(device, memory_config)
'''


def export(scenario: LoadedScenario, data_dir: str = ".") -> str:
    """The script's text. ``data_dir``: where the scenario's ``.npy`` data files are, relative to
    the script (``.``: beside it)."""
    imports, observe_body = _inlined_source()
    ctx = Context(scenario, _script_names(HELPERS, observe_body))
    shape = ", ".join(map(str, scenario.mesh_shape))
    body: list[str] = []
    for step in scenario.steps:
        body.append(f"    step({step.index})  # {step.op} (scenario line {step.line})")
        body += [f"    {code}" for code in OPS[step.op].export(step.args, ctx)]
    body.append("    return locals()")
    fabric = _fabric(scenario)
    needs = _needs(body)
    steps = ", ".join(f"{s.index}: {s.op!r}" for s in scenario.steps)
    names = {n: ctx.var(n) for s in scenario.steps for n in _bound(s)}
    here = "Path(__file__).resolve().parent" + "".join(f" / {part!r}" for part in Path(data_dir).parts if part != ".")
    lines = [
        "#!/usr/bin/env python3",
        f'"""{_doc(printable(scenario.name))}: a meshspec scenario as ttnn code (written by `meshspec export`).',
        "",
        *[f"    {_doc(printable(line))}" for line in _wrap(scenario.description)],
        "",
        "Run where ttnn runs (hardware, or the mock on a CPU):  python THIS.py [REPORT.json]",
        "It writes a meshspec.report/1 of what the real runtime recorded after the last step (or the",
        "step that raised); compare it with the simulation:  meshspec diff SIMULATED.json REPORT.json",
        '"""',
        *_requirements(scenario, fabric, needs),
        "",
        "import os",
        "import sys",
        "",
        "# Nothing is imported from this script's own folder: a shutil.py or numpy.py beside it would run.",
        "sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != os.path.dirname(os.path.realpath(__file__))]",
        "",
        *sorted({"import shutil", "import tempfile", *imports} - {"import os", "import sys"}),
        "from pathlib import Path",
        "",
        "if len(sys.argv) < 2:  # the report goes to stdout: keep ttnn's log lines out of it",
        '    os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")',
        "",
        "try:",
        "    import numpy as np",
        "    import ttnn",
        "except ModuleNotFoundError as err:  # not where ttnn runs: say so in one line",
        "    sys.exit(f'{sys.argv[0]}: this script runs on ttnn (tt-metal), and this Python ({sys.executable}) has no '",
        "             f'{err.name!r}: run it in the environment where ttnn is installed (hardware, or the mock on a CPU)')",
        "",
        "try:",
        "    import torch",
        "except ImportError:  # the mock's Python has none: host tensors go through numpy",
        "    torch = None",
        "",
        f"here = {here}  # the scenario's data files",
        "",
        "",
        "def repro(mesh_device, files):",
        *body,
        "",
        "",
        f"MESH_SHAPE = [{shape}]",
        f"STEPS = {{{steps}}}",
        f"NAMES = {names!r}",
        '"""The scenario\'s tensor names -> the variables above (a list\'s items are reported as parts[0] ...)."""',
        f"FABRIC = {fabric!r}",
        '"""The ttnn.FabricConfig the steps\' collectives run over, set up before the mesh opens; None: no fabric."""',
        f"NEEDS = {needs!r}",
        '"""What the steps call on ttnn: a version without one of them cannot run this script, and says so first."""',
        "",
        "",
        "def main(out=None):",
        "    missing = [name for name in NEEDS if not has(name)]",
        "    if missing:",
        "        sys.exit(f'{sys.argv[0]}: this script calls {\", \".join(missing)}, which ttnn {ttnn_version()} has not: '",
        "                 'it cannot run on this version')",
        "    if out is None:  # the report alone on stdout: ttnn's own lines go to stderr while the steps run",
        "        sys.stdout.flush()",
        "        stdout = os.dup(1)",
        "        os.dup2(2, 1)",
        "    else:",
        "        if os.path.exists(out) and os.path.samefile(out, __file__):",
        "            sys.exit(f'{sys.argv[0]}: {out} is this script; give the report a name of its own, e.g. real.json')",
        "        if not may_replace(out):  # the rule of meshspec run -o, and its record of what it wrote",
        "            sys.exit(f'{sys.argv[0]}: {out} exists, and neither this script nor meshspec wrote it as it is now (a file '",
        "                     'of yours, or one changed since); refusing to overwrite it (remove it first, or choose another name)')",
        "        why = cannot_write(out)",
        "        if why is not None:",
        "            sys.exit(f'{sys.argv[0]}: cannot write the report to {out}: {why}')",
        "    mesh_device = open_mesh(out)",
        "    CURRENT[1] = out",
        "    error = None",
        "    files = Path(tempfile.mkdtemp(prefix='meshspec-repro-'))  # tensor files the steps dump and load: removed at the end",
        "    try:",
        "        try:",
        "            variables = repro(mesh_device, files)",
        "        except Exception as exc:  # the step's error ends the run, as it ends meshspec's",
        "            variables = _frame_locals(exc)",
        "            error = error_json(CURRENT[0], STEPS[CURRENT[0]], exc)",
        "        done = len(STEPS) if error is None else CURRENT[0]",
        "        result = report(variables, error, done)",
        "    finally:",
        "        shutil.rmtree(files, ignore_errors=True)",
        "    if out is None:",
        "        sys.stdout.flush()",
        "        os.dup2(stdout, 1)",
        "    write_report(result, out)",
        "",
        "",
        "def report(variables, error, done):",
        '    """The report of the named tensors among ``variables``, as the runtime records them now."""',
        "    tensors = {}",
        "    for name, var in NAMES.items():",
        "        value = variables.get(var)",
        "        if isinstance(value, list):",
        "            tensors |= {f'{name}[{i}]': item for i, item in enumerate(value) if hasattr(item, 'storage_type')}",
        "        elif hasattr(value, 'storage_type'):",
        "            tensors[name] = value",
        f"    return report_json({scenario.name!r}, MESH_SHAPE, tensors, error, done, len(STEPS))",
        "",
        "",
        "def has(name):",
        '    """Whether ttnn has ``name`` (``ttnn.Tensor.update_tensor_topology``)."""',
        "    found = sys.modules['ttnn']",
        "    for part in name.split('.')[1:]:",
        "        found = getattr(found, part, None)",
        "    return found is not None",
        "",
        "",
        "def open_mesh(out):",
        '    """The mesh, with the fabric set up first when the steps need one (as tt-metal\'s tests do:',
        '    ttnn.set_fabric_config before ttnn.open_mesh_device). A mesh that does not open with the fabric',
        '    ends the script here, in one line with ttnn\'s own words, before any step runs."""',
        "    if FABRIC is None:",
        "        return ttnn.open_mesh_device(ttnn.MeshShape(*MESH_SHAPE))",
        "    if not on_hardware():  # said first: 0.66.0 aborts the process there (SIGABRT), raising nothing",
        "        print(f'{sys.argv[0]}: the collectives need the fabric, set up before the mesh opens; in the mock (no hardware) the '",
        "              'mesh does not open with one (its router kernel cannot be built): expect no step to run', file=sys.stderr)",
        "    ttnn.set_fabric_config(getattr(ttnn.FabricConfig, FABRIC))",
        "    try:",
        "        return ttnn.open_mesh_device(ttnn.MeshShape(*MESH_SHAPE))",
        "    except RuntimeError as exc:",
        "        sys.exit(f'{sys.argv[0]}: the mesh did not open with the fabric its collectives need '",
        "                 f'(ttnn.set_fabric_config(ttnn.FabricConfig.{FABRIC})): {error_json(0, \"open_mesh_device\", exc)[\"message\"]}'",
        "                 + (f'; no report written to {out}' if out else ''))",
        "",
        "",
        "# -- bookkeeping -------------------------------------------------------------------------------",
        "CURRENT = [0, None]  # the step about to run; the report's path",
        "",
        "",
        "def step(index):",
        '    """Mark the step about to run (the report names the step that raised). With a report path,',
        "    first write the report of the state so far as if this step killed the process: a step that",
        "    crashes (SIGSEGV) raises nothing, and this report is what remains; the next step or the end",
        '    overwrites it."""',
        "    CURRENT[0] = index",
        "    if CURRENT[1] is not None:",
        "        caller = sys._getframe(1).f_locals",
        "        died = {'step': index, 'op': STEPS[index], 'source': 'ttnn', 'crash': True,",
        "                'message': 'the process died during this step (killed by a signal: no error was raised)'}",
        "        try:",
        "            write_report(report(caller, died, index), CURRENT[1])",
        "        except OSError:  # the report could not be written: the step still runs",
        "            pass",
        "",
        "",
        "def write_report(result, out):",
        '    """The report to ``out`` (stdout if None); a regular file is recorded as written (the bytes',
        '    write() wrote, never read back: a FIFO or /dev/stdout would block), so the next run may replace it."""',
        "    data = write(result, out)",
        "    if data is not None and os.path.isfile(out):",
        "        remember(out, data)",
        "",
        "",
        "def _frame_locals(exc):",
        '    """repro()\'s variables when a step raised: the tensors made before it."""',
        "    tb = exc.__traceback__",
        "    while tb is not None and tb.tb_frame.f_code.co_name != 'repro':",
        "        tb = tb.tb_next",
        "    return dict(tb.tb_frame.f_locals) if tb is not None else {}",
        "",
        "",
        "# -- host data and the calls that need torch -------------------------------------------------",
        HELPERS.strip("\n"),
        "",
        "",
        "# -- what the runtime records, as a meshspec report (meshspec/bridge/observe.py) ---------------",
        observe_body,
        "",
        "",
        'if __name__ == "__main__":',
        "    main(sys.argv[1] if len(sys.argv) > 1 else None)",
        "",
    ]
    text = "\n".join(lines)
    compile(text, f"<meshspec export of {scenario.name}>", "exec")  # a script that does not compile is meshspec's bug
    return text


#: ttnn names the exported steps may call that a version verified in the mock lacks (observed in
#: ttnn 0.66.0 and 0.67.0; tests_ttnn/test_export.py checks the list on the version it runs).
ABSENT_IN: dict[str, tuple[str, ...]] = {
    "ttnn.copy_host_to_device_tensor_partial": ("0.66.0", "0.67.0"),
    "ttnn.Tensor.update_tensor_topology": ("0.66.0", "0.67.0"),
}

#: methods the steps call on a mesh device; every other method call is on a tensor
_MESH_METHODS = frozenset({"create_submesh", "create_submeshes", "reshape"})


def _fabric(scenario: LoadedScenario):
    """The ``ttnn.FabricConfig`` the scenario's collectives run over, as tt-metal's tests choose it
    (tests/ttnn/unit_tests/operations/ccl: ``FABRIC_1D`` for a line, ``FABRIC_1D_RING`` for a ring);
    None when no step is a collective."""
    from ..sim.ops import OPS

    ops = [s for s in scenario.steps if OPS[s.op].fabric]
    if not ops:
        return None
    return "FABRIC_1D_RING" if any(getattr(s.args, "topology", None) == "ring" for s in ops) else "FABRIC_1D"


def _needs(body: list[str]) -> list[str]:
    """Every ttnn name the steps call or read, methods as ``ttnn.Tensor.cpu`` or
    ``ttnn.MeshDevice.create_submesh``, sorted."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse("\n".join(line[4:] for line in body))):
        if not isinstance(node, ast.Attribute):
            continue
        parts, root = [node.attr], node.value
        while isinstance(root, ast.Attribute):
            parts.append(root.attr)
            root = root.value
        if isinstance(root, ast.Name) and root.id == "ttnn":
            found.add(".".join(["ttnn", *reversed(parts)]))
    for node in ast.walk(ast.parse("\n".join(line[4:] for line in body))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Name, ast.Subscript)) \
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("ttnn", "np")):
            owner = "MeshDevice" if node.func.attr in _MESH_METHODS else "Tensor"
            found.add(f"ttnn.{owner}.{node.func.attr}")
    # a name read as part of a longer one (ttnn.Topology of ttnn.Topology.Ring) is needed through it
    return sorted(n for n in found if not any(m.startswith(n + ".") for m in found))


def _requirements(scenario: LoadedScenario, fabric, needs: list[str]) -> list[str]:
    """Comment lines at the script's top: what it needs that not every version or machine has."""
    from ..sim.ops import OPS

    out = []
    if fabric is not None:
        indexes = [str(s.index) for s in scenario.steps if OPS[s.op].fabric]
        steps = f"step{'s' if len(indexes) > 1 else ''} {', '.join(indexes)}"
        out += [f"# Needs the fabric between chips: its collectives ({steps}) run over it, set up with",
                f"# ttnn.set_fabric_config(ttnn.FabricConfig.{fabric}) before the mesh opens. In the mock (no",
                "# hardware) the mesh does not open with a fabric: the script says so, and no step runs."]
    for name in needs:
        if name in ABSENT_IN:
            out.append(f"# Calls {name}, which ttnn {' and '.join(ABSENT_IN[name])} have not: there the script says so and stops first.")
    return out


def _doc(text: str) -> str:
    """Text safe inside the script's docstring: backslashes and triple quotes escaped."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


# names the script's own code binds at module level, besides those of the helpers and observe.py
TEMPLATE_NAMES = ("os", "shutil", "sys", "tempfile", "Path", "np", "ttnn", "torch", "here", "files", "repro", "main", "step",
                  "FABRIC", "NEEDS", "has", "open_mesh", "missing",
                  "CURRENT", "_frame_locals", "write_report", "MESH_SHAPE", "STEPS", "NAMES", "variables", "error", "tensors")


@functools.lru_cache(maxsize=4)
def _script_names(*sources: str) -> frozenset[str]:
    """Names a tensor's variable must not take: Python's builtins, the script's module-level names
    and those its helper code defines or imports (a tensor named ``host_tensor`` would shadow the
    helper of that name inside ``repro``)."""
    import ast
    import builtins

    names = set(dir(builtins)) | set(TEMPLATE_NAMES)
    for source in sources:
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(names)


@functools.lru_cache(maxsize=1)
def _inlined_source() -> tuple[list[str], str]:
    """observe.py and written.py as the script inlines them: their import lines, and their code
    without their docstrings."""
    imports: list[str] = []
    bodies: list[str] = []
    for source in (Path(__file__).parent / "observe.py", Path(__file__).parents[1] / "written.py"):
        more, body = _module_body(source.read_text(encoding="utf-8"))
        imports += more
        bodies.append(body)
    return imports, "\n\n\n".join(bodies)


def _module_body(source: str) -> tuple[list[str], str]:
    import ast

    tree = ast.parse(source)
    lines = source.splitlines()
    imports = [lines[n.lineno - 1] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    start = next(n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr)))
    return imports, "\n".join(lines[start.lineno - 1 :]).rstrip()


def _bound(step) -> list[str]:
    from ..sim.ops import OPS

    name = OPS[step.op].bound(step.args)
    if name is None or OPS[step.op].binds.kind.value == "mesh":  # type: ignore[union-attr]
        return []
    return [name]


def _wrap(text: str, width: int = 92) -> list[str]:
    import textwrap

    return textwrap.wrap(" ".join(text.split()), width) if text else []
