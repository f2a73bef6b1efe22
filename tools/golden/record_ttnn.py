"""Record what the real ttnn 0.81.1 says about per-device tensor specs, as golden data for meshspec.

Runs the real library on this CPU in mock mode (a mock 2x4 Wormhole T3K; no hardware) and writes
tests/golden/ttnn_0_81_1.json. From the repository root:

    ../shared/ttnn-mock/setup.sh              # once: installs ttnn==0.81.1 (Python 3.10) into $TMPDIR/ttnn-mock
    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh   # activates that venv and sets the mock variables
    python tools/golden/record_ttnn.py

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

The runs happen in a scratch directory: opening a mesh device writes generated/fabric/*.yaml into
the working directory.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import ttnn

TTNN_VERSION = "0.81.1"
RECORDED_BY = "tools/golden/record_ttnn.py"
SCRIPT = Path(__file__).resolve()
REPO = SCRIPT.parents[2]
OUTPUT = REPO / "tests" / "golden" / "ttnn_0_81_1.json"
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
    with a named helper (mapper="replicate_tensor_to_mesh_mapper" etc., plus its arguments)."""
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
      compose(nd([0, 3]), src=host((1, 1, 32, 128), "float32", placements=[R, S(3)]), block=[1, 1, 32, 32])]),
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


def mapper_config(placements, override):
    return ttnn.MeshMapperConfig([placement(p) for p in placements], mesh_shape(override))


def error_text(exc):
    """The key line of a ttnn error: "TT_FATAL: <info>" without file, condition or backtrace."""
    text = str(exc)
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
    """Coordinates whose shard is present in a host tensor's distributed host buffer, row-major."""
    buffer = tensor.host_buffer()
    coords = [list(c) for c in itertools.product(*map(range, buffer.shape()))]
    return [c for c in coords if buffer.get_shard(ttnn.MeshCoordinate(c)) is not None]


def host_tensor(src, mesh_device=None):
    """Build (and map, if asked) the host tensor that `src` (see host()) describes."""
    count = int(np.prod(src["shape"]))
    data = np.arange(count, dtype=np.int32 if src["dtype"] in INT_DTYPES else np.float32).reshape(src["shape"])
    tile = ttnn.Tile(src["tile"]) if "tile" in src else None
    memory = {"mem_config": MEMORY_CONFIG[src["memory"]]} if "memory" in src else {}
    tensor = ttnn.Tensor(data, DTYPE[src["dtype"]], None, LAYOUT[src["layout"]], tile=tile, **memory)
    mapper = make_mapper(src, mesh_device)
    return tensor if mapper is None else ttnn.distribute_tensor(tensor, mapper, None)


def make_mapper(src, mesh_device):
    helper = src.get("mapper")
    if "placements" in src:
        return ttnn.create_mesh_mapper(mesh_device.shape, mapper_config(src["placements"], src["mesh_shape_override"]))
    if helper == "replicate_tensor_to_mesh_mapper":
        return ttnn.replicate_tensor_to_mesh_mapper(mesh_device)
    if helper in ("shard_tensor_to_mesh_mapper", "ShardTensorToMesh"):
        return getattr(ttnn, helper)(mesh_device, src["dim"])
    if helper == "ShardTensor2dMesh":
        return ttnn.ShardTensor2dMesh(mesh_device, tuple(src["mesh_shape"]), tuple(src["dims"]))
    assert helper is None, helper
    return None


def allocate(case, mesh_device):
    """allocate_tensor_on_device for a spec() dict."""
    tensor_spec = ttnn.TensorSpec(case["shape"], DTYPE[case["dtype"]], LAYOUT[case["layout"]],
                                  MEMORY[case["memory"]], tile=ttnn.Tile(case["tile"]))
    return ttnn.allocate_tensor_on_device(tensor_spec, mesh_device)


# --- specs -----------------------------------------------------------------------------------------

