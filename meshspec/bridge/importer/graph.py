"""ttnn's graph capture as calls: the report ``ttnn.graph.end_graph_capture_to_file`` writes.

The format is ttnn/ttnn/graph.py's and the C++ graph processor's (ttnn 0.81.1; described in
tt-metal's tech report tech_reports/ttnn/graph-tracing): a JSON object whose ``graph`` is a list
of nodes, each ``{counter, node_type, params, connections, arguments, input_tensors,
stacking_level}``. ``capture_start`` connects to the top-level calls; a ``function_start`` /
``function_end`` pair (by name) brackets each call, Python-level ones named ``ttnn.x`` and C++
ones ``Tensor::cpu``, ``tt::tt_metal::copy_to_device``; a C++ call lists its tensor arguments in
``input_tensors``, a call's end connects to the tensor it returned. A ``tensor`` node has
``tensor_id``, ``shape`` (``Shape([1, 1, 32, 64])``, one shard's), ``dtype``, ``layout``,
``storage_type`` and, on device, ``address``, ``buffer_type``, ``memory_config`` and
``device_tensors`` (a JSON string: one entry per device holding a shard). ``buffer_allocate`` /
``buffer_deallocate`` give a mesh buffer's address.

ttnn/ttnn/graph.py also writes ``<name>.python_io.json`` beside the report: one record per
Python-level call, in call order, ``{name, arguments, input_tensor_ids, output_tensor_ids}``, each
argument a summary string recorded before the call (a ttnn.Tensor's ``tensor_id``,
``distribution_shape`` and ``placements``; a torch tensor's shape; ``MeshDevice(2x4 grid, 8
devices)``). Without it the capture records no topology, no torch shapes and no mesh shape.

What identifies a tensor: a device tensor's buffer (its address, between buffer_allocate and
buffer_deallocate); a host tensor's ``tensor_id``. A Python-level call gives its result a new id
(the sidecar's output id), which later nodes use, so ids are joined through the sidecar.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Hashable, Optional

from ...errors import ScenarioError
from ...sim.mesh import SYSTEMS, system_of
from .common import UNKNOWN, Call, Distribution, Memory, Traced, enum_name, fill_distributions, int_list, load_json, mesh_value, not_regular, placement, storage

CPP_CALLS = {"Tensor::cpu": "Tensor.cpu", "Tensor::to_device": "Tensor.to", "Tensor::deallocate": "Tensor.deallocate"}
"""Top-level C++ calls (methods a program calls on a Tensor) -> their ttnn name."""
RETURNS_NOTHING = {"ttnn.copy_host_to_device_tensor", "ttnn.copy_device_to_host_tensor", "ttnn.deallocate", "Tensor.deallocate", "ttnn.dump_tensor"}
BUFFER_TYPES = {0: "dram", 1: "l1", 2: "system_memory", 3: "l1_small", 4: "trace"}
"""``buffer_type`` ints of buffer and tensor nodes."""


@dataclass(frozen=True)
class Node:
    counter: int
    node_type: str
    params: dict
    connections: tuple[int, ...]
    input_tensors: tuple[int, ...]
    arguments: tuple[str, ...]


@dataclass
class _Frame:
    """One call being walked: its start node, its direct child calls, what it took and returned."""

    start: Node
    name: str
    children: list["_Frame"] = field(default_factory=list)
    inputs: list[Traced] = field(default_factory=list)
    outputs: list[Traced] = field(default_factory=list)
    record: Optional[dict] = None
    """Its python_io record (Python-level calls, with the sidecar)."""
    nodes: list[Node] = field(default_factory=list)
    unfinished: bool = False
    """No function_end: the call raised."""

    @property
    def name_traced(self) -> str:
        return _name(self.start)


@dataclass(frozen=True)
class GraphRun:
    calls: list[Call]
    nodes: int
    mesh: tuple[int, ...]
    mesh_value: Any
    """The scenario's ``mesh``."""
    notes: tuple[str, ...]


