"""Record what the real ttnn 0.81.1 says about sharded memory, as golden data for meshspec's sharding model.

Runs the real library on this CPU in mock mode (mock cluster descriptors; no hardware) and writes
tests/golden/ttnn_0_81_1_sharded.json, the ground truth for GitHub issue "Sharded memory configs:
per-core records, per-core writes, real addresses". From the repository root:

    ../shared/ttnn-mock/setup.sh              # once: installs ttnn==0.81.1 (Python 3.10) into $TMPDIR/ttnn-mock
    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh   # activates that venv and sets the mock variables
    python tools/golden/record_sharded.py     # about 20 s; --golden PATH writes elsewhere

The mock cluster descriptors are found as tools/golden/record_ttnn.py finds them (MESHSPEC_CLUSTERS,
default ../shared/ttnn-mock/clusters; the same SYSTEM_CLUSTERS names). A descriptor is read once per
process, so every (system, section) pair runs in a child process of its own (`--child SYSTEM
--section NAME --out FILE`, internal), in a scratch directory (opening a mesh writes generated/ there).
Errors are normalised by record_ttnn.error_text ("TT_FATAL: <info>"), and "raised_in" keeps the
source file:line of the TT_FATAL/TT_THROW that raised it (it tells spec validation, tensor_spec.cpp /
tensor_layout.cpp, from buffer validation, buffer.cpp / bank_manager.cpp, even when one Python call
does both). The output is deterministic: re-running gives the same bytes. Key order is fixed by the
code (not sorted); lists of numbers are kept on one line.

The case lists below are the data: edit them, re-run, commit both files. The "about" section of the
JSON describes every section and the plain-data conventions (grids, memory configs, stages).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import ttnn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_ttnn import (  # noqa: E402
    CLUSTERS, SYSTEM_CLUSTERS, error_text, mapper_config, populated_coords, topology_json)

TTNN_VERSION = "0.81.1"
RECORDED_BY = "tools/golden/record_sharded.py"
SCRIPT = Path(__file__).resolve()
REPO = SCRIPT.parents[2]
OUTPUT = REPO / "tests" / "golden" / "ttnn_0_81_1_sharded.json"

#: The mesh each system's cases run on (the facts section opens the system's default mesh).
SYSTEM_MESH = {"n150": (1, 1), "n300": (1, 2), "t3k": (2, 4), "galaxy": (8, 4), "p150": (1, 1), "p150x4": (1, 4),
               "p150x8": (2, 4), "bh-galaxy": (8, 4)}

#: section -> the systems it is recorded on, in output order.
SECTION_SYSTEMS = {
    "systems": list(SYSTEM_CLUSTERS),
    "specs": ["t3k", "p150x8"],
    "nd_specs": ["t3k", "p150x8"],
    "errors": ["t3k", "galaxy", "p150", "p150x8"],
    "mesh": ["t3k"],
    "allocator": ["t3k", "galaxy", "p150", "p150x8"],
    "per_core_allocator": ["t3k", "p150"],
    "create_sharded_memory_config": ["t3k"],
    "printed": ["t3k"],
    "op_outputs": ["t3k"],
}
#: Systems whose generic (not grid-derived) error cases are recorded; the grid cases run on every errors system.
GENERIC_ERROR_SYSTEMS = ("t3k", "p150x8")
#: Extra environment for a section's child process (per-core allocation needs the HYBRID allocator mode).
SECTION_ENV = {"per_core_allocator": {"TT_METAL_ALLOCATOR_MODE_HYBRID": "1"}}


# --- plain-data case builders ----------------------------------------------------------------------

def rect(x0, y0, x1=None, y1=None):
    """One core range [[x0, y0], [x1, y1]] (a single core when x1/y1 are left out)."""
    return [[x0, y0], [x0 if x1 is None else x1, y0 if y1 is None else y1]]


ROW4 = [rect(0, 0, 3, 0)]  # 4 cores in a row
ROW3 = [rect(0, 0, 2, 0)]
ROW2 = [rect(0, 0, 1, 0)]
COL4 = [rect(0, 0, 0, 3)]  # 4 cores in a column
SQ22 = [rect(0, 0, 1, 1)]  # a 2x2 block
CORE00 = [rect(0, 0)]


def sharded(memory_layout, shard_shape, grid, orientation="row_major", buffer_type="l1"):
    """A 2-D sharded memory config:
    MemoryConfig(memory_layout, buffer_type, ShardSpec(grid, shard_shape, orientation))."""
    return {"memory_layout": memory_layout, "buffer_type": buffer_type, "grid": grid,
            "shard_shape": None if shard_shape is None else list(shard_shape), "orientation": orientation}


def height(shard, grid, orientation="row_major", buffer_type="l1"):
    return sharded("height_sharded", shard, grid, orientation, buffer_type)


def width(shard, grid, orientation="row_major", buffer_type="l1"):
    return sharded("width_sharded", shard, grid, orientation, buffer_type)


def block(shard, grid, orientation="row_major", buffer_type="l1"):
    return sharded("block_sharded", shard, grid, orientation, buffer_type)


def no_shard_spec(memory_layout, buffer_type="l1"):
    return {"memory_layout": memory_layout, "buffer_type": buffer_type, "grid": None, "shard_shape": None,
            "orientation": None}


def interleaved(buffer_type="dram"):
    return no_shard_spec("interleaved", buffer_type)


def nd(shard_shape, grid, orientation="row_major", distribution="round_robin_1d", buffer_type="l1"):
    """An ND sharded memory config:
    MemoryConfig(buffer_type, NdShardSpec(Shape(shard_shape), grid, orientation, distribution))."""
    return {"buffer_type": buffer_type, "nd_shard_spec": {"shard_shape": list(shard_shape), "grid": grid,
                                                          "orientation": orientation, "distribution": distribution}}


def constant(name):
    """One of ttnn's memory-config constants, used as it is."""
    return {"constant": name}


def tensor(shape, memory_config, dtype="bfloat16", layout="tile", tile=None, note=None):
    """A tensor case: shape, dtype, layout (and tile, when not 32x32) in a memory config."""
    case = {"shape": list(shape), "dtype": dtype, "layout": layout}
    if tile is not None:
        case["tile"] = list(tile)
    case["memory_config"] = memory_config
    if note:
        case["note"] = note
    return case


def in_l1_and_dram(case):
    """The case in L1, then the same case DRAM-sharded (the grid read as DRAM bank ids)."""
    dram = dict(case, memory_config=dict(case["memory_config"], buffer_type="dram"))
    return [case, dram]


# --- ttnn <-> plain data ---------------------------------------------------------------------------

DTYPES = {"bfloat16": ttnn.bfloat16, "float32": ttnn.float32, "bfloat8_b": ttnn.bfloat8_b}
LAYOUTS = {"tile": ttnn.TILE_LAYOUT, "row_major": ttnn.ROW_MAJOR_LAYOUT}
MEMORY_LAYOUTS = {"interleaved": ttnn.TensorMemoryLayout.INTERLEAVED,
                  "height_sharded": ttnn.TensorMemoryLayout.HEIGHT_SHARDED,
                  "width_sharded": ttnn.TensorMemoryLayout.WIDTH_SHARDED,
                  "block_sharded": ttnn.TensorMemoryLayout.BLOCK_SHARDED,
                  "nd_sharded": ttnn.TensorMemoryLayout.ND_SHARDED}
BUFFER_TYPES = {"dram": ttnn.BufferType.DRAM, "l1": ttnn.BufferType.L1, "l1_small": ttnn.BufferType.L1_SMALL,
                "trace": ttnn.BufferType.TRACE}
ORIENTATIONS = {"row_major": ttnn.ShardOrientation.ROW_MAJOR, "col_major": ttnn.ShardOrientation.COL_MAJOR}
DISTRIBUTIONS = {"round_robin_1d": ttnn.ShardDistributionStrategy.ROUND_ROBIN_1D,
                 "grid_2d": ttnn.ShardDistributionStrategy.GRID_2D,
                 "contiguous_1d": ttnn.ShardDistributionStrategy.CONTIGUOUS_1D}
STRATEGIES = {"height": ttnn.ShardStrategy.HEIGHT, "width": ttnn.ShardStrategy.WIDTH, "block": ttnn.ShardStrategy.BLOCK}
#: The exceptions recorded as data: ttnn's own (RuntimeError) and nanobind's argument checks (TypeError).
RECORDED_ERRORS = (RuntimeError, TypeError, IndexError, ValueError)


def name(enum_value):
    """An enum value in the case data's words: TensorMemoryLayout.HEIGHT_SHARDED -> "height_sharded"."""
    return str(enum_value).split(".")[-1].lower()


def core_range_set(grid):
    """CoreRangeSet of the ranges in the given order (a list keeps the order; a Python set would not)."""
    return ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(*a), ttnn.CoreCoord(*b)) for a, b in grid])


def grid_json(crs):
    return [[[r.start.x, r.start.y], [r.end.x, r.end.y]] for r in crs.ranges()]


def grid_cores(grid):
    """The cores of a plain grid, range by range, row by row."""
    return [[x, y] for (x0, y0), (x1, y1) in grid for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)]


def memory_config_json(mc):
    """A ttnn.MemoryConfig as plain data (every field its str() shows)."""
    flags = json.loads(mc.to_json())
    ss, nds = mc.shard_spec, mc.nd_shard_spec
    lockstep = re.search(r"range_lockstep_allocation=(\d)", str(mc))
    return {
        "memory_layout": name(mc.memory_layout),
        "buffer_type": name(mc.buffer_type),
        "shard_spec": None if ss is None else {"grid": grid_json(ss.grid), "shard_shape": list(ss.shape),
                                               "orientation": name(ss.orientation)},
        "nd_shard_spec": None if nds is None else {"shard_shape": list(nds.shard_shape), "grid": grid_json(nds.grid),
                                                   "orientation": name(nds.orientation),
                                                   "distribution": name(nds.shard_distribution_strategy)},
        "created_with_nd_shard_spec": flags["created_with_nd_shard_spec"],
        "per_core_allocation": flags["per_core_allocation"],
        "range_lockstep_allocation": lockstep is not None and lockstep.group(1) == "1",
    }


def raised_in(exc):
    """The source file:line of a TT_FATAL / TT_THROW (None for other errors)."""
    match = re.match(r"TT_(?:FATAL|THROW) @ (?:/project/)?(\S+?:\d+):", str(exc))
    return match.group(1) if match else None


class Raised(Exception):
    """A ttnn error, tagged with the stage (the call) that raised it."""

    def __init__(self, stage, exc):
        super().__init__(stage)
        self.stage, self.exc = stage, exc

    def json(self):
        return {"error": error_text(self.exc), "raised_at": self.stage, "raised_in": raised_in(self.exc)}


NO_ERROR = {"error": None, "raised_at": None, "raised_in": None}


def at(stage, fn, *args, **kwargs):
    """fn(*args, **kwargs); a recorded error is re-raised as Raised(stage, error)."""
    try:
        return fn(*args, **kwargs)
    except RECORDED_ERRORS as exc:
        raise Raised(stage, exc) from exc


def attempt(stage, fn, *args, **kwargs):
    """(value, NO_ERROR) or (None, the error as data)."""
    try:
        return at(stage, fn, *args, **kwargs), dict(NO_ERROR)
    except Raised as raised:
        return None, raised.json()


