"""How ``meshspec hunt`` writes a step of an op: what every op's :attr:`Op.generate` shares.

An op's ``generate(rng, st, op)`` writes one step of ``op`` on what the program made so far
(``st``: :class:`meshspec.hunt.programs._State`, its host and device tensors with their shapes,
dtypes and layouts), records what the step makes in ``st``, and returns the step as a scenario
writes it (``{op: {field: value}}``), or None when nothing it needs exists yet. The hunt draws an
op and calls it (meshspec/hunt/programs.py): adding an op that hunt writes edits only the op's module.

Most ops work on a device tensor drawn from those made (:func:`on_device`, :func:`of_device`),
some on a host tensor (:func:`on_host`), a few on either (:func:`host_or_device`). The random
draws are made in one order for every op: a program of a seed is the same on every machine.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

Step = Optional[dict]
"""A step as a scenario writes it, or None when the op has nothing to work on."""

DEFAULT_KIND = ("bfloat16", "tile")
#: Other dtypes and layouts a program's tensors take now and then (block floats are TILE only).
KINDS = (("float32", "tile"), ("bfloat16", "row_major"), ("uint32", "row_major"), ("bfloat8_b", "tile"), ("int32", "tile"))


def new_shape(rng: Any, size: int) -> list[int]:
    """A rank-4 activation shape; dim 1 often shorter than the mesh (the seed's class), dims 2-3
    tile-sized or not."""
    dim1 = rng.choice([1, 2, size - 1, size - 1, size, size, size + 1, 2 * size]) if size > 1 else rng.choice([1, 2])
    return [1, max(1, dim1), rng.choice([32, 32, 64, 17]), rng.choice([32, 32, 64, 48])]


def kind_fields(kind: tuple[str, str]) -> dict:
    """The dtype and layout fields a step writes (none for the default, bfloat16 TILE)."""
    return {} if kind == DEFAULT_KIND else {"dtype": kind[0], "layout": kind[1]}


def devices_written(mapper: Any, shape: list[int], size: int) -> int:
    """How many devices a mapper writes (torch.chunk's count for a shard)."""
    if mapper == "replicate":
        return size
    if "create_mesh_mapper" in mapper:
        parts = mapper["create_mesh_mapper"]["mesh_shape_override"][0]
        dim = mapper["create_mesh_mapper"]["placements"][0]["shard"]
    else:
        parts, dim = size, mapper["shard"]
    n = shape[dim]
    return -(-n // chunk(n, parts))


def chunk(n: int, parts: int) -> int:
    """The first shard's size when ``n`` is split in ``parts`` (torch.chunk: ceil)."""
    return -(-n // parts)


def new_mapper(rng: Any, st: Any, shape: list[int]) -> tuple[Any, Optional[int], list[int]]:
    """A mapper, the dim it shards (or None) and the shape of the first shard."""
    kind = rng.choice(["shard", "shard", "shard", "replicate", "override"])
    if kind == "replicate":
        return "replicate", None, list(shape)
    dim = rng.choice([1, 1, 2, 3])
    shard = list(shape)
    if kind == "override" and st.size > 2:
        devices = rng.randint(1, st.size - 1)  # fewer devices than the mesh: a partial write
        shard[dim] = chunk(shape[dim], devices)
        return {"create_mesh_mapper": {"placements": [{"shard": dim}], "mesh_shape_override": [devices]}}, dim, shard
    shard[dim] = chunk(shape[dim], st.size)
    return {"shard": dim}, dim, shard


def matmul_pairs(st: Any, name: str = "") -> list[tuple[str, str]]:
    """The device tensors (a, b) of one rank with b's rows as long as a's last dim."""
    return [(x, y) for x, sx in st.devices.items() for y, sy in st.devices.items()
            if name not in (x, y) and len(sx) == len(sy) >= 2 and sy[-2] == sx[-1]]


OnDevice = Callable[[Any, Any, str, str, list, tuple, str], Step]
"""``make(rng, st, op, dev, shape, kind, name)``: the step of ``op`` on the device tensor ``dev``
(its per-device ``shape`` and ``kind``), bound as the new device tensor ``name``."""


def on_device(make: OnDevice) -> Callable[[Any, Any, str], Step]:
    """An op on a device tensor drawn from those made, binding a new one (its dtype and layout
    the input's unless ``make`` says otherwise); None while no device tensor exists."""

    def generate(rng: Any, st: Any, op: str) -> Step:
        if not st.devices:
            return None
        dev = rng.choice(list(st.devices))
        shape = st.devices[dev]
        kind = st.kinds.get(dev, DEFAULT_KIND)
        name = st.fresh("d")
        st.kinds[name] = kind
        return make(rng, st, op, dev, shape, kind, name)

    return generate


def of_device(make: Callable[[Any, Any, str, str, list, tuple], Step]) -> Callable[[Any, Any, str], Step]:
    """An op on a device tensor drawn from those made that binds no new device tensor
    (``make(rng, st, op, dev, shape, kind)``); None while no device tensor exists."""

    def generate(rng: Any, st: Any, op: str) -> Step:
        if not st.devices:
            return None
        dev = rng.choice(list(st.devices))
        return make(rng, st, op, dev, st.devices[dev], st.kinds.get(dev, DEFAULT_KIND))

    return generate


def is_tile(st: Any, h: str) -> bool:
    return st.kinds.get(h, DEFAULT_KIND)[1] == "tile"


def any_host(st: Any, h: str) -> bool:
    return True


OnHost = Callable[[Any, list, tuple], tuple[list, tuple, dict]]
"""``make(rng, shape, kind)``: the op's arguments on a host tensor of shards of ``shape`` and
``kind``, and the shape and kind of what it binds: ``(shape, kind, args)``."""


def _host_step(rng: Any, st: Any, op: str, fits: Callable[[Any, str], bool], make: OnHost) -> Step:
    """A step of ``op`` on a host tensor that ``fits`` it (docs/semantics.md section 18), shard by
    shard; None when no host tensor fits the op."""
    hosts = [h for h in st.hosts if fits(st, h)]
    if not hosts:
        return None
    src = rng.choice(hosts)
    shape, kind = list(st.hosts[src][0]), st.kinds.get(src, DEFAULT_KIND)
    name = st.fresh("h")
    shape, kind, args = make(rng, shape, kind)
    st.hosts[name], st.kinds[name] = (shape, None), kind
    return {op: {"tensor": src, **args, "as": name}}


def on_host(make: OnHost, fits: Callable[[Any, str], bool] = any_host) -> Callable[[Any, Any, str], Step]:
    """An op that runs on host tensors only; None while none exists that ``fits`` it."""

    def generate(rng: Any, st: Any, op: str) -> Step:
        return _host_step(rng, st, op, fits, make) if st.hosts else None

    return generate


def host_or_device(host: OnHost, device: OnDevice, fits: Callable[[Any, str], bool] = any_host) -> Callable[[Any, Any, str], Step]:
    """An op that runs on a host tensor (shard by shard) or a device one: on a host tensor when
    there is no device tensor, else now and then (four times in ten)."""
    on_devices = on_device(device)

    def generate(rng: Any, st: Any, op: str) -> Step:
        if st.hosts and (not st.devices or rng.random() < 0.4):
            return _host_step(rng, st, op, fits, host)
        return on_devices(rng, st, op)

    return generate


def new_dtype(rng: Any, shape: list, kind: tuple) -> tuple[list, tuple, dict]:
    """A host tensor in another dtype: a block float tilizes a ROW_MAJOR shard (refused where that pads it)."""
    dtype = rng.choice(["bfloat16", "float32", "bfloat8_b"])
    return shape, (dtype, "tile" if dtype.endswith("_b") else kind[1]), {"dtype": dtype}


def same(rng: Any, st: Any, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    """An op of one tensor whose output is as its input (``ttnn.neg(tensor)``)."""
    st.devices[name] = list(shape)
    return {op: {"tensor": dev, "as": name}}