def read_capture(path: Path, data: Any) -> GraphRun:
    """The top-level calls of a capture (``data``, read from ``path``) and its mesh."""
    file = str(path)
    nodes = parse_nodes(data.get("graph") if isinstance(data, dict) else data, file)
    records, notes = _sidecar(path, nodes)
    walk = _Walk(file, records)
    frames = walk.run(nodes)
    calls = fill_distributions([walk.call(f) for f in frames])
    arch = _arch(data)
    if walk.meshes:
        mesh = max(walk.meshes, key=lambda s: (_volume(s), len(s)))
        return GraphRun(calls, len(nodes), mesh, mesh_value(mesh, arch), notes)
    name, mesh = _system(arch, walk.devices)
    note = f"Mesh: the mesh shape is not recorded: {name}'s default mesh, {'x'.join(map(str, mesh))}, for {walk.devices} chips."
    return GraphRun(calls, len(nodes), mesh, name if name in SYSTEMS else list(mesh), notes + (note,))


def parse_nodes(graph: Any, file: str) -> list[Node]:
    if not isinstance(graph, list):
        raise ScenarioError("a graph capture holds a JSON object with a 'graph' list of nodes", file)
    nodes = []
    for i, n in enumerate(graph):
        where = f"graph[{i}]"
        if not isinstance(n, dict):
            raise ScenarioError(f"{where}: a node is a JSON object, got {type(n).__name__}", file)
        for key in ("counter", "node_type"):
            if key not in n:
                raise ScenarioError(f"{where}: missing key {key!r} (a node has counter, node_type, params, connections)", file)
        params = n.get("params") or {}
        lists = [n.get(k) or [] for k in ("connections", "input_tensors", "arguments")]
        if not isinstance(n["counter"], int) or not isinstance(n["node_type"], str) or not isinstance(params, dict):
            raise ScenarioError(f"{where}: counter is an integer, node_type a string, params an object or null", file)
        if not all(isinstance(v, list) for v in lists) or not all(isinstance(c, int) for c in lists[0] + lists[1]):
            raise ScenarioError(f"{where}: connections and input_tensors are lists of node counters, arguments a list", file)
        nodes.append(Node(n["counter"], n["node_type"], params, tuple(lists[0]), tuple(lists[1]), tuple(map(str, lists[2]))))
    return nodes


def _sidecar(path: Path, nodes: list[Node]) -> tuple[list, tuple[str, ...]]:
    """The python_io records, one per Python-level call start in order; none when the sidecar is
    missing or does not match the capture."""
    side = path.with_suffix(".python_io.json")
    try:
        kind = not_regular(side)
    except OSError:  # none there (or a link to nothing): the capture alone
        kind = "missing"
    if kind not in (None, "missing"):
        return [], (f"Sidecar: {side.name} is {kind}, not a regular file: not read (never opened), so topologies, torch shapes",
                    "and mesh mappers are not recorded.")
    if kind == "missing":
        return [], (
            f"Sidecar: no {side.name} beside it (ttnn/graph.py writes it), so topologies, torch shapes and mesh mappers",
            "are not recorded, and a host tensor a Python-level call returned is matched to its next use by spec.",
        )
    records = load_json(side)
    if not isinstance(records, list) or not all(_record(r) for r in records):
        raise ScenarioError("a python_io sidecar holds a list of {name, arguments, input_tensor_ids, output_tensor_ids}", str(side))
    starts = [_name(n) for n in nodes if n.node_type == "function_start" and _name(n).startswith("ttnn.")]
    if [r["name"] for r in records] != starts:
        return [], (f"Sidecar: {side.name} does not match the capture's Python-level calls, so it is not used.",)
    return records, (f"Sidecar: {side.name}, for topologies, torch shapes and mesh mappers.",)


def _record(r: Any) -> bool:
    """Whether ``r`` is a python_io record ttnn/graph.py writes."""
    return (
        isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("arguments", {}), dict)
        and all(isinstance(r.get(k, []), list) for k in ("input_tensor_ids", "output_tensor_ids"))
    )


def _name(n: Node) -> str:
    return str(n.params.get("name", ""))


