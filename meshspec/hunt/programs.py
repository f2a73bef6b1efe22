"""Random programs for ``meshspec hunt``: scenarios built step by step from a vocabulary of the op
registry's host, transfer and device ops, each step's arguments drawn from the tensors made so
far, so the programs are valid by construction where the era accepts them (and now and then one it
should refuse: a host tensor copied into an allocation of another shape, a shard dim shorter than
the mesh).

A program is plain data (:class:`Program`): the mesh and the steps as a scenario writes them.
Deterministic: example ``k`` of seed ``s`` is the same program on every machine.

>>> p = generate(random.Random("1:0"), (2, 4), "t3k", VOCABULARY)
>>> p.mesh, all(len(s) == 1 for s in p.steps)
('t3k', True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import yaml

from ..text import flow

MeshSpec = Union[str, list]
"""A system name (``t3k``) or a shape (``[2, 4]``), as a scenario's ``mesh:`` writes it."""


@dataclass(frozen=True)
class Program:
    mesh: MeshSpec
    steps: tuple[dict, ...]
    """Each step a one-key mapping, ``{op: {field: value}}``, as in a scenario."""

    def text(self, name: str = "hunt", description: str = "", extra: Optional[dict] = None) -> str:
        """The program as a scenario file."""
        doc: dict[str, Any] = {"meshspec": 1, "name": name}
        if description:
            doc["description"] = description
        doc["mesh"] = self.mesh
        doc.update(extra or {})
        doc["steps"] = list(self.steps)
        head = {k: v for k, v in doc.items() if k not in ("steps", "expect", "mesh")}
        out = yaml.safe_dump(head, sort_keys=False, width=100, allow_unicode=True).replace("\nmesh: null\n", "\n")
        out = out.replace("\nprofiles:", f"\nmesh: {flow(self.mesh)}\nprofiles:", 1) if "\nprofiles:" in out else out + f"mesh: {flow(self.mesh)}\n"
        out += "steps:\n" + "".join(f"  - {flow(s)}\n" for s in self.steps)
        if "expect" in doc:
            out += "expect:\n  profiles:\n"
            for prof, block in doc["expect"]["profiles"].items():
                out += f"    {flow(prof)}:\n"
                found = block.get("findings", [])
                out += "      findings:" + ("\n" + "".join(f"        - {flow(f)}\n" for f in found) if found else " []\n")
                if block.get("error") is not None:
                    out += f"      error: {flow(block['error'])}\n"
        return out


#: Every op the generator can write, in the order it prefers them; ``--ops`` picks from these.
VOCABULARY: tuple[str, ...] = (
    "from_torch", "allocate_tensor_on_device", "copy_host_to_device_tensor", "to_device", "cpu", "to_torch", "deallocate",
    "squeeze", "unsqueeze", "permute", "all_gather", "all_gather_async", "neg", "add",
)

#: The default vocabulary and every other device op the generator can write (an explicit ``ops``
#: list picks them: the differential oracle, tests/oracle, runs all of them; ``meshspec hunt``'s
#: default stays :data:`VOCABULARY`).
WIDE_VOCABULARY: tuple[str, ...] = VOCABULARY + (
    "all_reduce", "reduce_scatter", "reshape", "view", "slice", "concat", "pad", "transpose", "sum", "max",
    "typecast", "clone", "to_layout", "to_memory_config", "matmul", "linear", "sub", "mul", "exp", "relu", "gelu",
    "zeros_like", "ones_like", "full_like", "reallocate", "get_device_tensors",
    "to_dtype", "unpad", "pad_to_tile", "dump_tensor", "load_tensor", "as_tensor",
)

#: Ops of :data:`WIDE_VOCABULARY` that run on a host tensor, shard by shard (docs/semantics.md
#: section 18): the first four on a device tensor too, where a host one is drawn now and then.
HOST_OPS: tuple[str, ...] = ("to_layout", "typecast", "reshape", "pad", "to_dtype", "unpad", "pad_to_tile")
_HOST_ONLY = ("to_dtype", "unpad", "pad_to_tile")

