"""The simulated TT-NN runtime: executes scenario steps on a mesh under one profile.

What gets *written* is the same under every profile (the shards a host tensor holds land on
their devices); what gets *recorded* follows the profile's rules. Errors the real library raises
are :class:`~meshspec.errors.TTFatal`; the runner turns them into the step's error.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

import numpy as np

from .device import MemoryPool, MeshBuffer, Write
from .errors import ResourceLimit, StepInputError, TTFatal
from .faults import Fault
from .findings import Finding, Kind
from .mapping import Distribution, distribute, replicate_all, single
from .mesh import Coord, Shape, coord_of, coords, fmt_coord, fmt_shape, ttnn_shape, volume
from .placement import Replicate, Shard, Topology
from .profiles import AllocationRecord, Composer, CopyCheck, CopyRecord, Profile
from .scenario.loader import LoadedStep
from .scenario.model import FillData, RandomData, ShardPlacement
from .spec import DataType, TensorSpec, make_spec
from .tensor import DeviceTensor, HostShard, HostTensor, ReadOrigin, Record, Tensor
from .values import MANTISSA_BITS, ShapeOnly, concat_shape, differences, generate, host_dtype, quantize_block_float, same_bits, to_dtype


class UseAfterFree(TTFatal):
    """A deallocated tensor was used; also reported as a use_after_free finding."""


@dataclass(frozen=True)
class Readback:
    """One composition (``to_torch``): which devices were read and the composed shape."""

    step: int
    tensor: str
    devices: tuple[Coord, ...]
    shape: Shape
    from_device: bool = True
    """False when a host tensor's shards were composed (nothing was read from a device)."""

    def to_json(self) -> dict:
        return {
            "step": self.step,
            "tensor": self.tensor,
            "devices": [list(c) for c in self.devices],
            "shape": list(self.shape),
            "from_device": self.from_device,
        }