class _Walk:
    """Walks the nodes in order: which tensor each tensor node is, and each call's frame."""

    def __init__(self, file: str, records: list) -> None:
        self.file = file
        self.records = list(reversed(records))
        self.live: dict[tuple, Hashable] = {}
        """(buffer type, address) -> the buffer there now."""
        self.ids: dict[int, Hashable] = {}
        """tensor_id -> tensor."""
        self.at: dict[int, Traced] = {}
        """Tensor node counter -> the tensor as it was there."""
        self.freed: dict[int, Traced] = {}
        """buffer_deallocate node counter -> the device tensor whose buffer it freed."""
        self.latest: dict[Hashable, Traced] = {}
        self.meshes: list[tuple[int, ...]] = []
        self.devices = 0
        self.awaiting: list[Hashable] = []
        """Host results of Python-level calls with no python_io record: the id they got is not known."""

    def run(self, nodes: list[Node]) -> list[_Frame]:
        """The top-level calls' frames (capture_start's calls), each with its child calls."""
        top: list[_Frame] = []
        stack: list[_Frame] = []
        ended: list[tuple[_Frame, Node]] = []  # a call's result nodes come right after its end
        for n in nodes:
            if n.node_type != "tensor":
                for frame, end in ended:
                    self._end(frame, end)
                ended = []
            if stack:
                stack[-1].nodes.append(n)
            if n.node_type == "function_start":
                frame = _Frame(n, CPP_CALLS.get(_name(n), _name(n)))
                if _name(n).startswith("ttnn.") and self.records:
                    frame.record = self.records.pop()
                (stack[-1].children if stack else top).append(frame)
                stack.append(frame)
            elif n.node_type == "function_end" and stack and _name(n) == stack[-1].name_traced:
                ended.append((stack.pop(), n))
            elif n.node_type == "tensor":
                self._tensor(n)
            elif n.node_type in ("buffer_allocate", "buffer_deallocate"):
                self._buffer(n)
        for frame, end in ended:
            self._end(frame, end)
        for frame in stack:
            frame.unfinished = True
        return top

    def _tensor(self, n: Node) -> None:
        p = n.params
        tid = p.get("tensor_id")
        if not isinstance(tid, (int, type(None))) or not isinstance(p.get("address", 0), int) or not isinstance(p.get("buffer_type", 0), (int, type(None))):
            raise ScenarioError(f"node {n.counter}: a tensor node's tensor_id, address and buffer_type are integers", self.file)
        kind = storage(p["storage_type"], f"node {n.counter}", self.file) if "storage_type" in p else "host"
        if kind == "device" and "address" in p:
            where = (p.get("buffer_type"), p["address"])
            key = self.live.get(where, ("buffer", *where))
        else:
            key = self.ids.get(tid) or self._unjoined(n) or ("host", tid)
        if isinstance(tid, int):
            self.ids[tid] = key
        self.at[n.counter] = self.latest[key] = self._traced(n, key, kind)

    def _traced(self, n: Node, key: Hashable, storage: str) -> Traced:
        p = n.params
        try:
            shape = int_list(str(p["shape"]))
            dtype, layout = enum_name(p["dtype"]), enum_name(p["layout"])
        except (KeyError, ValueError):
            raise ScenarioError(f"node {n.counter}: a tensor node has shape (Shape([...])), dtype and layout", self.file) from None
        devices = _count(p.get("device_tensors"))
        self.devices = max(self.devices, devices or 0)
        return Traced(key, storage, shape, dtype, layout, _memory(p), None, None, devices)

    def _buffer(self, n: Node) -> None:
        where = (n.params.get("buffer_type"), n.params.get("address"))
        if not all(isinstance(x, (int, type(None))) for x in where):
            raise ScenarioError(f"node {n.counter}: a {n.node_type} node's address and buffer_type are integers", self.file)
        if n.node_type == "buffer_allocate":
            self.live[where] = ("buffer", *where, n.counter)
            return
        key = self.live.pop(where, ("buffer", *where))
        if key in self.latest:
            self.freed[n.counter] = self.latest[key]

    def _end(self, frame: _Frame, end: Node) -> None:
        outs = [self.at[c] for c in end.connections if c in self.at]
        if frame.name.startswith("ttnn."):  # a Python-level call: its C++ callees take its tensors
            inputs = [t for child in frame.children for t in child.inputs]
            outs = outs or (frame.children[-1].outputs if frame.children else [])
        else:
            inputs = [self.at[c] for c in frame.start.input_tensors if c in self.at]
        if frame.name in ("ttnn.deallocate", "Tensor.deallocate") and not inputs:
            inputs = [self.freed[n.counter] for n in frame.nodes if n.counter in self.freed]
        frame.inputs = _unique(inputs)
        frame.outputs = [] if frame.name in RETURNS_NOTHING else outs
        if frame.record is not None:
            self._join(frame)
        elif frame.name.startswith("ttnn."):
            self.awaiting += [t.key for t in frame.outputs if t.storage == "host"]

    def _unjoined(self, n: Node) -> Optional[Hashable]:
        """Without the sidecar, a host tensor id never seen is taken to be the latest host result
        of a Python-level call with the same spec (that call gave it a new id)."""
        p = n.params
        for key in reversed(self.awaiting):
            t = self.latest[key]
            if str(p.get("shape")) == "Shape([" + ", ".join(map(str, t.shape)) + "])" and enum_name(p.get("dtype", "")) == t.dtype:
                self.awaiting.remove(key)
                return key
        return None

    def _join(self, frame: _Frame) -> None:
        """What the call's python_io record adds: the ids its results get, its arguments' topologies."""
        r = frame.record
        for tid, t in zip(r.get("output_tensor_ids") or [], frame.outputs):
            if isinstance(tid, int):
                self.ids[tid] = t.key
        topology = {}
        for value in (r.get("arguments") or {}).values():
            s = _summary(str(value), self.file)
            if s.get("tensor_id") in self.ids and "distribution" in s:
                topology[self.ids[s["tensor_id"]]] = s["distribution"]
            if s.get("mesh"):
                self.meshes.append(s["mesh"])
        ids = [self.ids[i] for i in r.get("input_tensor_ids") or [] if isinstance(i, int) and i in self.ids]
        inputs = [self.latest[k] for k in ids if k in self.latest] or frame.inputs
        frame.inputs = [replace(t, distribution=topology[t.key]) if t.key in topology else t for t in inputs]

    def call(self, frame: _Frame) -> Call:
        """A top-level call's frame as a :class:`Call`, named by its function_start node."""
        source = f"node {frame.start.counter}"
        if frame.unfinished:
            return Call(source, frame.name, error="it did not finish: the capture has no function_end for it (it raised)")
        args = {str(k): str(v) for k, v in ((frame.record or {}).get("arguments") or {}).items()}
        recorded = frame.record is not None  # what the python_io record says, else not known
        return Call(
            source,
            frame.name,
            tuple(frame.inputs),
            tuple(frame.outputs),
            global_shape=_torch(args.get("0") or args.get("tensor")),
            result_shape=_result_shape(frame),
            mapper=_mapper(args.get("mesh_mapper")) if recorded else UNKNOWN,
            composer=("mesh_composer" in args and args["mesh_composer"] != "None") if recorded else None,
            memory_config=_memory_text(args["memory_config"]) if "memory_config" in args else None,
            fill_value=_number(args.get("fill_value") or args.get("1")),
            file_name=args.get("file_name") or args.get("cache_file_name") or (args.get("0") if frame.name in ("ttnn.dump_tensor", "ttnn.load_tensor") else None),
        )


