#!/usr/bin/env python3
"""Record what ttnn 0.81.1 does with host ops on a mapped host tensor, for tests/test_golden_host_ops.py.

Host ops run in the mock with no device at all (docs/semantics.md section 18): each case makes a
host tensor of ``arange`` data, distributes it with ``create_mesh_mapper`` (no mesh device: the
mapper's ``MeshShape`` only), calls one host op and records the output's topology (distribution
shape, placements, coords), every shard's spec (shape, padded shape, layout, dtype) and values,
or the library's refusal (its first line). Deterministic. Run in the ttnn venv, in mock mode:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_host_ops.py          # writes tests/golden/ttnn_0_81_1_host_ops.json
"""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import numpy as np  # noqa: E402
import ttnn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "golden" / "ttnn_0_81_1_host_ops.json"

#: The inputs, by name: (global shape, dtype, layout, mesh shape, placements as a scenario writes them).
INPUTS = {
    # issue #16870: (1,1,32,48) over 1x8 with ShardTensor2dMesh(dims=(None, 3)): shards of (1,1,32,6)
    "w48_tile": ([1, 1, 32, 48], "bfloat16", "tile", [1, 8], ["replicate", {"shard": 3}]),
    "w48_rm": ([1, 1, 32, 48], "bfloat16", "row_major", [1, 8], ["replicate", {"shard": 3}]),
    # the passing half of #16870: (1,1,32,256), shards of whole tiles
    "w256_tile": ([1, 1, 32, 256], "bfloat16", "tile", [1, 8], ["replicate", {"shard": 3}]),
    "w256_rm": ([1, 1, 32, 256], "bfloat16", "row_major", [1, 8], ["replicate", {"shard": 3}]),
    # issue #6889: (1,1,16,32) replicated on 1x2
    "rep16_rm": ([1, 1, 16, 32], "bfloat16", "row_major", [1, 2], ["replicate", "replicate"]),
    "rep16_tile": ([1, 1, 16, 32], "bfloat16", "tile", [1, 2], ["replicate", "replicate"]),
    # a block float (TILE only) sharded on its last dim over 1x2
    "w64_bfp8": ([1, 1, 32, 64], "bfloat8_b", "tile", [1, 2], ["replicate", {"shard": 3}]),
    # issue #15422's LeNet batch: (32, 16, 5, 5) over an N300's two devices on dim 0, (16, 16, 5, 5) each
    "batch_rm": ([32, 16, 5, 5], "float32", "row_major", [1, 2], ["replicate", {"shard": 0}]),
    # a 2-D distribution on a T3K: rows of dim 2, columns of dim 3
    "grid_rm": ([1, 1, 64, 128], "float32", "row_major", [2, 4], [{"shard": 2}, {"shard": 3}]),
}

#: (case name, input, op, the scenario step's arguments besides tensor/as).
CASES = [
    ("to_layout_rm_16870", "w48_tile", "to_layout", {"layout": "row_major"}),
    ("to_layout_rm_aligned", "w256_tile", "to_layout", {"layout": "row_major"}),
    ("to_layout_tile_from_rm", "w48_rm", "to_layout", {"layout": "tile"}),
    ("to_layout_same", "w48_tile", "to_layout", {"layout": "tile"}),
    ("to_layout_tile_6889", "rep16_rm", "to_layout", {"layout": "tile"}),
    ("to_layout_grid", "grid_rm", "to_layout", {"layout": "tile"}),
    ("to_layout_rm_block_float", "w64_bfp8", "to_layout", {"layout": "row_major"}),  # stays TILE (issue #43763)
    ("typecast_float32", "w48_tile", "typecast", {"dtype": "float32"}),
    ("typecast_bfp8_rm_unaligned", "w48_rm", "typecast", {"dtype": "bfloat8_b"}),
    ("to_dtype_float32", "w48_tile", "to_dtype", {"dtype": "float32"}),
    ("to_dtype_uint32", "w48_tile", "to_dtype", {"dtype": "uint32"}),
    ("to_dtype_bfp8_tile", "w48_tile", "to_dtype", {"dtype": "bfloat8_b"}),
    ("to_dtype_bfp8_rm_aligned", "w256_rm", "to_dtype", {"dtype": "bfloat8_b"}),
    ("to_dtype_bfp8_rm_unaligned", "w48_rm", "to_dtype", {"dtype": "bfloat8_b"}),
    ("reshape_shard", "w48_tile", "reshape", {"shape": [1, 32, 6]}),
    ("reshape_shard_rm", "w48_rm", "reshape", {"shape": [1, 6, 32]}),
    ("reshape_global", "w48_tile", "reshape", {"shape": [1, 1, 32, 48]}),
    ("reshape_minus_one", "w48_rm", "reshape", {"shape": [-1, 32]}),  # one -1, inferred per shard: (6, 32)
    ("reshape_batch_shard", "batch_rm", "reshape", {"shape": [16, 400]}),  # issue #15422: dim 0 sharded, kept

    ("unpad_rm", "w48_rm", "unpad", {"output_tensor_start": [0, 0, 0, 1], "output_tensor_end": [1, 1, 16, 5]}),
    ("unpad_grid", "grid_rm", "unpad", {"output_tensor_start": [0, 0, 8, 0], "output_tensor_end": [1, 1, 24, 16]}),
    ("unpad_tile", "w48_tile", "unpad", {"output_tensor_start": [0, 0, 0, 0], "output_tensor_end": [1, 1, 16, 4]}),
    ("pad_to_tile_tile", "w48_tile", "pad_to_tile", {}),
    ("pad_tile_back", "rep16_tile", "pad", {"padding": [[0, 0], [0, 0], [0, 16], [0, 32]], "value": 0.0}),
    ("pad_tile_front", "rep16_tile", "pad", {"padding": [[0, 0], [0, 0], [1, 0], [0, 0]], "value": 0.0}),
]