#: Each profile rule and the ops whose outcome it decides (a rule whose ops a hunt does not use
#: cannot be found: the summary says so).
RULE_OPS: dict[str, tuple[str, ...]] = {
    "allocation": ("allocate_tensor_on_device",),
    "copy": ("copy_host_to_device_tensor",),
    "mapper": ("from_torch",),
    "composer": ("to_torch",),
    "copy_check": ("copy_host_to_device_tensor",),
    "default_composer": ("to_torch",),
    "op_topology": ("squeeze", "unsqueeze", "permute", "neg", "add"),
    "ccl_topology": ("all_gather", "all_gather_async"),
    "ccl_padding": ("all_gather_async",),
    "gather_padding": ("all_gather",),
    "handles": (),  # get_device_tensors, combine_device_tensors: not written by hunt
    "cache_topology": (),  # dump_tensor, load_tensor
    "tensor_file": (),  # dump_tensor, load_tensor, as_tensor
    "mapper_offset": (),  # mesh_offset_override
    "per_device_api": (),
}

#: Ops that make a host tensor (hunt needs one to write anything to a device).
_NEEDED = ("from_torch",)
#: Ops every program may draw (the writes where records lie); the others are drawn by half.
_CORE = ("from_torch", "allocate_tensor_on_device", "copy_host_to_device_tensor")
#: Ops a program draws whenever it draws the op they follow (a load of what a dump kept).
_AFTER = {"load_tensor": "dump_tensor"}


@dataclass
class _State:
    """What the program made so far: host tensors (name -> shape, shard dim or None) and live
    device tensors (name -> shape as each device holds it)."""

    mesh_shape: tuple[int, ...]
    hosts: dict[str, tuple[list[int], Optional[int]]] = field(default_factory=dict)
    devices: dict[str, list[int]] = field(default_factory=dict)
    kinds: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Each tensor's dtype and layout (a copy needs both to match)."""
    copies: set = field(default_factory=set)
    files: dict[str, list[int]] = field(default_factory=dict)
    """Each tensor file dumped (a name the run keeps: tensor files never reach the disk,
    docs/semantics.md section 9) -> the shape of the first shard it holds."""
    loaded: set = field(default_factory=set)
    """The files loaded since they were last dumped."""
    caches: dict[str, list[int]] = field(default_factory=dict)
    """Each as_tensor cache name -> the shape of the tensor its first call made."""
    coverage: dict[str, str] = field(default_factory=dict)
    """Each host tensor: does it write every device (whole) or fewer (part)."""
    covered: dict[str, str] = field(default_factory=dict)
    """Each device tensor: the coverage of the last copy into it."""

    def fits(self, host: str, dev: str) -> bool:
        return self.hosts[host][0] == self.devices[dev] and self.kinds.get(host) == self.kinds.get(dev)
    count: int = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    @property
    def size(self) -> int:
        n = 1
        for d in self.mesh_shape:
            n *= d
        return n


def _shape(rng: random.Random, size: int) -> list[int]:
    """A rank-4 activation shape; dim 1 often shorter than the mesh (the seed's class), dims 2-3
    tile-sized or not."""
    dim1 = rng.choice([1, 2, size - 1, size - 1, size, size, size + 1, 2 * size]) if size > 1 else rng.choice([1, 2])
    return [1, max(1, dim1), rng.choice([32, 32, 64, 17]), rng.choice([32, 32, 64, 48])]


DEFAULT_KIND = ("bfloat16", "tile")
#: Other dtypes and layouts a program's tensors take now and then (block floats are TILE only).
KINDS = (("float32", "tile"), ("bfloat16", "row_major"), ("uint32", "row_major"), ("bfloat8_b", "tile"), ("int32", "tile"))