def _count(device_tensors: Any) -> Optional[int]:
    """How many entries a tensor node's ``device_tensors`` (a JSON string) has."""
    if not isinstance(device_tensors, str):
        return None
    try:
        entries = json.loads(device_tensors)
    except ValueError:
        return None
    return len(entries) if isinstance(entries, list) else None


def _unique(ts: list[Traced]) -> list[Traced]:
    seen, out = set(), []
    for t in ts:
        if t.key not in seen:
            seen.add(t.key)
            out.append(t)
    return out


def _memory(p: dict) -> Memory:
    if "memory_config" in p:
        return _memory_text(str(p["memory_config"]))
    return Memory(BUFFER_TYPES.get(p.get("buffer_type"), "dram"))


def _memory_text(text: str) -> Memory:
    """``MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1,...)``."""
    layout = re.search(r"memory_layout=TensorMemoryLayout::(\w+)", text)
    buffer = re.search(r"buffer_type=BufferType::(\w+)", text)
    return Memory(buffer.group(1).lower() if buffer else "dram", layout.group(1).lower() if layout else "interleaved")


def _summary(text: str, file: str) -> dict:
    """A python_io argument summary (``graph._ttnn_tensor_summary``, ``MeshDevice(2x4 grid, ...)``)."""
    out: dict = {}
    if text.startswith("MeshDevice("):
        m = re.match(r"MeshDevice\((\d+(?:x\d+)*) grid", text)
        if m:
            out["mesh"] = tuple(int(x) for x in m.group(1).split("x"))
        return out
    if not text.startswith("ttnn.Tensor("):
        return out
    tid = re.search(r"\btensor_id=(\d+)", text)
    if tid:
        out["tensor_id"] = int(tid.group(1))
    mesh = re.search(r"\bmesh_shape=MeshShape\(\[([\d, ]*)\]\)", text)
    if mesh:
        out["mesh"] = int_list(mesh.group(0))
    dist = re.search(r"\bdistribution_shape=MeshShape\(\[([\d, ]*)\]\)", text)
    ps = re.search(r"\bplacements=\[([^\]]*)\]", text)
    if dist and ps:
        items = re.findall(r"Placement\w+(?:\(-?\d*\))?", ps.group(1))
        placements = tuple(placement(p, "placements", file) for p in items)
        shape = int_list(dist.group(0))
        coords = tuple(int_list(c) for c in re.findall(r"MeshCoordinate\(\[[\d, ]*\]\)", text))
        if len(placements) == len(shape) and shape and min(shape) >= 1:
            out["distribution"] = Distribution(shape, placements, coords or None)
    return out