def make_memory_config(mc):
    """Build a plain memory config stage by stage. Returns (MemoryConfig, TensorSpec arguments after
    the layout, or None for a constant)."""
    if "constant" in mc:
        return getattr(ttnn, mc["constant"]), None
    buffer_type = BUFFER_TYPES[mc["buffer_type"]]
    if "nd_shard_spec" in mc:
        spec = mc["nd_shard_spec"]
        grid = at("core_range_set", core_range_set, spec["grid"])
        nd_spec = at("nd_shard_spec", ttnn.NdShardSpec, ttnn.Shape(spec["shard_shape"]), grid,
                     ORIENTATIONS[spec["orientation"]], DISTRIBUTIONS[spec["distribution"]])
        memory = at("memory_config", ttnn.MemoryConfig, buffer_type, nd_spec)
        spec_args = (nd_spec, buffer_type)
    else:
        layout = MEMORY_LAYOUTS[mc["memory_layout"]]
        shard_spec = None
        if mc["shard_shape"] is not None:
            grid = at("core_range_set", core_range_set, mc["grid"])
            orientation = [] if mc["orientation"] is None else [ORIENTATIONS[mc["orientation"]]]
            shard_spec = at("shard_spec", ttnn.ShardSpec, grid, list(mc["shard_shape"]), *orientation)
        memory = at("memory_config", ttnn.MemoryConfig, layout, buffer_type, shard_spec)
        spec_args = (layout, shard_spec, buffer_type)
    if mc.get("per_core_allocation"):
        memory.experimental_set_per_core_allocation(True)
    if mc.get("range_lockstep_allocation"):
        memory.experimental_set_range_lockstep_allocation(True)
    return memory, spec_args


def tile_kwargs(case):
    return {"tile": ttnn.Tile(case["tile"])} if "tile" in case else {}


def make_spec(case, spec_args):
    return at("spec", ttnn.TensorSpec, ttnn.Shape(case["shape"]), DTYPES[case["dtype"]], LAYOUTS[case["layout"]],
              *spec_args, **tile_kwargs(case))


def allocate_with_memory_config(case, mesh_device):
    """allocate_tensor_on_device(Shape, dtype, layout, mesh, memory_config): the overload that builds the spec
    itself."""
    memory, _ = make_memory_config(case["memory_config"])
    return at("allocate_with_memory_config", ttnn.allocate_tensor_on_device, ttnn.Shape(case["shape"]),
              DTYPES[case["dtype"]], LAYOUTS[case["layout"]], mesh_device, memory)


