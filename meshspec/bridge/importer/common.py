"""What both importers share: traced tensors and calls as plain values, the parsing helpers the
two formats need, and the mesh.

Each front end reads its format into :class:`Call` records, in the order the program made the
calls: ``tracer.py`` (ttnn's operation tracer, ttnn/ttnn/operation_tracer.py) and ``graph.py``
(ttnn's graph capture, ttnn/ttnn/graph.py). A front end also says which traced tensors are the
same tensor (:attr:`Traced.key`), as far as its format can tell; ``steps.py`` maps the calls to
scenario steps.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Hashable, Optional

from ...errors import ScenarioError
from ...scenario.sniff import read_regular
from ...text import printable
from ...sim.mesh import SYSTEMS, system_of, volume

UNKNOWN = "?"
"""A call's mesh_mapper when the format does not say whether one was passed."""


# -- traced values ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Memory:
    """A memory config as traced: ``BufferType.L1`` -> ``l1``; ``TensorMemoryLayout.INTERLEAVED`` -> ``interleaved``."""

    buffer: str = "dram"
    layout: str = "interleaved"


@dataclass(frozen=True)
class Distribution:
    """A tensor topology as traced: ``distribution_shape`` and one placement per axis."""

    shape: tuple[int, ...]
    placements: tuple[Optional[int], ...]
    """The tensor dim of a ``PlacementShard(dim)``, None for a ``PlacementReplicate``."""
    coords: Optional[tuple[tuple[int, ...], ...]] = None
    """``mesh_coords``, when the trace records them (the capture's python_io summaries)."""

    def __str__(self) -> str:
        ps = ", ".join("R" if p is None else f"S({p})" for p in self.placements)
        return f"({'x'.join(map(str, self.shape))}) [{ps}]"


@dataclass(frozen=True)
class Traced:
    """One tensor as a trace shows it at one call."""

    key: Hashable
    """Which tensor this is: equal keys are the same tensor (the front end decides how)."""
    storage: str
    """``host`` or ``device``."""
    shape: tuple[int, ...]
    """The spec's shape: one shard's, for a tensor distributed over a mesh."""
    dtype: str
    """``bfloat16`` ... as meshspec spells it (or the traced name, lower case, if meshspec has none)."""
    layout: str
    memory: Memory = Memory()
    distribution: Optional[Distribution] = None
    """Its topology, when the trace records it."""
    mesh: Optional[tuple[int, ...]] = None
    """The shape of the mesh device it is on, when the trace records it."""
    devices: Optional[int] = None
    """How many devices hold a shard, when the trace records it (graph capture ``device_tensors``)."""

    def describe(self) -> str:
        dist = f" {self.distribution}" if self.distribution is not None else ""
        return f"{self.storage} {'x'.join(map(str, self.shape))} {self.dtype} {self.layout} {self.memory.buffer}{dist}"


@dataclass(frozen=True)
class Call:
    """One traced ttnn call, as :func:`build` needs it; the fields a call does not have stay None."""

    source: str
    """Where it was traced: a tracer file's name, or ``node 8`` of a graph capture."""
    op: str
    """The ttnn name: ``ttnn.from_torch``; ``Tensor.cpu`` for a method."""
    inputs: tuple[Traced, ...] = ()
    """Its tensor arguments, in order."""
    outputs: tuple[Traced, ...] = ()
    global_shape: Optional[tuple[int, ...]] = None
    """The torch tensor's shape: from_torch's (as_tensor's) input."""
    result_shape: Optional[tuple[int, ...]] = None
    """The torch tensor to_torch returned."""
    mapper: Optional[str] = None
    """The mesh_mapper's type as traced (``CppTensorToMesh``); None: none passed; :data:`UNKNOWN`."""
    composer: Optional[bool] = None
    """Whether a mesh_composer was passed; None: not known."""
    memory_config: Optional[Memory] = None
    """The memory config the call passed, if any."""
    shape: Optional[tuple[int, ...]] = None
    """A creation op's shape argument."""
    fill_value: Optional[float] = None
    file_name: Optional[str] = None
    tile: Optional[tuple[int, int]] = None
    error: Optional[str] = None
    """Why the call cannot be imported whatever it is (it did not finish)."""
    folded_into: Optional[str] = None
    """Set when the call ran inside another traced call (to_torch's from_device): part of that step."""
    notes: tuple[str, ...] = ()


# -- parsing helpers the front ends share ----------------------------------------------------
MAX_TRACE_BYTES = 1 << 30
"""The largest trace file import reads (a graph capture of a long program is hundreds of MB)."""


def not_regular(path: Path) -> Optional[str]:
    """What ``path`` is when it is not a regular file (``a FIFO``, ``a character device``, ...), from
    its ``stat`` (a link followed): import never opens such a file (a FIFO would wait for a writer,
    ``/dev/zero`` never ends). None for a regular file. Raises OSError (no such file, a link to
    nothing, no permission)."""
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))
    return next((what for test, what in kinds if test(mode)), "something else")


def read_bytes(path: Path, limit: int = MAX_TRACE_BYTES) -> bytes:
    """A trace file's bytes: a regular file (checked before it is opened, and again on the open
    file), of at most ``limit`` bytes; anything else is a one-line error naming it."""
    try:
        kind = not_regular(path)
        if kind is None:
            size = os.stat(path).st_size
            if size > limit:
                raise ScenarioError(f"file is {size:,} bytes; import reads trace files of up to {limit:,} bytes", str(path))
            raw = read_regular(path, limit)
            kind = "something else" if raw is None else None  # replaced since the stat
    except OSError as err:
        raise ScenarioError(f"cannot read: {err.strerror or err}", str(path)) from None
    if kind is not None or raw is None:
        raise ScenarioError(f"{kind}, not a regular file: not read (give a trace file)", str(path))
    if len(raw) > limit:
        raise ScenarioError(f"file is over {limit:,} bytes; import reads trace files of up to that", str(path))
    return raw