#: Block-float tensors mapped by from_torch's own path (issue #8967's class): (name, global shape,
#: mesh shape, placements). ttnn 0.81.1 maps the logical tensor: each shard its logical shape.
BLOCK_FLOAT = [
    ("bfp8_replicated_16x32", [1, 1, 16, 32], [1, 2], ["replicate", "replicate"]),
    ("bfp8_sharded_32x48", [1, 1, 32, 48], [1, 2], ["replicate", {"shard": 3}]),
]

LAYOUTS = {"tile": ttnn.TILE_LAYOUT, "row_major": ttnn.ROW_MAJOR_LAYOUT}
DTYPES = {"bfloat16": ttnn.bfloat16, "float32": ttnn.float32, "uint32": ttnn.uint32, "bfloat8_b": ttnn.bfloat8_b}


def placement(p):
    return ttnn.PlacementReplicate() if p == "replicate" else ttnn.PlacementShard(p["shard"])


def make(inp):
    shape, dtype, layout, mesh, placements = INPUTS[inp]
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    host = ttnn.Tensor(data, DTYPES[dtype], None, LAYOUTS[layout])
    mapper = ttnn.create_mesh_mapper(ttnn.MeshShape(*mesh), ttnn.MeshMapperConfig([placement(p) for p in placements]))
    return ttnn.distribute_tensor(host, mapper, None)


def call(op, x, args):
    if op == "to_layout":
        return ttnn.to_layout(x, LAYOUTS[args["layout"]])
    if op in ("typecast", "to_dtype"):
        return getattr(ttnn, op)(x, DTYPES[args["dtype"]])
    if op == "reshape":
        return ttnn.reshape(x, args["shape"])
    if op == "unpad":
        return x.unpad(args["output_tensor_start"], args["output_tensor_end"])
    if op == "pad_to_tile":
        return x.pad_to_tile(0.0)
    if op == "pad":
        return ttnn.pad(x, [tuple(p) for p in args["padding"]], args["value"])
    raise ValueError(op)


def name_of(value) -> str:
    return str(value).split(".")[-1].lower()


def described(t) -> dict:
    topo = t.tensor_topology()
    parts = ttnn.get_device_tensors(t)
    shards = []
    for p in parts:
        q = p if p.dtype in (ttnn.float32, ttnn.uint32) else ttnn.to_dtype(p, ttnn.float32)  # bfloat16 has no numpy type
        values = (q.to(ttnn.ROW_MAJOR_LAYOUT) if q.layout == ttnn.TILE_LAYOUT else q).to_numpy()
        shards.append({"shape": list(p.shape), "padded_shape": list(p.padded_shape), "layout": name_of(p.layout),
                       "dtype": name_of(p.dtype),
                       "values": None if values is None else np.asarray(values, dtype=np.float64).ravel().tolist()})
    return {"distribution_shape": list(topo.distribution_shape()),
            "placements": [{"shard": q.dim} if isinstance(q, ttnn.PlacementShard) else "R" for q in topo.placements()],
            "coords": [list(c) for c in topo.mesh_coords()], "shards": shards}


def record(name, inp, op, args):
    row = {"name": name, "input": inp, "op": op, "args": args}
    x = make(inp)
    row["input_shards"] = len(ttnn.get_device_tensors(x))
    try:
        row |= {"error": None, "output": described(call(op, x, args))}
    except Exception as exc:  # noqa: BLE001 - the library's refusal is the datum
        row |= {"error": str(exc).split("info:")[-1].strip().splitlines()[0]}
    return row


def record_block_float(name, shape, mesh, placements):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    host = ttnn.Tensor(data, ttnn.bfloat8_b, None, ttnn.TILE_LAYOUT)
    mapper = ttnn.create_mesh_mapper(ttnn.MeshShape(*mesh), ttnn.MeshMapperConfig([placement(p) for p in placements]))
    t = ttnn.distribute_tensor(host, mapper, None)
    return {"name": name, "shape": shape, "mesh": mesh, "placements": placements,
            "shards": [{"shape": list(p.shape), "padded_shape": list(p.padded_shape)} for p in ttnn.get_device_tensors(t)]}


def main():
    if "TT_METAL_MOCK_CLUSTER_DESC_PATH" not in os.environ:
        sys.exit("record_host_ops.py: run in the mock (source the ttnn-mock env.sh)")
    rows = [record(*case) for case in CASES]
    block = [record_block_float(*case) for case in BLOCK_FLOAT]
    head = json.dumps({"ttnn_version": "0.81.1", "recorded_by": "tools/golden/record_host_ops.py", "inputs": INPUTS,
                       "block_float": block})
    body = ",\n".join(json.dumps(r) for r in rows)  # a case a line: the shards' values make them long
    OUT.write_text(head[:-1] + ',\n"host_ops": [\n' + body + "\n]}\n")
    print(f"wrote {OUT}: {len(rows)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
