"""The simulated TT-NN runtime's state: the mesh, the tensors by name, memory accounting, and the
events each step leaves for the judge.

Ops (:mod:`meshspec.sim.ops`) change this state through the primitives here (new buffers,
writes, record updates, bindings); what gets *written* is the same under every profile, what
gets *recorded* follows the profile's rules. The runtime never judges: it records events.
Errors the real library raises are :class:`~meshspec.errors.TTFatal`.
"""

from __future__ import annotations

import functools
import os
import weakref
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional, Union

from ..errors import Crash, ResourceLimit, StepInputError, TTFatal
from .device import MemoryPool, MeshBuffer, Write
from .events import Event, Retired, UseAfterFree as UseAfterFreeEvent
from .steps import ReadBack, StepResult, Wrote
from .faults import Fault, FaultKind
from .hosts import Hosts
from .mapping import replicate_all
from .mesh import Coord, Shape, coords, fmt_coord, ttnn_shape, volume
from .meshdevice import ROOT, MeshDevice
from .placement import Replicate, Topology
from .profiles import BankCheck, BlockFloatRowMajor, DramGridRows, FreedTransfer, HostBufferShape, Profile, ReplicatedDistribution, ShardGrid, UnitMesh
from .allocator import Allocators
from .sharding import clamped, grid_error, misplaced_cores, nd_allocation_error
from .chips import Chips
from .spec import Arch, BufferType, TensorSpec, make_spec
from .tensor import DeviceTensor, HostShard, HostTensor, Record, Tensor, spec_runs


def in_memory(spec: TensorSpec, memory: tuple) -> TensorSpec:
    """``spec`` in a destination's memory config. A copy never checks the memory config (ttnn
    0.81.1, docs/semantics.md section 11): a shard the destination's shard spec does not fit is
    written interleaved, page for page."""
    try:
        return spec.with_memory(*memory)
    except TTFatal:
        return spec.with_memory(memory[0])


class UseAfterFree(TTFatal):
    """A deallocated tensor was used; also recorded as an event for the judge."""


class UseAfterFreeCrash(UseAfterFree, Crash):
    """A use after free the real library does not check: the process dies (SIGSEGV)."""


SIGSEGV = "SIGSEGV"
UNCHECKED = ""
FREED_USE: dict[str, str] = {
    **dict.fromkeys(("cpu", "to_torch", "copy_host_to_device_tensor", "copy_device_to_host_tensor", "dump_tensor", "empty_like",
                     "zeros_like", "concat", "all_gather", "neg", "exp", "relu", "gelu", "to_layout", "untilize", "clone"), SIGSEGV),
    **dict.fromkeys(("deallocate", "get_device_tensors", "to_device", "to", "reduce_scatter"), UNCHECKED),
    **dict.fromkeys(("update_tensor_topology", "squeeze", "unsqueeze", "reshape", "view", "reallocate"), "Tensor is not allocated"),
    **dict.fromkeys(("permute", "slice", "pad", "transpose", "typecast", "to_memory_config"), "Input Tensor is not allocated"),
    **dict.fromkeys(("add", "sub", "mul"), "Input Tensor {operand} is not allocated"),
    **dict.fromkeys(("matmul", "linear"), "Operand to matmul must be on device"),
    **dict.fromkeys(("sum", "max"), "input_tensor.device() == nullptr, No device found, move input_tensor to device"),
    "combine_device_tensors": "All DeviceStorages must be allocated",
    "all_reduce": "Mesh device is required for all_reduce operation",
}
"""What ttnn 0.81.1 does when an op is given a deallocated tensor, observed in mock mode op by op
(tests/golden/ttnn_0_81_1_freed.json, recorded by tools/golden/record_freed.py; docs/semantics.md
section 6): :data:`SIGSEGV`, the process dies; :data:`UNCHECKED`, nothing checks and the call runs
on the freed buffer; else the first line of ttnn's error (``{operand}``: A or B, the operand that was
freed). An op not listed was not observed: meshspec stops the run there and claims nothing of ttnn."""

FREED_USE_CHECKED: dict[str, str] = {
    **dict.fromkeys(("cpu", "to_torch", "dump_tensor"), "Buffer must be allocated on device!"),
    **dict.fromkeys(("copy_host_to_device_tensor", "copy_device_to_host_tensor"), "Buffer must be allocated on device."),
    **dict.fromkeys(("deallocate", "get_device_tensors", "to_device", "to", "squeeze", "unsqueeze", "reshape", "view", "all_gather",
                     "all_reduce", "reduce_scatter"), UNCHECKED),
    **dict.fromkeys(("zeros_like", "permute", "slice", "concat", "pad", "neg", "exp", "relu", "gelu", "add", "sub", "mul", "matmul",
                     "linear", "sum", "max", "transpose", "typecast", "to_layout", "untilize", "clone", "reallocate",
                     "to_memory_config"), "Buffer is not allocated"),
    "combine_device_tensors": "Error aggregating multichip tensors: tensors shards must be allocated on a mesh buffer.",
}
"""What ttnn 0.66.0 and 0.67.0 do when an op is given a deallocated tensor (a profile with
``freed_transfer: checked``), observed in mock mode op by op as :data:`FREED_USE` was
(tests/golden/ttnn_0_6*_0_freed.json, the two alike): the host reads and copies check the buffer,
every device op checks it before it runs (``Buffer is not allocated``, where 0.81.1 crashes at
some), and the views are made on the freed buffer unchecked."""

