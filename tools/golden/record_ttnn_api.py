#!/usr/bin/env python3
"""Record the ttnn 0.81.1 names an exported script may use in an opaque step's call, for
meshspec/scenario/ttnn_api.py (read by meshspec/scenario/code.py).

An opaque step's ``code`` is re-emitted only as one call of a known ttnn function on the step's
tensors, literals and ttnn's constants and config classes. "Known" means in the lists this script
takes from the real library, not whatever ``ttnn.X`` resolves to: ttnn's module also holds what it
imports (``ttnn.os``, ``ttnn.sys``, ``ttnn.ModuleType``, ``ttnn.json``), and a syntactic check let
those through. Kept:

- FUNCTIONS: ttnn's registered operations (``ttnn.decorators.FastOperation`` objects: ``ttnn.add``,
  ``ttnn.experimental.all_gather_async``) in ``ttnn`` and its op namespaces, plus the few bound
  functions on tensors meshspec models (:data:`TENSOR_FUNCTIONS`); never the tensor-file calls
  (:data:`FILE_CALLS`: they read or write paths).
- CONSTANTS: module-level values of ttnn's own types (``ttnn.bfloat16``, ``ttnn.TILE_LAYOUT``,
  ``ttnn.DRAM_MEMORY_CONFIG``) and the members of ttnn's enums (``ttnn.Topology.Linear``).
- CONFIG_CLASSES: ttnn's own classes that describe a configuration (names ending in Config, Spec,
  Coord, Range, Grid, Shape, Tile, ...; :data:`CONFIG_CLASS`), which an argument may build.

Deterministic. Run in the ttnn venv, in mock mode:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_ttnn_api.py        # writes meshspec/scenario/ttnn_api.py
"""

import enum
import os
import re
import types
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import ttnn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "meshspec" / "scenario" / "ttnn_api.py"

NAMESPACES = ("experimental", "transformer", "kv_cache", "experimental.deepseek_prefill", "experimental.kda", "experimental.quasar")
"""ttnn's op namespaces below ``ttnn`` (the modules whose members are FastOperations)."""

TENSOR_FUNCTIONS = ("aggregate_tensor", "combine_device_tensors", "distribute_tensor", "from_host_shards", "get_device_tensors")
"""Bound (nanobind) functions on tensors, not registered as operations, that meshspec models."""

FILE_CALLS = ("dump_tensor", "load_tensor", "as_tensor")
"""Registered operations an exported script never runs from a scenario's text: they read or write files."""

CONFIG_CLASS = re.compile(
    r"(\w+Config|\w+Spec|CoreCoord|CoreRange|CoreRangeSet|CoreGrid|MeshCoordinate|MeshCoordinateRange|MeshCoordinateRangeSet"
    r"|MeshShape|Shape|Tile|PlacementReplicate|PlacementShard|TensorTopology|UnaryWithParam|QueueId|SubDeviceId)"
)


def own(value) -> bool:
    """Whether ``value``'s type is one of ttnn's own (not a module, a class or a helper it imports)."""
    return type(value).__module__.split(".")[0] == "ttnn"


def namespaces():
    """``(prefix, module)`` for ``ttnn`` and each of its op namespaces: ``("ttnn.experimental", ...)``."""
    for space in ("", *NAMESPACES):
        module = ttnn
        for part in filter(None, space.split(".")):
            module = getattr(module, part)
        yield ".".join(filter(None, ("ttnn", space))), module


def functions() -> set[str]:
    op = type(ttnn.add)  # ttnn.decorators.FastOperation
    found = set()
    for prefix, module in namespaces():
        found |= {f"{prefix}.{n}" for n in dir(module) if not n.startswith("_") and isinstance(getattr(module, n), op)}
    found |= {f"ttnn.{n}" for n in TENSOR_FUNCTIONS if callable(getattr(ttnn, n))}
    return {f for f in found - {f"ttnn.{n}" for n in FILE_CALLS} if not NOT_RUN.search(f)}


NOT_RUN = re.compile(r"(^|\.)test_|_hang_|socket|(^|\.)(send|recv)_")
"""Registered ops a script never runs from a scenario's text, whatever their arguments: ttnn's own
test ops (``ttnn.test_hang_device_operation`` hangs the device on purpose; the prefetcher tests)
and those that wait on a peer host (``send_async``, ``recv_async``, the socket services): on a
machine with hardware, a repro script would hang there."""


def existing() -> set[str]:
    """Every callable of ttnn's own in ``ttnn`` and its op namespaces (registered operations, bound
    functions, its Python functions and classes): what meshspec's own emitters may call."""
    found = set()
    for prefix, module in namespaces():
        for n in dir(module):
            value = getattr(module, n)
            if n.startswith("_") or isinstance(value, types.ModuleType) or not callable(value):
                continue
            if own(value) or str(getattr(value, "__module__", "")).split(".")[0] == "ttnn":
                found.add(f"{prefix}.{n}")
    return found


def enum_members(cls) -> set[str]:
    return {m for m in dir(cls) if not m.startswith("_") and isinstance(getattr(cls, m, None), cls)}


def constants_and_classes() -> tuple[set[str], set[str]]:
    constants, classes = set(), set()
    for name in dir(ttnn):
        if name.startswith("_"):
            continue
        value = getattr(ttnn, name)
        if isinstance(value, type):
            if value.__module__.split(".")[0] != "ttnn":
                continue  # ModuleType and the like: imported, not ttnn's
            members = enum_members(value)
            if members or issubclass(value, enum.Enum):
                constants |= {f"ttnn.{name}.{m}" for m in members}
            elif CONFIG_CLASS.fullmatch(name):
                classes.add(f"ttnn.{name}")
        elif isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType)) or callable(value):
            continue
        elif name == "CONFIG":
            continue  # ttnn's global settings, not a value a call takes
        elif own(value) or type(value) in (int, float, bool):
            constants.add(f"ttnn.{name}")
    return constants, classes


def main() -> None:
    funcs = functions()
    constants, classes = constants_and_classes()
    assert "ttnn.add" in funcs and "ttnn.experimental.all_gather_async" in funcs and "ttnn.os" not in funcs
    assert "ttnn.bfloat16" in constants and "ttnn.Topology.Linear" in constants and "ttnn.MemoryConfig" in classes

    def block(name: str, doc: str, items: set[str]) -> str:
        body = "".join(f"    {item!r},\n" for item in sorted(items))
        return f"{name} = frozenset({{\n{body}}})\n\"\"\"{doc}\"\"\"\n"

    text = (
        '"""The ttnn 0.81.1 names an opaque step\'s call may use in an exported script (meshspec/scenario/code.py).\n\n'
        "Recorded from the real library in mock mode by tools/golden/record_ttnn_api.py; do not edit by hand.\n"
        '"""\n\n'
        + block("FUNCTIONS", "ttnn's registered operations (and the tensor functions meshspec models): what a call may call.", funcs)
        + "\n"
        + block("CONSTANTS", "Values of ttnn's own types and members of its enums: what an argument may name.", constants)
        + "\n"
        + block("CONFIG_CLASSES", "ttnn's configuration classes: what an argument may build.", classes)
        + "\n"
        + block("EXISTING", "Every callable of ttnn's own (its operations, bound and Python functions, classes): what "
                "meshspec's own emitters may call.", existing())
    )
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT}: {len(funcs)} functions, {len(constants)} constants, {len(classes)} config classes")


if __name__ == "__main__":
    main()