@dataclass
class Runtime:
    mesh_shape: Shape
    profile: Profile
    folder: Path = Path(".")
    tensors: dict[str, Tensor] = field(default_factory=dict)
    events: list[Finding] = field(default_factory=list)
    retired: list[Finding] = field(default_factory=list)
    log: list[tuple] = field(default_factory=list)
    """("write", tensor, device, bytes) and ("read", tensor, device) entries, in order."""
    """Findings of tensors that were deallocated or whose name was rebound, as they stood then."""
    readbacks: list[Readback] = field(default_factory=list)
    ops: dict[int, str] = field(default_factory=dict)
    with_data: bool = True
    """False: metadata mode (shapes, records and written pages; no values, no buffers)."""
    pool: MemoryPool = field(default_factory=MemoryPool)
    """What never-written device memory holds (poison, zeros, or reused freed bytes)."""
    max_memory: int = field(default_factory=lambda: default_max_memory())
    fault: Optional[Fault] = None
    """A fault to inject (testing meshspec's detectors; see faults.py)."""
    """Bytes of host and device data a run may hold; a step that needs more is refused."""
    _buffers: int = 0
    _reserved: int = 0

    def _reserve(self, nbytes: int, what: str) -> None:
        if self._reserved + nbytes > self.max_memory:
            held = f" on top of the {fmt_bytes(self._reserved)} already held" if self._reserved else ""
            raise ResourceLimit(
                f"{what} needs {fmt_bytes(nbytes)}{held}, over meshspec's memory limit of {fmt_bytes(self.max_memory)} "
                "(--max-memory; default half the machine's RAM); run with --no-data (records and written pages only, "
                "every finding but data_mismatch) or use a smaller shape"
            )
        self._reserved += nbytes

    # -- dispatch ------------------------------------------------------------------------------
    def execute(self, step: LoadedStep) -> None:
        self.ops[step.index] = step.op
        name = getattr(step.args, "as_", None)
        old = self.tensors.get(name) if name else None
        getattr(self, "_" + step.op)(step.index, step.args)
        if self.fault is not None and self.fault.step == step.index:
            self._apply_fault(step)
        if old is not None and self.tensors.get(name) is not old:
            self._retire(name, old, f"step {step.index} ({step.op}) rebound the name {name!r}")

    def _apply_fault(self, step: LoadedStep) -> None:
        """Record-side faults (see faults.py); skip_write acts inside _write."""
        fault = self.fault
        target = self.tensors.get(getattr(step.args, "dst", None) or getattr(step.args, "as_", None) or "")
        if not isinstance(target, DeviceTensor):
            return
        rec = target.record
        if fault.kind == "drop_record":
            rec.recorded = tuple(c for c in rec.recorded if c != fault.coord)
        elif fault.kind == "alter_shape" and fault.coord in rec.specs:
            spec = rec.specs[fault.coord]
            bigger = spec.shape[:-1] + (spec.shape[-1] + spec.page_shape[1],)  # one more page column
            rec.specs[fault.coord] = make_spec(bigger, spec.dtype, spec.layout, spec.tile, spec.memory)

    def _retire(self, name: str, tensor: Tensor, why: str) -> None:
        """Keep the findings of a tensor that is going away: the lie happened even if nobody
        looks at the tensor again (a sanitizer reports it too)."""
        from .findings import device_views, findings_of

        for f in findings_of(name, tensor, device_views(tensor, self.mesh_shape), self.ops):
            self.retired.append(dataclasses.replace(f, message=f"{f.message} (then {why})"))

    @property
    def all_coords(self) -> tuple[Coord, ...]:
        return tuple(coords(self.mesh_shape))

    def _device(self, name: str, step: int, op: str) -> DeviceTensor:
        t = self.tensors[name]
        assert isinstance(t, DeviceTensor)
        if t.freed_step is not None:
            # ttnn 0.81.1 crashes (SIGSEGV) on cpu() or a copy into a deallocated tensor (tests/golden).
            msg = f"{name} was deallocated by step {t.freed_step}; {op} uses it after free (the real library crashes here)"
            self.events.append(Finding(Kind.USE_AFTER_FREE, name, None, step, op, msg))
            raise UseAfterFree(msg)
        return t

    def _host(self, name: str) -> HostTensor:
        t = self.tensors[name]
        assert isinstance(t, HostTensor)
        return t

    def _host_with_shards(self, name: str, op: str) -> HostTensor:
        host = self._host(name)
        if not host.shards:
            raise TTFatal(
                f"{op}: host tensor {name} has no shards (it was read back from {host.read_from}, which records "
                "no device); there is nothing to write"
            )
        return host

    # -- allocate ------------------------------------------------------------------------------
    def _allocate_tensor_on_device(self, step: int, a) -> None:
        spec = make_spec(tuple(a.shape), a.dtype, a.layout, tuple(a.tile), a.memory)
        buffer = self._new_buffer(spec, step)
        rule = self.profile.allocation
        everyone = self.all_coords
        record = Record(
            spec=spec,
            topology=Topology(self.mesh_shape, tuple(Replicate() for _ in self.mesh_shape), everyone),
            specs={} if rule is AllocationRecord.NONE else {c: spec for c in everyone},
            recorded=everyone if rule is AllocationRecord.ALL else (),
            origin={c: step for c in everyone},
        )
        self.tensors[a.as_] = DeviceTensor(a.as_, step, buffer, record)

    def _new_buffer(self, spec: TensorSpec, step: int) -> MeshBuffer:
        if self.with_data:
            self._reserve(spec.allocated_bytes * volume(self.mesh_shape), f"a buffer of {spec.describe()} on every device")
        self._buffers += 1
        return MeshBuffer(self._buffers, spec, self.mesh_shape, step, self.pool, self.with_data)

    # -- from_torch ----------------------------------------------------------------------------
    def _from_torch(self, step: int, a) -> None:
        shape = tuple(a.shape)
        dtype = DataType(a.dtype)
        itemsize = 4 if dtype.is_block_float else host_dtype(dtype).itemsize
        # the values, plus up to one more copy of them as shards (replicas are views)
        dist, plain = self._distribution(shape, a.mesh_mapper)
        if self.with_data:
            self._reserve(2 * volume(shape) * itemsize, f"host tensor {a.as_} {fmt_shape(shape)} {dtype}")
            values = self._values(a, shape, dtype)
        else:
            values = ShapeOnly(shape, host_dtype(dtype))
        shards = {}
        for slot in dist.slots:
            v = values[slot.slices()]
            if dtype.is_block_float and self.with_data:  # ttnn quantizes each shard on its own
                v = quantize_block_float(v, dtype)
            spec = make_spec(slot.shape, dtype, a.layout, tuple(a.tile), a.memory)
            shards[slot.coord] = HostShard(slot.coord, spec, v, slot.offset)
        first = next(iter(shards.values()))
        source = values if self.with_data else None
        self.tensors[a.as_] = HostTensor(a.as_, step, first.spec, dist.topology, shards, plain=plain, source_values=source)

    def _values(self, a, shape: Shape, dtype: DataType) -> np.ndarray:
        # Block floats are kept unquantized here and quantized per shard, as ttnn does.
        base = DataType.FLOAT32 if dtype.is_block_float else dtype
        data = a.data
        if isinstance(data, str):
            return generate(data, shape, base)
        if isinstance(data, FillData):
            if np.issubdtype(host_dtype(base), np.integer) and not np.isfinite(data.fill):
                raise StepInputError(f"fill value {data.fill} cannot be held by {base}")
            return generate("fill", shape, base, data.fill)
        if isinstance(data, RandomData):
            return generate("random", shape, base, data.random)
        arr = np.load(self.folder / data.file, allow_pickle=False)
        if np.issubdtype(host_dtype(base), np.integer) and arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise StepInputError(f"data file {data.file!r} holds NaN or infinite values, which {base} cannot hold")
        return to_dtype(arr, base)

    def _distribution(self, shape: Shape, mapper) -> tuple[Distribution, bool]:
        n = volume(self.mesh_shape)
        rules = self.profile.mapper
        if mapper is None:
            return single(self.mesh_shape, shape), True
        if mapper == "replicate":
            return distribute(shape, self.mesh_shape, (Replicate(),), (n,), rules), False
        if isinstance(mapper, ShardPlacement):
            return distribute(shape, self.mesh_shape, (Shard(mapper.shard),), (n,), rules), False
        placements = tuple(Replicate() if p == "replicate" else Shard(p.shard) for p in mapper.placements)
        override = tuple(mapper.mesh_shape) if mapper.mesh_shape is not None else None
        return distribute(shape, self.mesh_shape, placements, override, rules), False

    # -- to_device -----------------------------------------------------------------------------
    def _to_device(self, step: int, a) -> None:
        host = self._host_with_shards(a.src, "to_device")
        memory = a.memory or host.spec.memory
        shards = self._shards_to_write(host)
        widest = max((s.spec for s in shards.values()), key=lambda s: s.num_pages)
        buffer = self._new_buffer(replace(widest, memory=memory), step)
        topology = self._written_topology(host)
        specs = {c: replace(s.spec, memory=memory) for c, s in shards.items()}
        record = Record(replace(host.spec, memory=memory), topology, specs, tuple(shards), {c: step for c in self.all_coords})
        dev = DeviceTensor(a.as_, step, buffer, record)
        self._write(dev, host, shards, step)
        self.tensors[a.as_] = dev

    def _shards_to_write(self, host: HostTensor) -> dict[Coord, HostShard]:
        """A plain host tensor goes to every device; a mapped one to its populated devices."""
        if not host.plain:
            return host.shards
        only = next(iter(host.shards.values()))
        return {c: replace(only, coord=c) for c in self.all_coords}

    def _written_topology(self, host: HostTensor) -> Topology:
        if host.plain:
            return replicate_all(self.mesh_shape, host.spec.shape).topology
        return host.topology

    def _write(self, dev: DeviceTensor, host: HostTensor, shards: dict[Coord, HostShard], step: int) -> None:
        memory = dev.buffer.spec.memory
        for c, shard in shards.items():
            if self.fault is not None and self.fault.kind == "skip_write" and (self.fault.step, self.fault.coord) == (step, c):
                continue
            spec = replace(shard.spec, memory=memory)
            write = Write(step, host.name, spec, shard.offset or (0,) * len(spec.shape), shard.values, host)
            dev.buffer.write(c, shard.values, spec, write)
            self.log.append(("write", dev.name, c, spec.buffer_bytes))
        dev.content_step = step

    # -- copy_host_to_device_tensor ------------------------------------------------------------
    def _copy_host_to_device_tensor(self, step: int, a) -> None:
        host = self._host_with_shards(a.src, "copy_host_to_device_tensor")
        dev = self._device(a.dst, step, "copy_host_to_device_tensor")
        shards = self._shards_to_write(host)
        self._check_copy(host, dev, shards)
        self._write(dev, host, shards, step)
        rec = dev.record
        rule = self.profile.copy
        if rule is CopyRecord.LOST:
            return  # dst was taken by value: the update was made on a copy
        written = tuple(shards)
        full = set(written) == set(self.all_coords)
        topology = self._written_topology(host)
        if rule is CopyRecord.CURRENT:
            rec.topology = topology
            if host.plain:
                self._set_recorded(rec, self.all_coords, step)
            elif not full:
                self._set_recorded(rec, written, step)
            # a full write from a mapped host tensor keeps the old coords: the current gap
            return
        # EXACT
        rec.topology = topology
        memory = dev.buffer.spec.memory
        rec.specs = {c: replace(s.spec, memory=memory) for c, s in shards.items()} | {
            c: rec.spec for c in self.all_coords if c not in shards
        }
        self._set_recorded(rec, written, step)

    @staticmethod
    def _set_recorded(rec: Record, new: tuple[Coord, ...], step: int) -> None:
        for c in set(rec.recorded) | set(new):
            rec.origin[c] = step
        rec.recorded = tuple(new)

    def _check_copy(self, host: HostTensor, dev: DeviceTensor, shards: dict[Coord, HostShard]) -> None:
        dst = dev.record.spec
        if self.profile.copy_check is CopyCheck.EVERY_SHARD:
            checked = list(shards.values())
        else:
            checked = [next(iter(host.shards.values()))]
        for shard in checked:
            _same_spec(shard.spec, dst, host.name, dev.name, shard.coord)
        buf = dev.buffer.spec
        for shard in shards.values():
            if shard.spec.page_size != buf.page_size or shard.spec.num_pages > buf.num_pages:
                raise TTFatal(
                    f"shard of {host.name} for device {fmt_coord(shard.coord)} is {shard.spec.describe()} "
                    f"({shard.spec.num_pages} pages of {shard.spec.page_size} B); the buffer of {dev.name} has "
                    f"{buf.num_pages} pages of {buf.page_size} B"
                )

    # -- readback ------------------------------------------------------------------------------
    def _cpu(self, step: int, a) -> None:
        dev = self._device(a.tensor, step, "cpu")
        host = self._read(dev, step, a.as_ or f"{a.tensor}.cpu")
        if a.as_:
            self.tensors[a.as_] = host

    def _read(self, dev: DeviceTensor, step: int, name: str) -> HostTensor:
        """``dev.cpu()``: read every recorded device with its recorded spec."""
        rec = dev.record
        recorded = rec.recorded_set
        if self.profile.composer is Composer.LEGACY:
            order = [c for c in self.all_coords if c in recorded]
        else:
            order = [c for c in rec.topology.coords if c in recorded]
            listed = set(order)
            order += [c for c in self.all_coords if c in recorded and c not in listed]
        if self.with_data:
            need = sum(rec.specs[c].volume * host_dtype(rec.specs[c].dtype).itemsize for c in order if c in rec.specs)
            self._reserve(need, f"reading back {dev.name} from {len(order)} device(s)")
        shards: dict[Coord, HostShard] = {}
        for c in order:
            spec = rec.specs.get(c)
            if spec is None:
                continue  # the runtime cannot read a device it has no spec for
            values = dev.buffer.read(c, spec)
            if values is None:  # metadata mode
                values = ShapeOnly(spec.shape, host_dtype(spec.dtype))
            self.log.append(("read", dev.name, c))
            write = dev.current_write(c)
            origin = ReadOrigin(
                dev.name,
                c,
                step,
                dev.buffer.written_bytes(c),
                write,
                None if write else dev.buffer.last_write.get(c),
                rec.origin.get(c),
                write is not None and dev.buffer.intact(c, write, spec),
            )
            shards[c] = HostShard(c, spec, values, write.offset if write else None, origin)
        unread = {}
        for c in self.all_coords:
            w = dev.current_write(c)
            if w is not None and c not in shards:
                unread[c] = w
        first = next(iter(shards.values())).spec if shards else rec.spec
        return HostTensor(name, step, first, rec.topology, shards, read_from=dev.name, unread=unread)

    def _to_torch(self, step: int, a) -> None:
        t = self.tensors[a.tensor]
        if isinstance(t, DeviceTensor):
            host = self._read(self._device(a.tensor, step, "to_torch"), step, a.as_ or f"{a.tensor}.torch")
        else:
            host = t
        if self.with_data:
            need = sum(getattr(sh.values, "nbytes", 0) for sh in host.shards.values())
            self._reserve(need, f"composing {a.tensor} ({len(host.shards)} shard(s))")
        result, used = self._compose(host, a.mesh_composer)
        self.readbacks.append(Readback(step, a.tensor, tuple(used), tuple(result.shape), isinstance(t, DeviceTensor)))
        before = len(self.events)
        self._judge_readback(host, a.tensor, used, step)
        if len(self.events) == before:  # no device explains a difference: compare with the source
            self._judge_composed(host, a.tensor, result, step)
        if a.as_:
            spec = make_spec(result.shape, host.spec.dtype, host.spec.layout, host.spec.tile, host.spec.memory)
            dist = single(self.mesh_shape, tuple(result.shape))
            c = dist.slots[0].coord
            shard = HostShard(c, spec, result, (0,) * result.ndim, taint=self._taint(host, used))
            self.tensors[a.as_] = HostTensor(a.as_, step, spec, dist.topology, {c: shard}, plain=True)

    def _compose(self, host: HostTensor, composer) -> tuple[np.ndarray, list[Coord]]:
        """``ttnn.to_torch(t, mesh_composer=...)`` on a host tensor (REFERENCE.md section 5).

        ``{concat: d}`` is ``concat_mesh_to_tensor_composer``: a 1-D walk over the shards present.
        ``{concat: [d...], mesh_shape: [...]}`` is ``create_mesh_composer``: one dim per axis of
        the composer's mesh shape (default: the mesh's); a 1-D shape walks the shards present, an
        N-D one needs every shard. The legacy composer concatenates every shard it is handed.
        """
        shards = host.shards
        order = list(shards)
        if not order:
            raise TTFatal(
                f"{host.read_from or host.name} has no recorded device to read back (0 shards); "
                "there is nothing to compose"
            )
        if composer is None:
            if len(order) == 1:
                return shards[order[0]].values, order
            raise TTFatal(f"to_torch of a tensor with {len(order)} shards needs a mesh_composer, e.g. {{concat: 0}}")
        if host.plain and volume(self.mesh_shape) > 1:
            # ttnn 0.81.1 walks the composer's mesh over a 1x1 host buffer (tests/golden, composer)
            second = ttnn_shape(coord_of(1, self.mesh_shape), "MeshCoordinate")
            raise TTFatal(
                f"Coordinate {second} is out of bounds for shape MeshShape([1, 1]): {host.name} is a single host "
                "tensor (no mesh_mapper) and ttnn's composers fail on it on a multi-device mesh; drop mesh_composer"
            )
        rank = len(shards[order[0]].spec.shape)
        one_d = not isinstance(composer.concat, list) and composer.mesh_shape is None
        dims = list(composer.concat) if isinstance(composer.concat, list) else [composer.concat]
        norm = []
        for d in dims:
            if not -rank <= d < rank:
                raise TTFatal(f"mesh_composer concat dim {d} is out of range for a rank-{rank} tensor")
            norm.append(d % rank)
        grid = (len(order),) if one_d else tuple(composer.mesh_shape or self.mesh_shape)
        if len(grid) != len(norm):
            raise TTFatal(
                f"The number of dimensions in the mesh shape {ttnn_shape(grid)} does not match the number of "
                f"dimensions in the config MeshComposerConfig(dims: {dims}); give one dim per mesh axis"
            )
        if len(set(norm)) != len(norm):
            raise TTFatal(f"mesh_composer concat dims {dims} repeat a dim")
        if len(grid) == 1:
            return _concat([shards[c].values for c in order], norm[0]), order
        if len(order) != volume(grid):
            raise TTFatal(
                f"ND composition requires the number of tensors {len(order)} to match the mesh shape {ttnn_shape(grid)}"
            )
        arrays = [shards[c].values for c in order]
        # Concatenate along the last mesh axis first, then outward.
        for axis in reversed(range(len(grid))):
            group = grid[axis]
            arrays = [_concat(arrays[i : i + group], norm[axis]) for i in range(0, len(arrays), group)]
        return arrays[0], order

    @staticmethod
    def _taint(host: HostTensor, used: list[Coord]) -> Optional[tuple]:
        """Why a composed result is not what was written, if it is not: its worst contributor."""
        from .findings import device_views

        views = {v.coord: v for v in device_views(host, ())}
        bad = [views[c] for c in used if c in views and views[c].status.is_finding]
        if not bad:
            return None
        first = bad[0]
        where = ", ".join(fmt_coord(v.coord) for v in bad)
        source = host.shards[first.coord].origin
        where_from = (source.tensor, source.coord) if source else None
        detail = f"composed from {len(bad)} bad shard(s) of {host.read_from or host.name} ({where}): {first.detail}"
        return first.status.value, detail, first.record_step, where_from

    def _judge_readback(self, host: HostTensor, name: str, used: list[Coord], step: int) -> None:
        """data_mismatch for each device whose read-back values are not what was written."""
        label = host.read_from or name
        for c in used:
            shard = host.shards[c]
            origin = shard.origin
            if origin is None:
                continue
            w = origin.write
            where = f"{label} {fmt_coord(c)}"
            facts = (shard.spec, origin.written_bytes)
            if w is None:
                what = (
                    "never written since allocation"
                    if origin.stale_write is None
                    else f"holding superseded data from step {origin.stale_write.step}"
                )
                self._mismatch(label, c, step, f"{where}: read back {shard.values.size} values from device memory {what}", *facts)
            elif origin.intact or isinstance(shard.values, ShapeOnly) or w.values is None:
                if tuple(w.spec.shape) != tuple(shard.values.shape):
                    msg = f"{where}: read back as {fmt_shape(shard.values.shape)}, written as {fmt_shape(w.spec.shape)} by step {w.step}"
                    self._mismatch(label, c, step, msg, *facts)
            elif w.values.shape != shard.values.shape:
                msg = f"{where}: read back as {fmt_shape(shard.values.shape)}, written as {fmt_shape(w.values.shape)} by step {w.step}"
                self._mismatch(label, c, step, msg, *facts)
            else:
                differ = int((~same_bits(shard.values, w.values.astype(shard.values.dtype))).sum())
                if differ:
                    msg = f"{where}: {differ} of {w.values.size} values differ from what step {w.step} wrote"
                    self._mismatch(label, c, step, msg, *facts)
        for c, w in host.unread.items():
            msg = f"{label} {fmt_coord(c)}: written by step {w.step} but left out of the readback"
            self._mismatch(label, c, step, msg, None, w.spec.buffer_bytes)

    def _judge_composed(self, host: HostTensor, name: str, result, step: int) -> None:
        """data_mismatch (no device) when the composed tensor differs from the host tensor that was
        sent, within the dtype's precision: exact for integers, float32 and bfloat16 (already
        rounded at from_torch), one step of the shared exponent for block floats. Compared only
        when the shapes agree (composing replicas on purpose gives a bigger tensor)."""
        source = self._source_of(host)
        if source is None or isinstance(result, ShapeOnly) or tuple(result.shape) != tuple(source.source_values.shape):
            return
        dtype = source.spec.dtype
        src = source.source_values
        tolerance = None
        if dtype.is_block_float:
            rowmax = np.max(np.abs(src), axis=-1, keepdims=True).astype(np.float64)
            tolerance = 2.0 * rowmax * 2.0 ** -(MANTISSA_BITS[dtype] - 1)
        n, first_flat = differences(result, src if tolerance is not None else src.astype(result.dtype, copy=False), tolerance)
        if n:
            first = tuple(int(i) for i in np.unravel_index(first_flat, result.shape))
            msg = (
                f"{name}: the composed tensor differs from {source.name}, the tensor that was sent, in {n} of "
                f"{result.size} values (first at {list(first)}), though every device read back what was written there: "
                "check the composer's dims and mesh_shape"
            )
            f = Finding(Kind.DATA_MISMATCH, host.read_from or name, None, step, self.ops.get(step), msg)
            self.events.append(f)

    def _source_of(self, host: HostTensor) -> Optional[HostTensor]:
        """The from_torch tensor whose data the host tensor holds, if one tensor is the source."""
        if host.source_values is not None:
            return host
        dev = self.tensors.get(host.read_from or "")
        if not isinstance(dev, DeviceTensor):
            return None
        sources = {id(w.host): w.host for c in self.all_coords if (w := dev.current_write(c)) is not None}
        if len(sources) != 1:
            return None
        src = next(iter(sources.values()))
        return src if isinstance(src, HostTensor) and src.source_values is not None else None

    def _mismatch(
        self, tensor: str, coord: Coord, step: int, msg: str, spec: Optional[TensorSpec], written: Optional[int]
    ) -> None:
        f = Finding(Kind.DATA_MISMATCH, tensor, coord, step, self.ops.get(step), msg, spec, written)
        if all(e.key() != f.key() for e in self.events):
            self.events.append(f)

    # -- deallocate ----------------------------------------------------------------------------
    def _deallocate(self, step: int, a) -> None:
        dev = self.tensors[a.tensor]
        assert isinstance(dev, DeviceTensor)
        if dev.freed_step is not None:
            # ttnn 0.81.1 ignores a second deallocate (tests/golden); meshspec still reports it.
            msg = f"{a.tensor} was deallocated by step {dev.freed_step} and is deallocated again"
            self.events.append(Finding(Kind.USE_AFTER_FREE, a.tensor, None, step, "deallocate", msg))
            return
        self._retire(a.tensor, dev, f"step {step} deallocated it")
        dev.freed_step = step
        dev.buffer.free()
        if self.with_data:
            self._reserved -= dev.buffer.spec.allocated_bytes * volume(self.mesh_shape)