def _torch(text: Optional[str]) -> Optional[tuple[int, ...]]:
    """``torch.Tensor(shape=[1, 1, 32, 256], dtype=torch.float32)`` -> its shape."""
    if text and text.startswith("torch.Tensor(shape="):
        return int_list(text)
    return None


def _mapper(text: Optional[str]) -> Optional[str]:
    """``<ttnn._ttnn.multi_device.CppTensorToMesh object at 0x...>`` -> ``CppTensorToMesh``."""
    if text is None or text == "None":
        return None
    m = re.match(r"<([\w.]+) object", text)
    return m.group(1).split(".")[-1] if m else "mapper"


def _number(text: Optional[str]) -> Optional[float]:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return int(value) if value is not None and value.is_integer() and "." not in str(text) else value


def _result_shape(frame: _Frame) -> Optional[tuple[int, ...]]:
    """to_torch's result: ``convert_tt_tensor_to_framework_tensor(RowMajorHostBuffer(<HostBuffer>, {1, 7, 32, 32}, ...))``."""
    for child in frame.children:
        if child.name.endswith("convert_tt_tensor_to_framework_tensor") and child.start.arguments:
            try:
                return int_list(child.start.arguments[0])
            except ValueError:
                return None
    return None


def _arch(data: Any) -> Optional[str]:
    devices = data.get("devices") if isinstance(data, dict) else None
    if isinstance(devices, list) and devices and isinstance(devices[0], dict) and devices[0].get("arch"):
        return str(devices[0]["arch"]).lower()
    return None


def _system(arch: Optional[str], devices: int) -> tuple[str, tuple[int, ...]]:
    """The system of ``arch`` with ``devices`` chips and its default mesh (a 1xN mesh of Wormhole
    chips when there is none)."""
    name = system_of(arch or "wormhole_b0", devices)
    if name is None:
        return "a bare mesh", (1, max(devices, 1))
    return name, tuple(SYSTEMS[name].shape)


def _volume(shape: tuple[int, ...]) -> int:
    n = 1
    for x in shape:
        n *= x
    return n