def record_spec(case, mesh_device):
    record = dict(case, error=None, padded_shape=None, page_size=None, aligned_page_size=None, num_pages=None)
    try:
        tensor = allocate(case, mesh_device)
    except RuntimeError as exc:
        return record | {"error": error_text(exc)}
    record |= {"padded_shape": list(tensor.padded_shape), "page_size": tensor.buffer_page_size(),
               "aligned_page_size": tensor.buffer_aligned_page_size(), "num_pages": tensor.buffer_num_pages()}
    ttnn.deallocate(tensor)
    return record


# --- mappers ---------------------------------------------------------------------------------------

def record_mapper(case):
    record = dict(case, error=None, distribution_shape=None, topology_placements=None, coords=None, shards=None)
    try:
        data = host_tensor(host(case["shape"], "float32"))
        config = mapper_config(case["placements"], case["mesh_shape_override"])
        tensor = ttnn.distribute_tensor(data, ttnn.create_mesh_mapper(ttnn.MeshShape(case["mesh"]), config), None)
    except RuntimeError as exc:
        return record | {"error": error_text(exc)}
    topology = topology_json(tensor)
    shards = ttnn.get_device_tensors(tensor)
    # get_device_tensors() lists shards in the order of the topology's coordinates; check that
    # against the host buffer, which is indexed by coordinate.
    assert populated_coords(tensor) == topology["coords"], (case, topology)
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


def observe(tensor):
    """What the tensor records after an event. Nothing here may crash: a deallocated device tensor
    is only asked for its shape, topology and is_allocated()."""
    seen = dict.fromkeys(OBSERVATION)
    seen |= {"shape": list(tensor.shape), "topology": topology_json(tensor)}
    if tensor.storage_type() != ttnn.StorageType.DEVICE:
        coords = populated_coords(tensor)
        assert len(ttnn.get_device_tensors(tensor)) == len(coords)
        return seen | {"cpu_shards": len(coords), "cpu_coords": coords, "padded_shape": list(tensor.padded_shape)}
    seen["is_allocated"] = tensor.is_allocated()
    if not seen["is_allocated"]:
        return seen
    seen["buffer_type"] = {ttnn.BufferType.DRAM: "dram", ttnn.BufferType.L1: "l1"}[tensor.memory_config().buffer_type]
    readback = tensor.cpu()
    coords = populated_coords(readback)
    assert len(ttnn.get_device_tensors(readback)) == len(coords)
    # The readback keeps the device tensor's topology (even where it contradicts the shards it holds).
    assert topology_json(readback) == seen["topology"]
    return seen | {"device_coords": [list(c) for c in tensor.device_coords()],
                   "cpu_shards": len(coords), "cpu_coords": coords,
                   "padded_shape": list(tensor.padded_shape), "page_size": tensor.buffer_page_size(),
                   "aligned_page_size": tensor.buffer_aligned_page_size(),
                   "num_pages": tensor.buffer_num_pages()}


def run_event(op, args, tensors, mesh_device):
    """Do one event; return the tensor to observe after it. Tensors it makes are named by "out"."""
    if "tensor" in args:
        given = tensors[args["tensor"]]
    if op == "allocate_tensor_on_device":
        made = allocate(args, mesh_device)
    elif op == "copy_host_to_device_tensor":
        ttnn.copy_host_to_device_tensor(host_tensor(args["src"], mesh_device), tensors[args["dst"]])
        return tensors[args["dst"]]
    elif op == "Tensor.to":
        source = tensors[args["src_tensor"]] if "src_tensor" in args else host_tensor(args["src"], mesh_device)
        made = source.to(mesh_device)
    elif op == "to_device":
        source = tensors[args["src_tensor"]] if "src_tensor" in args else host_tensor(args["src"], mesh_device)
        made = ttnn.to_device(source, mesh_device)
    elif op == "distribute_tensor":
        data = host_tensor({k: args["src"][k] for k in ("shape", "dtype", "layout")})
        target = mesh_device if args.get("device") else None
        made = ttnn.distribute_tensor(data, make_mapper(args["src"], mesh_device), target)
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
        given.device_coords()
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


