"""``meshspec export --minimal``: the scenario as the few plain ttnn calls a person pastes into a
bug report (issue 37 item 4), where :mod:`.export` writes a script that reports to meshspec.

One module-level statement per step, no helper functions: the mesh opened as the scenario says,
each step's own ttnn call, then what the runtime records for each tensor (its storage, its
``tensor_topology()``, the device coordinates it records, the shape of each shard) printed, and
the mesh closed. The steps' code is each op's own export (:attr:`~meshspec.sim.ops.Op.export`: the same quoting of names, numbers,
file names); only the calls that go through torch are written here, as torch-free ttnn calls, so
the script runs in ttnn's mock, whose Python 3.10 has no torch:

- ``ttnn.from_torch(torch_tensor, dtype=, layout=, ...)`` ends in ``ttnn.Tensor(tensor=...,
  data_type=, layout=, device=, mem_config=, tile=, mesh_mapper=)`` (ttnn/operations/core.py,
  0.81.1), which takes a numpy array as well: the script makes that call on numpy data (on host,
  then ``ttnn.to_device`` when the step names a device);
- ``ttnn.to_torch(t, mesh_composer=c)`` is ``t.cpu().to_torch(mesh_composer=c)``: the script calls
  ``to_numpy(c)``, the same composition into numpy.

A step with no plain call (a call meshspec does not know, a helper the full export defines) ends
the script before it, and its top comment says so: the script never fails midway for want of code.
A script with a collective sets the fabric before the mesh opens and resets it after, as tt-metal's
conftest.py does for its ``fabric_config`` device parameter; its top says the mock cannot run it
(with a fabric set, opening the mesh builds the fabric_erisc_router kernel: observed).
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from ..scenario.loader import LoadedScenario
from ..sim.ops import MODULES, OPS
from ..sim.ops.exporting import DTYPES, LAYOUTS, composer_code as _composer, memory_code as _memory, number as _number
from ..sim.ops.mappers import mapper_choice
from ..sim.spec import DataType, Layout
from ..text import one_line, printable
from .export import Context, _bound, _wrap

TEMPLATE_NAMES = ("np", "ttnn", "tempfile", "Path", "files", "here", "mesh_device", "name", "tensor", "part")
"""Names the script binds itself: a tensor's variable never takes one (nor a builtin's)."""

PRINT = [
    "    print(name, tensor.storage_type(), tensor.tensor_topology())",
    '    if tensor.storage_type() == ttnn.StorageType.DEVICE and tensor.is_allocated() and hasattr(tensor, "device_coords"):',
    '        print("  device_coords:", tensor.device_coords())  # the devices it records (not in ttnn 0.66/0.67)',
    '    print("  shapes:", [list(part.shape) for part in ttnn.get_device_tensors(tensor)])',
]
"""The body of the loop that prints what the runtime records for each tensor."""

NOT_TTNN = frozenset({"to_torch"})
"""Ops whose result in the script is a numpy array, not a ttnn tensor: not printed."""


class NotPlain(Exception):
    """A step that has no plain ttnn call; the message says why, in one line."""


def _data(a) -> str:
    """numpy code for a step's host data, the values meshspec makes (docs/semantics.md section 8),
    as float32 (the ttnn.Tensor constructor's numpy input; from_torch's tensors are float32 too)."""
    shape = tuple(a.shape)
    dims = ", ".join(map(str, shape)) if shape else "()"  # reshape(1, 7, 32, 32); a rank-0 shape is reshape(())
    n = 1
    for d in shape:
        n *= d
    data = a.data
    if data == "arange":
        return f"np.arange({n}, dtype=np.float32).reshape({dims})"
    if data in ("zeros", "ones"):
        return f"np.{data}({shape}, dtype=np.float32)"
    if hasattr(data, "fill"):
        return f"np.full({shape}, {_number(data.fill)}, dtype=np.float32)"
    if hasattr(data, "random"):
        return f"np.random.default_rng({data.random}).standard_normal({n}, dtype=np.float32).reshape({dims})"
    return f"np.load(here / {data.file!r}).astype(np.float32)"


def from_torch(a, ctx: Context) -> list[str]:
    """The call ``ttnn.from_torch`` makes, on numpy data: ``ttnn.Tensor(tensor=..., ...)``. Given
    a device, that constructor tilizes on it, a kernel the mock cannot build: the tensor is made on
    host and put there by ``ttnn.to_device``, as the full export does (the same records)."""
    bfloat16 = DataType(a.dtype) is DataType.BFLOAT16  # made float32, then to_dtype: 0.66/0.67 misread a numpy array as bfloat16
    args = [f"tensor={_data(a)}", f"data_type={'ttnn.float32' if bfloat16 else DTYPES[DataType(a.dtype)]}",
            f"layout={LAYOUTS[Layout(a.layout)]}"]
    if list(a.tile) != [32, 32]:
        args.append(f"tile=ttnn.Tile({list(a.tile)})")
    if a.memory_config is not None and not a.device:
        args.append(f"mem_config={_memory(a)}")
    if a.mesh_mapper is not None:
        choice = mapper_choice(a.mesh_mapper, lambda _: 0)
        # from_torch unwraps ReplicateTensorToMesh into the mapper it holds, this one
        text = "ttnn.replicate_tensor_to_mesh_mapper(mesh_device)" if choice.replicate_wrapper else choice.text
        args.append(f"mesh_mapper={text.replace('(mesh_device', f'({ctx.mesh(choice.mesh)}')}")
    made = f"ttnn.Tensor({', '.join(args)})"
    if bfloat16:
        made = f"ttnn.to_dtype({made}, ttnn.bfloat16)"
    if a.device:
        memory = f", memory_config={_memory(a)}" if a.memory_config is not None else ""
        made = f"ttnn.to_device({made}, {ctx.mesh(a.device)}{memory})"
    return [f"{ctx.var(a.as_)} = {made}"]


def to_torch(a, ctx: Context) -> list[str]:
    """``ttnn.to_torch(t, mesh_composer=c)`` into numpy: ``t.cpu().to_numpy(c)``."""
    composer = _composer(a.mesh_composer, ctx) if a.mesh_composer is not None else ""
    return [f"{ctx.var(a.as_) if a.as_ else '_'} = {ctx.var(a.tensor)}.cpu().to_numpy({composer})"]


def opaque(a, ctx: Context) -> list[str]:
    """The program's own call when meshspec could read it as one known ttnn call; else none."""
    from ..scenario.code import Call, parse

    parsed = parse(a.code, a.call, list(a.uses)) if a.code else None
    if not isinstance(parsed, Call):
        raise NotPlain(f"{a.call}() is not modeled by meshspec and its call is not known")
    return [f"{ctx.var(a.as_)} = {parsed.expression(ctx.var)}"]


