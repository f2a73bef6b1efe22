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
        out = out.replace("\nprofiles:", f"\nmesh: {_flow(self.mesh)}\nprofiles:", 1) if "\nprofiles:" in out else out + f"mesh: {_flow(self.mesh)}\n"
        out += "steps:\n" + "".join(f"  - {_flow(s)}\n" for s in self.steps)
        if "expect" in doc:
            out += "expect:\n  profiles:\n"
            for prof, block in doc["expect"]["profiles"].items():
                out += f"    {_flow(prof)}:\n"
                found = block.get("findings", [])
                out += "      findings:" + ("\n" + "".join(f"        - {_flow(f)}\n" for f in found) if found else " []\n")
                if block.get("error") is not None:
                    out += f"      error: {_flow(block['error'])}\n"
        return out


def _flow(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**6).strip()
    return text[: -len("...")].strip() if text.endswith("\n...") else text  # a plain scalar's document end


#: Every op the generator can write, in the order it prefers them; ``--ops`` picks from these.
VOCABULARY: tuple[str, ...] = (
    "from_torch", "allocate_tensor_on_device", "copy_host_to_device_tensor", "to_device", "cpu", "to_torch", "deallocate",
    "squeeze", "unsqueeze", "permute", "all_gather", "neg", "add",
)

#: Ops that make a host tensor (hunt needs one to write anything to a device).
_NEEDED = ("from_torch",)


@dataclass
class _State:
    """What the program made so far: host tensors (name -> shape, shard dim or None) and live
    device tensors (name -> shape as each device holds it)."""

    mesh_shape: tuple[int, ...]
    hosts: dict[str, tuple[list[int], Optional[int]]] = field(default_factory=dict)
    devices: dict[str, list[int]] = field(default_factory=dict)
    copies: set = field(default_factory=set)
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
        allocated = [d for d in st.devices.values() if len(d) == 4]
        if allocated and rng.random() < 0.5:  # shards that fit an allocation: a host tensor to copy into it
            target = list(rng.choice(allocated))
            if target[1] == 1:
                shape = [target[0], rng.choice([1, st.size - 1, st.size]), *target[2:]]
                mapper, dim, shard = {"shard": 1}, 1, list(target)
            else:
                shape, mapper, dim, shard = list(target), "replicate", None, list(target)
        else:
            if earlier and rng.random() < 0.5:  # the rows and columns of an earlier one: their shards may share an allocation
                shape[2:] = list(rng.choice(earlier)[2:])
            mapper, dim, shard = _mapper(rng, st, shape)
        name = st.fresh("h")
        args: dict[str, Any] = {"as": name, "shape": shape, "mesh_mapper": mapper}
        if rng.random() < 0.2:
            args["device"] = "mesh_device"
            st.devices[name] = shard
        else:
            st.hosts[name] = (shard, dim)
        if rng.random() < 0.3:
            args["data"] = {"random": rng.randint(1, 9)}
        return {"from_torch": args}
    if op == "allocate_tensor_on_device":
        unplaced = [s for s, _ in st.hosts.values() if s not in st.devices.values()]
        if st.hosts and rng.random() < 0.9:
            shape = list(rng.choice(unplaced or [s for s, _ in st.hosts.values()]))  # room for a host tensor's shard
        else:
            shape = _shape(rng, st.size)
        name = st.fresh("d")
        st.devices[name] = shape
        return {"allocate_tensor_on_device": {"as": name, "shape": shape}}
    if op == "copy_host_to_device_tensor":
        if not st.hosts or not st.devices:
            return None
        fits = [d for d, s in st.devices.items() if any(h[0] == s for h in st.hosts.values())]
        dst = rng.choice(fits or list(st.devices))
        srcs = [h for h, (s, _) in st.hosts.items() if s == st.devices[dst]] or list(st.hosts)
        fresh = [h for h in srcs if (h, dst) not in st.copies]  # a second copy into dst: the partial-then-full class
        src = rng.choice(fresh or srcs)
        st.copies.add((src, dst))
        return {"copy_host_to_device_tensor": {"src": src, "dst": dst}}
    if op == "to_device":
        if not st.hosts:
            return None
        src = rng.choice(list(st.hosts))
        name = st.fresh("d")
        st.devices[name] = list(st.hosts[src][0])
        return {"to_device": {"src": src, "as": name}}
    if not st.devices:
        return None
    dev = rng.choice(list(st.devices))
    shape = st.devices[dev]
    if op == "cpu":
        name = st.fresh("h")
        st.hosts[name] = (list(shape), None)
        return {"cpu": {"tensor": dev, "as": name}}
    if op == "to_torch":
        return {"to_torch": {"tensor": dev, "as": st.fresh("out"), "mesh_composer": {"concat": rng.choice([0, 1, 3])}}}
    if op == "deallocate":
        del st.devices[dev]
        return {"deallocate": {"tensor": dev}}
    name = st.fresh("d")
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
    if op == "all_gather":
        dim = rng.randrange(len(shape))
        st.devices[name] = list(shape)
        return {"all_gather": {"tensor": dev, "dim": dim, "as": name}}
    if op == "neg":
        st.devices[name] = list(shape)
        return {"neg": {"tensor": dev, "as": name}}
    if op == "add":
        other = rng.choice([d for d in st.devices if d != name])
        st.devices[name] = list(shape)
        return {"add": {"a": dev, "b": other, "as": name}}
    raise ValueError(op)


#: How often each op is drawn, relative to the others, when it has something new to work on:
#: writes are where records lie (a copy when a host tensor and an allocation of its shard's shape
#: exist that were not copied yet; an allocation when a host tensor's shard has none yet).
WEIGHTS = {"copy_host_to_device_tensor": 5, "allocate_tensor_on_device": 3, "from_torch": 2}


def _useful(st: "_State", op: str) -> bool:
    if op == "copy_host_to_device_tensor":
        return any(s == st.devices[d] and (h, d) not in st.copies for h, (s, _) in st.hosts.items() for d in st.devices)
    if op == "allocate_tensor_on_device":
        return any(s not in st.devices.values() for s, _ in st.hosts.values())
    return True


def _draw(rng: random.Random, st: "_State", ops: tuple[str, ...]) -> str:
    weights = [WEIGHTS.get(o, 1) if _useful(st, o) else 0.2 for o in ops]
    return rng.choices(ops, weights)[0]


def generate(rng: random.Random, mesh_shape: tuple[int, ...], mesh: MeshSpec, ops: tuple[str, ...], max_steps: int = 6) -> Program:
    """A program of 1 to ``max_steps`` steps from ``ops``: it starts by making a host tensor
    (nothing can be written before one exists), then each step is a random op that can run on
    what exists."""
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