def values_sample(tensor, block):
    """The composed value at the origin of each ``block``-shaped block, row-major: with arange data
    each names the source element that landed there."""
    values = np.asarray(tensor.to_numpy())
    grid = [range(0, n, b) for n, b in zip(values.shape, block)]
    return [float(values[index]) for index in itertools.product(*grid)]


def make_composer(composer, mesh_device):
    if composer["function"] == "concat_mesh_to_tensor_composer":
        return ttnn.concat_mesh_to_tensor_composer(mesh_device, composer["dim"])
    config = ttnn.MeshComposerConfig(composer["dims"], mesh_shape(composer["mesh_shape_override"]))
    return ttnn.create_mesh_composer(mesh_device, config)


def subject_after_error(args, tensors):
    """The tensor a failed event leaves to observe: its destination or input, if it has one."""
    name = args.get("dst", args.get("tensor"))
    return None if name is None else tensors[name]


def play_scenario(name, skip, out_path):
    """Child process: play one scenario, writing a JSON line per event as it finishes."""
    events = dict((n, e) for n, _, e in RUNTIME_SCENARIOS)[name]
    mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(*RUNTIME_MESH))
    tensors = {}
    with open(out_path, "w") as out:
        for index, (op, args) in enumerate(events):
            if index in skip:
                continue
            record = {"op": op, "args": args, "error": None}
            try:
                subject = run_event(op, args, tensors, mesh_device)
            except RuntimeError as exc:
                record["error"] = error_text(exc)
                subject = subject_after_error(args, tensors)
            record |= dict.fromkeys(OBSERVATION) if subject is None else observe(subject)
            record["values_sample"] = tensors.pop("_sample", None)
            out.write(json.dumps({"index": index, "event": record}) + "\n")
            out.flush()
    ttnn.close_mesh_device(mesh_device)


def record_scenario(name, description, events):
    """Play a scenario in child processes; an event that kills the process is recorded as an error
    and the scenario is replayed without it."""
    crashed = {}
    while True:
        with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as out:
            command = [sys.executable, str(SCRIPT), "--play", name, "--out", out.name,
                       "--skip", ",".join(map(str, crashed))]
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
        done[index] = {"op": op, "args": args, "error": message} | dict.fromkeys(OBSERVATION)
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
    parser.add_argument("--skip", default="", help=argparse.SUPPRESS)
    options = parser.parse_args()
    installed = importlib.metadata.version("ttnn")
    if installed != TTNN_VERSION:
        sys.exit(f"record_ttnn.py: ttnn {installed} is installed; this records ttnn {TTNN_VERSION}")
    if options.play:
        play_scenario(options.play, {int(i) for i in options.skip.split(",") if i}, options.out)
        return
    if options.system:
        play_system(options.system, options.out)
        return

    home = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            golden = record_all()
        finally:
            os.chdir(home)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(dumps(golden) + "\n")
    print(f"wrote {OUTPUT.relative_to(REPO)}: {len(golden['specs'])} specs, {len(golden['mappers'])} mappers, "
          f"{len(golden['runtime'])} runtime scenarios, {len(golden['systems'])} system shapes", file=sys.stderr)


def record_all():
    mappers = [record_mapper(case) for case in MAPPER_CASES]
    mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(*RUNTIME_MESH))
    specs = [record_spec(case, mesh_device) for case in SPEC_CASES]
    ttnn.close_mesh_device(mesh_device)
    runtime = [record_scenario(*scenario) for scenario in RUNTIME_SCENARIOS]
    systems = [row for system in SYSTEM_CLUSTERS for row in record_system(system)]
    return {"ttnn_version": TTNN_VERSION, "recorded_by": RECORDED_BY,
            "specs": specs, "mappers": mappers, "runtime": runtime, "systems": systems}


if __name__ == "__main__":
    main()