CONTINUES = frozenset({"get_device_tensors", "to_device", "to"})
"""Unchecked uses meshspec carries on through (they make handles on the freed buffer and read no
data: their later uses are use after free again); ``deallocate`` twice is the judge's double free."""
CONTINUES_CHECKED = CONTINUES | {"squeeze", "unsqueeze", "reshape", "view"}
"""Under ``freed_transfer: checked`` the views too are made on the freed buffer (0.66.0, 0.67.0)."""


class Runtime:
    """The state of one simulated run (mutable: the ops change it)."""

    def __init__(
        self,
        mesh_shape: Shape,
        profile: Profile,
        folder: Path = Path("."),
        *,
        arch: Arch = Arch.WORMHOLE_B0,
        files: Optional[dict[str, Path]] = None,
        with_data: bool = True,
        pool: Optional[MemoryPool] = None,
        max_memory: Optional[int] = None,
        max_work: Optional[int] = None,
        fault: Optional[Fault] = None,
        system_shape: Optional[Shape] = None,
        banks: Optional[tuple[tuple[int, int], int]] = None,
        hosts: Optional[Hosts] = None,
        chips: Optional[Chips] = None,
    ) -> None:
        self.hosts = hosts
        """The hosts the mesh is spread over and the one this run is (None: one host owns every
        device; docs/semantics.md section 15)."""
        self.meshes: dict[str, MeshDevice] = {ROOT: MeshDevice(ROOT, mesh_shape, chips=chips)}
        if system_shape is not None:
            self.root.system_shape = tuple(system_shape)
        """Mesh devices by name: the scenario's (``mesh_device``) and the submeshes steps made."""
        self.profile = profile
        self.folder = folder
        """Where relative data files are read from (the scenario's folder)."""
        self.arch = arch
        """The chips' architecture (buffer alignment)."""
        self.banks = banks
        """A chip's worker grid and DRAM bank count, where known: the cores a shard grid may name."""
        self._l1_banks = banks[0][0] * banks[0][1] if banks is not None else None
        self.capturing: Optional[str] = None
        self.graph_capture = False
        """Between ttnn.graph.begin_graph_capture and end_graph_capture: every device op's tensors are tracked."""
        """The trace being captured (begin_trace_capture), if any."""
        self.traces: dict[str, list] = {}
        """Trace name -> its captured steps: (op, arguments, the output tensor made at capture)."""
        self.allocators: dict[int, Allocators] = {}
        """Where buffers go on the devices: per mesh device (by id), one lockstep table per buffer
        type. A submesh allocates with its own, blind to its parent's buffers (ttnn 0.81.1,
        observed: scenarios/submesh-copy.yaml, where both take the lowest DRAM address)."""
        self.files: dict[str, Path] = files or {}
        """Data file names as written -> the files to open (checked by the loader)."""
        self.with_data = with_data
        """False: metadata mode (shapes, records and written pages; no values, no buffers)."""
        self.pool = pool or MemoryPool()
        """What never-written device memory holds (poison, zeros, or reused freed bytes)."""
        self.max_memory = max_memory if max_memory is not None else default_max_memory()
        """Bytes of host and device data, and of device records, a run may hold; a step that needs
        more is refused."""
        self.max_work = max_work if max_work is not None else MAX_WORK
        """Device operations a run may do (:meth:`charge_work`); a step that would do more is refused."""
        self.work = 0
        """Device operations done so far."""
        self.fault = fault
        """A fault to inject (testing meshspec's detectors; see faults.py)."""
        self.tensors: dict[str, Tensor] = {}
        self.lists: dict[str, tuple[str, ...]] = {}
        """A name bound to several tensors (``get_device_tensors(t)`` as ``parts``): their names,
        ``parts[0]`` ...; a step naming the list means them all, in order."""
        self.mesh_lists: dict[str, tuple[str, ...]] = {}
        """A name bound to several submeshes (``create_submeshes`` as ``subs``): ``subs[0]`` ..."""
        self.tensor_files: dict[str, object] = {}
        """``.tensorbin`` files written by dump_tensor (in memory: a run never writes a file)."""
        self.events: list[Event] = []
        """What steps did that the judge must see, in order (see events.py)."""
        self.log: list[Union[Wrote, ReadBack]] = []
        """The current step's writes and reads back, in order (a new list each step: kept for the
        whole run, a 256x256 mesh's log grew by a 65,536-entry dict a copy, 2.6 MB)."""
        self.last: Optional[StepResult] = None
        """What the last step did (:meth:`end`), also when it failed."""
        self.ops: dict[int, str] = {}
        """Step index -> op name, for every step begun."""
        self.step = -1
        """The step being executed."""
        self.args: object = None
        """Its typed arguments (which operand a freed tensor is, for ttnn's words)."""
        self.touched: set[str] = set()
        """Names the current step bound, wrote, read or freed."""
        self._buffers = 0
        self._held = [0]
        """Bytes reserved now (a list: a buffer's finalizer returns its charge into it without
        holding the runtime, which a finalizer holding a bound method would keep alive)."""

    # -- steps ---------------------------------------------------------------------------------
    def begin(self, index: int, op: str, args: object = None) -> None:
        """Start step ``index`` (op ``op``, its typed ``args``)."""
        self.step = index
        self.args = args
        self.ops[index] = op
        self.touched = set()
        self.log = []
        self.events = []

    def end(self) -> StepResult:
        """Finish the current step: apply an injected record fault to what it wrote, and say what
        the step did (kept as :attr:`last`)."""
        writes = tuple(e for e in self.log if isinstance(e, Wrote))
        if self.fault is not None and self.fault.step == self.step and self.fault.kind is not FaultKind.SKIP_WRITE:
            for name in {w.tensor for w in writes}:
                t = self.tensors.get(name)
                if isinstance(t, DeviceTensor):
                    self._apply_fault(t.record)
        self.last = StepResult(self.step, self.op, writes, tuple(e for e in self.log if isinstance(e, ReadBack)),
                               frozenset(self.touched), tuple(self.events))
        return self.last

    def _apply_fault(self, rec: Record) -> None:
        fault = self.fault
        assert fault is not None
        if fault.kind is FaultKind.DROP_RECORD:
            rec.recorded = tuple(c for c in rec.recorded if c != fault.coord)
        elif fault.kind is FaultKind.ALTER_SHAPE and fault.coord in rec.specs:
            spec = rec.specs[fault.coord]
            bigger = spec.shape[:-1] + (spec.shape[-1] + spec.page_shape[1],)  # one more page column
            rec.specs[fault.coord] = make_spec(bigger, spec.dtype, spec.layout, spec.tile, spec.memory, spec.arch)

    @property
    def op(self) -> str:
        return self.ops.get(self.step, "?")

    # -- names ---------------------------------------------------------------------------------
    # One name means one thing at a time, as a Python variable does: a tensor, a list of tensors,
    # a mesh device or a list of them. Binding a name ends what it meant before; a tensor that
    # goes that way is retired (its lies stay in the report).
    def bind(self, name: str, tensor: Tensor) -> None:
        """Give ``tensor`` the name ``name``; a tensor that had the name goes away (its lies stay)."""
        self._forget(name, keep_tensor=True)
        old = self.tensors.get(name)
        self.tensors[name] = tensor
        self.touched.add(name)
        if old is not None and old is not tensor:
            self._retire(name, old)

    def bind_list(self, name: str, tensors: list[Tensor]) -> None:
        """Bind ``name[0]``, ``name[1]`` ... to ``tensors``, and ``name`` to the list of them."""
        self._forget(name)
        names = tuple(f"{name}[{i}]" for i in range(len(tensors)))
        for n, t in zip(names, tensors):
            t.name = n
            self.bind(n, t)
        self.lists[name] = names

    def bind_mesh(self, name: str, mesh: MeshDevice) -> None:
        """Give a mesh device (a submesh) the name ``name``."""
        self._forget(name)
        self.meshes[name] = mesh

    def bind_meshes(self, name: str, meshes: list[MeshDevice]) -> None:
        """Bind ``name[0]`` ... to ``meshes`` (``create_submeshes``) and ``name`` to the list."""
        self._forget(name)
        for m in meshes:
            self.meshes[m.name] = m
        self.mesh_lists[name] = tuple(m.name for m in meshes)

    def _forget(self, name: str, keep_tensor: bool = False) -> None:
        """End what ``name`` meant: a list's items go (a shorter list rebound leaves no old item to
        read), a mesh's name is free; a tensor goes unless it is being rebound (``bind`` retires it)."""
        for item in self.lists.pop(name, ()):
            old = self.tensors.pop(item, None)
            if old is not None:
                self._retire(item, old)
        for item in self.mesh_lists.pop(name, ()):
            self.meshes.pop(item, None)
        self.meshes.pop(name, None)
        if not keep_tensor and name in self.tensors:
            self._retire(name, self.tensors.pop(name))

    def _retire(self, name: str, old: Tensor) -> None:
        self.touched.add(name)
        self.events.append(Retired(self.step, name, old, f"step {self.step} ({self.op}) rebound the name {name!r}"))

    def update(self, name: str, tensor: Tensor) -> None:
        """``name`` is the same ttnn object in a new state (a host tensor a copy wrote into): no
        tensor went away, so nothing is retired."""
        self.tensors[name] = tensor
        self.touched.add(name)

    def item(self, name: str) -> Tensor:
        """The tensor ``name`` names; ``parts[7]`` past the end of its list is ttnn's IndexError."""
        if name not in self.tensors and name.endswith("]") and "[" in name:
            base = name[: name.index("[")]
            n = len(self.lists.get(base, ()))
            raise StepInputError(f"list index out of range: {name} (the step that bound {base} made {n} tensor{'s' * (n != 1)})")
        return self.tensors[name]

    def device(self, name: str, refused: str = "") -> DeviceTensor:
        """The live device tensor ``name``; using a deallocated one fails as use after free: with
        the real library's error ``refused`` where it checks, else as the crash it is."""
        t = self._device_item(name)
        if t.freed_step is not None:
            table = FREED_USE_CHECKED if self.profile.freed_transfer is FreedTransfer.CHECKED else FREED_USE
            self._freed_use(name, refused or table.get(self.op))
        return t

    def device_unchecked(self, name: str) -> DeviceTensor:
        """The device tensor ``name`` for a call this era does not check for a freed buffer (the
        profile's rule says which): a freed one is used as it is, and the judge still sees the use."""
        t = self._device_item(name)
        if t.freed_step is not None:
            msg = f"{freed_by(t)}; {self.op} uses it after free (this profile's ttnn does not check it and runs on the freed buffer)"
            self.events.append(UseAfterFreeEvent(self.step, self.op, name, msg))
        return t

    def _device_item(self, name: str) -> DeviceTensor:
        """The device tensor ``name``, touched by this step, freed or not."""
        t = self.item(name)
        if not isinstance(t, DeviceTensor):
            raise StepInputError(f"{name} is a host tensor; {self.op} needs a device tensor here")
        self.touched.add(name)
        return t

    def field_spec(self, fields) -> TensorSpec:
        """The spec a step's tensor fields describe on this runtime's arch, as this era makes one
        (a ROW_MAJOR block float only under ``block_float_row_major: allocated``, section 23)."""
        return fields.spec(self.arch, row_major_block_float=self.profile.block_float_row_major is BlockFloatRowMajor.ALLOCATED)

    def _freed_use(self, name: str, seen: Optional[str]) -> None:
        """A use of the freed tensor ``name``, as the era answers it (:data:`FREED_USE`, or
        :data:`FREED_USE_CHECKED` under ``freed_transfer: checked``): its
        error, its crash, or (unchecked) nothing; always a use_after_free event for the judge."""
        why = f"{freed_by(self.item(name))}; {self.op} uses it after free"
        checked = self.profile.freed_transfer is FreedTransfer.CHECKED
        era, does, runs = ("ttnn 0.66.0 and 0.67.0", "do", "run") if checked else ("ttnn 0.81.1", "does", "runs")
        if seen == SIGSEGV:
            msg = f"{why} (ttnn 0.81.1 crashes here: SIGSEGV, observed in mock mode)"
        elif seen == UNCHECKED:
            msg = f"{why} ({era} {does} not check it and {runs} on the freed buffer, observed in mock mode)"
        elif seen is None:
            msg = f"{why} (meshspec stops the run here; what {era} {does} with a freed tensor in {self.op} was not observed)"
        else:
            operand = "B" if getattr(self.args, "b", None) == name and getattr(self.args, "a", None) != name else "A"
            msg = f"{seen.format(operand=operand)}; {why}"
        self.events.append(UseAfterFreeEvent(self.step, self.op, name, msg))
        if seen == SIGSEGV:
            raise UseAfterFreeCrash(msg, SIGSEGV)
        continues = CONTINUES_CHECKED if checked else CONTINUES
        if seen == UNCHECKED and self.op in continues:
            return
        raise UseAfterFree(msg)

    def host(self, name: str) -> HostTensor:
        t = self.item(name)
        if not isinstance(t, HostTensor):
            raise StepInputError(f"{name} is a device tensor; {self.op} needs a host tensor here")
        return t

    def host_with_shards(self, name: str) -> HostTensor:
        """A host tensor that has something to write."""
        host = self.host(name)
        if not host.shards:
            raise TTFatal(
                f"{self.op}: host tensor {name} has no shards (it was read back from {host.read_from}, which records "
                "no device); there is nothing to write"
            )
        return host

    # -- the mesh ------------------------------------------------------------------------------
    @property
    def root(self) -> MeshDevice:
        return self.meshes[ROOT]

    @property
    def mesh_shape(self) -> Shape:
        """The scenario's mesh, as it is now (``MeshDevice.reshape`` changes it)."""
        return self.root.shape

    @property
    def all_coords(self) -> tuple[Coord, ...]:
        return tuple(coords(self.mesh_shape))

    def mesh(self, name: Optional[str] = None) -> MeshDevice:
        """The mesh device ``name`` (the scenario's own without a name); ``subs[2]`` past the end
        of its list is Python's IndexError."""
        name = name or ROOT
        if name not in self.meshes and name.endswith("]") and "[" in name:
            base = name[: name.index("[")]
            n = len(self.mesh_lists.get(base, ()))
            raise StepInputError(f"list index out of range: {name} (the step that bound {base} made {n} submesh{'es' * (n != 1)})")
        return self.meshes[name]

    def is_local(self, mesh: MeshDevice, c: Coord) -> bool:
        """Whether this host owns device ``c`` of ``mesh`` (``MeshDevice::is_local``): every device
        does on one host; on several, the device of the scenario's mesh it is (a submesh's
        coordinate shifted by where the submesh lies)."""
        if self.hosts is None:
            return True
        return self.hosts.is_local(tuple(a + x for a, x in zip(mesh.at, c)))

    def mesh_of(self, dev: DeviceTensor) -> MeshDevice:
        return dev.mesh if dev.mesh is not None else self.root

    def names(self, name: str) -> tuple[str, ...]:
        """The tensor names ``name`` stands for: a list's items, or itself."""
        return self.lists.get(name, (name,))

    def reserve(self, nbytes: int, what: Callable[[], str]) -> None:
        """Account for ``nbytes`` of host or device data; refuse past ``max_memory``. ``what()``
        names the data in the refusal (called only to refuse: most reservations pass)."""
        if self._reserved + nbytes > self.max_memory:
            held = f" on top of the {fmt_bytes(self._reserved)} already held" if self._reserved else ""
            hint = ("run with --no-data (records and written pages only, the same findings, data_mismatch judged from "
                    "written pages, not values) or use a smaller shape") if self.with_data else (
                    "records cost about 1 KiB a device of each live buffer: raise --max-memory, use a smaller mesh, "
                    "or deallocate tensors no longer needed")
            raise ResourceLimit(
                f"{what()} needs {fmt_bytes(nbytes)}{held}, over meshspec's memory limit of {fmt_bytes(self.max_memory)} "
                f"(--max-memory; default half the machine's RAM); {hint}"
            )
        self._reserved += nbytes

    def release(self, nbytes: int) -> None:
        self._reserved -= nbytes

    @property
    def _reserved(self) -> int:
        return self._held[0]

    @_reserved.setter
    def _reserved(self, n: int) -> None:
        self._held[0] = n

    def _settle(self, charge: list) -> None:
        """Return a buffer's ``charge`` (once: by a free, or when nothing holds the buffer)."""
        _settle(self._held, charge)

    def charge_records(self, devices: int, what: str) -> list:
        """Charge what meshspec keeps for ``devices`` devices of a new tensor (its shards or records:
        :data:`RECORD_BYTES` each, and a work unit each) before they are made; the charge,
        for :meth:`hold`."""
        self.charge_work(devices, f"making {what}")
        nbytes = devices * RECORD_BYTES
        self.reserve(nbytes, lambda: f"{what} (their records)")
        return [nbytes]

    def hold(self, owner: object, charge: list) -> None:
        """``charge`` is returned when nothing holds ``owner`` any more (a rebound name's tensor)."""
        weakref.finalize(owner, _settle, self._held, charge)

    def charge_work(self, devices: int, what: str, nbytes: int = 0) -> None:
        """Count the work units of an operation on ``devices`` devices moving ``nbytes`` bytes in
        all, as :func:`work_bytes` counts them (a buffer made, a write, a read, a host tensor's
        shards): one unit a device, plus one per :data:`WORK_BYTES` moved in data mode (metadata
        mode moves none); refuse one that would
        take the run past ``max_work``. This bounds a run's time whatever repeats, traces, mesh
        sizes or shapes multiply (issue 34: a trace replayed 4,096 times on a 64x64 mesh ran 28
        minutes; 4,096 copies of one 4 MiB tensor to a 1x1 mesh ran past 2 minutes)."""
        units = devices + (nbytes // WORK_BYTES if self.with_data else 0)
        if self.work + units > self.max_work:
            raise ResourceLimit(
                f"step {self.step} ({self.ops.get(self.step, '?')}): {what} on {devices:,} device(s) ({units:,} work units) would take "
                f"the run past meshspec's work bound of {self.max_work:,} work units (one a device of each buffer made, write "
                f"or read, plus one per 16 KiB of data moved or KiB of block floats; {self.work:,} done so far); raise it with --max-work, or use a "
                "smaller mesh, shape or fewer repeats"
            )
        self.work += units

    def new_buffer(self, spec: TensorSpec, mesh: Optional[MeshDevice] = None) -> MeshBuffer:
        """A mesh buffer of ``spec`` on every device of ``mesh`` (the same size everywhere)."""
        shape = (mesh or self.root).shape
        if spec.shard is not None and (spec.shard.is_nd or spec.shard.nd_shape is not None):  # buffer_distribution_spec.cpp
            error = nd_allocation_error(spec.shard, spec.padded_shape, spec.page_shape)
            if error is not None:
                raise TTFatal(error)
        if spec.shard is not None and self.banks is not None:  # checked when the buffer is made (buffer.cpp)
            error = grid_error(spec.shard, spec.memory is BufferType.DRAM, *self.banks, *self._grid_checks())
            if error is not None:
                raise TTFatal(error)
        allocators = self.allocators.get(id(mesh or self.root))
        if allocators is None:
            allocators = self.allocators[id(mesh or self.root)] = Allocators(self.arch, self._l1_banks)
        devices = volume(shape)
        # its data (data mode) and, in either mode, what meshspec keeps per device of a buffer:
        # both are charged before the buffer is made, and returned when it is freed or dropped
        nbytes = ((spec.allocated_bytes if self.with_data else 0) + RECORD_BYTES) * devices
        address = allocators.allocate(spec)
        try:
            self.reserve(nbytes, lambda: f"a buffer of {spec.describe()} on every device" + ("" if self.with_data else " (its records)"))
        except ResourceLimit:
            allocators.free(spec, address)
            raise
        try:  # (after the memory: a buffer too large for it is refused with the --no-data hint)
            self.charge_work(devices, f"a buffer of {spec.describe()}", work_bytes(spec, spec.allocated_bytes) * devices)
        except ResourceLimit:
            self.release(nbytes)
            allocators.free(spec, address)
            raise
        self._buffers += 1
        buffer = MeshBuffer(self._buffers, spec, shape, self.step, self.pool, self.with_data)
        buffer.address, buffer.allocator = address, allocators
        buffer.single_device = devices == 1 and self.profile.unit_mesh is UnitMesh.SINGLE_DEVICE
        buffer.charge[0] = nbytes
        weakref.finalize(buffer, _settle, self._held, buffer.charge)  # (a rebound name's buffer goes when nothing holds it)
        return buffer

    def _grid_checks(self) -> tuple[bool, bool]:
        """Whether a DRAM grid off row 0, and a core with no bank, are refused in this era (section 16)."""
        p = self.profile
        return p.dram_grid_rows is DramGridRows.ROW_ZERO, p.bank_check is BankCheck.CHECKED

    def misplaced(self, spec: TensorSpec) -> frozenset:
        """The cores of ``spec``'s grid whose pages a write does not leave where the spec says, in an
        era that takes a grid it cannot place (:func:`.sharding.misplaced_cores`); empty when none."""
        rows, banks = self._grid_checks()
        if spec.shard is None or spec.shard.is_nd or self.banks is None or (rows and banks):
            return frozenset()
        holding = tuple(core for core, pages in spec.core_pages if pages)
        return misplaced_cores(holding, spec.memory is BufferType.DRAM, *self.banks, rows, banks)

    def placed(self, spec: TensorSpec) -> TensorSpec:
        """``spec`` as this era records it: under the ``shard_grid`` rule ``clamped``, its shard grid
        cut to the cores that hold a page (PR #55112; docs/semantics.md section 16)."""
        if spec.shard is None or self.profile.shard_grid is ShardGrid.AS_GIVEN:
            return spec
        cut = clamped(spec.shard, spec.physical_shape, spec.page_shape)
        return spec if cut is spec.shard else spec.with_memory(spec.memory, cut)

    def shares_buffer(self, dev: DeviceTensor) -> bool:
        """Whether another live handle (a view, a part) holds ``dev``'s buffer too."""
        return any(t is not dev and isinstance(t, DeviceTensor) and t.buffer is dev.buffer and t.freed_step is None
                   for t in self.tensors.values())

    def free(self, dev: DeviceTensor) -> None:
        dev.buffer.freed_step = self.step
        dev.buffer.freed_by = dev.name
        dev.buffer.free()  # its memory goes back to the pool at its address (for --uninitialized reuse)
        if dev.buffer.address is not None:  # handles share a buffer: its block is freed once
            dev.buffer.allocator.free(dev.buffer.spec, dev.buffer.address)
            dev.buffer.address = None
        self.touched.add(dev.name)
        if not dev.buffer.released:
            dev.buffer.released = True  # handles share a buffer: its bytes are returned once
            self._settle(dev.buffer.charge)

    # -- writes and records --------------------------------------------------------------------
    def shards_to_write(self, host: HostTensor, mesh: Optional[MeshDevice] = None) -> dict[Coord, HostShard]:
        """A plain host tensor goes to every device of ``mesh``; a mapped one to its populated
        coordinates, taken as they are as coordinates of ``mesh`` (ttnn 0.81.1 fails on the first one
        the mesh does not have, tests/golden ``api``)."""
        mesh = mesh or self.root
        if not host.plain:
            shape = host.buffer_shape
            if self.profile.host_buffer_shape is HostBufferShape.SAME_SHAPE:
                self._same_buffer_shape(host, tuple(shape or self.root.shape), mesh)
            if shape is not None and len(shape) != len(mesh.shape):
                raise Crash(
                    f"{host.name}'s host buffer is {ttnn_shape(shape)}, the mesh is {ttnn_shape(mesh.shape)}: the real "
                    "library aborts here (SIGABRT; ttnn 0.81.1, a from_host_shards tensor of a 1-D mesh shape on a 2-D mesh)",
                    "SIGABRT",
                )
            try:
                mesh.check_coords(host.shards)
            except TTFatal as e:  # ttnn's words, then why: the host buffer is the mapper's mesh's
                if shape is None:
                    raise
                raise TTFatal(f"{e} ({host.name} was mapped for a mesh of shape {ttnn_shape(shape)}, its mapper's mesh device; "
                              f"this one is {ttnn_shape(mesh.shape)}: make the mapper for the mesh device the tensor goes on)") from None
            return host.shards
        only = next(iter(host.shards.values()))
        return {c: replace(only, coord=c) for c in mesh.coords}

    @staticmethod
    def _same_buffer_shape(host: HostTensor, shape: Shape, mesh: MeshDevice) -> None:
        """The rule ``host_buffer_shape: same_shape`` (ttnn 0.66.0, 0.67.0): a distributed host buffer
        goes only onto a mesh of its own shape; a 1x1 one is replicated (docs/semantics.md section 23)."""
        if shape == tuple(mesh.shape) or (shape == (1, 1) and volume(mesh.shape) > 1):
            return
        raise TTFatal(
            f"Distributed host buffer has different shape {ttnn_shape(shape)} than the mesh device {ttnn_shape(mesh.shape)} "
            f"({host.name} was mapped for a mesh of shape {ttnn_shape(shape)}: map it for the mesh device it goes on)"
        )

    def written_topology(self, host: HostTensor, mesh: Optional[MeshDevice] = None) -> Topology:
        """The topology a write of ``host`` gives: a plain tensor is replicated to all devices, as
        ``(num_devices) [R]`` (create_fully_replicated_tensor_topology), or the mesh's shape under
        the rule ``replicated_distribution: mesh`` (docs/semantics.md section 22)."""
        if host.plain:
            shape = (mesh or self.root).shape
            if self.profile.replicated_distribution is ReplicatedDistribution.MESH:
                return Topology(tuple(shape), (Replicate(),) * len(shape), tuple(coords(tuple(shape))))
            return replicate_all(shape, host.spec.shape).topology
        return host.topology

    def write(self, dev: DeviceTensor, host: Optional[HostTensor], shards: dict[Coord, HostShard], cores: Optional[tuple] = None,
              source: str = "") -> None:
        """Write each shard to its device from page 0; the shards become the tensor's content.
        ``host``: the host tensor sent (None: a device op's output, which no host tensor holds;
        ``source`` then names what wrote it). ``cores``: only the pages the destination's shard spec
        puts on those cores. The writes keep ``shards`` (each device's offset and values): the
        caller must not change it afterwards."""
        memory = dev.buffer.spec.memory_config
        fault = self.fault
        skipped = fault.coord if fault is not None and fault.kind is FaultKind.SKIP_WRITE and fault.step == self.step else None
        sizes: dict[Coord, int] = {}
        buffer, step, name = dev.buffer, self.step, host.name if host is not None else source
        on_cores = tuple(cores or ())
        self.charge_work(len(shards), f"a write of {name}", _data_bytes(shards.values()) if buffer.with_data else 0)
        lost = self.misplaced(buffer.spec)  # a grid this era takes but cannot place (section 16): those cores keep nothing
        records_only = not buffer.with_data and cores is None and not lost  # metadata mode: a run of devices with one spec at once
        written = shards if skipped not in shards else {c: s for c, s in shards.items() if c != skipped}
        wanted = set(on_cores)
        for src, coords in (host.spec_runs(written) if host is not None else spec_runs(written)):  # what follows depends on the spec only
            dst = in_memory(src, memory)
            pages: Optional[tuple[int, ...]] = None
            if cores is not None or lost:
                pages = tuple(sorted(p for core, held in dst.core_pages
                                     if (cores is None or core in wanted) and core not in lost for p in held))
            if pages is None and (dst.num_pages > buffer.spec.num_pages or dst.page_size > buffer.spec.aligned_page_size):
                # a write past its buffer (more pages, or ROW_MAJOR rows wider than its pages): only a
                # trace replay whose inputs now claim more than at capture gets here (an op's output is
                # sized for its widest device, output.emit), and what the device does then is not modeled
                raise ResourceLimit(f"{dev.name} {fmt_coord(coords[0])}: a write of {dst.num_pages} pages of {dst.page_size} B does not "
                                    f"fit its buffer of {buffer.spec.num_pages} pages of {buffer.spec.aligned_page_size} B (its inputs "
                                    "claim more than when the buffer was made); meshspec stops here")
            size = dst.buffer_bytes if pages is None else len(pages) * dst.page_size  # Write.content_bytes
            reached = on_cores if not lost else tuple(c for c, held in dst.core_pages if held and c not in lost and (cores is None or c in wanted))
            write = Write(step, name, dst, shards, (0,) * len(dst.shape), host, pages, reached)  # one per spec: offsets and values are the shards'
            if records_only:
                buffer.write_records(coords, dst.num_pages, write)
                sizes.update(dict.fromkeys(coords, size))
                continue
            buffer.write_shards(coords, shards, dst, write)
            sizes.update(dict.fromkeys(coords, size))
        self.log.append(Wrote(dev.name, sizes))
        dev.buffer.content_step = self.step
        self.touched.add(dev.name)

    def set_recorded(self, rec: Record, new: tuple[Coord, ...]) -> None:
        """The record now says exactly ``new`` hold data; each changed device's origin is this step."""
        for c in set(rec.recorded) | set(new):
            rec.origin[c] = self.step
        rec.recorded = tuple(new)


def _data_bytes(shards) -> int:
    """The device bytes of the host shards (what a write moves)."""
    return sum(work_bytes(s.spec) for s in shards)


def _settle(held: list, charge: list) -> None:
    """Return ``charge`` into the account ``held``, once."""
    held[0] -= charge[0]
    charge[0] = 0


RECORD_BYTES = 1024
"""What meshspec keeps per device of a live buffer, in either mode: its records, written pages,
last write and the shard written (about 830 B measured for a device op's output on a 64x64 mesh,
issue 34); charged against --max-memory with the buffer's data."""

MAX_WORK = 1 << 22
"""Work units a run may do by default (4,194,304: about 500 device ops on a 64x64 mesh, 60 on
256x256, 64 GiB of data moved or 4 GiB of block floats; at 3-8 microseconds a device op and 12 a
KiB of block floats, under a minute); --max-work raises it."""

WORK_BYTES = 16 << 10
"""Data a work unit stands for, on top of its device (:meth:`Runtime.charge_work`): 16 KiB
(copying it takes well under a device op's bookkeeping), or 1 KiB of bfloat8_b or bfloat4_b
(:data:`BLOCK_FLOAT_WORK`)."""

BLOCK_FLOAT_WORK = 16
"""How many times plain bytes block-float bytes count: each is encoded or decoded value by value,
about 12 microseconds a KiB (a 4.25 MiB bfloat8_b tensor's copy to a 1x1 mesh took 55 ms, one of
bfloat16 twice its size 5 ms; issue 34)."""


def work_bytes(spec: TensorSpec, nbytes: Optional[int] = None) -> int:
    """What moving ``nbytes`` (default: the spec's buffer bytes) of ``spec``'s data counts as work."""
    n = spec.buffer_bytes if nbytes is None else nbytes
    return n * BLOCK_FLOAT_WORK if spec.dtype.is_block_float else n


def freed_by(t: DeviceTensor) -> str:
    """``'d was deallocated by step 3'``, or for another handle on the same storage ``'parts[0]'s
    storage was freed by step 3 (deallocate of d)'``."""
    buf = t.buffer
    if buf.freed_by in ("", t.name):
        return f"{t.name} was deallocated by step {buf.freed_step}"
    return f"{t.name}'s storage was freed by step {buf.freed_step} (deallocate of {buf.freed_by}, which shares it)"


def fmt_bytes(n: int) -> str:
    """``1536`` -> ``'1.5 KiB'``; exact below 1 KiB."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"):
        n /= 1024
        if n < 1024 or unit == "YiB":
            return f"{n:,.1f} {unit}"
    raise AssertionError


@functools.cache  # read once a process: a check of many files makes a runtime for each
def default_max_memory() -> int:
    """Half of the machine's physical memory (8 GiB where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 8 << 30