#: op name -> its plain call where it differs from the full export's (the calls through torch,
#: the full export's helpers that are one plain call).
MINIMAL = {"from_torch": from_torch, "to_torch": to_torch, "opaque": opaque,
           "to_string": lambda a, ctx: [f"print({ctx.var(a.tensor)})"]}


def _plain(op: str, lines: list[str]) -> list[str]:
    """``lines`` if they call ttnn (or numpy, or a method) only; a bare call but ``float('nan')``
    or ``print(t)`` is a helper of the full export's, which this script has not."""
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in ("float", "print"):
            raise NotPlain(f"its call needs {node.func.id}(), a helper of the full export's")
    return lines


def step_lines(step, ctx: Context) -> list[str]:
    """The plain call of one step (:class:`NotPlain` if it has none)."""
    emit = MINIMAL.get(step.op, OPS[step.op].export)
    return _plain(step.op, emit(step.args, ctx))


def export_minimal(scenario: LoadedScenario, data_dir: str = ".") -> str:
    """The minimal script's text. ``data_dir``: where the scenario's ``.npy`` files are, relative
    to the script."""
    ctx = Context(scenario, frozenset(dir(builtins)) | frozenset(TEMPLATE_NAMES))
    body: list[str] = []
    names: dict[str, str] = {}
    left_out = None
    fabric = None
    for step in scenario.steps:
        try:
            body += step_lines(step, ctx)
            if step.op in MODULES["collectives"]:  # a ring needs the ring fabric
                ring = getattr(step.args, "topology", None) == "ring"
                fabric = "FABRIC_1D_RING" if ring or fabric == "FABRIC_1D_RING" else "FABRIC_1D"
        except NotPlain as why:
            after = len(scenario.steps) - step.index - 1
            rest = f" and the {after} after it" if after > 1 else (" and the one after it" if after == 1 else "")
            left_out = (f"# Left out: step {step.index} ({step.op}, scenario line {step.line}){rest}: {why}.",
                        "# `meshspec export` (without --minimal) writes them, with the helpers they need.")
            break
        if step.op not in NOT_TTNN:
            for name in _bound(step):
                if not _many(step):
                    names.setdefault(name, ctx.var(name))
    text = "\n".join(body)
    head = [f"# {one_line(printable(scenario.name))}: a meshspec scenario as plain ttnn calls (meshspec export --minimal).",
            *[f"# {one_line(line)}" for line in _wrap(printable(scenario.description), 96)]]
    if "ttnn.Tensor(tensor=" in text or ".to_numpy(" in text:
        head += ["# No torch needed (ttnn's mock has none): ttnn.Tensor(tensor=numpy_array, ...) is the call",
                 "# ttnn.from_torch makes, and .cpu().to_numpy(composer) is what ttnn.to_torch reads."]
        if "ttnn.to_device(ttnn.Tensor(" in text:
            head.append("# A tensor from_torch puts on a device is made on host, then ttnn.to_device (the mock tilizes on host only).")
    if "ttnn.to_dtype(ttnn.Tensor(" in text:  # observed in the mocks of 0.66.0 and 0.67.0
        head += ["# A bfloat16 tensor is made float32, then ttnn.to_dtype: ttnn 0.66 and 0.67 misread a numpy array as",
                 "# bfloat16 (the same values and records on every version)."]
    if fabric is not None:
        head += ["# A collective runs over the fabric, set before the mesh opens (as tt-metal's conftest.py does). ttnn's mock",
                 "# cannot run this: opening a mesh with a fabric builds its router kernel, which the mock cannot compile."]
    if left_out is not None:
        head += left_out
    imports = ["import numpy as np", "import ttnn"]
    setup = []
    if "files /" in text:
        imports[:0] = ["import tempfile", "from pathlib import Path"]
        setup.append("files = Path(tempfile.mkdtemp(prefix='meshspec-'))  # the tensor files the steps dump and load")
    if "here /" in text:
        if "from pathlib import Path" not in imports:
            imports.insert(0, "from pathlib import Path")
        here = "Path(__file__).resolve().parent" + "".join(f" / {part!r}" for part in Path(data_dir).parts if part != ".")
        setup.append(f"here = {here}  # the scenario's data files")
    shape = ", ".join(map(str, scenario.mesh_shape))
    tensors = ", ".join(f"{name!r}: {var}" for name, var in names.items())
    lines = [
        *head,
        *imports,
        "",
        *setup,
        *([f"ttnn.set_fabric_config(ttnn.FabricConfig.{fabric})"] if fabric else []),
        f"mesh_device = ttnn.open_mesh_device(ttnn.MeshShape({shape}))",
        *body,
        "",
        f"for name, tensor in {{{tensors}}}.items():  # what the runtime records",
        *PRINT,
        "ttnn.close_mesh_device(mesh_device)",
        *(["ttnn.set_fabric_config(ttnn.FabricConfig.DISABLED)"] if fabric else []),
        "",
    ]
    script = "\n".join(lines)
    compile(script, f"<meshspec export --minimal of {scenario.name}>", "exec")  # one that does not compile is meshspec's bug
    return script


def _many(step) -> bool:
    from ..sim.ops import OPS

    binds = OPS[step.op].binds
    return binds is not None and binds.many