def load_json(path: Path) -> Any:
    """A JSON file's content; a file that is not JSON (or not a regular file) is a one-line error naming where."""
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ScenarioError(f"not UTF-8 text ({err.reason} at byte {err.start})", str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ScenarioError(f"not valid JSON: {err.msg}", str(path), err.lineno, err.colno) from None
    except ValueError as err:  # an integer past Python's 4,300 digits
        raise ScenarioError(f"not a trace meshspec can read: {str(err).split(';')[0]}", str(path)) from None
    except RecursionError:
        raise ScenarioError("JSON nested too deep to read", str(path)) from None


def enum_name(text: str) -> str:
    """``DataType.BFLOAT16`` and ``DataType::BFLOAT16`` -> ``bfloat16``."""
    return re.split(r"\.|::", str(text))[-1].lower()


STORAGE_TYPES = {"host": "host", "device": "device"}
"""ttnn's ``StorageType`` names (0.81.1: ``HOST``, ``DEVICE``; written ``StorageType::DEVICE`` in a graph
capture's messages, ``DEVICE`` in its tensor nodes, ``StorageType.DEVICE`` by the tracer) -> meshspec's storage."""


def storage(value: Any, where: str, file: str) -> str:
    """A traced ``storage_type`` as ``host`` or ``device``; anything else is a one-line error
    naming it (a malformed one once became a host tensor that a later step used as a device
    tensor, and the scenario written did not load)."""
    name = enum_name(value) if isinstance(value, str) else None
    if name not in STORAGE_TYPES:
        shown = printable(value if isinstance(value, str) else json.dumps(value))
        raise ScenarioError(f"{where}: storage_type {shown!r} is not one of ttnn's StorageType names (HOST, DEVICE)", file)
    return STORAGE_TYPES[name]


def placement(text: str, where: str, file: str) -> Optional[int]:
    """``PlacementShard(3)`` -> 3; ``PlacementReplicate`` (or ``PlacementReplicate()``) -> None."""
    m = re.fullmatch(r"\s*'?PlacementShard\((-?\d+)\)'?\s*", str(text))
    if m:
        return int(m.group(1))
    if re.fullmatch(r"\s*'?PlacementReplicate(\(\))?'?\s*", str(text)):
        return None
    raise ScenarioError(f"{where}: placement {text!r} is neither PlacementShard(dim) nor PlacementReplicate", file)


def ints(value: Any) -> Optional[tuple[int, ...]]:
    """A JSON list of integers as a tuple; None for anything else."""
    if isinstance(value, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        return tuple(value)
    return None


def int_list(text: str) -> tuple[int, ...]:
    """``Shape([1, 1, 32, 64])``, ``{1, 7, 32, 32}`` or ``[2, 4]`` -> ``(1, 1, 32, 64)``."""
    m = re.search(r"[\[{]([-\d,\s]*)[\]}]", text)
    if m is None:
        raise ValueError(text)
    return tuple(int(x) for x in m.group(1).replace(",", " ").split())


def global_shape(t: Traced) -> tuple[int, ...]:
    """The shape a tensor had before a mapper cut it: each Shard axis multiplies its dim.

    >>> global_shape(Traced(0, "host", (1, 1, 32, 64), "bfloat16", "tile", distribution=Distribution((2, 4), (0, 3))))
    (2, 1, 32, 256)
    """
    shape = list(t.shape)
    if t.distribution is not None:
        for n, dim in zip(t.distribution.shape, t.distribution.placements):
            if dim is not None and -len(shape) <= dim < len(shape):
                shape[dim] *= n
    return tuple(shape)


# -- the mesh --------------------------------------------------------------------------------
def mesh_value(shape: tuple[int, ...], arch: Optional[str]) -> Any:
    """The scenario's ``mesh``: a bare shape for Wormhole chips (or an unknown arch, or one no
    system has that many chips of), else the system of ``arch`` with that many chips, opened with
    ``shape``."""
    if arch is None or arch.startswith("wormhole"):
        return list(shape)
    name = system_of(arch, volume(shape))
    if name is None:
        return list(shape)
    return name if tuple(SYSTEMS[name].shape) == tuple(shape) else {"system": name, "shape": list(shape)}


def check_mesh(shape: tuple[int, ...], file: str) -> None:
    """A traced mesh shape meshspec can open, or a one-line error naming it."""
    from ...scenario.loader import MAX_DEVICES

    if not 1 <= len(shape) <= 4 or any(not 1 <= n <= 2**40 for n in shape) or volume(shape) > MAX_DEVICES:
        raise ScenarioError(
            f"mesh device shape {list(shape)}: meshspec simulates meshes of 1 to 4 dims and up to {MAX_DEVICES:,} devices", file
        )


def fill_distributions(calls: list[Call]) -> list[Call]:
    """Calls whose outputs have no recorded topology, with the topology a later call records for
    the same tensor (the capture records a tensor's topology only where a Python-level op takes it)."""
    seen: dict[Hashable, Distribution] = {}
    for call in calls:
        for t in call.inputs:
            if t.distribution is not None:
                seen.setdefault(t.key, t.distribution)
    out = []
    for call in calls:
        if any(t.distribution is None and t.key in seen for t in call.outputs):
            outs = tuple(replace(t, distribution=seen.get(t.key)) if t.distribution is None else t for t in call.outputs)
            call = replace(call, outputs=outs)
        out.append(call)
    return out