def _kind_fields(kind: tuple[str, str]) -> dict:
    """The dtype and layout fields a step writes (none for the default, bfloat16 TILE)."""
    return {} if kind == DEFAULT_KIND else {"dtype": kind[0], "layout": kind[1]}


def _devices_written(mapper, shape: list[int], size: int) -> int:
    """How many devices a mapper writes (torch.chunk's count for a shard)."""
    if mapper == "replicate":
        return size
    if "create_mesh_mapper" in mapper:
        parts = mapper["create_mesh_mapper"]["mesh_shape_override"][0]
        dim = mapper["create_mesh_mapper"]["placements"][0]["shard"]
    else:
        parts, dim = size, mapper["shard"]
    n = shape[dim]
    return -(-n // _chunk(n, parts))


def _chunk(n: int, parts: int) -> int:
    """The first shard's size when ``n`` is split in ``parts`` (torch.chunk: ceil)."""
    return -(-n // parts)


def _mapper(rng: random.Random, st: _State, shape: list[int]) -> tuple[Any, Optional[int], list[int]]:
    """A mapper, the dim it shards (or None) and the shape of the first shard."""
    kind = rng.choice(["shard", "shard", "shard", "replicate", "override"])
    if kind == "replicate":
        return "replicate", None, list(shape)
    dim = rng.choice([1, 1, 2, 3])
    shard = list(shape)
    if kind == "override" and st.size > 2:
        devices = rng.randint(1, st.size - 1)  # fewer devices than the mesh: a partial write
        shard[dim] = _chunk(shape[dim], devices)
        return {"create_mesh_mapper": {"placements": [{"shard": dim}], "mesh_shape_override": [devices]}}, dim, shard
    shard[dim] = _chunk(shape[dim], st.size)
    return {"shard": dim}, dim, shard


def _step(rng: random.Random, st: _State, op: str) -> Optional[dict]:
    """One step of ``op`` on what exists, or None when nothing it needs exists yet."""
    if op == "from_torch":
        shape = _shape(rng, st.size)
        earlier = [h[0] for h in st.hosts.values() if len(h[0]) == 4]
        allocated = [d for d, s in st.devices.items() if len(s) == 4]
        kind = rng.choice(KINDS) if rng.random() < 0.3 else DEFAULT_KIND
        if allocated and rng.random() < 0.7:  # shards that fit an allocation: a host tensor to copy into it
            fit = rng.choice(allocated)
            target, kind = list(st.devices[fit]), st.kinds.get(fit, DEFAULT_KIND)
            # the other coverage than what was last copied into it: a partial write after a whole
            # one, a whole one after a partial one (where records and data part ways)
            last = st.covered.get(fit)
            ways = {"whole": ["whole", "shard"] if target[1] == 1 else ["whole"], "part": ["part"]}
            way = rng.choice(ways["part" if last == "whole" else "whole"] if last and rng.random() < 0.7
                             else (["whole", "part", "shard"] if target[1] == 1 else ["whole", "part"]))
            if way == "shard":  # dim 1 over the mesh, one row a device: shorter than the mesh leaves devices out
                shape = [target[0], max(1, rng.choice([st.size - 1, st.size])), *target[2:]]
                mapper, dim, shard = {"shard": 1}, 1, list(target)
            elif way == "part" and st.size > 2:  # a write to fewer devices than the mesh, of shards that fit
                m = rng.randint(1, st.size - 1)
                shape = [target[0], target[1] * m, *target[2:]]
                mapper = {"create_mesh_mapper": {"placements": [{"shard": 1}], "mesh_shape_override": [m]}}
                dim, shard = 1, list(target)
            else:
                shape, mapper, dim, shard = list(target), "replicate", None, list(target)
        else:
            if earlier and rng.random() < 0.5:  # the rows and columns of an earlier one: their shards may share an allocation
                shape[2:] = list(rng.choice(earlier)[2:])
            mapper, dim, shard = _mapper(rng, st, shape)
        name = st.fresh("h")
        args: dict[str, Any] = {"as": name, "shape": shape, **_kind_fields(kind), "mesh_mapper": mapper}
        st.kinds[name] = kind
        st.coverage[name] = "whole" if _devices_written(mapper, shape, st.size) >= st.size else "part"
        if rng.random() < 0.2:
            args["device"] = "mesh_device"
            st.devices[name] = shard
        else:
            st.hosts[name] = (shard, dim)
        if rng.random() < 0.3:
            args["data"] = {"random": rng.randint(1, 9)}
        return {"from_torch": args}
    if op == "allocate_tensor_on_device":
        unplaced = [h for h, (s, _) in st.hosts.items() if s not in st.devices.values()]
        kind = DEFAULT_KIND
        if st.hosts and rng.random() < 0.9:
            host = rng.choice(unplaced or list(st.hosts))  # room for a host tensor's shard
            shape, kind = list(st.hosts[host][0]), st.kinds.get(host, DEFAULT_KIND)
        else:
            shape = _shape(rng, st.size)
        name = st.fresh("d")
        st.devices[name] = shape
        st.kinds[name] = kind
        return {"allocate_tensor_on_device": {"as": name, "shape": shape, **_kind_fields(kind)}}
    if op == "copy_host_to_device_tensor":
        if not st.hosts or not st.devices:
            return None
        fits = [d for d in st.devices if any(st.fits(h, d) for h in st.hosts)]
        dst = rng.choice(fits or list(st.devices))
        srcs = [h for h in st.hosts if st.fits(h, dst)] or list(st.hosts)
        fresh = [h for h in srcs if (h, dst) not in st.copies]  # a second copy into dst: the partial-then-full class
        src = rng.choice(fresh or srcs)
        st.copies.add((src, dst))
        st.covered[dst] = st.coverage.get(src, "whole")
        return {"copy_host_to_device_tensor": {"src": src, "dst": dst}}
    if op == "to_device":
        if not st.hosts:
            return None
        src = rng.choice(list(st.hosts))
        name = st.fresh("d")
        st.devices[name] = list(st.hosts[src][0])
        st.kinds[name] = st.kinds.get(src, DEFAULT_KIND)
        return {"to_device": {"src": src, "as": name}}
    if op in HOST_OPS and st.hosts and (op in _HOST_ONLY or not st.devices or rng.random() < 0.4):
        return _host_step(rng, st, op)
    if op in _HOST_ONLY:
        return None
    if op in ("dump_tensor", "load_tensor", "as_tensor"):
        return _file_step(rng, st, op)
    if not st.devices:
        return None
    dev = rng.choice(list(st.devices))
    shape = st.devices[dev]
    kind = st.kinds.get(dev, DEFAULT_KIND)
    if op == "cpu":
        name = st.fresh("h")
        st.hosts[name] = (list(shape), None)
        st.kinds[name] = kind
        return {"cpu": {"tensor": dev, "as": name}}
    if op == "to_torch":  # now and then no composer: the era's default (refused, or derived from the topology)
        composer = {"mesh_composer": {"concat": rng.choice([0, 1, 3])}} if rng.random() < 0.8 else {}
        return {"to_torch": {"tensor": dev, "as": st.fresh("out"), **composer}}
    if op == "deallocate":
        del st.devices[dev]
        return {"deallocate": {"tensor": dev}}
    name = st.fresh("d")
    st.kinds[name] = kind
    if op == "squeeze":
        st.devices[name] = shape[1:] if shape[0] == 1 else list(shape)
        return {"squeeze": {"tensor": dev, "dim": 0, "as": name}}
    if op == "unsqueeze":
        st.devices[name] = [1] + list(shape)
        return {"unsqueeze": {"tensor": dev, "dim": 0, "as": name}}
    if op == "permute":
        order = list(range(len(shape)))
        rng.shuffle(order)
        st.devices[name] = [shape[d] for d in order]
        return {"permute": {"tensor": dev, "dims": order, "as": name}}
    if op in ("all_gather", "all_gather_async"):
        dim = rng.randrange(len(shape))
        st.devices[name] = list(shape)
        return {op: {"tensor": dev, "dim": dim, "as": name}}
    if op == "neg":
        st.devices[name] = list(shape)
        return {"neg": {"tensor": dev, "as": name}}
    if op in ("add", "sub", "mul"):
        other = rng.choice([d for d in st.devices if d != name])
        st.devices[name] = list(shape)
        return {op: {"a": dev, "b": other, "as": name}}
    return _wide_step(rng, st, op, dev, shape, kind, name)


def _wide_step(rng: random.Random, st: _State, op: str, dev: str, shape: list[int], kind: tuple[str, str], name: str) -> Optional[dict]:
    """A step of one of :data:`WIDE_VOCABULARY`'s device ops beyond :data:`VOCABULARY` on ``dev``
    (its per-device ``shape`` and ``kind``), bound as ``name``; None when it has nothing to work on."""
    rank = len(shape)
    if op in ("exp", "relu", "gelu", "clone", "reallocate", "zeros_like", "ones_like"):
        st.devices[name] = list(shape)
        return {op: {"tensor": dev, "as": name}}
    if op == "full_like":
        st.devices[name] = list(shape)
        return {op: {"tensor": dev, "fill_value": rng.choice([0.5, 2, -1]), "as": name}}
    if op == "all_reduce":
        st.devices[name] = list(shape)
        return {op: {"tensor": dev, "as": name, **({"cluster_axis": rng.randrange(len(st.mesh_shape))} if rng.random() < 0.5 else {})}}
    if op == "reduce_scatter":  # the last dim over a mesh axis (a dim that does not split is refused)
        axis = rng.randrange(len(st.mesh_shape))
        st.devices[name] = shape[:-1] + [max(1, shape[-1] // st.mesh_shape[axis])]
        return {op: {"tensor": dev, "dim": rank - 1, "cluster_axis": axis, "as": name}}
    if op in ("reshape", "view"):  # the leading dims merged: the tiles stay (a view), or everything flattened in a row
        new = [_volume(shape[:-2]), *shape[-2:]] if rank >= 2 else list(shape)
        if op == "reshape" and rng.random() < 0.4:
            new = [1, _volume(shape[:-1]), shape[-1]]
        st.devices[name] = new
        return {op: {"tensor": dev, "shape": new, "as": name}}
    if op == "slice":
        d = rng.randrange(rank)
        starts, ends = [0] * rank, list(shape)
        if shape[d] > 1:
            if rng.random() < 0.5:
                ends[d] = rng.randint(1, shape[d] - 1)
            else:
                starts[d] = rng.randint(1, shape[d] - 1)
        st.devices[name] = [e - b for b, e in zip(starts, ends)]
        return {op: {"tensor": dev, "starts": starts, "ends": ends, "as": name}}
    if op == "concat":
        d = rng.randrange(rank)
        others = [o for o, s in st.devices.items() if o != name and len(s) == rank and st.kinds.get(o, DEFAULT_KIND) == kind
                  and all(s[i] == shape[i] for i in range(rank) if i != d)]
        other = rng.choice(others) if others else dev
        st.devices[name] = [*shape[:d], shape[d] + st.devices[other][d], *shape[d + 1:]]
        return {op: {"tensors": [dev, other], "dim": d, "as": name}}
    if op == "pad":  # back padding of the last dim (TILE refuses front padding on device)
        n = rng.choice([0, 1, 15, 32])
        st.devices[name] = shape[:-1] + [shape[-1] + n]
        return {op: {"tensor": dev, "padding": [[0, n]], "value": 0.0, "as": name}}
    if op == "transpose":
        d0, d1 = rng.choice([(-2, -1), (1, 2), (0, 1), (1, 3)]) if rank == 4 else (-2, -1)
        out = list(shape)
        out[d0], out[d1] = out[d1], out[d0]
        st.devices[name] = out
        return {op: {"tensor": dev, "dim0": d0, "dim1": d1, "as": name}}
    if op in ("sum", "max"):
        d = rng.randrange(rank)
        st.devices[name] = [1 if i == d else v for i, v in enumerate(shape)]
        return {op: {"tensor": dev, "dim": d, "as": name}}
    if op == "typecast":
        dtype = rng.choice(["bfloat16", "float32"] + (["bfloat8_b"] if kind[1] == "tile" else []))
        st.devices[name], st.kinds[name] = list(shape), (dtype, kind[1])
        return {op: {"tensor": dev, "dtype": dtype, "as": name}}
    if op == "to_layout":
        layout = rng.choice(["tile", "row_major"])
        if kind[0].endswith("_b"):
            layout = "tile"
        st.devices[name], st.kinds[name] = list(shape), (kind[0], layout)
        return {op: {"tensor": dev, "layout": layout, "as": name}}
    if op == "to_memory_config":
        st.devices[name] = list(shape)
        return {op: {"tensor": dev, "memory_config": rng.choice(["L1_MEMORY_CONFIG", "DRAM_MEMORY_CONFIG"]), "as": name}}
    if op in ("matmul", "linear"):  # b's rows as long as a's last dim; linear with a bias now and then
        pairs = _matmul_pairs(st, name)
        if not pairs:
            return None
        dev, b = rng.choice(pairs)
        shape, rank = st.devices[dev], len(st.devices[dev])
        st.kinds[name] = st.kinds.get(dev, DEFAULT_KIND)
        out = [*shape[:-1], st.devices[b][-1]]
        st.devices[name] = out
        args = {"a": dev, "b": b}
        if op == "linear":
            bias = [o for o, s in st.devices.items() if o not in (name, dev, b) and len(s) == rank and s[-1] == out[-1]]
            if bias and rng.random() < 0.7:
                args["bias"] = rng.choice(bias)
        return {op: {**args, "as": name}}
    if op == "get_device_tensors":  # the first per-device tensor is used on
        del st.kinds[name]
        st.devices[f"{name}[0]"], st.kinds[f"{name}[0]"] = list(shape), kind
        return {op: {"tensor": dev, "as": name}}
    raise ValueError(op)


def _host_step(rng: random.Random, st: _State, op: str) -> Optional[dict]:
    """A step of one of :data:`HOST_OPS` on a host tensor (docs/semantics.md section 18), where
    meshspec models it: a pad of a TILE tensor (a ROW_MAJOR shard's padded shape is not in
    meshspec's specs), an unpad of a ROW_MAJOR one (TILE is refused), a pad_to_tile of shards that
    are whole tiles once tilized; None when no host tensor fits the op."""
    def tile(h: str) -> bool:
        return st.kinds.get(h, DEFAULT_KIND)[1] == "tile"

    def whole_tiles(h: str) -> bool:
        return tile(h) or (len(st.hosts[h][0]) >= 2 and all(d % 32 == 0 for d in st.hosts[h][0][-2:]))

    fits = {"pad": tile, "unpad": lambda h: not tile(h), "pad_to_tile": whole_tiles}.get(op, lambda h: True)
    hosts = [h for h in st.hosts if fits(h)]
    if not hosts:
        return None
    src = rng.choice(hosts)
    shape, kind = list(st.hosts[src][0]), st.kinds.get(src, DEFAULT_KIND)
    name = st.fresh("h")
    if op in ("typecast", "to_dtype"):  # a block float tilizes a ROW_MAJOR shard (refused where that pads it)
        dtype = rng.choice(["bfloat16", "float32", "bfloat8_b"])
        kind, args = (dtype, "tile" if dtype.endswith("_b") else kind[1]), {"dtype": dtype}
    elif op == "to_layout":  # a block float stays TILE
        layout = rng.choice(["tile", "row_major"])
        kind, args = (kind[0], "tile" if kind[0].endswith("_b") else layout), {"layout": layout}
    elif op == "reshape":  # a shard's shape, as on device: the leading dims merged
        shape = [_volume(shape[:-2]), *shape[-2:]] if len(shape) > 2 else list(shape)
        args = {"shape": shape}
    elif op == "pad":  # back padding of the last dim: a TILE shard comes back as it was
        args = {"padding": [[0, rng.choice([0, 1, 15, 32])]], "value": 0.0}
    elif op == "unpad":  # a region from the origin, or from an offset now and then
        ends = [rng.randint(1, n) if rng.random() < 0.5 else n for n in shape]
        starts = [rng.randrange(e) if rng.random() < 0.2 else 0 for e in ends]
        shape = [e - b for b, e in zip(starts, ends)]
        args = {"output_tensor_start": starts, "output_tensor_end": ends}
    else:  # pad_to_tile
        args = {"pad_value": 0.0}
    st.hosts[name], st.kinds[name] = (shape, None), kind
    return {op: {"tensor": src, **args, "as": name}}


def _file_step(rng: random.Random, st: _State, op: str) -> Optional[dict]:
    """A dump_tensor of a live tensor into a new file (or over one dumped before, now and then),
    or a load_tensor of a file dumped before, on the host or on the mesh. Tensor files live in the
    run, never on disk (docs/semantics.md section 9): the names reach no folder."""
    if op == "dump_tensor":
        tensors = [*st.hosts, *st.devices]
        if not tensors:
            return None
        src = rng.choice(tensors)
        file = rng.choice(list(st.files)) if st.files and rng.random() < 0.2 else f"f{st.fresh('')}.tensorbin"
        st.files[file] = list(st.hosts[src][0] if src in st.hosts else st.devices[src])
        st.loaded.discard(file)
        st.kinds[file] = st.kinds.get(src, DEFAULT_KIND)
        return {op: {"file_name": file, "tensor": src}}
    if op == "as_tensor":
        return _as_tensor(rng, st)
    if not st.files:
        return None
    file = rng.choice([f for f in st.files if f not in st.loaded] or list(st.files))
    st.loaded.add(file)
    shape, kind = list(st.files[file]), st.kinds.get(file, DEFAULT_KIND)
    if rng.random() < 0.5:
        name = st.fresh("d")
        st.devices[name], st.kinds[name] = shape, kind
        return {op: {"file_name": file, "device": "mesh_device", "as": name}}
    name = st.fresh("h")
    st.hosts[name], st.kinds[name] = (shape, None), kind
    return {op: {"file_name": file, "as": name}}


def _as_tensor(rng: random.Random, st: _State) -> dict:
    """An as_tensor with a cache file: a new cache name (a miss: the tensor mapped, dumped, and put
    on the mesh now and then), or one cached before in the same dtype and layout (a hit: the file
    loaded, whatever the mapper asks now; docs/semantics.md section 9)."""
    cached = [f for f in st.files if f.split("_dtype_")[0] in st.caches]
    if cached and rng.random() < 0.5:
        file = rng.choice(cached)
        cache = file.split("_dtype_")[0]
        shape, kind = list(st.files[file]), st.kinds.get(file, DEFAULT_KIND)
        whole = list(st.caches[cache])  # the shape it was first made of (a hit ignores the one given)
        mapper = _mapper(rng, st, whole)[0]
    else:
        cache, kind = st.fresh("c"), rng.choice(KINDS) if rng.random() < 0.3 else DEFAULT_KIND
        whole = _shape(rng, st.size)
        mapper, _, shape = _mapper(rng, st, whole)
        if mapper == "replicate":
            shape = list(whole)
        file = f"{cache}_dtype_{kind[0].upper()}_layout_{kind[1].upper()}.tensorbin"
        st.files[file], st.kinds[file], st.caches[cache] = list(shape), kind, list(whole)
        st.loaded.add(file)
    args: dict[str, Any] = {"shape": whole, **_kind_fields(kind), "mesh_mapper": mapper, "cache_file_name": cache}
    if rng.random() < 0.5:
        name = st.fresh("d")
        st.devices[name], st.kinds[name] = list(shape), kind
        args.update(device="mesh_device", memory_config="DRAM_MEMORY_CONFIG")
    else:
        name = st.fresh("h")
        st.hosts[name], st.kinds[name] = (list(shape), None), kind
    return {"as_tensor": {"as": name, **args}}


def _matmul_pairs(st: _State, name: str = "") -> list[tuple[str, str]]:
    """The device tensors (a, b) of one rank with b's rows as long as a's last dim."""
    return [(x, y) for x, sx in st.devices.items() for y, sy in st.devices.items()
            if name not in (x, y) and len(sx) == len(sy) >= 2 and sy[-2] == sx[-1]]


def _volume(dims: list[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


#: How often each op is drawn, relative to the others, when it has something new to work on:
#: writes are where records lie (a copy when a host tensor and an allocation of its shard's shape
#: exist that were not copied yet; an allocation when a host tensor's shard has none yet).
WEIGHTS = {"copy_host_to_device_tensor": 8, "allocate_tensor_on_device": 3, "from_torch": 5, "matmul": 4, "linear": 4, "load_tensor": 8, "unpad": 3}


def _useful(st: "_State", op: str) -> bool:
    if op == "copy_host_to_device_tensor":
        return any(st.fits(h, d) and (h, d) not in st.copies for h in st.hosts for d in st.devices)
    if op == "allocate_tensor_on_device":
        return any(s not in st.devices.values() for s, _ in st.hosts.values())
    if op == "from_torch":  # a new host tensor is worth most where no host tensor fits an allocation yet
        return not st.devices or not _useful(st, "copy_host_to_device_tensor")
    if op == "to_device":
        return bool(st.hosts)
    if op in ("matmul", "linear"):
        return bool(_matmul_pairs(st))
    if op == "unpad":  # of a ROW_MAJOR host tensor only (TILE is refused)
        return any(st.kinds.get(h, DEFAULT_KIND)[1] != "tile" for h in st.hosts)
    if op in HOST_OPS:
        return bool(st.hosts) if op in _HOST_ONLY else bool(st.hosts or st.devices)
    if op == "dump_tensor":
        return bool(st.hosts or st.devices)
    if op == "load_tensor":  # a file not loaded since its dump: what it kept is yet to be seen
        return bool(set(st.files) - st.loaded)
    return bool(st.devices)


def _draw(rng: random.Random, st: "_State", ops: tuple[str, ...]) -> str:
    weights = [WEIGHTS.get(o, 1) if _useful(st, o) else (0.5 if o == "from_torch" else 0.05) for o in ops]
    return rng.choices(ops, weights)[0]


def generate(rng: random.Random, mesh_shape: tuple[int, ...], mesh: MeshSpec, ops: tuple[str, ...], max_steps: int = 7) -> Program:
    """A program of 1 to ``max_steps`` steps: it starts by making a host tensor (nothing can be
    written before one exists), then each step is a random op that can run on what exists. Each
    program draws from its own random half of ``ops`` (swarm testing, Groce et al. 2012: leaving
    ops out makes the others' long sequences likelier, a copy after a copy into one buffer)."""
    kept = tuple(o for o in ops if o in _CORE or rng.random() < 0.5) or ops
    ops = kept + tuple(o for o, first in _AFTER.items() if o in ops and first in kept and o not in kept)
    st = _State(tuple(mesh_shape))
    steps: list[dict] = []
    n = rng.randint(2, max_steps)
    first = [o for o in ops if o in _NEEDED] or list(ops)  # a host tensor first: later steps size allocations from it
    for _ in range(50 * n):  # ops that need what was never made are drawn again, a bounded number of times
        if len(steps) >= n:
            break
        op = rng.choice(first) if not steps else _draw(rng, st, ops)
        step = _step(rng, st, op)
        if step is not None:
            steps.append(step)
    return Program(mesh, tuple(steps))