def host_array(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def make_host(src, mesh_device):
    """A host tensor of arange data (float32 values): ttnn.Tensor(array, dtype, None, layout[, mem_config]),
    then distribute_tensor(create_mesh_mapper(mesh shape, MeshMapperConfig(placements, override))) if placements."""
    extra = {}
    if src.get("memory_config") is not None:
        extra["mem_config"] = make_memory_config(src["memory_config"])[0]
    made = at("host", ttnn.Tensor, host_array(src["shape"]), DTYPES[src["dtype"]], None, LAYOUTS[src["layout"]],
              **extra, **tile_kwargs(src))
    if src.get("placements") is None:
        return made
    config = mapper_config(src["placements"], src.get("mesh_shape_override"))
    mapper = ttnn.create_mesh_mapper(mesh_device.shape, config)
    return at("distribute_tensor", ttnn.distribute_tensor, made, mapper, None)


# --- observations ----------------------------------------------------------------------------------

def open_mesh(system):
    return ttnn.open_mesh_device(ttnn.MeshShape(*SYSTEM_MESH[system]))


def block_table(mesh_device, buffer_type):
    """The allocator's (lockstep) block table for a buffer type, sorted by offset: [[offset, size, allocated]].
    Offsets are relative to get_allocator_base_address."""
    table = ttnn.get_memory_view(mesh_device, BUFFER_TYPES[buffer_type]).block_table
    return sorted([int(b["address"]), int(b["size"]), b["allocated"] == "yes"] for b in table)


def assert_empty(mesh_device):
    for buffer_type in ("dram", "l1"):
        used = [b for b in block_table(mesh_device, buffer_type) if b[2]]
        assert not used, f"allocator not empty before a case ({buffer_type}): {used}"


def page_mapping(tensor):
    """Per core, the host pages it holds in order, from ttnn's own BufferDistributionSpec
    (bfp_utils.compute_shard_page_mapping) fed the tensor's nd_shard_spec; page = tile, or one
    shard-width row for ROW_MAJOR."""
    spec = tensor.memory_config().nd_shard_spec
    if spec is None:
        return None
    shard = list(spec.shard_shape)
    page = list(tensor.tile.tile_shape) if tensor.layout == ttnn.TILE_LAYOUT else [1, shard[-1]]
    mapping, error = attempt("page_mapping", ttnn._ttnn.bfp_utils.compute_shard_page_mapping, list(tensor.padded_shape),
                             shard, page[0], page[1], spec.grid, spec.orientation, spec.shard_distribution_strategy)
    if mapping is None:
        return error
    return [{"core": [core.x, core.y], "pages": list(pages)} for core, pages in mapping]


def device_parts(tensor):
    """(coord, per-device tensor) pairs."""
    return list(zip([list(c) for c in tensor.device_coords()], ttnn.get_device_tensors(tensor)))


def same_address_everywhere(tensor):
    return len({part.buffer_address() for _, part in device_parts(tensor)}) == 1


def allocation_json(tensor, mesh_device):
    """What an allocated sharded tensor records, on a fresh allocator (its block is the only one)."""
    memory = tensor.memory_config()
    buffer_type = name(memory.buffer_type)
    blocks = [b for b in block_table(mesh_device, buffer_type) if b[2]]
    assert len(blocks) == 1, blocks
    base = ttnn.get_allocator_base_address(mesh_device, BUFFER_TYPES[buffer_type])
    assert base + blocks[0][0] == tensor.buffer_address()
    return {
        "tensor_memory_config": memory_config_json(memory),
        "padded_shape": list(tensor.padded_shape),
        "page_size": tensor.buffer_page_size(),
        "aligned_page_size": tensor.buffer_aligned_page_size(),
        "num_pages": tensor.buffer_num_pages(),
        "address": tensor.buffer_address(),
        "same_address_on_every_device": same_address_everywhere(tensor),
        "num_banks": ttnn.get_memory_view(mesh_device, memory.buffer_type).num_banks,
        "per_bank_size": blocks[0][1],
        "cores": page_mapping(tensor),
    }


ALLOCATION_KEYS = ["tensor_memory_config", "padded_shape", "page_size", "aligned_page_size", "num_pages", "address",
                   "same_address_on_every_device", "num_banks", "per_bank_size", "cores"]


def grouped(records):
    """Per-device records grouped by value: [{"coords": [...], **record}], in first-seen order."""
    groups = []
    for coord, record in records:
        for group in groups:
            if group["record"] == record:
                group["coords"].append(coord)
                break
        else:
            groups.append({"coords": [coord], "record": record})
    return [{"coords": g["coords"], **g["record"]} for g in groups]


def observe(t):
    """A tensor after a mesh step: device tensors with their per-device specs, host tensors with their shards."""
    common = {"shape": list(t.shape), "padded_shape": list(t.padded_shape), "dtype": name(t.dtype),
              "layout": name(t.layout), "memory_config": memory_config_json(t.memory_config()),
              "topology": topology_json(t)}
    if t.storage_type() != ttnn.StorageType.DEVICE:
        return {"storage": "host", **common, "populated_coords": populated_coords(t)}
    per_device = [(coord, {"shape": list(part.shape), "padded_shape": list(part.padded_shape),
                           "memory_config": memory_config_json(part.memory_config()),
                           "num_pages": part.buffer_num_pages(), "address": part.buffer_address()})
                  for coord, part in device_parts(t)]
    return {"storage": "device", **common, "num_pages": t.buffer_num_pages(), "page_size": t.buffer_page_size(),
            "aligned_page_size": t.buffer_aligned_page_size(), "address": t.buffer_address(),
            "device_coords": [list(c) for c in t.device_coords()], "device_specs": grouped(per_device)}


# --- section: systems ------------------------------------------------------------------------------

def record_systems(system):
    mesh_device = ttnn.open_mesh_device()
    grid = mesh_device.compute_with_storage_grid_size()
    dram = mesh_device.dram_grid_size()
    buffers = {}
    for buffer_type in ("dram", "l1", "l1_small", "trace"):
        view = ttnn.get_memory_view(mesh_device, BUFFER_TYPES[buffer_type])
        buffers[buffer_type] = {"num_banks": view.num_banks, "bank_size": view.total_bytes_per_bank,
                                "base_address": ttnn.get_allocator_base_address(mesh_device, BUFFER_TYPES[buffer_type])}
    row = {"system": system, "cluster_descriptor": Path(SYSTEM_CLUSTERS[system]).name,
           "arch": name(mesh_device.arch()), "mesh_shape": list(mesh_device.shape),
           "num_devices": mesh_device.get_num_devices(), "worker_grid": [grid.x, grid.y],
           "dram_grid": [dram.x, dram.y],
           "alignment": {"dram": ttnn._ttnn.bfp_utils.get_dram_alignment(),
                         "l1": ttnn._ttnn.bfp_utils.get_l1_alignment()},
           "buffer_types": buffers}
    ttnn.close_mesh_device(mesh_device)
    return [row]


def worker_grid(mesh_device):
    grid = mesh_device.compute_with_storage_grid_size()
    return grid.x, grid.y


def dram_banks(mesh_device):
    return ttnn.get_memory_view(mesh_device, ttnn.BufferType.DRAM).num_banks


def l1_banks(mesh_device):
    return ttnn.get_memory_view(mesh_device, ttnn.BufferType.L1).num_banks


# --- section: specs (2-D sharding) -----------------------------------------------------------------

def spec_cases(mesh_device):
    banks = dram_banks(mesh_device)
    H, W, B = height, width, block
    return [
        # HEIGHT_SHARDED, TILE
        *in_l1_and_dram(tensor((1, 1, 96, 64), H((64, 64), ROW4),
                               note="3 tile rows in shards of 2: (1,0) half full, (2,0) and (3,0) empty")),
        tensor((1, 1, 96, 64), H((64, 64), ROW4, "col_major"), note="orientation on a single row"),
        tensor((1, 1, 128, 64), H((32, 64), SQ22)),
        tensor((1, 1, 128, 64), H((32, 64), SQ22, "col_major")),
        tensor((1, 1, 96, 64), H((32, 64), SQ22, "col_major"), note="3 shards on 4 cores"),
        tensor((1, 1, 128, 64), H((32, 64), COL4), note="a column grid, row_major"),
        *in_l1_and_dram(tensor((1, 1, 96, 64), H((64, 64), ROW4), "float32")),
        *in_l1_and_dram(tensor((1, 1, 96, 64), H((64, 64), ROW4), "bfloat8_b")),
        tensor((1, 1, 90, 50), H((64, 64), ROW4), note="logical shape not tile-aligned"),
        tensor((2, 3, 32, 64), H((64, 64), ROW4), note="height = all dims but the last"),
        tensor((1, 1, 48, 64), H((16, 64), ROW4), tile=(16, 32), note="16x32 tiles"),
        tensor((1, 1, 128, 64), H((32, 64), [rect(0, 0, 1, 0), rect(4, 4, 5, 4)]), note="two ranges"),
        tensor((1, 1, 128, 64), H((32, 64), [rect(4, 4, 5, 4), rect(0, 0, 1, 0)]),
               note="the same two ranges, listed the other way round"),
        tensor((1, 1, 128, 64), H((32, 64), [rect(0, 0, 1, 0), rect(4, 4, 5, 4)], "col_major"), note="two ranges"),
        tensor((1, 1, 32 * banks, 64), H((32, 64), [rect(0, 0, banks - 1, 0)], buffer_type="dram"),
               note="every DRAM bank"),
        # HEIGHT_SHARDED, ROW_MAJOR
        *in_l1_and_dram(tensor((1, 1, 100, 64), H((32, 64), ROW4), layout="row_major", note="last shard 4 rows")),
        tensor((1, 1, 100, 64), H((32, 64), SQ22, "col_major"), layout="row_major"),
        *in_l1_and_dram(tensor((1, 1, 10, 13), H((3, 13), ROW4), layout="row_major", note="26 B rows")),
        *in_l1_and_dram(tensor((4, 10, 31), H((16, 31), ROW4), "float32", "row_major", note="124 B rows")),
        # WIDTH_SHARDED, TILE
        *in_l1_and_dram(tensor((1, 1, 64, 256), W((64, 64), ROW4))),
        *in_l1_and_dram(tensor((1, 1, 64, 200), W((64, 64), ROW4), note="last shard one tile column wide")),
        tensor((1, 1, 64, 256), W((64, 64), SQ22)),
        tensor((1, 1, 64, 256), W((64, 64), SQ22, "col_major")),
        tensor((1, 1, 64, 256), W((64, 64), COL4, "col_major")),
        tensor((1, 1, 32, 160), W((32, 64), ROW3), "float32", note="last shard half"),
        *in_l1_and_dram(tensor((1, 1, 64, 256), W((64, 64), ROW4), "bfloat8_b")),
        # WIDTH_SHARDED, ROW_MAJOR
        *in_l1_and_dram(tensor((1, 1, 64, 200), W((64, 64), ROW4), layout="row_major",
                               note="width padded to a shard-width multiple")),
        tensor((1, 1, 4, 200), W((4, 64), SQ22), layout="row_major"),
        tensor((1, 1, 4, 200), W((4, 64), SQ22, "col_major"), layout="row_major"),
        *in_l1_and_dram(tensor((1, 1, 4, 20), W((4, 7), ROW3), "float32", "row_major", note="28 B pages")),
        # BLOCK_SHARDED, TILE
        tensor((1, 1, 128, 128), B((64, 64), SQ22)),
        tensor((1, 1, 128, 128), B((64, 64), SQ22, "col_major")),
        tensor((1, 1, 96, 96), B((64, 64), SQ22), note="uneven in both dims"),
        tensor((1, 1, 96, 96), B((64, 64), SQ22, "col_major"), note="uneven in both dims"),
        *in_l1_and_dram(tensor((1, 1, 64, 128), B((64, 32), ROW4), note="a one-row grid")),
        tensor((1, 1, 128, 64), B((32, 64), COL4), note="a one-column grid, row_major"),
        tensor((1, 1, 128, 128), B((64, 32), [rect(0, 0, 3, 1)]), note="a 4x2 grid"),
        tensor((1, 1, 128, 128), B((64, 32), [rect(0, 0, 1, 3)], "col_major"), note="a 2x4 grid, col_major"),
        tensor((1, 1, 128, 128), B((64, 64), SQ22), "float32"),
        tensor((1, 1, 128, 128), B((64, 64), SQ22), "bfloat8_b"),
        tensor((1, 1, 64, 64), B((32, 32), [rect(0, 0, 3, 3)]), note="grid bigger than the shard grid"),
        tensor((1, 1, 64, 64), B((32, 32), [rect(2, 2, 3, 3)]), note="grid away from the origin"),
        # BLOCK_SHARDED, ROW_MAJOR
        tensor((1, 1, 96, 100), B((64, 64), SQ22), layout="row_major"),
        tensor((1, 1, 6, 100), B((4, 64), SQ22, "col_major"), layout="row_major"),
        # interleaved references
        tensor((1, 1, 64, 200), interleaved("l1"), layout="row_major", note="interleaved reference"),
        tensor((1, 1, 64, 200), interleaved("dram"), layout="row_major", note="interleaved reference"),
    ]


def record_spec_case(case, mesh_device, system):
    """A case through ShardSpec/NdShardSpec -> MemoryConfig -> TensorSpec -> allocate_tensor_on_device(spec, mesh)."""
    assert_empty(mesh_device)
    row = {"system": system, **case, **NO_ERROR, "spec_memory_config": None, **dict.fromkeys(ALLOCATION_KEYS)}
    made = None
    try:
        _, spec_args = make_memory_config(case["memory_config"])
        spec = make_spec(case, spec_args)
        row["spec_memory_config"] = memory_config_json(spec.memory_config)
        made = at("allocate", ttnn.allocate_tensor_on_device, spec, mesh_device)
        row |= allocation_json(made, mesh_device)
    except Raised as raised:
        row |= raised.json()
    if made is not None:
        ttnn.deallocate(made)
    return row


def record_specs(system):
    mesh_device = open_mesh(system)
    rows = [record_spec_case(case, mesh_device, system) for case in spec_cases(mesh_device)]
    ttnn.close_mesh_device(mesh_device)
    return rows


# --- section: nd_specs -----------------------------------------------------------------------------

ND_CASES = [
    tensor((1, 1, 128, 64), nd((1, 1, 32, 64), ROW4), note="expressible as 2-D height sharding"),
    tensor((1, 1, 128, 64), nd((32, 64), ROW4), note="a rank-2 shard shape"),
    tensor((1, 1, 128, 64), nd((32, 64), ROW4, buffer_type="dram"), note="expressible as 2-D, in DRAM"),
    tensor((1, 1, 64, 256), nd((1, 1, 64, 64), ROW4), note="expressible as 2-D width sharding"),
    tensor((1, 1, 128, 128), nd((64, 64), SQ22, distribution="grid_2d"), note="expressible as 2-D block sharding"),
    tensor((1, 1, 128, 128), nd((64, 64), SQ22), note="block-like, round_robin_1d"),
    tensor((1, 1, 128, 128), nd((64, 64), SQ22, "col_major", "grid_2d")),
    tensor((1, 1, 96, 96), nd((64, 64), SQ22, distribution="grid_2d"), note="uneven grid_2d"),
    tensor((1, 1, 192, 64), nd((32, 64), ROW4), note="6 shards on 4 cores: wraps"),
    tensor((1, 1, 192, 64), nd((32, 64), ROW4, buffer_type="dram"), note="6 shards on 4 DRAM banks"),
    tensor((1, 1, 192, 64), nd((32, 64), ROW4), "bfloat8_b", note="6 shards on 4 cores"),
    tensor((1, 1, 192, 64), nd((32, 64), SQ22, "col_major"), note="6 shards on a 2x2 grid, col_major"),
    tensor((1, 1, 32, 320), nd((32, 64), ROW4), note="5 shards along the width on 4 cores"),
    tensor((1, 1, 192, 64), nd((32, 64), ROW4, distribution="contiguous_1d"), note="6 shards, 4 cores"),
    tensor((1, 1, 256, 64), nd((32, 64), ROW4, distribution="contiguous_1d"), note="8 shards, 4 cores"),
    tensor((2, 3, 64, 64), nd((1, 2, 32, 64), ROW4), note="12 shards, partial along dim 1"),
    tensor((2, 3, 64, 64), nd((2, 2, 32, 32), ROW3), note="8 shards on 3 cores"),
    tensor((2, 3, 64, 64), nd((1, 2, 32, 64), SQ22, distribution="grid_2d"), note="grid_2d, 3-D shards"),
    tensor((1, 1, 128, 128), nd((32, 32), SQ22, distribution="grid_2d"), note="grid_2d, 4x4 shards on 2x2"),
    tensor((2, 10, 16), nd((1, 4, 16), ROW3), layout="row_major"),
    tensor((1, 1, 4, 200), nd((1, 1, 4, 64), ROW4), layout="row_major", note="expressible as 2-D width sharding"),
    tensor((1, 1, 64, 64), nd((1, 1, 30, 64), ROW4), note="shard not tile-sized"),
    tensor((64, 64), nd((1, 1, 32, 64), ROW4), note="shard rank above the tensor's"),
    tensor((1, 1, 32, 32), nd((1, 1, 64, 64), ROW4), note="shard bigger than the tensor"),
    # issue 35: when grid_2d is refused (checked when the buffer is made, before the rank check)
    tensor((1, 1, 128, 128), nd((1, 1, 64, 64), SQ22, distribution="grid_2d"), note="grid_2d, leading 1s: 4 dims"),
    tensor((1, 1, 128, 128), nd((1, 64, 64), SQ22, distribution="grid_2d"), note="grid_2d, 3 dims"),
    tensor((1, 1, 64, 200), nd((1, 64, 64), ROW4, distribution="grid_2d"), layout="row_major", note="grid_2d, 3 dims"),
    tensor((64, 64), nd((1, 1, 32, 64), ROW4, distribution="grid_2d"), note="grid_2d, shard rank above the tensor's"),
    tensor((1, 1, 128, 128), nd((64, 64), [rect(0, 0, 1, 0), rect(0, 1, 1, 1)], distribution="grid_2d"),
           note="grid_2d on two ranges"),
    tensor((2, 128, 128), nd((64, 64), SQ22, distribution="grid_2d"), note="grid_2d: leading dims fold into the height"),
    tensor((2, 128, 128), nd((64, 64), [rect(0, 0, 1, 3)], distribution="grid_2d"), note="grid_2d: 4 down on 4 rows"),
    tensor((2, 64, 64), nd((64, 64), ROW4, distribution="grid_2d"), note="grid_2d: 2 down on 1 row"),
    tensor((2, 64, 64), nd((64, 64), COL4, distribution="grid_2d"), note="grid_2d: 2 down on 4 rows"),
    tensor((1, 1, 64, 128), nd((64, 32), COL4, distribution="grid_2d"), note="grid_2d: 4 across on 1 column"),
    tensor((1, 1, 128, 64), nd((64, 64), SQ22, "col_major", "grid_2d"), note="grid_2d col_major: axes swapped"),
    tensor((1, 1, 4, 200), nd((64,), ROW4, distribution="grid_2d"), layout="row_major", note="grid_2d, a 1-D shard"),
]


def record_nd_specs(system):
    mesh_device = open_mesh(system)
    rows = []
    for case in ND_CASES:
        row = record_spec_case(case, mesh_device, system)
        if row["raised_at"] in (None, "allocate", "page_mapping"):
            made, error = attempt("allocate_with_memory_config", allocate_with_memory_config, case, mesh_device)
            row["via_memory_config"] = error if made is None else memory_config_json(made.memory_config())
            if made is not None:
                ttnn.deallocate(made)
        else:
            row["via_memory_config"] = None
        rows.append(row)
    ttnn.close_mesh_device(mesh_device)
    return rows


# --- section: errors -------------------------------------------------------------------------------

H4 = ROW4
GENERIC_ERROR_CASES = [
    tensor((1, 1, 160, 64), height((32, 64), H4), note="5 shards along height on 4 cores"),
    tensor((1, 1, 32, 320), width((32, 64), H4), note="5 shards along width on 4 cores"),
    tensor((1, 1, 64, 64), height((32, 32), H4), note="height shard narrower than the tensor"),
    tensor((1, 1, 64, 64), height((32, 128), H4), note="height shard wider than the tensor"),
    tensor((1, 1, 8, 16), height((2, 13), H4), layout="row_major", note="ROW_MAJOR shard width 13, width 16"),
    tensor((1, 1, 64, 128), width((32, 32), H4), note="width shard shorter than the tensor"),
    tensor((1, 1, 60, 64), height((30, 64), H4), note="TILE shard height not a tile multiple"),
    tensor((1, 1, 32, 96), width((32, 48), H4), note="TILE shard width not a tile multiple"),
    tensor((1, 1, 64, 64), height((16, 64), H4), note="16-row shard with the default 32x32 tile"),
    tensor((1, 1, 64, 64), height((0, 64), H4), note="empty shard"),
    tensor((1, 1, 64, 64), block((32, 32), [rect(0, 0, 1, 0), rect(0, 1)]), note="block grid L-shaped"),
    tensor((1, 1, 64, 64), block((32, 32), [rect(0, 0, 1, 0), rect(0, 1, 1, 1)]),
           note="block grid: a full 2x2 written as two ranges"),
    tensor((1, 1, 64, 128), block((32, 32), SQ22), note="block row_major: 4 shards across 2 columns"),
    tensor((1, 1, 128, 64), block((32, 32), SQ22), note="block row_major: 4 shards down 2 rows"),
    tensor((1, 1, 128, 64), block((32, 32), SQ22, "col_major"), note="block col_major: 4 shards down"),
    tensor((1, 1, 64, 128), block((32, 32), SQ22, "col_major"), note="block col_major: 4 shards across"),
    tensor((1, 1, 128, 64), block((32, 64), COL4, "col_major"), note="block col_major on one column"),
    tensor((1, 1, 128, 64), height((32, 64), [rect(0, 0, 1, 0), rect(1, 0, 2, 0)]), note="overlapping ranges"),
    tensor((1, 1, 128, 64), {**height((32, 64), H4), "shard_shape": [32, 64, 1]}, note="3-element ShardSpec shape"),
    tensor((1, 1, 128, 64), height((32, 64), H4, None), note="ShardSpec without an orientation"),
    tensor((1, 1, 64, 64), no_shard_spec("height_sharded"), note="like L1_HEIGHT_SHARDED_MEMORY_CONFIG"),
    tensor((1, 1, 64, 64), no_shard_spec("width_sharded")),
    tensor((1, 1, 64, 64), no_shard_spec("block_sharded")),
    tensor((1, 1, 64, 64), no_shard_spec("nd_sharded")),
    tensor((1, 1, 64, 64), constant("L1_HEIGHT_SHARDED_MEMORY_CONFIG")),
    tensor((1, 1, 64, 64), constant("L1_WIDTH_SHARDED_MEMORY_CONFIG")),
    tensor((1, 1, 64, 64), constant("L1_BLOCK_SHARDED_MEMORY_CONFIG")),
    tensor((1, 1, 128, 64), {**height((32, 64), H4), "memory_layout": "interleaved"},
           note="INTERLEAVED with a shard spec"),
    tensor((1, 1, 128, 64), {**height((32, 64), H4), "memory_layout": "nd_sharded"},
           note="ND_SHARDED with a 2-D shard spec"),
    tensor((1, 1, 128, 64), height((32, 64), H4, buffer_type="l1_small"), note="L1_SMALL (size 0 by default)"),
    tensor((1, 1, 128, 64), height((32, 64), H4), "bfloat8_b", "row_major"),
    tensor((1, 1, 4, 28), width((4, 7), H4), layout="row_major", note="14 B pages"),
    tensor((1, 1, 100, 64), height((64, 64), ROW2), note="TILE height 100 in 64-row shards"),
    tensor((1, 1, 64, 64), height((32, 64), [rect(0, 0, 0, 1)], buffer_type="dram"), note="DRAM grid off row 0"),
    tensor((1, 1, 64, 64), block((32, 32), SQ22, buffer_type="dram"), note="DRAM block on a 2x2 grid"),
]


def grid_error_cases(mesh_device):
    """Grid edges of this system: the last worker core, the first core past the grid in x and in y,
    the whole worker grid, a far-off core; the last DRAM bank and the first past it."""
    gx, gy = worker_grid(mesh_device)
    banks = dram_banks(mesh_device)
    H = height
    return [
        tensor((1, 1, 64, 64), H((64, 64), [rect(gx - 1, gy - 1)]), note="the last worker core"),
        tensor((1, 1, 64, 64), H((32, 64), [rect(gx - 1, 0, gx, 0)]), note="one core past the worker grid in x"),
        tensor((1, 1, 64, 64), H((32, 64), [rect(0, gy - 1, 0, gy)]), note="one core past the worker grid in y"),
        tensor((1, 1, 64, 64), H((32, 64), [rect(gx, gy, gx + 1, gy)]), note="both cores off the grid"),
        tensor((1, 1, 64, 64), H((32, 64), [rect(100, 100, 101, 100)]), note="far off"),
        tensor((1, 1, 32 * gy, 32 * gx), block((32, 32), [rect(0, 0, gx - 1, gy - 1)]), note="the whole worker grid"),
        tensor((1, 1, 32 * gy * gx, 32), H((32, 32), [rect(0, 0, gx - 1, gy - 1)]), note="every worker core"),
        tensor((1, 1, 64, 64), H((64, 64), [rect(banks - 1, 0)], buffer_type="dram"), note="the last DRAM bank"),
        tensor((1, 1, 64, 64), H((32, 64), [rect(banks - 1, 0, banks, 0)], buffer_type="dram"),
               note="one bank past the DRAM grid"),
    ]


def to_device_path(case, mesh_device):
    """ttnn.to_device(host, mesh, memory_config=mc) of a plain host tensor of the case's shape."""
    src = {"shape": case["shape"], "dtype": case["dtype"], "layout": case["layout"],
           **({"tile": case["tile"]} if "tile" in case else {})}
    plain, error = attempt("host", make_host, src, mesh_device)
    if plain is None:
        return error
    try:
        memory, _ = make_memory_config(case["memory_config"])
    except Raised as raised:
        return raised.json()
    made, error = attempt("to_device", ttnn.to_device, plain, mesh_device, memory_config=memory)
    if made is not None:
        ttnn.deallocate(made)
    return error


def record_error_case(case, mesh_device, system):
    """The stages in order (spec path), then the same memory config through the two calls that build
    the spec themselves."""
    if "constant" in case["memory_config"]:
        row = {"system": system, **case, **NO_ERROR, "spec_memory_config": None, **dict.fromkeys(ALLOCATION_KEYS)}
        made, error = attempt("allocate_with_memory_config", allocate_with_memory_config, case, mesh_device)
        if made is None:
            row |= error
        else:
            row |= allocation_json(made, mesh_device)
            ttnn.deallocate(made)
    else:
        row = record_spec_case(case, mesh_device, system)
    made, error = attempt("allocate_with_memory_config", allocate_with_memory_config, case, mesh_device)
    if made is not None:
        ttnn.deallocate(made)
    row["other_paths"] = {"allocate_with_memory_config": error, "to_device": to_device_path(case, mesh_device)}
    return row


def record_errors(system):
    mesh_device = open_mesh(system)
    cases = (GENERIC_ERROR_CASES if system in GENERIC_ERROR_SYSTEMS else []) + grid_error_cases(mesh_device)
    rows = [record_error_case(case, mesh_device, system) for case in cases]
    ttnn.close_mesh_device(mesh_device)
    return rows


# --- section: mesh ---------------------------------------------------------------------------------

def host(shape, dtype="bfloat16", layout="tile", placements=None, override=None, memory_config=None):
    """A host tensor of arange data, mapped when placements are given ("R" or {"shard": dim})."""
    return {"shape": list(shape), "dtype": dtype, "layout": layout, "placements": placements,
            "mesh_shape_override": None if override is None else list(override), "memory_config": memory_config}


def step(op, **args):
    return {"op": op, **args}


def alloc(out, shape, memory_config, dtype="bfloat16", layout="tile"):
    return step("allocate", out=out, tensor=tensor(shape, memory_config, dtype, layout))


HEIGHT_96 = height((64, 64), ROW4)  # (1,1,96,64) TILE: 6 tiles, 4 + 2 + 0 + 0
RS3 = ["R", {"shard": 3}]
RS2 = ["R", {"shard": 2}]

MESH_CASES = [
    ("allocate_height", "allocate_tensor_on_device with a height-sharded memory config: every device the same spec.",
     [alloc("dst", (1, 1, 96, 64), HEIGHT_96)]),
    ("allocate_width_dram", "A DRAM width-sharded allocation.",
     [alloc("dst", (1, 1, 64, 256), width((64, 64), ROW4, buffer_type="dram"))]),
    ("allocate_nd_wrap", "An ND allocation with more shards than cores.",
     [alloc("dst", (1, 1, 192, 64), nd((32, 64), ROW4))]),
    ("to_device_plain", "A plain host tensor put on the mesh in a sharded config (ttnn.to_device and Tensor.to).",
     [step("host", out="h", host=host((1, 1, 96, 64))),
      step("to_device", src="h", memory_config=HEIGHT_96, call="ttnn.to_device", out="a"),
      step("to_device", src="h", memory_config=HEIGHT_96, call="Tensor.to", out="b")]),
    ("to_device_per_device_check", "to_device checks the sharded spec against each device's shard, not the global "
     "shape: [R, S(2)] of (1,1,128,64) gives (1,1,32,64) per device; [R, S(3)] of (1,1,32,256) gives (1,1,32,64).",
     [step("host", out="h1", host=host((1, 1, 128, 64), placements=RS2)),
      step("to_device", src="h1", memory_config=height((32, 64), CORE00), call="ttnn.to_device", out="a"),
      step("host", out="h2", host=host((1, 1, 32, 256), placements=RS3)),
      step("to_device", src="h2", memory_config=height((32, 256), CORE00), call="ttnn.to_device", out="b"),
      step("to_device", src="h2", memory_config=height((32, 64), CORE00), call="ttnn.to_device", out="c"),
      step("host", out="h3", host=host((1, 1, 160, 64))),
      step("to_device", src="h3", memory_config=height((32, 64), ROW4), call="ttnn.to_device", out="d"),
      step("to_device", src="h3", memory_config=height((32, 64), ROW4), call="Tensor.to", out="e")]),
    ("to_device_row_major_width", "A plain ROW_MAJOR host tensor into a ROW_MAJOR width-sharded config (the device "
     "pads the width to a shard multiple); and a host tensor made with that config.",
     [step("host", out="h", host=host((1, 1, 64, 200), layout="row_major")),
      step("to_device", src="h", memory_config=width((64, 64), ROW4), call="ttnn.to_device", out="a"),
      step("host", out="hs", host=host((1, 1, 64, 200), "float32", "row_major",
                                       memory_config=width((64, 64), ROW4))),
      step("to_device", src="hs", memory_config=None, call="Tensor.to", out="b")]),
    ("to_device_split_row_major_width", "issue 35: the packed-size check is for a plain host tensor only (one host "
     "buffer replicated over the mesh): ROW_MAJOR width 200 into 64x64 width shards on 4 cores (padded to 256 on "
     "device) is refused for the plain tensor and taken when the host tensor is mapped, whatever the mapping.",
     [step("host", out="plain", host=host((1, 1, 64, 200), layout="row_major")),
      step("to_device", src="plain", memory_config=width((64, 64), ROW4), call="ttnn.to_device", out="p"),
      step("host", out="split", host=host((1, 1, 64, 1600), layout="row_major", placements=[{"shard": 3}], override=(8,))),
      step("to_device", src="split", memory_config=width((64, 64), ROW4), call="ttnn.to_device", out="a"),
      step("to_device", src="split", memory_config=width((64, 64), ROW4), call="Tensor.to", out="b"),
      step("host", out="rr", host=host((1, 1, 64, 200), layout="row_major", placements=["R", "R"])),
      step("to_device", src="rr", memory_config=width((64, 64), ROW4), call="ttnn.to_device", out="c"),
      step("host", out="seven", host=host((1, 7, 64, 200), layout="row_major", placements=[{"shard": 1}], override=(8,))),
      step("to_device", src="seven", memory_config=width((64, 64), ROW4), call="ttnn.to_device", out="d"),
      step("host", out="one", host=host((1, 1, 64, 200), layout="row_major", placements=["R"], override=(1,))),
      step("to_device", src="one", memory_config=width((64, 64), ROW4), call="ttnn.to_device", out="e"),
      alloc("dst", (1, 1, 64, 200), width((64, 64), ROW4), layout="row_major"),
      step("copy", src="plain", dst="dst"),
      step("copy", src="split", dst="dst"),
      alloc("dst7", (1, 1, 64, 200), width((64, 64), ROW4), layout="row_major"),
      step("copy", src="seven", dst="dst7")]),
    ("host_with_sharded_config", "ttnn.Tensor(array, dtype, None, layout, mem_config=sharded): bfloat16 and float32; "
     "then to_device without a memory config and Tensor.to.",
     [step("host", out="hb", host=host((1, 1, 96, 64), memory_config=HEIGHT_96)),
      step("host", out="hf", host=host((1, 1, 96, 64), "float32", memory_config=HEIGHT_96)),
      step("to_device", src="hf", memory_config=None, call="Tensor.to", out="a"),
      step("to_device", src="hf", memory_config=None, call="ttnn.to_device", out="b")]),
    ("copy_into_sharded", "copy_host_to_device_tensor never compares memory configs; it checks the packed size.",
     [alloc("dst", (1, 1, 96, 64), HEIGHT_96),
      step("host", out="h", host=host((1, 1, 96, 64))),
      step("copy", src="h", dst="dst"),
      alloc("dst32", (1, 1, 96, 64), HEIGHT_96, "float32"),
      step("host", out="hs", host=host((1, 1, 96, 64), "float32",
                                       memory_config=height((32, 64), ROW3, buffer_type="dram"))),
      step("copy", src="hs", dst="dst32"),
      alloc("inter", (1, 1, 96, 64), interleaved("dram"), "float32"),
      step("host", out="hh", host=host((1, 1, 96, 64), "float32", memory_config=HEIGHT_96)),
      step("copy", src="hh", dst="inter")]),
    ("copy_row_major", "Copies into ROW_MAJOR sharded destinations: width sharded (padded) and height sharded "
     "(ragged last shard).",
     [alloc("w", (1, 1, 64, 200), width((64, 64), ROW4), layout="row_major"),
      step("host", out="h", host=host((1, 1, 64, 200), layout="row_major")),
      step("copy", src="h", dst="w"),
      alloc("w32", (1, 1, 64, 200), width((64, 64), ROW4), "float32", "row_major"),
      step("host", out="hs", host=host((1, 1, 64, 200), "float32", "row_major", memory_config=width((64, 64), ROW4))),
      step("copy", src="hs", dst="w32"),
      alloc("ht", (1, 1, 100, 64), height((32, 64), ROW4), layout="row_major"),
      step("host", out="hr", host=host((1, 1, 100, 64), layout="row_major")),
      step("copy", src="hr", dst="ht"),
      alloc("wt", (1, 1, 64, 200), width((64, 64), ROW4)),
      step("host", out="ht2", host=host((1, 1, 64, 200))),
      step("copy", src="ht2", dst="wt")]),
    ("copy_topology", "Which topology a sharded destination records after full copies from plain, replicated and "
     "sharded host tensors.",
     [alloc("d1", (1, 1, 96, 64), HEIGHT_96),
      step("host", out="plain", host=host((1, 1, 96, 64))),
      step("copy", src="plain", dst="d1"),
      alloc("d2", (1, 1, 96, 64), HEIGHT_96),
      step("host", out="rr", host=host((1, 1, 96, 64), placements=["R", "R"])),
      step("copy", src="rr", dst="d2"),
      alloc("d3", (1, 1, 96, 64), HEIGHT_96),
      step("host", out="rs", host=host((1, 1, 96, 256), placements=RS3)),
      step("copy", src="rs", dst="d3")]),
    ("copy_partial", "copy_host_to_device_tensor_partial(host, dev, core_filter): which host tensors and filters it "
     "takes, and the destination's topology after.",
     [alloc("dst", (1, 1, 96, 64), HEIGHT_96),
      step("host", out="plain", host=host((1, 1, 96, 64))),
      step("host", out="rr", host=host((1, 1, 96, 64), placements=["R", "R"])),
      step("host", out="rs", host=host((1, 1, 96, 256), placements=RS3)),
      step("host", out="seven", host=host((1, 7, 96, 64), placements=[{"shard": 1}], override=(8,))),
      step("host", out="small", host=host((1, 1, 64, 64), placements=["R", "R"])),
      step("copy_partial", src="plain", dst="dst", core_filter=CORE00),
      step("copy_partial", src="rr", dst="dst", core_filter=CORE00),
      step("copy_partial", src="rr", dst="dst", core_filter=ROW4),
      step("copy_partial", src="rr", dst="dst", core_filter=[]),
      step("copy_partial", src="rr", dst="dst", core_filter=[rect(5, 5)]),
      step("copy_partial", src="rs", dst="dst", core_filter=CORE00),
      step("copy_partial", src="rs", dst="dst", core_filter=ROW4),
      step("copy_partial", src="seven", dst="dst", core_filter=CORE00),
      step("copy_partial", src="small", dst="dst", core_filter=CORE00),
      alloc("inter", (1, 1, 96, 64), interleaved("l1")),
      step("copy_partial", src="rr", dst="inter", core_filter=CORE00),
      step("copy_partial", src="rr", dst="inter", core_filter=[]),
      step("copy_partial", src="plain", dst="inter", core_filter=CORE00),
      step("copy_partial", src="plain", dst="inter", core_filter=[])]),
    ("readback", "cpu() of sharded device tensors: the host tensor keeps the sharded memory config; putting it back.",
     [alloc("dst", (1, 1, 96, 64), HEIGHT_96),
      step("cpu", src="dst", out="back"),
      step("to_device", src="back", memory_config=None, call="Tensor.to", out="a"),
      step("to_device", src="back", memory_config=None, call="ttnn.to_device", out="b"),
      alloc("ndt", (1, 1, 192, 64), nd((32, 64), ROW4)),
      step("cpu", src="ndt", out="nd_back"),
      alloc("wrm", (1, 1, 64, 200), width((64, 64), ROW4), layout="row_major"),
      step("cpu", src="wrm", out="wrm_back")]),
]


def play_mesh_step(s, tensors, mesh_device):
    """Run one mesh step; returns the tensor to observe."""
    op = s["op"]
    if op == "allocate":
        tensors[s["out"]] = allocate_with_memory_config(s["tensor"], mesh_device)
        return tensors[s["out"]]
    if op == "host":
        tensors[s["out"]] = make_host(s["host"], mesh_device)
        return tensors[s["out"]]
    if op == "to_device":
        src = tensors[s["src"]]
        memory = None if s["memory_config"] is None else make_memory_config(s["memory_config"])[0]
        if s["call"] == "Tensor.to":
            made = at("to_device", src.to, mesh_device, *([] if memory is None else [memory]))
        else:
            options = {} if memory is None else {"memory_config": memory}
            made = at("to_device", ttnn.to_device, src, mesh_device, **options)
        tensors[s["out"]] = made
        return made
    if op == "copy":
        at("copy", ttnn.copy_host_to_device_tensor, tensors[s["src"]], tensors[s["dst"]])
        return tensors[s["dst"]]
    if op == "copy_partial":
        at("copy_partial", ttnn.copy_host_to_device_tensor_partial, tensors[s["src"]], tensors[s["dst"]],
           core_range_set(s["core_filter"]))
        return tensors[s["dst"]]
    if op == "cpu":
        tensors[s["out"]] = at("cpu", tensors[s["src"]].cpu)
        return tensors[s["out"]]
    raise AssertionError(op)


def record_mesh(system):
    rows = []
    for case_name, description, steps in MESH_CASES:
        mesh_device = open_mesh(system)
        tensors, done = {}, []
        for s in steps:
            try:
                subject = play_mesh_step(s, tensors, mesh_device)
                record = {**s, **NO_ERROR, "result": observe(subject)}
            except Raised as raised:
                target = s.get("dst")
                record = {**s, **raised.json(), "result": None if target is None else observe(tensors[target])}
            done.append(record)
        rows.append({"system": system, "name": case_name, "description": description, "steps": done})
        del tensors
        ttnn.close_mesh_device(mesh_device)
    return rows


# --- section: allocator ----------------------------------------------------------------------------

def tiles(n, memory_config=None):
    """A bfloat16 TILE tensor of n 32x32 tiles: shape (1, 1, 32, 32 n), pages of 2048 B."""
    return tensor((1, 1, 32, 32 * n), memory_config or interleaved("dram"))


def new(label, case):
    """Allocate `case` (allocate_tensor_on_device(shape, dtype, layout, mesh, memory_config)) as `label`."""
    return step("allocate", name=label, tensor=case)


def free(label):
    return step("deallocate", name=label)


def allocator_cases(mesh_device):
    """Sequences scaled to this system's bank counts (nb DRAM banks, nl L1 banks)."""
    nb, nl = dram_banks(mesh_device), l1_banks(mesh_device)
    L1 = interleaved("l1")
    dram_bank = ttnn.get_memory_view(mesh_device, ttnn.BufferType.DRAM).total_bytes_per_bank
    l1_bank = ttnn.get_memory_view(mesh_device, ttnn.BufferType.L1).total_bytes_per_bank
    dram_fit = dram_bank // 2048 + 1  # pages per bank: one more than fits
    l1_fit = l1_bank // 2048
    half = (dram_bank // 2) // 2048
    big_rows = (dram_bank // (2048 * 32) + 1) * 32
    gx, gy = worker_grid(mesh_device)
    return [
        ("dram_first_fit", "DRAM interleaved: first fit from the lowest address, a smaller buffer into a bigger hole, "
         "frees merging with adjacent free blocks, a bigger buffer not fitting a hole.",
         [new("A", tiles(2 * nb)), new("B", tiles(2 * nb + 1)), new("C", tiles(1)), free("B"), new("D", tiles(nb)),
          new("E", tiles(1)), free("A"), free("D"), new("F", tiles(5 * nb)), new("G", tiles(100 * nb)), free("C"),
          free("E"), new("H", tiles(1))]),
        ("dram_fit_policy", "DRAM: a big hole low and an exactly fitting hole higher up; which one a 2-page request "
         "takes.",
         [new("big", tiles(8 * nb)), new("sep1", tiles(nb)), new("small", tiles(2 * nb)), new("sep2", tiles(nb)),
          free("big"), free("small"), new("x", tiles(2 * nb)), new("y", tiles(nb))]),
        ("l1_top_down", "L1: allocated top-down (the highest free block, at its top); sharded and interleaved "
         "buffers share one lockstep block table.",
         [new("A", tiles(nl, L1)), new("B", tiles(2 * nl, L1)), new("S", tensor((1, 1, 96, 64), HEIGHT_96)),
          new("C", tiles(1, L1)), free("A"), new("D", tiles(1, L1)), free("B"), new("E", tiles(3 * nl, L1))]),
        ("l1_fit_policy", "L1: a big hole at the top and an exactly fitting hole lower down.",
         [new("big", tiles(8 * nl, L1)), new("sep1", tiles(nl, L1)), new("small", tiles(2 * nl, L1)),
          new("sep2", tiles(nl, L1)), free("big"), free("small"), new("x", tiles(2 * nl, L1)),
          new("y", tiles(nl, L1))]),
        ("l1_sharded_mixed", "L1 sharded buffers on different grids between interleaved ones, and into their holes.",
         [new("I1", tiles(nl, L1)), new("S1", tensor((1, 1, 96, 64), HEIGHT_96)),
          new("I2", tiles(1, L1)),
          new("S2", tensor((1, 1, 64, 64), height((32, 64), [rect(gx - 2, gy - 1, gx - 1, gy - 1)]))),
          free("I1"), new("S3", tensor((1, 1, 32, 64), height((32, 64), CORE00))), free("S1"),
          new("I3", tiles(2 * nl, L1)), new("S4", tensor((1, 1, 128, 64), height((32, 64), ROW4)))]),
        ("dram_sharded_mixed", "DRAM sharded and interleaved buffers mixed: one lockstep block table for all banks.",
         [new("I1", tiles(2 * nb)), new("S", tensor((1, 1, 96, 64), height((64, 64), ROW4, buffer_type="dram"))),
          new("I2", tiles(1)), free("S"), new("I3", tiles(nb)),
          new("S2", tensor((1, 1, 64, 64), height((32, 64), ROW2, buffer_type="dram"))), free("I1"),
          new("S3", tensor((1, 1, 192, 64), nd((32, 64), ROW4, buffer_type="dram")))]),
        ("double_deallocate", "A second deallocate is ignored; buffer_address of a deallocated tensor; the next "
         "allocation reuses the address.",
         [new("A", tiles(4)), free("A"), free("A"), step("buffer_address", name="A"), new("B", tiles(4))]),
        ("oom_dram", "DRAM interleaved: one page per bank more than a bank holds.",
         [new("A", tiles(nb * dram_fit))]),
        ("oom_dram_fragmented", "DRAM: two free halves around a live block; a request bigger than either.",
         [new("A", tiles(nb * half)), new("B", tiles(nb)), free("A"), new("C", tiles(nb * (half + 8)))]),
        ("oom_l1", "L1 interleaved: one page per bank more than a bank holds.",
         [new("A", tiles(nl * (l1_fit + 1), L1))]),
        ("oom_l1_after_fill", "L1 filled by one interleaved buffer, then one page per bank more.",
         [new("A", tiles(nl * l1_fit, L1)), new("B", tiles(nl, L1))]),
        ("oom_l1_sharded", "A one-core L1 shard bigger than an L1 bank.",
         [new("A", tensor((1, 1, 1024, 1024), height((1024, 1024), CORE00)))]),
        ("oom_dram_sharded", "A one-bank DRAM shard bigger than a DRAM bank.",
         [new("A", tensor((1, 1, big_rows, 1024), height((big_rows, 1024), CORE00, buffer_type="dram")))]),
        ("per_core_without_hybrid", "experimental_set_per_core_allocation(True) on a device opened in the default "
         "allocator mode (see per_core_allocator for the HYBRID mode).",
         [new("P", tensor((1, 1, 96, 64), {**HEIGHT_96, "per_core_allocation": True}))]),
    ]


def per_core_allocator_cases(mesh_device):
    gx, gy = worker_grid(mesh_device)
    nl = l1_banks(mesh_device)
    pc = {"per_core_allocation": True}
    lock = {"range_lockstep_allocation": True}
    return [
        ("per_core", "Opened with TT_METAL_ALLOCATOR_MODE_HYBRID=1: per-core allocations take the highest free "
         "address on each of their own cores; the lockstep block table does not show them; a range-lockstep "
         "buffer avoids them only on its own cores; an interleaved buffer avoids all of them; a per-core buffer "
         "avoids every block of the lockstep table, range-lockstep ones on other cores included (P4).",
         [new("P1", tensor((1, 1, 96, 64), {**HEIGHT_96, **pc})),
          new("P2", tensor((1, 1, 64, 64), {**height((32, 64), [rect(2, 0, 3, 0)]), **pc})),
          new("P3", tensor((1, 1, 64, 64), {**height((32, 64), [rect(4, 0, 5, 0)]), **pc})),
          new("R1", tensor((1, 1, 64, 64), {**height((32, 64), [rect(4, 0, 5, 0)]), **lock})),
          new("R2", tensor((1, 1, 64, 64), {**height((32, 64), [rect(6, 0, 7, 0)]), **lock})),
          new("L", tensor((1, 1, 64, 64), height((32, 64), [rect(gx - 2, gy - 1, gx - 1, gy - 1)]))),
          new("I", tiles(nl, interleaved("l1"))),
          step("buffer_address", name="P1"),
          free("P1"), new("P4", tensor((1, 1, 64, 64), {**height((32, 64), [rect(0, 0, 1, 0)]), **pc})),
          step("per_core_buffer_address", name="I", core=[0, 0])]),
        ("per_core_without_flag", "The same device, no per-core flag: one lockstep address.",
         [new("S", tensor((1, 1, 96, 64), HEIGHT_96)), step("per_core_buffer_address", name="S", core=[0, 0])]),
    ]


def per_core_addresses(t, cores):
    """Per core of the grid (and one core off it): its address on every device, grouped by value."""
    out = []
    for core in cores:
        per_device = []
        for coord, _ in device_parts(t):
            value, error = attempt("per_core_buffer_address", t.experimental_per_core_buffer_address,
                                   ttnn.MeshCoordinate(coord), ttnn.CoreCoord(*core))
            per_device.append(value if value is not None else error["error"])
        values = sorted(set(map(str, per_device)))
        out.append({"core": core, "address": per_device[0], "same_on_every_device": len(values) == 1})
    return out


def play_allocator_step(s, tensors, mesh_device):
    op = s["op"]
    if op == "allocate":
        case = s["tensor"]
        t = allocate_with_memory_config(case, mesh_device)
        tensors[s["name"]] = t
        buffer_type = case["memory_config"]["buffer_type"]
        out = {"buffer_type": buffer_type}
        if t.is_per_core_allocated():
            grid = case["memory_config"]["grid"]
            cores = grid_cores(grid)
            off = [max(x for x, _ in cores) + 1, max(y for _, y in cores)]
            out |= {"address": None, "per_core_addresses": per_core_addresses(t, cores + [off])}
        else:
            out |= {"address": t.buffer_address(), "same_address_on_every_device": same_address_everywhere(t)}
        if os.environ.get("TT_METAL_ALLOCATOR_MODE_HYBRID"):
            out["is_range_lockstep_allocated"] = t.is_range_lockstep_allocated()
        return out
    if op == "deallocate":
        t = tensors[s["name"]]
        at("deallocate", ttnn.deallocate, t)
        return {"buffer_type": name(t.memory_config().buffer_type), "is_allocated": t.is_allocated()}
    if op == "buffer_address":
        return {"buffer_type": None, "address": at("buffer_address", tensors[s["name"]].buffer_address)}
    if op == "per_core_buffer_address":
        t = tensors[s["name"]]
        value = at("per_core_buffer_address", t.experimental_per_core_buffer_address, ttnn.MeshCoordinate(0, 0),
                   ttnn.CoreCoord(*s["core"]))
        return {"buffer_type": None, "address": value}
    raise AssertionError(op)


def record_allocator_sequences(system, cases_of):
    rows = []
    probe = open_mesh(system)
    cases = cases_of(probe)
    ttnn.close_mesh_device(probe)
    for case_name, description, steps in cases:
        mesh_device = open_mesh(system)
        base = {bt: ttnn.get_allocator_base_address(mesh_device, BUFFER_TYPES[bt]) for bt in ("dram", "l1")}
        tensors, done = {}, []
        for s in steps:
            try:
                out = play_allocator_step(s, tensors, mesh_device)
                record = {**s, **NO_ERROR, **out}
            except Raised as raised:
                if s["op"] == "allocate":
                    tensors[s["name"]] = None
                    out = {"buffer_type": s["tensor"]["memory_config"]["buffer_type"]}
                else:
                    out = {"buffer_type": None}
                record = {**s, **raised.json(), **out}
            bt = record["buffer_type"]
            record["blocks"] = None if bt is None else block_table(mesh_device, bt)
            done.append(record)
        rows.append({"system": system, "name": case_name, "description": description, "base_address": base,
                     "num_banks": {"dram": dram_banks(mesh_device), "l1": l1_banks(mesh_device)}, "steps": done})
        del tensors
        ttnn.close_mesh_device(mesh_device)
    return rows


def record_allocator(system):
    return record_allocator_sequences(system, allocator_cases)


def record_per_core_allocator(system):
    return record_allocator_sequences(system, per_core_allocator_cases)


# --- section: create_sharded_memory_config ---------------------------------------------------------

def csmc(shape, strategy, core_grid=None, core_range_set=None, orientation=None, hw=False,
         function="create_sharded_memory_config", tile_layout=None):
    case = {"function": function, "shape": list(shape), "core_grid": core_grid, "core_range_set": core_range_set,
            "strategy": strategy, "orientation": orientation, "use_height_and_width_as_shard_shape": hw}
    if tile_layout is not None:
        case["tile_layout"] = tile_layout
    return case


def cg(x, y):
    return {"x": x, "y": y}


CSMC_CASES = [
    csmc((1, 1, 96, 64), "height", cg(4, 1)),
    csmc((1, 1, 96, 64), "height", cg(3, 1)),
    csmc((1, 1, 96, 64), "height", cg(5, 1)),
    csmc((1, 1, 100, 64), "height", cg(4, 1)),
    csmc((1, 1, 128, 64), "height", cg(2, 2)),
    csmc((1, 1, 128, 64), "height", cg(2, 2), orientation="col_major"),
    csmc((2, 3, 64, 64), "height", cg(6, 1)),
    csmc((1, 1, 64, 256), "width", cg(4, 1)),
    csmc((1, 1, 64, 256), "width", cg(1, 4)),
    csmc((1, 1, 64, 200), "width", cg(4, 1)),
    csmc((1, 1, 128, 256), "block", cg(2, 2)),
    csmc((1, 1, 128, 256), "block", cg(4, 2), orientation="row_major"),
    csmc((1, 1, 128, 256), "block", cg(4, 2), orientation="col_major"),
    csmc((1, 1, 64, 64), "block", cg(2, 2), orientation="col_major"),
    csmc((1, 1, 128, 256), "block", cg(3, 2)),
    csmc((1, 1, 32, 64), "height", cg(4, 1), hw=True),
    csmc((1, 1, 32, 64), "height", cg(4, 1), orientation="col_major", hw=True),
    csmc((1, 1, 32, 64), "width", cg(4, 1), hw=True),
    csmc((1, 1, 32, 64), "height", core_range_set=ROW4, hw=True),
    csmc((1, 1, 96, 64), "height", core_range_set=ROW4),
    csmc((1, 1, 32, 64), "block", core_range_set=[rect(0, 0, 1, 0), rect(4, 4, 5, 4)], hw=True),
    csmc((1, 1, 64, 64), "height", cg(100, 1)),
    csmc((1, 1, 96, 64), "height", cg(5, 1), orientation="row_major", function="create_sharded_memory_config_",
         tile_layout=True),
    csmc((1, 1, 100, 64), "height", cg(4, 1), orientation="row_major", function="create_sharded_memory_config_",
         tile_layout=True),
    csmc((1, 1, 100, 200), "block", cg(2, 2), orientation="row_major", function="create_sharded_memory_config_",
         tile_layout=True),
    csmc((1, 1, 64, 200), "width", cg(4, 1), orientation="row_major", function="create_sharded_memory_config_",
         tile_layout=False),
]


def record_create_sharded_memory_config(system):
    mesh_device = open_mesh(system)
    rows = []
    for case in CSMC_CASES:
        grid = ttnn.CoreGrid(x=case["core_grid"]["x"], y=case["core_grid"]["y"]) if case["core_grid"] else \
            core_range_set(case["core_range_set"])
        orientation = None if case["orientation"] is None else ORIENTATIONS[case["orientation"]]
        args = [case["shape"], grid, STRATEGIES[case["strategy"]], orientation,
                case["use_height_and_width_as_shard_shape"]]
        if "tile_layout" in case:
            args.append(case["tile_layout"])
        row = {"system": system, **case}
        memory, error = attempt(case["function"], getattr(ttnn, case["function"]), *args)
        row |= error
        row["memory_config"] = None if memory is None else memory_config_json(memory)
        row["allocate_tile_bfloat16"] = None
        if memory is not None:
            made, error = attempt("allocate_with_memory_config", ttnn.allocate_tensor_on_device,
                                  ttnn.Shape(case["shape"]), ttnn.bfloat16, ttnn.TILE_LAYOUT, mesh_device, memory)
            row["allocate_tile_bfloat16"] = error if made is None else {
                **NO_ERROR, "padded_shape": list(made.padded_shape), "num_pages": made.buffer_num_pages(),
                "cores": page_mapping(made)}
            if made is not None:
                ttnn.deallocate(made)
        rows.append(row)
    ttnn.close_mesh_device(mesh_device)
    return rows


# --- section: printed ------------------------------------------------------------------------------

PRINTED_SETUP = [
    "G4 = ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(3, 0))])",
    "G2 = ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(4, 4), ttnn.CoreCoord(5, 4)), "
    "ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(1, 0))])",
    "SS = ttnn.ShardSpec(G4, [64, 64], ttnn.ShardOrientation.ROW_MAJOR)",
    "ND = ttnn.NdShardSpec(ttnn.Shape([1, 1, 32, 64]), G4, ttnn.ShardOrientation.ROW_MAJOR, "
    "ttnn.ShardDistributionStrategy.ROUND_ROBIN_1D)",
    "HEIGHT = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1, SS)",
    "md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))",
    "T = ttnn.allocate_tensor_on_device(ttnn.Shape([1, 1, 96, 64]), ttnn.bfloat16, ttnn.TILE_LAYOUT, md, HEIGHT)",
    "TND = ttnn.allocate_tensor_on_device(ttnn.Shape([1, 1, 192, 64]), ttnn.bfloat16, ttnn.TILE_LAYOUT, md, "
    "ttnn.MemoryConfig(ttnn.BufferType.L1, ND))",
    "PC = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1, SS); "
    "PC.experimental_set_per_core_allocation(True)",
]
PRINTED_EXPRESSIONS = [
    "ttnn.CoreCoord(1, 2)",
    "ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(3, 1))",
    "G4",
    "G2",
    "G2.ranges()",
    "ttnn.CoreRangeSet([])",
    "SS",
    "ttnn.ShardSpec(G2, [32, 64], ttnn.ShardOrientation.COL_MAJOR)",
    "ND",
    "ttnn.NdShardSpec(ttnn.Shape([64, 64]), G4, ttnn.ShardOrientation.COL_MAJOR, "
    "ttnn.ShardDistributionStrategy.GRID_2D)",
    "HEIGHT",
    "HEIGHT.to_json()",
    "ttnn.MemoryConfig(ttnn.TensorMemoryLayout.WIDTH_SHARDED, ttnn.BufferType.DRAM, ttnn.ShardSpec(G4, [64, 32], "
    "ttnn.ShardOrientation.COL_MAJOR))",
    "ttnn.MemoryConfig(ttnn.BufferType.L1, ND)",
    "ttnn.MemoryConfig(ttnn.BufferType.L1, ND).to_json()",
    "ttnn.TensorSpec(ttnn.Shape([1, 1, 128, 64]), ttnn.bfloat16, ttnn.TILE_LAYOUT, ND, "
    "ttnn.BufferType.L1).memory_config",
    "T.memory_config()",
    "T.memory_config().to_json()",
    "TND.memory_config()",
    "T.cpu().memory_config()",
    "PC",
    "ttnn.L1_HEIGHT_SHARDED_MEMORY_CONFIG",
    "ttnn.L1_WIDTH_SHARDED_MEMORY_CONFIG",
    "ttnn.L1_BLOCK_SHARDED_MEMORY_CONFIG",
    "ttnn.L1_MEMORY_CONFIG",
    "ttnn.DRAM_MEMORY_CONFIG",
    "ttnn.TensorMemoryLayout.HEIGHT_SHARDED",
    "ttnn.BufferType.L1",
    "ttnn.ShardOrientation.COL_MAJOR",
    "ttnn.ShardDistributionStrategy.ROUND_ROBIN_1D",
    "ttnn.ShardStrategy.BLOCK",
    "{m.name: int(m.value) for m in ttnn.TensorMemoryLayout}",
    "{m.name: int(m.value) for m in ttnn.BufferType}",
    "{m.name: int(m.value) for m in ttnn.ShardDistributionStrategy}",
]


def record_printed(system):
    namespace = {"ttnn": ttnn}
    for statement in PRINTED_SETUP:
        exec(statement, namespace)  # noqa: S102 - the statements are this file's own case data
    rows = []
    for expression in PRINTED_EXPRESSIONS:
        value = eval(expression, namespace)  # noqa: S307
        text, text_repr = str(value), repr(value)
        assert " at 0x" not in text + text_repr, expression
        rows.append({"expression": expression, "str": text, "repr": text_repr})
    ttnn.close_mesh_device(namespace["md"])
    return [{"system": system, "setup": PRINTED_SETUP, "values": rows}]


# --- section: op_outputs ---------------------------------------------------------------------------

#: Set-up for every op case, on a fresh 2x4 mesh: x and y are (1,1,128,64) bfloat16 TILE tensors
#: height-sharded 32x64 on 4 cores (x allocated first, at the top of L1); w a (1,1,64,64) DRAM
#: interleaved tensor.
OP_SETUP = [
    "HS = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1, ttnn.ShardSpec("
    "ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(3, 0))]), [32, 64], "
    "ttnn.ShardOrientation.ROW_MAJOR))",
    "x = ttnn.allocate_tensor_on_device(ttnn.Shape([1, 1, 128, 64]), ttnn.bfloat16, ttnn.TILE_LAYOUT, md, HS)",
    "y = ttnn.allocate_tensor_on_device(ttnn.Shape([1, 1, 128, 64]), ttnn.bfloat16, ttnn.TILE_LAYOUT, md, HS)",
    "w = ttnn.allocate_tensor_on_device(ttnn.Shape([1, 1, 64, 64]), ttnn.bfloat16, ttnn.TILE_LAYOUT, md, "
    "ttnn.DRAM_MEMORY_CONFIG)",
]
#: (name, expression) of each op on the set-up's tensors. Device ops build a kernel, which the mock
#: cannot do: they fail after allocating their output, so the output is read from a graph capture.
OP_CASES = [
    ("zeros_sharded", "ttnn.zeros([1, 1, 128, 64], ttnn.bfloat16, ttnn.TILE_LAYOUT, device=md, memory_config=HS)"),
    ("ones_sharded", "ttnn.ones([1, 1, 128, 64], ttnn.bfloat16, ttnn.TILE_LAYOUT, device=md, memory_config=HS)"),
    ("full_sharded", "ttnn.full([1, 1, 128, 64], 3.0, ttnn.bfloat16, ttnn.TILE_LAYOUT, device=md, memory_config=HS)"),
    ("neg", "ttnn.neg(x)"),
    ("exp", "ttnn.exp(x)"),
    ("relu", "ttnn.relu(x)"),
    ("gelu", "ttnn.gelu(x)"),
    ("typecast", "ttnn.typecast(x, ttnn.float32)"),
    ("add", "ttnn.add(x, y)"),
    ("sub", "ttnn.sub(x, y)"),
    ("mul", "ttnn.mul(x, y)"),
    ("matmul", "ttnn.matmul(x, w)"),
    ("sum_last_dim", "ttnn.sum(x, dim=-1)"),
    ("transpose", "ttnn.transpose(x, -2, -1)"),
    ("clone", "ttnn.clone(x)"),
    ("to_layout_row_major", "ttnn.to_layout(x, ttnn.ROW_MAJOR_LAYOUT)"),
]


def graph_buffers(graph):
    """The buffers a captured call allocated and freed, in order: [op, address, layout, buffer type,
    size, page size, cores] (op: "allocate" / "deallocate")."""
    rows = []
    for node in graph:
        kind = node.get("node_type")
        if kind in ("buffer_allocate", "buffer_deallocate"):
            p = node["params"]
            rows.append([kind.split("_")[1], int(p["address"]), p["layout"].lower(), p["type"].lower(), int(p["size"]),
                         int(p["page_size"]), int(p["num_cores"])])
    return rows


def record_op_outputs(system):
    """Each op on a fresh mesh: its error (device ops cannot build kernels in the mock), the buffers it
    allocated (from ttnn.graph in NORMAL mode, which records them before the kernel build fails), and
    the output tensor when it returns one."""
    graph = ttnn._ttnn.graph
    rows = []
    for name_, expression in OP_CASES:
        md = open_mesh(system)
        namespace = {"ttnn": ttnn, "md": md}
        for statement in OP_SETUP:
            exec(statement, namespace)  # noqa: S102 - the statements are this file's own case data
        inputs = {k: {"address": namespace[k].buffer_address(),
                      "memory_config": memory_config_json(namespace[k].memory_config())} for k in ("x", "y", "w")}
        graph.begin_graph_capture(graph.RunMode.NORMAL)
        try:
            out, error = eval(expression, namespace), dict(NO_ERROR)  # noqa: S307
        except RECORDED_ERRORS as exc:
            out, error = None, Raised("op", exc).json()
        buffers = graph_buffers(graph.end_graph_capture())
        rows.append({"system": system, "name": name_, "setup": OP_SETUP, "inputs": inputs, "expression": expression,
                     **error, "buffers": buffers, "result": None if out is None else observe(out)})
        namespace.clear()
        ttnn.close_mesh_device(md)
    rows.append(record_reallocate_shared(system))
    return rows


def record_reallocate_shared(system):
    """reallocate of a tensor on 7 of 8 devices while a second handle (ttnn.Tensor(dst)) holds its buffer."""
    md = open_mesh(system)
    spec = ttnn.TensorSpec([1, 1, 32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, ttnn.BufferType.DRAM)
    dst = ttnn.allocate_tensor_on_device(spec, md)
    seven = make_host(host((1, 7, 32, 32), placements=[{"shard": 1}], override=(8,)), md)
    ttnn.copy_host_to_device_tensor(seven, dst)
    alias = ttnn.Tensor(dst)
    before = observe(dst)
    graph = ttnn._ttnn.graph
    graph.begin_graph_capture(graph.RunMode.NORMAL)
    try:
        out, error = ttnn.reallocate(dst), dict(NO_ERROR)
    except RECORDED_ERRORS as exc:
        out, error = None, Raised("op", exc).json()
    buffers = graph_buffers(graph.end_graph_capture())
    row = {"system": system, "name": "reallocate_shared_seven",
           "setup": ["dst = allocate (1,1,32,32) bfloat16 TILE DRAM on 2x4", "copy (1,7,32,32) [S(1)] over (8) into dst",
                     "alias = ttnn.Tensor(dst)"],
           "inputs": {"dst": before}, "expression": "ttnn.reallocate(dst)", **error, "buffers": buffers,
           "result": None if out is None else observe(out),
           "dst_after": {"is_allocated": dst.is_allocated(), "address": dst.buffer_address() if dst.is_allocated() else None},
           "alias_after": {"is_allocated": alias.is_allocated(),
                           "address": alias.buffer_address() if alias.is_allocated() else None}}
    del out, alias, dst
    ttnn.close_mesh_device(md)
    return row


SECTIONS = {
    "systems": record_systems,
    "specs": record_specs,
    "nd_specs": record_nd_specs,
    "errors": record_errors,
    "mesh": record_mesh,
    "allocator": record_allocator,
    "per_core_allocator": record_per_core_allocator,
    "create_sharded_memory_config": record_create_sharded_memory_config,
    "printed": record_printed,
    "op_outputs": record_op_outputs,
}

ABOUT_SECTIONS = {
    "systems": "Per system (its mock cluster descriptor, default mesh): arch, the mesh opened, worker grid "
               "(compute_with_storage_grid_size), DRAM grid, DRAM/L1 alignment (bfp_utils), and per buffer type the "
               "bank count, bank size (total_bytes_per_bank) and allocator base address (get_allocator_base_address). "
               "L1_SMALL and TRACE are 0 B regions in a default open.",
    "specs": "2-D sharded TensorSpecs (height/width/block x TILE/ROW_MAJOR x row_major/col_major, uneven last shards, "
             "bfloat16/float32/bfloat8_b, L1 and DRAM-sharded, plus interleaved references), each built "
             "ShardSpec -> MemoryConfig -> TensorSpec(shape, dtype, layout, memory_layout, shard_spec, buffer_type) -> "
             "allocate_tensor_on_device(spec, mesh) on a fresh allocator. spec_memory_config is spec.memory_config "
             "before allocation; tensor_memory_config is the allocated tensor's memory_config(). per_bank_size is "
             "the size of the one "
             "allocated block in the lockstep block table (get_memory_view); address the buffer_address() on an "
             "empty allocator. cores: per core, the host page ids it holds in order, from "
             "bfp_utils.compute_shard_page_mapping (ttnn's own BufferDistributionSpec) fed the allocated tensor's "
             "nd_shard_spec, with page = tile (TILE) or one shard-width row (ROW_MAJOR); only real pages are "
             "listed (padding pages and the slot they would take are not), so a core holding nothing has [].",
    "nd_specs": "ND shard specs (NdShardSpec with round_robin_1d, grid_2d, contiguous_1d; more shards than cores; "
                "3-D shards), same outputs as specs. spec_memory_config shows whether the TensorSpec already turned "
                "a 2-D-expressible ND spec into HEIGHT/WIDTH/BLOCK_SHARDED. via_memory_config is the memory config "
                "of allocate_tensor_on_device(shape, dtype, layout, mesh, MemoryConfig(buffer_type, nd)) (or its "
                "error).",
    "errors": "Validation: each case runs the stages in order (core_range_set, shard_spec, memory_config, spec, "
              "allocate, page_mapping) and records the first that raises (raised_at) with the normalised text "
              "(record_ttnn.error_text) and the source file:line (raised_in); accepted cases carry the specs "
              "outputs. other_paths: the same config through allocate_tensor_on_device(shape, dtype, layout, mesh, "
              "memory_config) and through ttnn.to_device(plain host, mesh, memory_config=...). Generic cases on "
              "t3k and p150x8; grid cases (derived from each system's worker grid and DRAM bank count) on every "
              "system. to_device's per-device check is in mesh (to_device_per_device_check).",
    "mesh": "Scenarios on a 2x4 mesh: allocate, host (ttnn.Tensor of arange data, mapped with create_mesh_mapper "
            "when placements are given), to_device (ttnn.to_device or Tensor.to), copy "
            "(copy_host_to_device_tensor), copy_partial (copy_host_to_device_tensor_partial with a core filter), "
            "cpu. Each step: its error (if any) and the resulting tensor (for a failed copy, the destination): "
            "memory config, topology, and for a device tensor the per-device records (device_specs: identical "
            "per-device records grouped with the coords they apply to).",
    "allocator": "Allocation sequences on fresh meshes (sizes scaled to the system's bank counts): after each step "
                 "the address (buffer_address, and whether every device reports the same), the error, and the "
                 "lockstep block table of the buffer type touched, as [offset, size, allocated] sorted by offset; "
                 "offsets are relative to base_address (absolute = base_address + offset).",
    "per_core_allocator": "The experimental per-core allocation (MemoryConfig.experimental_set_per_core_allocation, "
                          "needs TT_METAL_ALLOCATOR_MODE_HYBRID=1 before opening, set for this child process only) "
                          "and range-lockstep allocation: per-core addresses "
                          "(experimental_per_core_buffer_address on each device; the first device's value shown) for "
                          "each core of the grid and the next core past it; same step format as allocator.",
    "create_sharded_memory_config": "ttnn.create_sharded_memory_config(shape, core_grid, strategy, orientation, "
                                    "use_height_and_width_as_shard_shape) (and the create_sharded_memory_config_ "
                                    "variant with tile_layout): the MemoryConfig returned or the error, and whether "
                                    "a bfloat16 TILE tensor of that shape allocates with it on t3k.",
    "printed": "str() and repr() of CoreCoord, CoreRange, CoreRangeSet, ShardSpec, NdShardSpec, MemoryConfig "
               "(constructed, after allocation, after cpu(), constants), enums, to_json(); each expression is "
               "evaluated after the setup statements.",
    "op_outputs": "Device ops on a height-sharded input (issue 35, for meshspec's op output primitive): each case on "
                  "a fresh 2x4 mesh after the setup statements; the error (the mock cannot build kernels, so most "
                  "ops fail after allocating their output), buffers: what the call allocated and freed as captured "
                  "by ttnn.graph in NORMAL mode, [op, address, layout, buffer type, size, page size, cores], and "
                  "result: the output tensor when the call returns one (same format as mesh). "
                  "reallocate_shared_seven: reallocate of a 7-device tensor a second handle holds.",
}

ABOUT_CONVENTIONS = {
    "grid": "a list of core ranges [[x0, y0], [x1, y1]], inclusive, in the order given to CoreRangeSet",
    "memory_config": "2-D: {memory_layout, buffer_type, grid, shard_shape, orientation} = MemoryConfig(memory_layout, "
                     "buffer_type, ShardSpec(grid, shard_shape, orientation)), no ShardSpec when shard_shape is null; "
                     "ND: {buffer_type, nd_shard_spec: {shard_shape, grid, orientation, distribution}} = "
                     "MemoryConfig(buffer_type, NdShardSpec(Shape(shard_shape), grid, orientation, distribution)); "
                     "{constant: NAME} = ttnn.NAME; per_core_allocation / range_lockstep_allocation: the experimental "
                     "setters. Recorded memory configs add created_with_nd_shard_spec and the allocation flags.",
    "names": "dtypes, layouts, memory layouts, buffer types, orientations and distributions are the lowercase "
             "enum names",
    "raised_at": "the call that raised: core_range_set, shard_spec, nd_shard_spec, memory_config, spec (TensorSpec), "
                 "allocate (allocate_tensor_on_device(spec, mesh)), allocate_with_memory_config "
                 "(allocate_tensor_on_device(shape, dtype, layout, mesh, memory_config)), page_mapping "
                 "(compute_shard_page_mapping), host (ttnn.Tensor), to_device, copy, copy_partial, cpu, deallocate, "
                 "buffer_address, per_core_buffer_address, create_sharded_memory_config(_)",
    "error": "record_ttnn.error_text: 'TT_FATAL: <info message>' for TT_FATAL/TT_THROW, else "
             "'<ExceptionType>: <first line>'",
    "raised_in": "the source file:line named by the TT_FATAL/TT_THROW, null for other errors",
}


# --- running ---------------------------------------------------------------------------------------

def run_child(system, section, scratch):
    env = dict(os.environ, TT_METAL_MOCK_CLUSTER_DESC_PATH=str((CLUSTERS / SYSTEM_CLUSTERS[system]).resolve()),
               TT_LOGGER_LEVEL="FATAL")
    env.pop("TT_METAL_ALLOCATOR_MODE_HYBRID", None)
    env |= SECTION_ENV.get(section, {})
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        command = [sys.executable, str(SCRIPT), "--child", system, "--section", section, "--out", out.name]
        child = subprocess.run(command, capture_output=True, text=True, env=env, cwd=scratch)
        if child.returncode != 0:
            sys.exit(f"{section} on {system} failed (rc {child.returncode}):\n"
                     f"{child.stdout[-3000:]}\n{child.stderr[-3000:]}")
        return json.loads(out.read())


def record_all():
    golden = {"about": {
        "ttnn_version": TTNN_VERSION,
        "recorded_by": RECORDED_BY,
        "how": "real ttnn in mock mode on a CPU; each (system, section) in its own process; see the recorder's "
               "docstring",
        "cluster_descriptors": {s: Path(SYSTEM_CLUSTERS[s]).name for s in SYSTEM_CLUSTERS},
        "meshes": {s: list(SYSTEM_MESH[s]) for s in SYSTEM_CLUSTERS
                   if any(s in systems for section, systems in SECTION_SYSTEMS.items() if section != "systems")},
        "section_systems": SECTION_SYSTEMS,
        "sections": ABOUT_SECTIONS,
        "conventions": ABOUT_CONVENTIONS,
    }}
    with tempfile.TemporaryDirectory() as scratch:
        for section, systems in SECTION_SYSTEMS.items():
            golden[section] = [row for system in systems for row in run_child(system, section, scratch)]
    return golden


def dumps(value, indent=0, width=110):
    """JSON with a value kept on one line when it fits, and a list of numbers always on one line."""
    flat = json.dumps(value)
    scalars = isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value)
    if len(flat) + indent <= width or not isinstance(value, (dict, list)) or not value or scalars:
        return flat
    pad = " " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {dumps(v, indent + 1, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    return "[\n" + ",\n".join(pad + dumps(v, indent + 1, width) for v in value) + "\n" + " " * indent + "]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)  # internal: record one system's section in this process
    parser.add_argument("--section", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--golden", type=Path, default=OUTPUT,
                        help="where to write the golden file (default: %(default)s)")
    options = parser.parse_args()
    installed = importlib.metadata.version("ttnn")
    if installed != TTNN_VERSION:
        sys.exit(f"record_sharded.py: ttnn {installed} is installed; this records ttnn {TTNN_VERSION}")
    if options.child:
        rows = SECTIONS[options.section](options.child)
        Path(options.out).write_text(json.dumps(rows))
        return
    golden = record_all()
    target = options.golden.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(golden) + "\n")
    counts = ", ".join(f"{len(golden[s])} {s}" for s in SECTION_SYSTEMS)
    print(f"wrote {target}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
