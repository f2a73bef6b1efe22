"""Record what the real ttnn says about per-device tensor specs, as golden data for meshspec.

Runs the real library on this CPU in mock mode (a mock 2x4 Wormhole T3K; no hardware) and writes
tests/golden/ttnn_<version>.json for the ttnn the venv holds (0.81.1, 0.67.0 or 0.66.0: the versions
that open a mock mesh). From the repository root:

    ../shared/ttnn-mock/setup.sh              # once: installs ttnn==0.81.1 (Python 3.10) into $TMPDIR/ttnn-mock
    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh   # activates that venv and sets the mock variables
    python tools/golden/record_ttnn.py        # or /tmp/ttnn-mock-0.67.0/env.sh, -0.66.0: their own files

0.66.0 and 0.67.0 lack three calls this recorder observes with; there it uses what they have (the
same approach as meshspec/bridge/observe.py), and the file says so under "observed_without":
- ``Tensor.device_coords()``: "device_coords" is null, and "device_parts" holds the number of
  ``get_device_tensors`` parts (the storage's coordinates counted, not named: the topology's
  coordinates are what meshspec checks the storage against, so they cannot stand in for it).
- ``DistributedHostBuffer.get_shard()``: "cpu_coords" is null likewise ("cpu_shards" counts the parts).
- ``create_mesh_mapper(MeshShape, config)``: there it takes a mesh device, so each host-only mapper
  case runs on a mesh device of its shape, opened on a cluster that has it (the T3K; the Galaxy for 8x4).
- ``Tensor.buffer_page_size()`` and its siblings: a device tensor's page numbers are null there.
And their numpy ``ttnn.Tensor`` constructor fails for bfloat16 ("Current buffer size is 0 different
from shape volume"): a host tensor the recorder needs as a means is built with the flat-list
constructor there; the case that is about the numpy constructor itself ("from_torch_path") calls it
and records what the version says.

The output is deterministic: re-running it gives the same file. meshspec's tests only read the JSON;
they never need ttnn.

What is recorded (the case lists below are the data; edit them, re-run, commit both files):

- "specs": a TensorSpec allocated on the mock 2x4 mesh; its padded shape and buffer page numbers.
- "mappers": a host tensor (float32, TILE, data = arange) distributed by
  create_mesh_mapper(MeshShape(mesh), MeshMapperConfig(placements, override)). Host-side only, so
  any mesh shape works. Each populated shard is paired with its device coordinate and its global
  offset, read from the shard's first value. Errors are data: "TT_FATAL: <message>".
- "runtime": scenarios on the mock 2x4 mesh device. After every event the subject tensor is
  observed: its topology, device_coords(), and a cpu() readback ("cpu_shards"/"cpu_coords" are the
  shards and coordinates present in the readback's host buffer; for a host subject, in the tensor
  itself). Two keys beyond the requested structure: "shape" (the subject's logical shape) and
  "is_allocated" (null for host tensors). A failed event is observed on its destination or input
  tensor, if it has one. Each scenario runs in a child process, because some calls (cpu() of a
  deallocated tensor) kill the process with SIGSEGV: such an event is recorded with that as its
  error and the scenario is replayed without it.
- "api": scenarios on the same mesh, in the same format, for the calls around the copy: per-device
  access (get_device_tensors, combine_device_tensors), from_host_shards, distribute_tensor,
  allocate_tensor_on_host, copy_device_to_host_tensor, update_tensor_topology, the creation calls,
  submeshes, MeshDevice.reshape, to_device of a device tensor, the from_torch path (ttnn.Tensor of an
  array), dump/load, mapper/composer offsets, legacy names, to_numpy/to_torch without a composer. Events
  may name tensors made earlier; an observation has the "runtime" keys plus API_OBSERVATION (storage,
  dtype, layout, address, device_shape, host_buffer_shape, first_values, cpu_error, and "parts" /
  "meshes" / "value" for what a call returns besides a tensor; see observe() and results()).

The runs happen in a scratch directory: opening a mesh device writes generated/fabric/*.yaml into
the working directory.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import ttnn

VERSIONS = ("0.81.1", "0.67.0", "0.66.0")
"""The ttnn versions that open a mock mesh: each records its own file."""
TTNN_VERSION = importlib.metadata.version("ttnn")
RECORDED_BY = "tools/golden/record_ttnn.py"
SCRIPT = Path(__file__).resolve()
REPO = SCRIPT.parents[2]
OUTPUT = REPO / "tests" / "golden" / f"ttnn_{TTNN_VERSION.replace('.', '_')}.json"
#: create_mesh_mapper takes a mesh device only (0.66.0, 0.67.0), not a MeshShape.
MAPPER_NEEDS_DEVICE = "MeshShape" not in (ttnn.create_mesh_mapper.__doc__ or "")


def missing():
    """What this version lacks of the calls the recorder observes with (see the docstring). Makes a
    host tensor: not at import (a child process on a descriptor that cannot open must not fail here)."""
    return [name for name, present in (
        ("Tensor.device_coords", hasattr(ttnn.Tensor, "device_coords")),
        ("DistributedHostBuffer.get_shard",
         hasattr(ttnn.Tensor([0.0], [1], ttnn.float32, ttnn.ROW_MAJOR_LAYOUT).host_buffer(), "get_shard")),
        ("create_mesh_mapper(MeshShape, config)", not MAPPER_NEEDS_DEVICE),
        ("Tensor.buffer_page_size", hasattr(ttnn.Tensor, "buffer_page_size")),
    ) if not present]
RUNTIME_MESH = (2, 4)  # the mock cluster descriptor is a T3K


# --- Case data -------------------------------------------------------------------------------------

R = "R"


def S(dim):
    """A shard placement, written as it appears in the JSON."""
    return {"shard": dim}


def spec(shape, dtype="bfloat16", layout="tile", tile=(32, 32), memory="dram"):
    return {"shape": list(shape), "dtype": dtype, "layout": layout, "tile": list(tile), "memory": memory}


DTYPES = ["bfloat16", "float32", "uint32", "int32", "uint16", "uint8", "bfloat8_b", "bfloat4_b"]
TILES = [(32, 32), (16, 32), (32, 16), (16, 16)]

SPEC_CASES = [
    spec((1, 1, 30, 50)),
    spec((3, 5, 33, 65)),
    *[spec((1, 1, 32, 32), dtype) for dtype in DTYPES],
    *[spec((1, 1, 64, 64), dtype, tile=tile)
      for dtype in ("bfloat8_b", "bfloat4_b", "bfloat16", "float32") for tile in TILES],
    spec((1, 1, 64, 64), "bfloat8_b", tile=(16, 16), memory="l1"),  # added: L1 aligns to 16 B
    spec((1, 1, 64, 64), "bfloat4_b", tile=(16, 16), memory="l1"),  # added
    spec((4, 10, 31), "float32", "row_major"),
    spec((4, 10, 31), "float32", "row_major", memory="l1"),
    spec((4, 10, 12), "float32", "row_major"),  # added: 48 B rows tell DRAM (32 B) from L1 (16 B)
    spec((4, 10, 12), "float32", "row_major", memory="l1"),  # added
    *[spec((1, 1, 7, 13), dtype, "row_major") for dtype in ("bfloat16", "uint8", "uint16", "int32")],
    spec((1, 1, 7, 13), "uint8", "row_major", memory="l1"),  # added
    spec((1, 1, 7, 13), "bfloat8_b", "row_major"),
    spec((1, 1, 7, 13), "bfloat4_b", "row_major"),  # added
    spec((2, 3)),
    spec((5,)),
    spec((5,), layout="row_major"),  # added
    spec((1, 1, 32, 32), memory="l1"),
]


CLUSTERS = Path(os.environ.get("MESHSPEC_CLUSTERS", REPO.parent / "shared" / "ttnn-mock" / "clusters"))
#: meshspec system name -> the mock cluster descriptor that describes it (from tt-umd, shipped with
#: the steering repository's ttnn-mock); t3k uses the T3K descriptor that the mock set-up points at.
SYSTEM_CLUSTERS = {
    "n150": "wormhole_N150.yaml",
    "n300": "wormhole_N300.yaml",
    "t3k": "../t3k_cluster_desc.yaml",
    "galaxy": "6u_cluster_desc.yaml",
    "p150": "blackhole_P150.yaml",
    "p150x4": "blackhole_4xP150.yaml",
    "p150x8": "blackhole_8xP150.yaml",
    "bh-galaxy": "blackhole_galaxy.yaml",
}

#: Mesh shapes asked of each system (None: open_mesh_device's default).
SYSTEM_SHAPES = {
    "n150": [None, (1, 1), (1,), (1, 2)],
    "n300": [None, (1, 2), (2, 1), (2,), (1, 1), (1, 3)],
    "t3k": [None, (2, 4), (4, 2), (1, 8), (8, 1), (8,), (1, 1), (1, 2), (2, 1), (2, 2), (1, 4), (4, 1), (2, 3),
            (3, 2), (1, 3), (1, 5), (2, 2, 2), (1, 2, 4), (4, 4), (16,), (3, 3)],
    "galaxy": [None, (8, 4), (4, 8), (1, 32), (32, 1), (32,), (4, 4), (2, 4), (1, 8), (2, 16), (16, 2), (8, 8),
               (2, 2, 8)],
    "p150": [None, (1, 1), (1, 2)],
    "p150x4": [None, (2, 2), (1, 4), (4, 1), (4,), (1, 2), (2, 4)],
    "p150x8": [None, (2, 4), (4, 2), (1, 8), (8,), (2, 2), (3, 3), (4, 4)],
    "bh-galaxy": [None, (8, 4), (4, 8), (32,), (2, 16)],
}

#: Specs allocated on each architecture's default mesh (alignment differs: Wormhole and Blackhole).
ARCH_SPEC_CASES = {
    system: [
        spec((1, 1, 12, 10), "bfloat16", "row_major"),
        spec((1, 1, 12, 10), "bfloat16", "row_major", memory="l1"),
        spec((1, 1, 12, 20), "bfloat16", "row_major"),
        spec((1, 1, 12, 20), "bfloat16", "row_major", memory="l1"),
        spec((4, 10, 31), "float32", "row_major"),
        spec((1, 1, 32, 32), "bfloat8_b", tile=(16, 16)),
        spec((1, 1, 32, 32), "bfloat8_b", tile=(16, 16), memory="l1"),
        spec((1, 1, 32, 32), "bfloat4_b", tile=(16, 16)),
        spec((1, 1, 32, 32)),
    ]
    for system in ("n150", "t3k", "galaxy", "p150", "p150x4", "p150x8")
}


def mapper(mesh, shape, placements, override=None):
    return {"mesh": list(mesh), "shape": list(shape), "placements": placements,
            "mesh_shape_override": None if override is None else list(override)}


MAPPER_CASES = [
    # T3K 2x4
    mapper((2, 4), (1, 7, 32, 32), [S(1)], (8,)),  # = shard_tensor_to_mesh_mapper(dim=1): the seed
    mapper((2, 4), (1, 8, 32, 32), [S(1)], (8,)),
    mapper((2, 4), (1, 10, 32, 32), [S(1)], (8,)),
    mapper((2, 4), (1, 9, 32, 32), [S(1)], (8,)),
    mapper((2, 4), (1, 13, 32, 32), [S(1)], (8,)),
    mapper((2, 4), (1, 5, 32, 32), [S(1)], (8,)),
    mapper((2, 4), (1, 4, 32, 32), [S(1)], (4,)),  # added: 1-D override smaller than the mesh
    mapper((2, 4), (1, 7, 32, 32), [R, S(1)]),
    mapper((2, 4), (1, 8, 32, 32), [R, S(1)]),
    mapper((2, 4), (1, 3, 32, 32), [R, S(1)]),
    mapper((2, 4), (1, 6, 32, 32), [R, S(1)]),  # added: 3 equal chunks over 4 columns
    mapper((2, 4), (1, 5, 32, 32), [R, S(1)]),  # added: 3 unequal chunks: which check first?
    mapper((2, 4), (1, 10, 32, 32), [R, S(1)]),  # added: 4 chunks 3,3,3,1
    mapper((2, 4), (1, 3, 32, 32), [S(1), R]),
    mapper((2, 4), (1, 7, 32, 32), [S(1), R]),  # added: 2 chunks 4,3
    mapper((2, 4), (2, 8, 32, 32), [S(0), S(1)]),
    mapper((2, 4), (4, 4, 32, 32), [S(1), S(1)]),
    mapper((2, 4), (1, 8, 32, 32), [S(1)], (9,)),
    mapper((2, 4), (1, 8, 32, 32), [R, S(1)], (8,)),
    mapper((2, 4), (1, 6, 32, 32), [R, S(1)], (2, 3)),
    mapper((2, 4), (1, 8, 32, 32), [S(1), R], (4, 2)),
    mapper((2, 4), (1, 8, 32, 32), [R, S(1)], (1, 8)),  # added: rank-2 override wider than the mesh
    mapper((2, 4), (1, 2, 64, 64), [S(1), S(2), S(3)], (2, 2, 2)),  # added: rank-3 override
    mapper((2, 4), (1, 8, 32, 32), [R, R]),
    mapper((2, 4), (1, 1, 32, 32), [R], (8,)),
    mapper((2, 4), (1, 1, 64, 64), [S(2), S(3)]),
    mapper((2, 4), (1, 1, 32, 256), [S(-1)], (8,)),  # added: negative dim
    mapper((2, 4), (1, 8, 32, 32), [S(4)], (8,)),  # added: dim out of range
    mapper((2, 4), (16,), [S(0)], (8,)),
    # issue 35: which dims an index error lists, and which two shards a shape mismatch names
    mapper((2, 4), (1, 1, 96, 26), [S(4), S(3)]),
    mapper((2, 4), (1, 1, 96, 26), [S(3), S(4)]),
    mapper((2, 4), (1, 1, 96, 26), [S(4), S(4)]),  # the range check comes before the unique one
    mapper((2, 4), (1, 1, 96, 26), [S(4), R, S(3)], (2, 2, 2)),
    mapper((2, 4), (1, 1, 96, 26), [R, S(-5)]),
    mapper((2, 4), (1, 1, 96, 26), [S(2), S(3)]),  # 48 rows each; 7, 7, 7, 5 columns
    mapper((2, 4), (1, 3, 96, 26), [S(1), S(2)]),  # 2, 1 channels; 24 rows each
    mapper((2, 4), (1, 3, 96, 26), [S(3), S(1)], (4, 2)),  # both uneven: the last axis's differs first
    mapper((2, 4), (1, 3, 5, 7), [S(1), S(2), S(3)], (2, 2, 2)),
    mapper((2, 4), (3, 5, 96, 26), [S(0), S(1)], (2, 2)),
    mapper((2, 4), (1, 1, 96, 26), [S(3)], (8,)),  # 4 x 6 and a 2
    # Galaxy 8x4
    mapper((8, 4), (1, 31, 64, 64), [S(1)], (32,)),
    mapper((8, 4), (8, 4, 32, 32), [S(0), S(1)]),  # added
    mapper((8, 4), (1, 4, 32, 32), [R, S(1)]),  # added
    # T3K as 1x8
    mapper((1, 8), (1, 8, 32, 32), [R, S(1)]),
    mapper((1, 8), (1, 7, 32, 32), [R, S(1)]),  # added: N-D rule on a mesh with one row
    mapper((1, 8), (1, 7, 32, 32), [S(1)], (8,)),  # added
    # n150 1x1
    mapper((1, 1), (1, 1, 32, 32), [R, R]),
    mapper((1, 1), (1, 2, 32, 32), [S(1), R]),  # added
]


def host(shape, dtype="bfloat16", layout="tile", placements=None, override=None, **helper):
    """A host tensor of arange data; mapped with create_mesh_mapper when placements are given, or
    with a named helper (mapper="replicate_tensor_to_mesh_mapper" etc., plus its arguments). Other
    keywords ("api" cases): tile, memory (the host tensor's memory config), start (added to the data),
    mesh (the MeshShape mapped over; default the mesh device's), mesh_offset_override."""
    src = {"shape": list(shape), "dtype": dtype, "layout": layout}
    if placements is not None:
        src |= {"placements": placements, "mesh_shape_override": None if override is None else list(override)}
    return src | helper


def event(op, **args):
    return (op, args)


DST = {"shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile", "tile": [32, 32], "memory": "dram"}
ALLOCATE = event("allocate_tensor_on_device", out="dst", **DST)
SEVEN = host((1, 7, 32, 32), placements=[S(1)], override=(8,))  # 7 shards of (1,1,32,32)
EIGHT = host((1, 8, 32, 32), placements=[S(1)], override=(8,))  # 8 shards of (1,1,32,32)
PLAIN = host((1, 1, 32, 32))  # no mapper: one shard
X2D = host((1, 1, 64, 128), "float32", placements=[S(2), S(3)])  # coord (r, c) holds [.., 32r:, 32c:]
SEVEN32 = host((1, 7, 32, 32), "float32", placements=[S(1)], override=(8,))


def copy(src, dst="dst"):
    return event("copy_host_to_device_tensor", src=src, dst=dst)


def compose(composer, tensor=None, src=None, block=None):
    where = {"tensor": tensor} if tensor else {"src": src}
    return event("aggregate_tensor", **where, composer=composer, **({"block": block} if block else {}))


def concat(dim):
    return {"function": "concat_mesh_to_tensor_composer", "dim": dim}


def nd(dims, override=None):
    return {"function": "create_mesh_composer", "dims": dims,
            "mesh_shape_override": None if override is None else list(override)}


RUNTIME_SCENARIOS = [
    ("seed", "The seed bug: allocate (1,1,32,32) on 2x4, copy a (1,7,32,32) host tensor sharded on dim 1 over (8).",
     [ALLOCATE, copy(SEVEN)]),
    ("partial_then_full", "The seed, then a full 8-shard copy into the same destination.",
     [ALLOCATE, copy(SEVEN), copy(EIGHT)]),
    ("full_then_partial", "A full 8-shard copy, then a partial 7-shard copy.",
     [ALLOCATE, copy(EIGHT), copy(SEVEN)]),
    ("plain_host_copy", "A plain host tensor (no mapper) copied in; then a partial copy; then plain again.",
     [ALLOCATE, copy(PLAIN), copy(SEVEN), copy(PLAIN)]),
    ("shape_mismatch_copy",
     "Copies whose shards differ from the destination's spec; the observation shows dst after each failure.",
     [ALLOCATE,
      copy(host((1, 16, 32, 32), placements=[S(1)], override=(8,))),  # 8 shards of (1,2,32,32)
      copy(host((1, 14, 32, 32), placements=[S(1)], override=(8,))),  # added: 7 shards of (1,2,32,32)
      copy(host((1, 2, 32, 32))),  # added: plain host tensor of another shape
      copy(host((1, 1, 32, 32), dtype="float32")),
      copy(host((1, 1, 32, 32), layout="row_major")),
      copy(host((1, 1, 32, 32), tile=[16, 32])),  # added: same layout, other tile
      copy(host((1, 1, 32, 32), dtype="float32", layout="row_major")),  # added: check order
      copy(host((1, 2, 32, 32), dtype="float32")),  # added: check order
      copy(host((1, 16, 32, 32), dtype="float32", placements=[S(1)], override=(8,)))]),  # added
    ("to_device", "Host tensors put on the device without a preallocated destination.",
     [event("Tensor.to", src=SEVEN, out="t"),
      event("to_device", src=SEVEN, out="t2"),
      event("to_device", src=PLAIN, out="t3"),  # added
      event("to_device", src=host((1, 1, 32, 32), placements=[R, R]), out="t4")]),  # added
    ("replicated_copy", "Replicated host tensors copied in, also after a partial copy.",
     [ALLOCATE,
      copy(host((1, 1, 32, 32), placements=[R, R])),
      copy(SEVEN),  # added
      copy(host((1, 1, 32, 32), placements=[R, R])),  # added: a full write after a partial one
      copy(host((1, 1, 32, 32), mapper="replicate_tensor_to_mesh_mapper"))]),  # added
    ("submesh_copy", "A [R, S(1)] tensor over a 2x3 submesh override.",
     [ALLOCATE,
      copy(host((1, 6, 32, 32), placements=[R, S(1)], override=(2, 3))),  # shards are (1,2,32,32)
      copy(host((1, 3, 32, 32), placements=[R, S(1)], override=(2, 3))),  # added: shards fit dst
      event("allocate_tensor_on_device", out="dst2", **(DST | {"shape": [1, 2, 32, 32]})),  # added
      copy(host((1, 6, 32, 32), placements=[R, S(1)], override=(2, 3)), dst="dst2"),
      copy(host((1, 16, 32, 32), placements=[S(1)], override=(8,)), dst="dst2")]),  # added
    ("deallocate", "Deallocate a mesh tensor that has a second handle (ttnn.Tensor(dst)), then use both.",
     [ALLOCATE,
      event("Tensor", tensor="dst", out="alias"),  # a second handle on the same storage
      event("deallocate", tensor="dst"),
      event("inspect", tensor="alias"),
      event("device_coords", tensor="dst"),
      event("buffer_page_size", tensor="dst"),
      event("cpu", tensor="dst"),
      event("from_device", tensor="dst"),
      copy(PLAIN),
      event("deallocate", tensor="dst")]),
    ("helper_mappers", "Mapper helpers that need a mesh device, on the mock 2x4 mesh.",
     [event("distribute_tensor", out="h1", src=host((1, 7, 32, 32), mapper="replicate_tensor_to_mesh_mapper")),
      event("distribute_tensor", out="h2", src=host((1, 7, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1)),
      event("distribute_tensor", out="h3", src=host((1, 7, 32, 32), mapper="ShardTensorToMesh", dim=1)),
      event("distribute_tensor", out="h4",
            src=host((1, 7, 32, 32), mapper="ShardTensor2dMesh", mesh_shape=[2, 4], dims=[None, 1])),
      event("distribute_tensor", out="h5",
            src=host((1, 8, 32, 32), mapper="ShardTensor2dMesh", mesh_shape=[2, 4], dims=[None, 1])),
      event("distribute_tensor", out="d1", device=True,  # distribute_tensor(host, mapper, mesh_device)
            src=host((1, 7, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1))]),
    ("composer_dims", "Composing on another dim than the tensor was sharded on (float32 arange: values name their "
     "source index); values_sample holds the composed value at each shard-sized block's origin.",
     [compose(concat(3), src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,)), block=[1, 1, 32, 32]),
      compose(nd([3], (8,)), src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,)), block=[1, 1, 32, 32]),
      compose(nd([0, 3]), src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,)), block=[1, 1, 32, 32]),
      compose(nd([2, 3]), src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,)), block=[1, 1, 32, 32]),
      compose(concat(1), src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,)), block=[1, 1, 32, 32]),
      compose(concat(0), src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,)), block=[1, 1, 32, 32]),
      compose(nd([0, 1]), src=host((1, 1, 32, 32), "float32", placements=[R, R]), block=[1, 1, 32, 32]),
      compose(nd([0, 3]), src=host((1, 1, 32, 128), "float32", placements=[R, S(3)]), block=[1, 1, 32, 32]),
      # dims out of the tensor's range, and one dim twice (after normalising -3 to 1): the composer's errors
      compose(concat(9), src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,))),
      compose(nd([0, 9]), src=host((1, 8, 32, 32), "float32", placements=[R, S(1)])),
      compose(nd([1, -3]), src=host((1, 8, 32, 32), "float32", placements=[R, S(1)]))]),
    ("composer_overrides", "Composer mesh_shape overrides on a 2x4 mesh: which shards compose, and where they land.",
     [compose(nd([2, 3], (2, 2)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([2, 3], (2, 3)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([3, 2], (2, 3)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([2, 3], (1, 4)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([2, 3], (1, 8)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([2, 3], (4, 2)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([2, 3], (8, 1)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([3], (8,)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([1, 2, 3], (2, 2, 2)), src=X2D, block=[1, 1, 32, 32]),
      compose(nd([2, 3], (3, 4)), src=X2D),
      compose(nd([2, 3], (2, 5)), src=X2D),
      compose(nd([3], (9,)), src=X2D),
      compose(nd([2, 3], (8,)), src=X2D),
      compose(nd([3], (2, 4)), src=X2D),
      compose(nd([1], (4,)), src=SEVEN32, block=[1, 1, 32, 32]),
      compose(nd([1], (8,)), src=SEVEN32, block=[1, 1, 32, 32]),
      compose(nd([1], (7,)), src=SEVEN32, block=[1, 1, 32, 32]),
      compose(nd([0, 1], (2, 2)), src=SEVEN32, block=[1, 1, 32, 32]),
      compose(nd([2, 1], (2, 2)), src=SEVEN32, block=[1, 1, 32, 32]),
      compose(nd([0, 1], (4, 2)), src=SEVEN32, block=[1, 1, 32, 32]),
      compose(nd([0, 1], (1, 8)), src=SEVEN32, block=[1, 1, 32, 32]),
      compose(nd([2, 3], (2, 2)), src=host((1, 1, 64, 128), "float32", placements=[S(2), R]), block=[1, 1, 32, 128]),
      compose(nd([1, 2, 3], (1, 2, 2)), src=X2D, block=[1, 1, 32, 32]),  # ROW_MAJOR, fewer slots than shards
      compose(nd([0, 1], (2, 4)), src=SEVEN32, block=[1, 1, 32, 32]),  # SUBMESH, a shard missing
      compose(nd([0, 1], (2, 3)), src=SEVEN32, block=[1, 1, 32, 32])]),  # SUBMESH region all present
    ("no_composer", "Reading a host tensor back without a composer (Tensor.to_numpy(); to_torch needs torch).",
     [event("to_numpy", src=host((1, 7, 32, 32), "float32", placements=[S(1)], override=(8,))),
      event("to_numpy", src=host((1, 1, 32, 32), "float32", placements=[R, R])),
      event("to_numpy", src=host((1, 1, 32, 32), "float32", placements=[S(1)], override=(8,))),
      event("to_numpy", src=host((1, 1, 32, 32), "float32"))]),
    ("memory_configs", "to_device drops the host tensor's memory config (DRAM interleaved); Tensor.to keeps it.",
     [event("to_device", src=host((1, 1, 32, 32), memory="l1"), out="a"),
      event("Tensor.to", src=host((1, 1, 32, 32), memory="l1"), out="b"),
      event("to_device", src=host((1, 1, 32, 32)), out="c"),
      event("Tensor.to", src=host((1, 1, 32, 32)), out="d"),
      event("to_device", src=host((1, 7, 32, 32), placements=[S(1)], override=(8,), memory="l1"), out="e"),
      event("Tensor.to", src=host((1, 7, 32, 32), placements=[S(1)], override=(8,), memory="l1"), out="f"),
      event("cpu", tensor="b", out="b_back"),
      event("to_device", src_tensor="b_back", out="g"),
      event("Tensor.to", src_tensor="b_back", out="h")]),
    ("composer", "Composers via ttnn.aggregate_tensor (works without torch); the subject is the composed tensor.",
     [compose(concat(1), src=SEVEN),
      compose(nd([1], (8,)), src=SEVEN),
      compose(nd([0, 1]), src=SEVEN),
      compose(nd([1]), src=SEVEN),
      compose(concat(1), src=host((1, 8, 32, 32), placements=[R, S(1)])),
      compose(nd([0, 1]), src=host((1, 8, 32, 32), placements=[R, S(1)])),
      compose(nd([2, 1]), src=host((1, 8, 32, 32), placements=[R, S(1)])),
      compose(nd([0, 1]), src=host((2, 8, 32, 32), placements=[S(0), S(1)])),
      compose(concat(0), src=host((1, 1, 32, 32), placements=[R, R])),
      compose(nd([0, 1]), src=host((1, 1, 32, 32), placements=[R, R])),
      compose(concat(0), src=host((1, 1, 32, 32), mapper="replicate_tensor_to_mesh_mapper")),
      compose(concat(0), src=PLAIN),
      compose(nd([0, 1]), src=host((1, 6, 32, 32), placements=[R, S(1)], override=(2, 3))),
      compose(nd([0, 1], (2, 3)), src=host((1, 6, 32, 32), placements=[R, S(1)], override=(2, 3))),
      ALLOCATE, copy(SEVEN), copy(EIGHT),  # partial_then_full: topology says 8, storage holds 7
      compose(concat(1), tensor="dst"),  # a device tensor: aggregate_tensor reads it back itself
      event("cpu", tensor="dst", out="readback"),
      compose(concat(1), tensor="readback")]),
]


# --- API case data ("api") -------------------------------------------------------------------------
# Same event format as RUNTIME_SCENARIOS; the events may also name tensors made earlier ("tensor",
# "src_tensor", "tensors"), submeshes ("mesh") and files ("file"). A call returning a list names its
# items "<out>.0", "<out>.1", ... (get_device_tensors: parts, create_submeshes: submeshes).

FRESH = event("allocate_tensor_on_device", out="fresh", **DST)
SEED = [ALLOCATE, copy(SEVEN)]  # dst: 7 recorded coords, (1,3) missing
EIGHT32 = host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,))
SEVEN_COORDS = [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]]
ALL_COORDS = [[r, c] for r in range(2) for c in range(4)]


ROW_COL = "MeshMapperConfig(row_dim, col_dim)"  # the config's other overload, as a mapper name


def named(out, src):
    """Build the host tensor `src` describes and keep it as `out`."""
    return event("host", src=src, out=out)


def inspect(*names):
    return event("inspect", tensor=names[0]) if len(names) == 1 else event("inspect_all", tensors=list(names))


def parts_of(tensor, out, count):
    """get_device_tensors(tensor), and the names its `count` parts get."""
    return event("get_device_tensors", tensor=tensor, out=out), [f"{out}.{i}" for i in range(count)]


def combine(names, out=None, **args):
    return event("combine_device_tensors", tensors=list(names), **({"out": out} if out else {}), **args)


def f32_shards(count, shape=(1, 1, 32, 32)):
    """`count` float32 host tensors of arange data; shard i starts at 1024 * i (its first value names it)."""
    return [host(shape, "float32", start=1024 * i) for i in range(count)]


def host_shards(shards, mesh, out=None):
    return event("from_host_shards", shards=shards, mesh_shape=list(mesh), **({"out": out} if out else {}))


def topology(distribution_shape, placements, coords):
    """A TensorTopology, written as the observation writes one."""
    return {"distribution_shape": list(distribution_shape), "placements": placements, "coords": coords}


def retopo(tensor, new):
    return event("update_tensor_topology", tensor=tensor, topology=new)


def to_host(src, dst):
    return event("copy_device_to_host_tensor", src=src, dst=dst, blocking=True)


def on_host(out, overload="spec", **fields):
    """allocate_tensor_on_host: overload "spec" (TensorSpec, mesh) or "shape" (shape, dtype, layout, mesh)."""
    case = DST | fields
    if overload == "shape":
        case = {k: case[k] for k in ("shape", "dtype", "layout")}
    return event("allocate_tensor_on_host", out=out, overload=overload, **case)


def submesh(out, shape, offset=None):
    return event("create_submesh", out=out, shape=list(shape), offset=None if offset is None else list(offset))


def offset_nd(dims, override, offset):
    return nd(dims, override) | {"mesh_offset_override": list(offset)}


_PARTS_EVENT, PARTS = parts_of("dst", "parts", 7)
_FPARTS_EVENT, FPARTS = parts_of("fresh", "fparts", 8)
_HPARTS_EVENT, HPARTS = parts_of("seven", "hparts", 7)

API_SCENARIOS = [
    ("get_device_tensors", "get_device_tensors: one tensor per recorded coordinate; each part has its own single "
     "device coordinate, the parent's topology and address (device) or a one-shard host buffer (host).",
     [*SEED, _PARTS_EVENT, FRESH, _FPARTS_EVENT, named("seven", SEVEN), _HPARTS_EVENT]),
    ("combine_device_tensors", "combine_device_tensors(tensors=...) (keyword-only): a (n)[S(0)] topology over flat "
     "(0,i) coords, the real device coords sorted; the topology is shared with every handle; its errors.",
     [*SEED, _PARTS_EVENT,
      combine(PARTS, out="c"),
      combine([PARTS[4], PARTS[1], PARTS[6]], out="c3"),
      inspect("c"),  # after c3: c reads c3's topology (shared storage)
      FRESH, _FPARTS_EVENT,
      combine(FPARTS, out="c8"),
      combine([PARTS[0], FPARTS[1]]),  # parts of two tensors
      combine([PARTS[0], PARTS[0]]),  # a duplicate part
      combine([]),
      named("seven", SEVEN), _HPARTS_EVENT,
      combine(HPARTS),  # host parts
      combine(PARTS, positional=True)]),  # combine_device_tensors(parts): not accepted
    ("combine_shared_topology", "The topology is shared by every handle on one device storage: combine changes "
     "dst's and the parts' topology too; a copy into dst changes c's; device_coords stay each handle's own.",
     [*SEED, _PARTS_EVENT,
      combine(PARTS, out="c"),
      inspect("dst"), inspect(PARTS[0]),
      combine([PARTS[2]], out="c2"),
      inspect("c"), inspect("dst"), inspect(*PARTS),
      copy(EIGHT),
      inspect("c")]),
    ("deallocate_part", "Deallocating one get_device_tensors part frees the storage every handle shares: dst and "
     "the other parts read is_allocated False, combining parts fails, cpu() of another part crashes.",
     [*SEED, _PARTS_EVENT,
      event("deallocate", tensor=PARTS[3]),
      inspect("dst", PARTS[4]),
      combine(PARTS[:2], out="c"),
      event("cpu", tensor=PARTS[4])]),
    ("from_host_shards", "from_host_shards(list, MeshShape): a (n)[S(0)] topology; the host buffer takes the given "
     "shape; its errors; then the results on the 2x4 device (host-buffer coordinates are used as device coordinates).",
     [host_shards(f32_shards(8), (2, 4), "s24"),
      host_shards(f32_shards(8), (8,), "s8"),
      host_shards(f32_shards(8), (4, 2), "s42"),
      host_shards(f32_shards(8), (1, 8), "s18"),
      host_shards(f32_shards(7), (7,), "s7"),
      host_shards(f32_shards(4), (2, 2), "s22"),
      host_shards(f32_shards(7), (2, 4)),
      host_shards(f32_shards(9), (2, 4)),
      host_shards([], (2, 4)),
      host_shards(f32_shards(7) + [host((1, 1, 32, 64), "float32")], (2, 4)),  # another shape
      host_shards(f32_shards(7) + [host((1, 1, 32, 32))], (2, 4)),  # another dtype
      host_shards(f32_shards(7) + [host((1, 1, 32, 32), "float32", "row_major")], (2, 4)),  # another layout
      host_shards([SEVEN32] + f32_shards(7), (2, 4)),  # a distributed host tensor among the shards
      event("to_device", src_tensor="s24", out="d24"),
      event("allocate_tensor_on_device", out="dst32", **(DST | {"dtype": "float32"})),
      event("copy_host_to_device_tensor", src_tensor="s24", dst="dst32"),
      event("to_device", src_tensor="s42", out="d42"),
      event("to_device", src_tensor="s18", out="d18"),
      event("to_device", src_tensor="s8", out="d8"),  # kills the process
      event("copy_host_to_device_tensor", src_tensor="s8", dst="dst32")]),  # kills the process
    ("distribute_tensor", "distribute_tensor on an already-distributed host tensor and on a device tensor (errors), "
     "and of a plain host tensor straight onto the mesh device (consistent topology and device coords).",
     [named("seven", SEVEN),
      event("distribute_tensor", tensor="seven", mapper={"mapper": "replicate_tensor_to_mesh_mapper"}, out="e1"),
      event("distribute_tensor", tensor="seven", mapper={"mapper": "shard_tensor_to_mesh_mapper", "dim": 2}, out="e2"),
      event("distribute_tensor", out="r8", device=True,
            src=host((1, 8, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1)),
      event("distribute_tensor", out="r7", device=True,
            src=host((1, 7, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1)),
      event("to_device", src=host((1, 8, 32, 32)), out="dev"),
      event("distribute_tensor", tensor="dev", mapper={"mapper": "shard_tensor_to_mesh_mapper", "dim": 1}, out="e3"),
      event("distribute_tensor", tensor="dev", mapper={"mapper": "shard_tensor_to_mesh_mapper", "dim": 1},
            device=True, out="e4")]),
    ("allocate_tensor_on_host", "allocate_tensor_on_host (both overloads): topology (1)[R] over one coord, yet 8 "
     "populated shards; to_device and a copy of it keep that topology with 8 device coords.",
     [on_host("h"),
      on_host("h2", "shape"),
      event("to_device", src_tensor="h", out="d"),
      FRESH,
      event("copy_host_to_device_tensor", src_tensor="h", dst="fresh")]),
    ("copy_device_to_host_tensor", "copy_device_to_host_tensor(device, host, blocking=True): the host tensor takes "
     "the device tensor's topology and shards; its errors; a host source kills the process.",
     [*SEED,
      on_host("h"),
      to_host("dst", "h"),
      FRESH,
      on_host("h8"),
      to_host("fresh", "h8"),
      named("plain", PLAIN),
      to_host("dst", "plain"),  # a 1-shard host buffer
      named("seven", SEVEN),
      to_host("fresh", "seven"),  # (1,3) is not populated in the host buffer
      on_host("hbig", shape=[1, 1, 64, 32]),
      to_host("dst", "hbig"),
      to_host("h8", "h")]),  # kills the process
    ("update_tensor_topology", "Tensor.update_tensor_topology(TensorTopology(...)) never validates and changes only "
     "the topology (shared by every handle), never device_coords or the populated shards.",
     [FRESH,
      event("Tensor", tensor="fresh", out="alias"),
      retopo("fresh", topology([7], [S(1)], SEVEN_COORDS)),
      inspect("alias"),
      _FPARTS_EVENT,
      retopo("fresh", topology([2], [S(1)], [[5, 5], [9, 0]])),  # coords off the mesh
      event("get_device_tensors", tensor="fresh", out="fparts2"),
      retopo("fresh", topology([2, 4], [S(1)], SEVEN_COORDS)),  # one placement for a rank-2 shape, 7 coords
      retopo(FPARTS[0], topology([2], [R], [[0, 0], [0, 1]])),  # through a part: the parent's changes
      inspect("fresh"),
      named("h8", EIGHT),
      retopo("h8", topology([7], [S(1)], SEVEN_COORDS)),  # a host tensor
      *SEED,
      retopo("dst", topology([8], [S(1)], ALL_COORDS))]),
    ("creation", "Creation calls on the mesh (the seed dst alive): empty/empty_like give (2,4)[R,R], zeros/ones/full "
     "(8)[R]; empty defaults to ROW_MAJOR; *_like of a device tensor runs a device op (error in mock mode).",
     [*SEED,
      event("empty", out="e1", shape=[1, 1, 32, 32], dtype="bfloat16", layout="tile", device=True),
      event("empty", out="e2", shape=[1, 1, 32, 32], device=True),
      event("empty_like", out="e3", tensor="dst"),
      event("empty_like", out="e4", tensor="dst", device=True),
      event("zeros", out="z1", shape=[1, 1, 32, 32], device=True),
      event("zeros", out="z2", shape=[1, 1, 32, 32], dtype="bfloat16", layout="tile", device=True),
      event("ones", out="o1", shape=[1, 1, 32, 32], device=True),
      event("full", out="f1", shape=[1, 1, 32, 32], fill_value=3.0, device=True),
      event("zeros", out="z3", shape=[1, 1, 32, 32]),  # no device: a host tensor
      event("zeros_like", out="z4", tensor="dst"),
      event("ones_like", out="o2", tensor="dst"),
      event("full_like", out="f2", tensor="dst", fill_value=2.0),
      named("seven", SEVEN),
      event("zeros_like", out="z5", tensor="seven"),
      event("empty_like", out="e5", tensor="seven", device=True)]),
    ("submeshes", "MeshDevice.create_submesh(shape, offset) and create_submeshes(shape): shapes, device ids, errors; "
     "each submesh allocates on its own (a tensor on it gets the address a live parent tensor has).",
     [event("allocate_tensor_on_device", out="p", **DST),
      submesh("a", (1, 4)),
      event("allocate_tensor_on_device", out="ta", mesh="a", **DST),
      submesh("b", (1, 4), (1, 0)),
      event("allocate_tensor_on_device", out="tb", mesh="b", **DST),
      submesh("c", (2, 2), (0, 2)),
      event("allocate_tensor_on_device", out="tc", mesh="c", **DST),
      submesh("d", (1, 2), (1, 2)),
      event("allocate_tensor_on_device", out="td", mesh="d", **DST),
      submesh("e", (2, 4)),
      event("allocate_tensor_on_device", out="te", mesh="e", **DST),
      submesh("x1", (1, 4), (1, 1)),
      submesh("x2", (3, 1)),
      submesh("x3", (1, 8)),
      event("create_submeshes", out="rows", shape=[1, 4]),
      event("create_submeshes", out="squares", shape=[2, 2]),
      event("create_submeshes", out="pairs", shape=[1, 2]),
      event("create_submeshes", out="columns", shape=[2, 1]),
      event("create_submeshes", out="x4", shape=[1, 3]),
      event("create_submeshes", out="x5", shape=[4, 2]),
      event("get_submeshes"),
      event("allocate_tensor_on_device", out="pl1", **(DST | {"memory": "l1"})),
      submesh("f", (1, 4), (0, 0)),
      event("allocate_tensor_on_device", out="tfl1", mesh="f", **(DST | {"memory": "l1"})),
      event("allocate_tensor_on_device", out="p2", **DST)]),
    ("submesh_copies", "Copies across the parent and a 1x4 submesh at (1,0): host-buffer coordinates are used as "
     "destination coordinates as they are; an error only when one is off the destination mesh.",
     [submesh("sub", (1, 4), (1, 0)),
      event("allocate_tensor_on_device", out="dsub", mesh="sub", **DST),
      copy(EIGHT, dst="dsub"),  # 2x4 host buffer
      event("allocate_tensor_on_device", out="dpar", **DST),
      copy(host((1, 4, 32, 32), placements=[R, S(1)], mesh=[1, 4]), dst="dpar"),  # 1x4 host buffer
      event("allocate_tensor_on_device", out="dsub2", mesh="sub", **DST),
      copy(host((1, 4, 32, 32), placements=[R, S(1)], mesh=[1, 4]), dst="dsub2"),
      event("allocate_tensor_on_device", out="dsub3", mesh="sub", **DST),
      copy(SEVEN, dst="dsub3"),
      event("allocate_tensor_on_device", out="dsub4", mesh="sub", **(DST | {"shape": [1, 2, 32, 32]})),
      copy(host((1, 4, 32, 32), placements=[R, S(1)], mesh=[2, 2]), dst="dsub4"),
      event("to_device", src=EIGHT, mesh="sub", out="t1"),
      event("to_device", src=host((1, 4, 32, 32), placements=[R, S(1)], mesh=[1, 4]), out="t2"),
      # the parent's helpers put on the submesh in one call (from_torch(mesh_mapper=..., device=sub) does this)
      event("distribute_tensor", out="t3", device=True, mesh="sub", src=host((1, 1, 32, 32), mapper="replicate_tensor_to_mesh_mapper")),
      event("distribute_tensor", out="t4", device=True, mesh="sub", src=host((1, 8, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1))]),
    ("reshape", "MeshDevice.reshape with live tensors: they keep topology and device coords (now off the mesh), so "
     "get_device_tensors and cpu() fail; a new allocation uses the new shape; reshape errors; device id orders.",
     [*SEED, FRESH,
      event("reshape", shape=[1, 8]),
      inspect("dst"), inspect("fresh"),
      event("get_device_tensors", tensor="dst", out="parts"),
      event("get_device_tensors", tensor="fresh", out="fparts"),
      event("cpu", tensor="fresh", out="fresh_back"),
      event("cpu", tensor="dst", out="dst_back"),
      event("allocate_tensor_on_device", out="new", **DST),
      event("reshape", shape=[4, 2]),
      event("reshape", shape=[2, 2]),
      event("reshape", shape=[2, 2, 2]),
      event("reshape", shape=[8])]),
    ("to_device_on_device", "to_device / Tensor.to of a tensor already on device return it as it is: same address, "
     "a requested L1 memory config ignored, a submesh target ignored (the result stays on the parent).",
     [event("to_device", src=PLAIN, out="d"),
      event("to_device", src_tensor="d", out="d1"),
      event("Tensor.to", src_tensor="d", out="d2"),
      event("to_device", src_tensor="d", memory="l1", out="d3"),
      event("Tensor.to", src_tensor="d", memory="l1", out="d4"),
      inspect("d"),
      submesh("sub", (1, 4), (0, 0)),
      event("to_device", src_tensor="d", mesh="sub", out="d5"),
      event("Tensor.to", src_tensor="d", mesh="sub", out="d6"),
      event("to_device", src=SEVEN, out="d7"),
      event("to_device", src_tensor="d7", out="d8")]),
    ("from_torch_path", "What from_torch(device=, mesh_mapper=) does: ttnn.Tensor(array, dtype, device, layout, "
     "mesh_mapper=); with a device and a dtype/layout conversion it runs a device kernel (an error in mock mode: "
     "a mock limitation, recorded last); the host path "
     "distribute_tensor(Tensor(array, dtype, None, layout), mapper, md) works and keeps the host tensor's memory "
     "config (DRAM, L1).",
     [event("Tensor(array)", out="h", src=host((1, 7, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1)),
      event("Tensor(array)", out="d3", device=True,  # no conversion needed
            src=host((1, 7, 32, 32), "float32", "row_major", mapper="shard_tensor_to_mesh_mapper", dim=1)),
      event("Tensor(array)", out="d5", device=True, src=host((1, 7, 32, 32))),  # no mapper: converted on host
      event("distribute_tensor", out="r1", device=True,
            src=host((1, 7, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1, memory="dram")),
      event("distribute_tensor", out="r2", device=True,
            src=host((1, 7, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1, memory="l1")),
      event("distribute_tensor", out="r3", device=True,
            src=host((1, 1, 32, 32), mapper="replicate_tensor_to_mesh_mapper", memory="l1")),
      event("Tensor(array)", out="d1", device=True,
            src=host((1, 7, 32, 32), mapper="shard_tensor_to_mesh_mapper", dim=1)),
      event("Tensor(array)", out="d2", device=True,
            src=host((1, 7, 32, 32), "bfloat16", "row_major", mapper="shard_tensor_to_mesh_mapper", dim=1,
                     memory="l1")),
      event("Tensor(array)", out="d4", device=True,
            src=host((1, 1, 32, 32), mapper="replicate_tensor_to_mesh_mapper"))]),
    ("dump_load", "dump_tensor / load_tensor (host, and with device=md): topology and populated coords survive; a "
     "plain host tensor loads onto the device replicated; value = the file's size in bytes; its two errors.",
     [*SEED, named("seven", SEVEN), named("rs3", host((1, 1, 32, 128), placements=[R, S(3)])),
      named("plain", PLAIN), FRESH,
      *[e for name, tensor in [("dev7", "dst"), ("host7", "seven"), ("hostRS", "rs3"), ("plain", "plain"),
                               ("dev8", "fresh")]
        for e in (event("dump_tensor", tensor=tensor, file=f"{name}.tensorbin"),
                  event("load_tensor", file=f"{name}.tensorbin", out=f"{name}_host"),
                  event("load_tensor", file=f"{name}.tensorbin", device=True, out=f"{name}_dev"))],
      event("dump_tensor", tensor="seven", file="x.bin"),
      event("load_tensor", file="missing.tensorbin", out="missing")]),
    ("mapper_offsets", "MeshMapperConfig(placements, mesh_shape_override, mesh_offset_override) places a SUBMESH "
     "distribution at an offset (to_device keeps those coords); its errors; the (row_dim, col_dim) overload; "
     "MeshComposerConfig with an offset composes that region (values_sample: each block's first value).",
     [event("distribute_tensor", out="m1", src=host((1, 4, 32, 32), "float32", placements=[R, S(1)], override=(1, 4),
                                                    mesh_offset_override=[1, 0])),
      event("to_device", src_tensor="m1", out="m1d"),
      event("distribute_tensor", out="m2", src=host((1, 2, 32, 32), "float32", placements=[R, S(1)], override=(1, 2),
                                                    mesh_offset_override=[1, 2])),
      event("to_device", src_tensor="m2", out="m2d"),
      event("distribute_tensor", out="m3", src=host((1, 2, 64, 32), "float32", placements=[S(1), S(2)],
                                                    override=(2, 2), mesh_offset_override=[0, 2])),
      event("to_device", src_tensor="m3", out="m3d"),
      event("distribute_tensor", out="x1", src=host((1, 4, 32, 32), "float32", placements=[R, S(1)], override=(1, 4),
                                                    mesh_offset_override=[1, 1])),
      event("distribute_tensor", out="x2", src=host((1, 4, 32, 32), "float32", placements=[R, S(1)], override=(1, 4),
                                                    mesh_offset_override=[5, 0])),
      event("distribute_tensor", out="x3", src=host((1, 4, 32, 32), "float32", placements=[R, S(1)],
                                                    mesh_offset_override=[1, 0])),
      event("distribute_tensor", out="x4", src=host((1, 4, 32, 32), "float32", placements=[S(1)], override=(4,),
                                                    mesh_offset_override=[1])),
      event("distribute_tensor", out="m4", src=host((1, 8, 32, 32), "float32", placements=[S(1)], override=(8,),
                                                    mesh_offset_override=[0, 0])),
      event("distribute_tensor", out="m5", src=host((1, 4, 32, 32), "float32", mapper=ROW_COL,
                                                    row_dim=None, col_dim=1)),
      event("distribute_tensor", out="m6", src=host((2, 1, 32, 32), "float32", mapper=ROW_COL,
                                                    row_dim=0, col_dim=None)),
      event("distribute_tensor", out="m7", src=host((1, 4, 32, 32), "float32", mapper=ROW_COL,
                                                    row_dim=None, col_dim=1, mesh_shape_override=[1, 4],
                                                    mesh_offset_override=[1, 0])),
      compose(offset_nd([2, 3], (1, 2), (1, 2)), src=X2D, block=[1, 1, 32, 32]),
      compose(offset_nd([2, 3], (2, 2), (0, 2)), src=X2D, block=[1, 1, 32, 32]),
      compose(offset_nd([2, 3], (2, 2), (1, 1)), src=X2D),
      compose({"function": "MeshComposerConfig(row_dim, col_dim)", "row_dim": 2, "col_dim": 3}, src=X2D,
              block=[1, 1, 32, 32])]),
    ("legacy_names", "The deprecated Python names not under \"runtime\": ReplicateTensorToMesh (a wrapper: unwrapped, "
     "and passed as it is), ShardTensor2dMesh on other shapes, ConcatMeshToTensor, ConcatMesh2dToTensor.",
     [event("distribute_tensor", out="l1", src=host((1, 8, 32, 32), "float32", mapper="ReplicateTensorToMesh")),
      event("distribute_tensor", out="l2", src=host((1, 8, 32, 32), "float32", mapper="ReplicateTensorToMesh",
                                                    unwrap=False)),
      event("distribute_tensor", out="l3", src=host((2, 4, 32, 32), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[2, 4], dims=[0, 1])),
      event("distribute_tensor", out="l4", src=host((1, 8, 32, 32), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[1, 4], dims=[None, 1])),
      compose({"function": "ConcatMeshToTensor", "dim": 1}, src=EIGHT32, block=[1, 1, 32, 32]),
      compose({"function": "ConcatMesh2dToTensor", "mesh_shape": [2, 4], "dims": [0, 1]}, src=EIGHT32,
              block=[1, 1, 32, 32])]),
    ("mapper_errors", "Mapper and composer errors naming shapes and dims (issue 35): ShardTensor2dMesh over uneven "
     "and out-of-range dims, the 2-D composers with a dim out of range.",
     [event("distribute_tensor", out="u1", src=host((1, 1, 96, 26), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[2, 4], dims=[2, 3])),
      event("distribute_tensor", out="u2", src=host((1, 3, 64, 26), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[2, 4], dims=[1, 2])),
      event("distribute_tensor", out="u3", src=host((1, 1, 64, 26), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[2, 4], dims=[3, 2])),
      event("distribute_tensor", out="x1", src=host((1, 1, 96, 26), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[2, 4], dims=[4, 3])),
      event("distribute_tensor", out="x2", src=host((1, 1, 96, 26), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[2, 4], dims=[3, 4])),
      event("distribute_tensor", out="x3", src=host((1, 1, 96, 26), "float32", mapper="ShardTensor2dMesh",
                                                    mesh_shape=[2, 4], dims=[None, 4])),
      compose({"function": "ConcatMesh2dToTensor", "mesh_shape": [2, 4], "dims": [4, 3]}, src=X2D),
      compose(nd([3, 4]), src=X2D),
      compose(nd([-5, 3]), src=X2D)]),
    ("submesh_ranks", "create_submesh / create_submeshes with a shape or offset of another rank than the 2x4 mesh.",
     [submesh("r1", (1, 2, 2)),
      submesh("r2", (1, 2, 2), (0, 0)),
      submesh("r3", (4,)),
      submesh("r4", (2, 4), (0, 0, 0)),
      submesh("r5", (1, 4), (0,)),
      submesh("r6", (2, 4, 1)),
      event("create_submeshes", out="t1", shape=[4]),
      event("create_submeshes", out="t2", shape=[2]),
      event("create_submeshes", out="t3", shape=[2, 4, 1]),
      event("create_submeshes", out="t4", shape=[1, 2, 2]),
      event("create_submeshes", out="t5", shape=[3, 4, 1])]),
    ("readback_buffer_shape", "cpu()'s host buffer: a tensor on every device reads into a buffer of the mesh shape its "
     "buffer was allocated on, from every coordinate of the mesh shape now; any other into one of the mesh shape now, "
     "from its coordinates. A 4x2 distribution on 2x4 reads back whole; MeshDevice.reshape makes the misses.",
     [event("to_device", out="a42", src=host((4, 2, 32, 32), mapper="ShardTensor2dMesh", mesh_shape=[4, 2],
                                              dims=[0, 1])),
      event("cpu", tensor="a42", out="a42_back"),
      ALLOCATE, copy(host((4, 2, 32, 32), mapper="ShardTensor2dMesh", mesh_shape=[4, 2], dims=[0, 1])),
      event("cpu", tensor="dst", out="dst_back"),
      event("to_device", out="rr42", src=host((1, 1, 32, 32), placements=[R, R], override=(4, 2))),
      event("cpu", tensor="rr42", out="rr42_back"),
      event("to_device", out="rs14", src=host((1, 1, 32, 128), placements=[R, S(3)], override=(1, 4))),
      event("to_device", out="rs23", src=host((1, 6, 32, 32), placements=[R, S(1)], override=(2, 3))),
      event("reshape", shape=[4, 2]),
      event("cpu", tensor="a42", out="x1"),
      event("cpu", tensor="rs14", out="x2"),
      event("allocate_tensor_on_device", out="n42", **DST),
      event("cpu", tensor="n42", out="n42_back"),
      event("reshape", shape=[1, 8]),
      event("cpu", tensor="a42", out="x3"),
      event("cpu", tensor="rs14", out="rs14_back"),
      event("cpu", tensor="rs23", out="x4"),
      event("cpu", tensor="n42", out="x5"),
      event("reshape", shape=[8]),
      event("cpu", tensor="a42", out="x6"),
      event("cpu", tensor="rs14", out="x7"),
      event("reshape", shape=[2, 4]),
      event("cpu", tensor="a42", out="a42_again"),
      event("cpu", tensor="n42", out="x8")]),
    ("no_composer", "Tensor.to_numpy() / Tensor.to_torch() without a composer: only a one-shard host tensor converts "
     "(to_torch then needs torch); value = the array's shape.",
     [named("eight", EIGHT32),
      named("replicated", host((1, 1, 32, 32), "float32", placements=[R, R])),
      named("one", host((1, 1, 32, 32), "float32", placements=[S(1)], override=(8,))),
      FRESH,
      event("cpu", tensor="fresh", out="back"),
      *[event(method, tensor=name) for method in ("Tensor.to_numpy", "Tensor.to_torch")
        for name in ("eight", "replicated", "one", "fresh", "back")]]),
]


# --- ttnn vocabulary -------------------------------------------------------------------------------

DTYPE = {name: getattr(ttnn, name) for name in DTYPES}
LAYOUT = {"tile": ttnn.TILE_LAYOUT, "row_major": ttnn.ROW_MAJOR_LAYOUT}
MEMORY = {"dram": ttnn.BufferType.DRAM, "l1": ttnn.BufferType.L1}
MEMORY_CONFIG = {"dram": ttnn.DRAM_MEMORY_CONFIG, "l1": ttnn.L1_MEMORY_CONFIG}
INT_DTYPES = {"uint32", "int32", "uint16", "uint8"}


def placement(p):
    return ttnn.PlacementReplicate() if p == R else ttnn.PlacementShard(p["shard"])


def placement_json(p):
    return R if isinstance(p, ttnn.PlacementReplicate) else S(p.dim)


def mesh_shape(dims):
    return None if dims is None else ttnn.MeshShape(list(dims))


def mapper_config(placements, override, offset=None):
    """MeshMapperConfig(placements, mesh_shape_override[, mesh_offset_override])."""
    config = [[placement(p) for p in placements], mesh_shape(override)]
    return ttnn.MeshMapperConfig(*config, *([] if offset is None else [ttnn.MeshCoordinate(list(offset))]))


def error_text(exc):
    """The key line of a ttnn error: "TT_FATAL: <info>" without file, condition or backtrace. A kernel
    build failure (mock mode cannot compile kernels) names the kernel and RISC that failed first, which
    varies between runs (parallel builds): those become <kernel> and <risc>; the build log is the
    compiler stand-in's own words (whichever set-up made it), so it becomes <compiler stand-in>.
    Paths in the scratch directory are made relative to it."""
    text = str(exc).replace(os.getcwd() + os.sep, "")
    text = re.sub(r"(Failed to generate binaries for )\S+", r"\1<kernel>", text)
    text = re.sub(r"(^|\n)\S+( build failed\. Log:)", r"\1<risc>\2", text)
    text = re.sub(r"( build failed\. Log:)[^\n]*", r"\1 <compiler stand-in: no device kernels in mock mode>", text)
    if "\ninfo:\n" in text:
        info = text.split("\ninfo:\n", 1)[1].split("\nbacktrace:", 1)[0]
        return "TT_FATAL: " + " ".join(line.strip() for line in info.strip().splitlines())
    return f"{type(exc).__name__}: {text.strip().splitlines()[0] if text.strip() else ''}"


def topology_json(tensor):
    topology = tensor.tensor_topology()
    return {"distribution_shape": list(topology.distribution_shape()),
            "placements": [placement_json(p) for p in topology.placements()],
            "coords": [list(c) for c in topology.mesh_coords()]}


def populated_coords(tensor):
    """Coordinates whose shard is present in a host tensor's distributed host buffer, row-major;
    None without get_shard (0.66.0, 0.67.0): there only the number of parts is observed (the
    topology's coordinates are what is being checked, so they cannot stand in for the buffer's)."""
    buffer = tensor.host_buffer()
    if not hasattr(buffer, "get_shard"):
        return None
    coords = [list(c) for c in itertools.product(*map(range, buffer.shape()))]
    return [c for c in coords if buffer.get_shard(ttnn.MeshCoordinate(c)) is not None]


def recorded_coords(tensor):
    """A device tensor's device_coords(); None without it (0.66.0, 0.67.0): there "device_parts",
    the number of get_device_tensors parts, is what is observed of the storage."""
    return [list(c) for c in tensor.device_coords()] if hasattr(tensor, "device_coords") else None


def parts_count(tensor):
    """len(get_device_tensors(tensor)), or the error it raises (after MeshDevice.reshape a tensor's
    coordinates can be off its mesh)."""
    try:
        return len(ttnn.get_device_tensors(tensor))
    except RuntimeError as exc:
        return error_text(exc)


def host_tensor(src, mesh_device=None):
    """Build (and map, if asked) the host tensor that `src` (see host()) describes."""
    tensor = array_tensor(src)
    mapper = make_mapper(src, mesh_device)
    return tensor if mapper is None else ttnn.distribute_tensor(tensor, mapper, None)


def array_tensor(src, device=None, numpy_itself=False, **mapping):
    """ttnn.Tensor(array, dtype, device, layout, tile=, mem_config=, ...) of src's arange data (plus
    src["start"], if given)."""
    count = int(np.prod(src["shape"]))
    data = np.arange(count, dtype=np.int32 if src["dtype"] in INT_DTYPES else np.float32).reshape(src["shape"])
    if "start" in src:
        data = data + data.dtype.type(src["start"])
    tile = ttnn.Tile(src["tile"]) if "tile" in src else None
    memory = {"mem_config": MEMORY_CONFIG[src["memory"]]} if "memory" in src else {}
    if src["dtype"] == "bfloat16" and NUMPY_BFLOAT16_FAILS and not numpy_itself:
        # 0.66.0 / 0.67.0: the numpy constructor cannot make bfloat16; the flat-list one makes the same tensor
        made = ttnn.Tensor(data.reshape(-1).tolist(), src["shape"], DTYPE["bfloat16"], LAYOUT[src["layout"]], None,
                           tile=tile, **({"memory_config": memory["mem_config"]} if memory else {}))
        mapper = mapping.get("mesh_mapper")
        made = made if mapper is None else ttnn.distribute_tensor(made, mapper, None)
        return made if device is None else ttnn.to_device(made, device, *([memory["mem_config"]] if memory else []))
    return ttnn.Tensor(data, DTYPE[src["dtype"]], device, LAYOUT[src["layout"]], tile=tile, **memory, **mapping)


#: 0.66.0 and 0.67.0's numpy ttnn.Tensor constructor fails for bfloat16 (see the docstring).
NUMPY_BFLOAT16_FAILS = TTNN_VERSION in ("0.66.0", "0.67.0")


def make_mapper(src, mesh_device):
    """The mapper src names: create_mesh_mapper over src["mesh"] (default: the mesh device's shape) for
    placements (and optional mesh_offset_override), or a named helper; None for a plain host tensor."""
    helper = src.get("mapper")
    if "placements" in src:
        shape = ttnn.MeshShape(src["mesh"]) if "mesh" in src else mesh_device.shape
        config = mapper_config(src["placements"], src["mesh_shape_override"], src.get("mesh_offset_override"))
        return ttnn.create_mesh_mapper(mapper_mesh(shape, mesh_device), config)
    if helper == ROW_COL:
        offset = src.get("mesh_offset_override")
        config = ttnn.MeshMapperConfig(src["row_dim"], src["col_dim"], mesh_shape(src.get("mesh_shape_override")),
                                       *([] if offset is None else [ttnn.MeshCoordinate(offset)]))
        return ttnn.create_mesh_mapper(mapper_mesh(mesh_device.shape, mesh_device), config)
    if helper == "ReplicateTensorToMesh":  # a ReplicateTensorToMeshWrapper; from_torch unwraps it
        wrapper = ttnn.ReplicateTensorToMesh(mesh_device)
        return wrapper.unwrap() if src.get("unwrap", True) else wrapper
    if helper == "replicate_tensor_to_mesh_mapper":
        return ttnn.replicate_tensor_to_mesh_mapper(mesh_device)
    if helper in ("shard_tensor_to_mesh_mapper", "ShardTensorToMesh"):
        return getattr(ttnn, helper)(mesh_device, src["dim"])
    if helper == "ShardTensor2dMesh":
        return ttnn.ShardTensor2dMesh(mesh_device, tuple(src["mesh_shape"]), tuple(src["dims"]))
    assert helper is None, helper
    return None


def mapper_mesh(shape, mesh_device=None):
    """What create_mesh_mapper takes for a mesh of ``shape``: the MeshShape, or where it takes a mesh
    device only (0.66.0, 0.67.0) the mesh device of that shape (the one given, the one
    MAPPER_MESH_DEVICE holds, or a submesh of the given one made for it)."""
    if not MAPPER_NEEDS_DEVICE:
        return shape
    for device in (mesh_device, MAPPER_MESH_DEVICE.get("device"), MAPPER_SUBMESHES.get(tuple(shape))):
        if device is not None and list(device.shape) == list(shape):
            return device
    if mesh_device is not None:  # map over a submesh of that shape, as a user mapping for one would
        MAPPER_SUBMESHES[tuple(shape)] = mesh_device.create_submesh(ttnn.MeshShape(list(shape)))
        return MAPPER_SUBMESHES[tuple(shape)]
    raise AssertionError(f"no mesh device of shape {list(shape)} open to map over")


#: The mesh device host-only mapper cases map over where create_mesh_mapper needs one (record_mappers).
MAPPER_MESH_DEVICE = {}

#: Submeshes made to map over where create_mesh_mapper needs a mesh device of a shape no open one has
#: (0.66.0, 0.67.0: a host tensor mapped for a 1x4 or 2x2 mesh in an api scenario). Without them the
#: recorder's own AssertionError ended the child process, whose mesh destructors then aborted: the
#: event was recorded as "process killed by SIGABRT", a crash of the recorder, not of ttnn.
MAPPER_SUBMESHES = {}


def tensor_spec(case):
    """The TensorSpec of a spec() dict."""
    return ttnn.TensorSpec(case["shape"], DTYPE[case["dtype"]], LAYOUT[case["layout"]], MEMORY[case["memory"]],
                           tile=ttnn.Tile(case["tile"]))


def allocate(case, mesh_device):
    """allocate_tensor_on_device for a spec() dict."""
    return ttnn.allocate_tensor_on_device(tensor_spec(case), mesh_device)


# --- specs -----------------------------------------------------------------------------------------

def buffer_pages(tensor):
    """A device tensor's page numbers; null where the version has no call for them (0.66.0 and 0.67.0
    have no Tensor.buffer_page_size, buffer_aligned_page_size or buffer_num_pages)."""
    calls = {"page_size": "buffer_page_size", "aligned_page_size": "buffer_aligned_page_size", "num_pages": "buffer_num_pages"}
    return {key: getattr(tensor, call)() if hasattr(tensor, call) else None for key, call in calls.items()}


def record_spec(case, mesh_device):
    record = dict(case, error=None, padded_shape=None, page_size=None, aligned_page_size=None, num_pages=None)
    try:
        tensor = allocate(case, mesh_device)
    except RuntimeError as exc:
        return record | {"error": error_text(exc)}
    record |= {"padded_shape": list(tensor.padded_shape), **buffer_pages(tensor)}
    ttnn.deallocate(tensor)
    return record


# --- mappers ---------------------------------------------------------------------------------------

def record_mapper(case):
    record = dict(case, error=None, distribution_shape=None, topology_placements=None, coords=None, shards=None)
    try:
        data = host_tensor(host(case["shape"], "float32"))
        config = mapper_config(case["placements"], case["mesh_shape_override"])
        tensor = ttnn.distribute_tensor(data, ttnn.create_mesh_mapper(mapper_mesh(ttnn.MeshShape(case["mesh"])), config), None)
    except RuntimeError as exc:
        return record | {"error": error_text(exc)}
    topology = topology_json(tensor)
    shards = ttnn.get_device_tensors(tensor)
    # get_device_tensors() lists shards in the order of the topology's coordinates; check that
    # against the host buffer, which is indexed by coordinate.
    assert populated_coords(tensor) in (topology["coords"], None), (case, topology)
    assert len(shards) == len(topology["coords"]), case
    record |= {"distribution_shape": topology["distribution_shape"],
               "topology_placements": topology["placements"], "coords": topology["coords"],
               "shards": [{"coord": coord, "shape": list(shard.shape), "offset": first_offset(shard, case["shape"])}
                          for coord, shard in zip(topology["coords"], shards)]}
    return record


def first_offset(shard, global_shape):
    """The global index of a shard's first element: its data is arange over the global shape."""
    first = int(np.asarray(shard.to_numpy()).reshape(-1)[0])
    return [int(i) for i in np.unravel_index(first, global_shape)]


# --- runtime ---------------------------------------------------------------------------------------

OBSERVATION = ("shape", "is_allocated", "topology", "device_coords", "cpu_shards", "cpu_coords",
               "padded_shape", "page_size", "aligned_page_size", "num_pages", "buffer_type", "values_sample")


#: Observed in "api" scenarios only, after the OBSERVATION keys (see observe()).
API_OBSERVATION = ("storage", "dtype", "layout", "address", "device_shape", "host_buffer_shape", "first_values",
                   "cpu_error", "parts", "meshes", "value")


def blank(api=False):
    """An observation with nothing observed."""
    return dict.fromkeys(OBSERVATION + API_OBSERVATION if api else OBSERVATION)


def observe(tensor, api=False):
    """What the tensor records after an event. Nothing here may crash: a deallocated device tensor
    is only asked for its shape, topology and is_allocated().

    With api, also: "storage" ("host"/"device"), "dtype", "layout"; for a device tensor "address"
    (buffer_address()) and "device_shape" (the shape of the mesh device it is on); "host_buffer_shape"
    (of a host tensor's distributed host buffer, or of the device tensor's cpu() readback);
    "first_values" (a host tensor's first value per get_device_tensors part: arange data name their
    source); and a cpu() that fails is recorded as "cpu_error" (cpu_shards/cpu_coords then stay null)."""
    seen = blank(api)
    seen |= {"shape": list(tensor.shape), "topology": topology_json(tensor)}
    if api:
        seen |= describe(tensor)
    if tensor.storage_type() != ttnn.StorageType.DEVICE:
        count = parts_count(tensor)
        if isinstance(count, str):  # 0.66.0 / 0.67.0 after MeshDevice.reshape: the parts are off the mesh
            if not api:
                raise RuntimeError(count)
            return seen | {"padded_shape": list(tensor.padded_shape), "cpu_error": count}
        coords = populated_coords(tensor)
        parts = ttnn.get_device_tensors(tensor)
        assert coords is None or len(parts) == len(coords)
        seen |= {"cpu_shards": len(parts), "cpu_coords": coords, "padded_shape": list(tensor.padded_shape)}
        return seen | (host_fields(tensor, parts) if api else {})
    seen["is_allocated"] = tensor.is_allocated()
    if not seen["is_allocated"]:
        return seen
    seen["buffer_type"] = {ttnn.BufferType.DRAM: "dram", ttnn.BufferType.L1: "l1"}[tensor.memory_config().buffer_type]
    coords = recorded_coords(tensor)
    if coords is None:
        seen["device_parts"] = parts_count(tensor)
    seen |= {"device_coords": coords,
             "padded_shape": list(tensor.padded_shape), **buffer_pages(tensor)}
    if api:
        seen |= {"address": tensor.buffer_address(), "device_shape": list(tensor.device().shape)}
    try:
        readback = tensor.cpu()
    except RuntimeError as exc:  # api only: after MeshDevice.reshape a tensor's coords can be off its mesh
        if not api:
            raise
        return seen | {"cpu_error": error_text(exc)}
    parts = parts_count(readback)
    if isinstance(parts, str):  # 0.66.0 / 0.67.0 after MeshDevice.reshape: cpu() reads, its parts are off the mesh
        if not api:
            raise RuntimeError(parts)
        return seen | {"cpu_error": parts}
    coords = populated_coords(readback)
    assert coords is None or parts == len(coords)
    # The readback keeps the device tensor's topology (even where it contradicts the shards it holds).
    assert topology_json(readback) == seen["topology"]
    seen |= {"cpu_shards": parts, "cpu_coords": coords}
    return seen | ({"host_buffer_shape": list(readback.host_buffer().shape())} if api else {})


def describe(tensor):
    """Storage, dtype and layout, in the case data's words."""
    storage = "device" if tensor.storage_type() == ttnn.StorageType.DEVICE else "host"
    return {"storage": storage, "dtype": str(tensor.dtype).split(".")[-1].lower(),
            "layout": str(tensor.layout).split(".")[-1].lower()}


def host_fields(tensor, parts):
    return {"host_buffer_shape": list(tensor.host_buffer().shape()), "first_values": [first_value(p) for p in parts]}


def first_value(part):
    """A one-shard host tensor's first value (numpy has no bfloat16: others are converted on host first)."""
    part = part if part.dtype == ttnn.float32 else ttnn.to_dtype(part, ttnn.float32)
    return float(np.asarray(part.to_numpy()).reshape(-1)[0])


def mesh_json(mesh_device):
    return {"shape": list(mesh_device.shape), "device_ids": list(mesh_device.get_device_ids())}


def results(tensors):
    """The api fields an event's call left besides its subject: "parts" (an observation per tensor of a
    returned list, or per tensor inspected), "meshes" (mesh devices made or reshaped: shape and device
    ids) and "value" (a result that is no tensor)."""
    parts = tensors.pop("_parts", None)
    meshes = tensors.pop("_meshes", None)
    return {"parts": None if parts is None else [observe(p, api=True) for p in parts],
            "meshes": None if meshes is None else [mesh_json(m) for m in meshes],
            "value": tensors.pop("_value", None)}


def run_event(op, args, tensors, mesh_device):
    """Do one event; return the tensor to observe after it. Tensors it makes are named by "out"."""
    if op in API_OPS:
        return API_OPS[op](args, tensors, mesh_device)
    if "tensor" in args:
        given = tensors[args["tensor"]]
    if op == "allocate_tensor_on_device":
        made = allocate(args, target_mesh(args, tensors, mesh_device))
    elif op == "copy_host_to_device_tensor":
        ttnn.copy_host_to_device_tensor(source_tensor(args, tensors, mesh_device), tensors[args["dst"]])
        return tensors[args["dst"]]
    elif op == "Tensor.to":
        source = source_tensor(args, tensors, mesh_device)
        made = source.to(target_mesh(args, tensors, mesh_device), *memory_config(args))
    elif op == "to_device":
        made = ttnn.to_device(source_tensor(args, tensors, mesh_device), target_mesh(args, tensors, mesh_device),
                              *memory_config(args))
    elif op == "distribute_tensor":
        if "tensor" in args:
            data, mapping = given, args["mapper"]
        else:  # a plain host tensor of src's data, mapped as src says
            data, mapping = host_tensor({k: v for k, v in args["src"].items() if k in UNMAPPED}), args["src"]
        target = target_mesh(args, tensors, mesh_device) if args.get("device") else None  # the mapper stays the mesh device's
        made = ttnn.distribute_tensor(data, make_mapper(mapping, mesh_device), target)
    elif op == "aggregate_tensor":
        source = given if "tensor" in args else host_tensor(args["src"], mesh_device)
        made = ttnn.aggregate_tensor(source, make_composer(args["composer"], mesh_device))
        if "block" in args:
            tensors["_sample"] = values_sample(made, args["block"])
    elif op == "to_numpy":
        made = host_tensor(args["src"], mesh_device)
        made.to_numpy()
    elif op == "Tensor":
        made = ttnn.Tensor(given)  # a second handle on the same device storage
    elif op in ("cpu", "from_device"):
        made = given.cpu() if op == "cpu" else ttnn.from_device(given)
    elif op == "deallocate":
        ttnn.deallocate(given)
        return given
    elif op == "device_coords":
        given.device_coords()  # 0.66.0 / 0.67.0: an AttributeError, recorded
        return given
    elif op == "buffer_page_size":
        given.buffer_page_size()
        return given
    elif op == "inspect":
        return given
    else:
        raise ValueError(f"unknown runtime op {op!r}")
    if "out" in args:
        tensors[args["out"]] = made
    return made


UNMAPPED = ("shape", "dtype", "layout", "tile", "memory", "start")  # what host() says besides the mapper


def source_tensor(args, tensors, mesh_device):
    """An event's source: a tensor made earlier ("src_tensor") or the host tensor "src" describes."""
    return tensors[args["src_tensor"]] if "src_tensor" in args else host_tensor(args["src"], mesh_device)


def target_mesh(args, tensors, mesh_device):
    """The mesh device an event names ("mesh": a submesh made earlier), or the opened one."""
    return tensors[args["mesh"]] if "mesh" in args else mesh_device


def memory_config(args):
    """The memory config an event passes (to_device / Tensor.to's third / second argument), if any."""
    return [MEMORY_CONFIG[args["memory"]]] if "memory" in args else []


def keep(args, tensors, made):
    """Name what an event made by its "out"; it is the event's subject."""
    if "out" in args:
        tensors[args["out"]] = made
    return made


def keep_each(args, tensors, items):
    """Name the items of a returned list "<out>.0", "<out>.1", ..."""
    for index, item in enumerate(items):
        tensors[f"{args['out']}.{index}"] = item


# --- api events: each does one call; returns the tensor to observe after it (None: no tensor) -----

def api_host(args, tensors, mesh_device):
    """Build a named host tensor (so later events act on that very tensor)."""
    return keep(args, tensors, host_tensor(args["src"], mesh_device))


def api_get_device_tensors(args, tensors, mesh_device):
    """ttnn.get_device_tensors(tensor): the parts are "parts"; the subject is the tensor itself."""
    parts = ttnn.get_device_tensors(tensors[args["tensor"]])
    keep_each(args, tensors, parts)
    tensors["_parts"] = parts
    return tensors[args["tensor"]]


def api_combine_device_tensors(args, tensors, mesh_device):
    """ttnn.combine_device_tensors(tensors=[...]) (keyword-only; "positional": the call without the keyword)."""
    parts = [tensors[name] for name in args["tensors"]]
    made = ttnn.combine_device_tensors(parts) if args.get("positional") else ttnn.combine_device_tensors(tensors=parts)
    return keep(args, tensors, made)


def api_inspect_all(args, tensors, mesh_device):
    """Observe several tensors at once, as "parts"."""
    tensors["_parts"] = [tensors[name] for name in args["tensors"]]
    return None


def api_from_host_shards(args, tensors, mesh_device):
    """ttnn.from_host_shards([host tensors], MeshShape(mesh_shape))."""
    shards = [host_tensor(src, mesh_device) for src in args["shards"]]
    return keep(args, tensors, ttnn.from_host_shards(shards, ttnn.MeshShape(args["mesh_shape"])))


def api_allocate_tensor_on_host(args, tensors, mesh_device):
    """ttnn.allocate_tensor_on_host(TensorSpec, mesh) or (Shape, dtype, layout, mesh)."""
    if args["overload"] == "spec":
        made = ttnn.allocate_tensor_on_host(tensor_spec(args), mesh_device)
    else:
        made = ttnn.allocate_tensor_on_host(ttnn.Shape(args["shape"]), DTYPE[args["dtype"]], LAYOUT[args["layout"]],
                                            mesh_device)
    return keep(args, tensors, made)


def api_copy_device_to_host_tensor(args, tensors, mesh_device):
    """ttnn.copy_device_to_host_tensor(src, dst, blocking=...) (returns None); the subject is dst."""
    ttnn.copy_device_to_host_tensor(tensors[args["src"]], tensors[args["dst"]], blocking=args["blocking"])
    return tensors[args["dst"]]


def api_update_tensor_topology(args, tensors, mesh_device):
    """tensor.update_tensor_topology(TensorTopology(distribution_shape, placements, coords))."""
    new = args["topology"]
    tensors[args["tensor"]].update_tensor_topology(ttnn.TensorTopology(
        ttnn.MeshShape(new["distribution_shape"]), [placement(p) for p in new["placements"]],
        [ttnn.MeshCoordinate(c) for c in new["coords"]]))
    return tensors[args["tensor"]]


def api_create(op):
    """ttnn.<op>(shape or tensor, [fill_value], dtype=, layout=, device=) for the creation calls."""
    def run(args, tensors, mesh_device):
        first = tensors[args["tensor"]] if op.endswith("_like") else args["shape"]
        fill = [args["fill_value"]] if "fill_value" in args else []
        options = {"dtype": DTYPE[args["dtype"]]} if "dtype" in args else {}
        options |= {"layout": LAYOUT[args["layout"]]} if "layout" in args else {}
        options |= {"device": mesh_device} if args.get("device") else {}
        return keep(args, tensors, getattr(ttnn, op)(first, *fill, **options))
    return run


def api_create_submesh(args, tensors, mesh_device):
    """mesh.create_submesh(MeshShape(shape), MeshCoordinate(offset) or None)."""
    offset = None if args["offset"] is None else ttnn.MeshCoordinate(args["offset"])
    made = target_mesh(args, tensors, mesh_device).create_submesh(ttnn.MeshShape(args["shape"]), offset)
    tensors[args["out"]] = made
    tensors["_meshes"] = [made]
    return None


def api_create_submeshes(args, tensors, mesh_device):
    """mesh.create_submeshes(MeshShape(shape)): the submeshes are "meshes"."""
    made = target_mesh(args, tensors, mesh_device).create_submeshes(ttnn.MeshShape(args["shape"]))
    keep_each(args, tensors, made)
    tensors["_meshes"] = made
    return None


def api_get_submeshes(args, tensors, mesh_device):
    """value: len(mesh.get_submeshes()) (every submesh made stays registered)."""
    tensors["_value"] = len(target_mesh(args, tensors, mesh_device).get_submeshes())
    return None


def api_reshape(args, tensors, mesh_device):
    """mesh.reshape(MeshShape(shape)); "meshes" holds the mesh after it."""
    mesh = target_mesh(args, tensors, mesh_device)
    mesh.reshape(ttnn.MeshShape(args["shape"]))
    tensors["_meshes"] = [mesh]
    return None


def api_array_tensor(args, tensors, mesh_device):
    """ttnn.Tensor(array, dtype, device (md or None), layout, mesh_mapper=...): what ttnn.from_torch calls."""
    mapper = make_mapper(args["src"], mesh_device)
    made = array_tensor(args["src"], mesh_device if args.get("device") else None, numpy_itself=True,
                        **({} if mapper is None else {"mesh_mapper": mapper}))
    return keep(args, tensors, made)


def api_dump_tensor(args, tensors, mesh_device):
    """ttnn.dump_tensor(file, tensor) (file relative to the scratch directory); value: the file's size."""
    ttnn.dump_tensor(args["file"], tensors[args["tensor"]])
    tensors["_value"] = os.path.getsize(args["file"])
    return tensors[args["tensor"]]


def api_load_tensor(args, tensors, mesh_device):
    """ttnn.load_tensor(file, device=md or None)."""
    return keep(args, tensors, ttnn.load_tensor(args["file"], device=mesh_device if args.get("device") else None))


def api_convert(method):
    """tensor.to_numpy() / tensor.to_torch() without a composer; value: the result's shape."""
    def run(args, tensors, mesh_device):
        tensors["_value"] = list(getattr(tensors[args["tensor"]], method)().shape)
        return tensors[args["tensor"]]
    return run


API_OPS = {
    "host": api_host, "get_device_tensors": api_get_device_tensors,
    "combine_device_tensors": api_combine_device_tensors, "inspect_all": api_inspect_all,
    "from_host_shards": api_from_host_shards, "allocate_tensor_on_host": api_allocate_tensor_on_host,
    "copy_device_to_host_tensor": api_copy_device_to_host_tensor,
    "update_tensor_topology": api_update_tensor_topology,
    **{op: api_create(op) for op in ("empty", "empty_like", "zeros", "ones", "full", "zeros_like", "ones_like",
                                     "full_like")},
    "create_submesh": api_create_submesh, "create_submeshes": api_create_submeshes,
    "get_submeshes": api_get_submeshes, "reshape": api_reshape, "Tensor(array)": api_array_tensor,
    "dump_tensor": api_dump_tensor, "load_tensor": api_load_tensor,
    "Tensor.to_numpy": api_convert("to_numpy"), "Tensor.to_torch": api_convert("to_torch"),
}


def values_sample(tensor, block):
    """The composed value at the origin of each ``block``-shaped block, row-major: with arange data
    each names the source element that landed there."""
    values = np.asarray(tensor.to_numpy())
    grid = [range(0, n, b) for n, b in zip(values.shape, block)]
    return [float(values[index]) for index in itertools.product(*grid)]


def make_composer(composer, mesh_device):
    function = composer["function"]
    if function == "concat_mesh_to_tensor_composer":
        return ttnn.concat_mesh_to_tensor_composer(mesh_device, composer["dim"])
    if function == "ConcatMeshToTensor":
        return ttnn.ConcatMeshToTensor(mesh_device, dim=composer["dim"])
    if function == "ConcatMesh2dToTensor":
        return ttnn.ConcatMesh2dToTensor(mesh_device, mesh_shape=tuple(composer["mesh_shape"]),
                                         dims=tuple(composer["dims"]))
    if function == "MeshComposerConfig(row_dim, col_dim)":
        return ttnn.create_mesh_composer(mesh_device, ttnn.MeshComposerConfig(composer["row_dim"], composer["col_dim"]))
    config = [composer["dims"], mesh_shape(composer["mesh_shape_override"])]
    if "mesh_offset_override" in composer:
        config.append(ttnn.MeshCoordinate(composer["mesh_offset_override"]))
    return ttnn.create_mesh_composer(mesh_device, ttnn.MeshComposerConfig(*config))


def subject_after_error(args, tensors):
    """The tensor a failed event leaves to observe: its destination or input, if it has one."""
    name = args.get("dst", args.get("tensor"))
    return None if name is None else tensors[name]


#: Errors an event may raise as data: ttnn's own (RuntimeError), its argument checks (TypeError, e.g.
#: nanobind's "incompatible function arguments"), a missing torch (ModuleNotFoundError) and a call the
#: version lacks (AttributeError: 0.66.0 and 0.67.0 have no Tensor.buffer_page_size).
RECORDED_ERRORS = (RuntimeError, TypeError, ImportError, AttributeError)


def play_scenario(name, skip, out_path, api=False):
    """Child process: play one scenario ("api" scenarios with api), writing a JSON line per event as it
    finishes."""
    events = dict((n, e) for n, _, e in (API_SCENARIOS if api else RUNTIME_SCENARIOS))[name]
    mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(*RUNTIME_MESH))
    tensors = {}
    with open(out_path, "w") as out:
        for index, (op, args) in enumerate(events):
            if index in skip:
                continue
            record = {"op": op, "args": args, "error": None}
            try:
                subject = run_event(op, args, tensors, mesh_device)
            except RECORDED_ERRORS as exc:
                record["error"] = error_text(exc)
                subject = subject_after_error(args, tensors)
            except KeyError as exc:  # a tensor an earlier failed event did not make (0.66.0 / 0.67.0: no offsets)
                record["error"] = f"not run: {exc.args[0]} was not made (an earlier event failed)"
                subject = None
            record |= blank(api) if subject is None else observe(subject, api)
            record["values_sample"] = tensors.pop("_sample", None)
            if api:
                record |= results(tensors)
            out.write(json.dumps({"index": index, "event": record}) + "\n")
            out.flush()
    if api:
        # Once both a mesh and one of its submeshes have read from the device, neither can be closed
        # ("MeshDevice cq ID 0 is in use by parent mesh ID 0 during close of mesh ID 1"), not even by the
        # destructors at exit, which then abort: the events are written, so end the process here.
        os._exit(0)
    ttnn.close_mesh_device(mesh_device)


def record_scenario(name, description, events, api=False):
    """Play a scenario in child processes; an event that kills the process is recorded as an error
    and the scenario is replayed without it."""
    crashed = {}
    while True:
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
            command = [sys.executable, str(SCRIPT), "--play", name, "--out", out.name,
                       "--skip", ",".join(map(str, crashed)), *(["--api"] if api else [])]
            child = subprocess.run(command, capture_output=True, text=True)
            done = {row["index"]: row["event"] for row in map(json.loads, out.read().splitlines())}
        if child.returncode == 0:
            break
        pending = [i for i in range(len(events)) if i not in done and i not in crashed]
        if child.returncode > 0 or not pending:
            sys.exit(f"scenario {name!r} failed:\n{child.stdout[-3000:]}\n{child.stderr[-3000:]}")
        crashed[pending[0]] = f"process killed by {signal.Signals(-child.returncode).name} (no Python exception)"
    for index, message in crashed.items():
        op, args = events[index]
        done[index] = {"op": op, "args": args, "error": message} | blank(api)
    return {"name": name, "description": description, "events": [done[i] for i in range(len(events))]}


# --- systems ---------------------------------------------------------------------------------------

def play_system(system, out_path):
    """Child process (the cluster descriptor is read once per process): open each asked shape, and
    allocate the architecture's spec cases on the default mesh."""
    rows = []
    for shape in SYSTEM_SHAPES[system]:
        row = {"system": system, "shape": None if shape is None else list(shape), "error": None}
        try:
            mesh_device = ttnn.open_mesh_device(None if shape is None else ttnn.MeshShape(list(shape)))
        except RuntimeError as exc:
            rows.append(row | {"error": error_text(exc)})
            continue
        row |= {"opened": list(mesh_device.shape), "device_ids": list(mesh_device.get_device_ids()),
                "arch": str(mesh_device.arch()).split(".")[-1].lower()}
        if shape is None and system in ARCH_SPEC_CASES:
            row["specs"] = [record_spec(case, mesh_device) for case in ARCH_SPEC_CASES[system]]
        ttnn.close_mesh_device(mesh_device)
        rows.append(row)
    Path(out_path).write_text(json.dumps(rows))


def record_system(system):
    env = dict(os.environ, TT_METAL_MOCK_CLUSTER_DESC_PATH=str((CLUSTERS / SYSTEM_CLUSTERS[system]).resolve()))
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        child = subprocess.run([sys.executable, str(SCRIPT), "--system", system, "--out", out.name],
                               capture_output=True, text=True, env=env)
        if child.returncode != 0:
            sys.exit(f"system {system!r} failed:\n{child.stdout[-3000:]}\n{child.stderr[-3000:]}")
        return json.loads(out.read())


# --- output ----------------------------------------------------------------------------------------

def dumps(value, indent=0, width=110):
    """JSON with every value that fits on one line kept on one line."""
    flat = json.dumps(value)
    if len(flat) + indent <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {dumps(v, indent + 1, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(v, indent + 1, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--play", help=argparse.SUPPRESS)  # internal: run one scenario in this process
    parser.add_argument("--system", help=argparse.SUPPRESS)  # internal: probe one system in this process
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--mappers", help=argparse.SUPPRESS)  # internal: the mapper cases over one mesh shape
    parser.add_argument("--skip", default="", help=argparse.SUPPRESS)
    parser.add_argument("--api", action="store_true", help=argparse.SUPPRESS)  # internal: --play an "api" scenario
    parser.add_argument("--golden", type=Path, default=OUTPUT, help="where to write the golden file (default: %(default)s)")
    options = parser.parse_args()
    if TTNN_VERSION not in VERSIONS:
        sys.exit(f"record_ttnn.py: ttnn {TTNN_VERSION} is installed; this records ttnn {', '.join(VERSIONS)}")
    if options.play:
        play_scenario(options.play, {int(i) for i in options.skip.split(",") if i}, options.out, options.api)
        return
    if options.system:
        play_system(options.system, options.out)
        return
    if options.mappers:
        play_mappers(tuple(int(n) for n in options.mappers.split(",")), options.out)
        return

    home = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            golden = record_all()
        finally:
            os.chdir(home)
    target = options.golden.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(golden) + "\n")
    print(f"wrote {target}: {len(golden['specs'])} specs, {len(golden['mappers'])} mappers, "
          f"{len(golden['runtime'])} runtime scenarios, {len(golden['systems'])} system shapes, "
          f"{len(golden['api'])} api scenarios", file=sys.stderr)


def record_mappers():
    """Every MAPPER_CASES case, in order: host-only where create_mesh_mapper takes a MeshShape; else
    each mesh shape's cases in a child process that opens a mesh device of that shape (MAPPER_SYSTEM)."""
    if not MAPPER_NEEDS_DEVICE:
        return [record_mapper(case) for case in MAPPER_CASES]
    done = {}
    for shape in dict.fromkeys(tuple(case["mesh"]) for case in MAPPER_CASES):
        system = MAPPER_SYSTEM.get(shape, "t3k")
        env = dict(os.environ, TT_METAL_MOCK_CLUSTER_DESC_PATH=str((CLUSTERS / SYSTEM_CLUSTERS[system]).resolve()))
        with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
            child = subprocess.run([sys.executable, str(SCRIPT), "--mappers", ",".join(map(str, shape)), "--out", out.name],
                                   capture_output=True, text=True, env=env)
            if child.returncode != 0:
                sys.exit(f"mappers on {shape} failed:\n{child.stdout[-3000:]}\n{child.stderr[-3000:]}")
            done[shape] = json.loads(out.read())
    return [done[tuple(case["mesh"])].pop(0) for case in MAPPER_CASES]


#: The cluster a mapper case's mesh shape opens on where mapping needs a mesh device (default: the T3K).
MAPPER_SYSTEM = {(8, 4): "galaxy"}


def play_mappers(shape, out_path):
    """Child process: the mapper cases over ``shape``, on a mesh device of that shape."""
    MAPPER_MESH_DEVICE["device"] = mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(list(shape)))
    rows = [record_mapper(case) for case in MAPPER_CASES if tuple(case["mesh"]) == tuple(shape)]
    Path(out_path).write_text(json.dumps(rows))
    ttnn.close_mesh_device(mesh_device)


def record_all():
    mappers = record_mappers()
    mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(*RUNTIME_MESH))
    specs = [record_spec(case, mesh_device) for case in SPEC_CASES]
    ttnn.close_mesh_device(mesh_device)
    runtime = [record_scenario(*scenario) for scenario in RUNTIME_SCENARIOS]
    systems = [row for system in SYSTEM_CLUSTERS for row in record_system(system)]
    api = [record_scenario(*scenario, api=True) for scenario in API_SCENARIOS]
    return {"ttnn_version": TTNN_VERSION, "recorded_by": RECORDED_BY,
            **({"observed_without": missing()} if missing() else {}),
            "specs": specs, "mappers": mappers, "runtime": runtime, "systems": systems, "api": api}


if __name__ == "__main__":
    main()