def _same_spec(src: TensorSpec, dst: TensorSpec, src_name: str, dst_name: str, coord: Coord) -> None:
    """The current library's copy check (``tt_metal/impl/tensor/tensor_apis.cpp``)."""
    where = f"{src_name} shard for {fmt_coord(coord)}"
    if src.shape != dst.shape:
        raise TTFatal(
            f"Host tensor has different shape: {where} is {list(src.shape)}, {dst_name} is {list(dst.shape)}"
        )
    if src.dtype != dst.dtype:
        raise TTFatal(f"Host tensor has different dtype: {where} is {src.dtype}, {dst_name} is {dst.dtype}")
    if src.layout != dst.layout or (src.layout.value == "tile" and src.tile != dst.tile):
        raise TTFatal(
            f"Host tensor has different page config: {where} is {src.layout} {list(src.tile)}, "
            f"{dst_name} is {dst.layout} {list(dst.tile)}"
        )


def _concat(arrays: list, dim: int):
    try:
        if any(isinstance(a, ShapeOnly) for a in arrays):
            return ShapeOnly(concat_shape([tuple(a.shape) for a in arrays], dim), arrays[0].dtype)
        return np.concatenate(arrays, axis=dim)
    except ValueError:
        shapes = [fmt_shape(a.shape) for a in arrays]
        raise TTFatal(f"cannot concatenate shards of shapes {shapes} along dim {dim}") from None


def fmt_bytes(n: int) -> str:
    """``1536`` -> ``'1.5 KiB'``; exact below 1 KiB."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"):
        n /= 1024
        if n < 1024 or unit == "YiB":
            return f"{n:,.1f} {unit}"
    raise AssertionError


def default_max_memory() -> int:
    """Half of the machine's physical memory (8 GiB where it cannot be read)."""
    import os

    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 8 << 30
