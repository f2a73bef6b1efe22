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

from ..sim.ops import OPS
from ..sim.ops.generating import DEFAULT_KIND, matmul_pairs as _matmul_pairs
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


def _step(rng: random.Random, st: _State, op: str) -> Optional[dict]:
    """One step of ``op`` on what exists, or None when nothing it needs exists yet: as the op
    declares it (:attr:`meshspec.sim.ops.Op.generate`, meshspec/sim/ops/generating.py)."""
    generate = OPS[op].generate if op in OPS else None
    if generate is None:
        raise ValueError(op)
    return generate(rng, st, op)


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
