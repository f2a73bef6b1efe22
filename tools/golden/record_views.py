#!/usr/bin/env python3
"""Record what ttnn 0.81.1 does with its metadata-only device ops, for tests/test_golden_views.py.

squeeze, unsqueeze, reshape, view and reallocate of a tensor already lowest in memory run no kernel,
nor do slice, concat, pad and to_layout when they return their input as it is, so the mock answers
them (transpose's refusal of a dim comes before its kernel too): the output's shape, topology and buffer address, and whether the input is still allocated;
and the words each op refuses bad arguments with, before a kernel is built. Deterministic. Run in the ttnn venv, in mock mode:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_views.py            # writes tests/golden/ttnn_0_81_1_views.json
"""

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import numpy as np  # noqa: E402
import ttnn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "golden" / "ttnn_0_81_1_views.json"

#: (name, layout of x, op, the scenario step's arguments besides tensor/as). x is a (1, 1, 32, 256)
#: bfloat16 tensor sharded on dim 3 over a T3K (each device holds (1, 1, 32, 32)); y the same in
#: float32 TILE. Every case either runs no kernel (a view, or the input returned as it is) or is
#: refused before one is compiled, so the mock answers it.
CASES = [
    ("squeeze_0", "tile", "squeeze", {"dim": 0}),
    ("squeeze_1", "tile", "squeeze", {"dim": 1}),
    ("unsqueeze_0", "tile", "unsqueeze", {"dim": 0}),
    ("unsqueeze_2", "tile", "unsqueeze", {"dim": 2}),
    ("reshape_rank3", "tile", "reshape", {"shape": [1, 32, 32]}),
    ("reshape_same", "tile", "reshape", {"shape": [1, 1, 32, 32]}),
    ("reallocate_lowest", "tile", "reallocate", {}),
    ("view_rank3", "tile", "view", {"shape": [1, 32, 32]}),
    ("view_same", "tile", "view", {"shape": [1, 1, 32, 32]}),
    ("view_volume", "tile", "view", {"shape": [1, 1, 32, 64]}),
    ("view_tile_height", "tile", "view", {"shape": [1, 2, 16, 32]}),
    ("view_last_dim", "tile", "view", {"shape": [1, 1, 16, 64]}),
    ("reshape_minus_one_last", "tile", "reshape", {"shape": [1, 1, 32, -1]}),  # -1 inferred (ttnn infers it, one at most)
    ("reshape_minus_one_first", "tile", "reshape", {"shape": [-1, 1, 32, 32]}),
    ("view_minus_one", "tile", "view", {"shape": [-1, 32, 32]}),
    ("reshape_two_minus_ones", "tile", "reshape", {"shape": [-1, -1]}),
    ("reshape_minus_one_not_dividing", "tile", "reshape", {"shape": [3, -1]}),
    ("reshape_minus_one_beside_zero", "tile", "reshape", {"shape": [0, -1]}),
    ("view_row_major", "row_major", "view", {"shape": [1, 32, 32]}),
    ("view_row_major_height", "row_major", "view", {"shape": [2, 16, 32]}),
    ("view_row_major_last_dim", "row_major", "view", {"shape": [1, 1, 16, 64]}),
    ("slice_whole", "tile", "slice", {"starts": [0, 0, 0, 0], "ends": [1, 1, 32, 32]}),
    ("slice_whole_row_major", "row_major", "slice", {"starts": [0, 0, 0, 0], "ends": [1, 1, 32, 32]}),
    ("slice_past_end", "tile", "slice", {"starts": [0, 0, 0, 0], "ends": [1, 1, 32, 64]}),
    ("slice_rank", "tile", "slice", {"starts": [0, 0, 0], "ends": [1, 32, 32]}),
    ("concat_one", "tile", "concat", {"tensors": ["x"], "dim": 3}),
    ("concat_empty", "tile", "concat", {"tensors": [], "dim": 3}),
    ("concat_dim", "tile", "concat", {"tensors": ["x", "x"], "dim": 4}),
    ("concat_dtype", "tile", "concat", {"tensors": ["x", "y"], "dim": 3}),
    ("pad_nothing", "tile", "pad", {"padding": [[0, 0], [0, 0], [0, 0], [0, 0]], "value": 0.0}),
    ("pad_front_tile", "tile", "pad", {"padding": [[0, 0], [0, 0], [0, 0], [32, 0]], "value": 0.0}),
    ("tilize_tile", "tile", "tilize", {}),
    ("untilize_row_major", "row_major", "untilize", {}),
    ("to_layout_same", "tile", "to_layout", {"layout": "tile"}),
    ("transpose_dim0_past_rank", "tile", "transpose", {"dim0": 5, "dim1": 0}),
    ("transpose_dim0_below_rank", "tile", "transpose", {"dim0": -5, "dim1": 1}),
    ("transpose_dim1_past_rank", "tile", "transpose", {"dim0": 0, "dim1": 4}),
    ("add_subtile", "tile", "add", {"a": "x", "b": "z"}),
    ("add_outer_dim", "tile", "add", {"a": "w", "b": "v"}),
    ("add_two_outer_dims", "tile", "add", {"a": "p", "b": "q"}),
    ("add_subtile_before_outer", "tile", "add", {"a": "w", "b": "z"}),
    ("all_gather_dim_past_rank", "tile", "all_gather", {"dim": 7}),
    ("all_gather_dim_below_rank", "tile", "all_gather", {"dim": -5}),
]

#: More bfloat16 TILE tensors a case may name (a and b of a binary op), each sharded on dim 3 over
#: the T3K like x, made after x and y only for the cases that name them.
EXTRA = {"z": [1, 1, 64, 512], "w": [1, 2, 32, 256], "v": [1, 3, 32, 256], "p": [2, 2, 32, 256], "q": [3, 3, 32, 256]}


def placements(t):
    return [{"shard": p.dim} if isinstance(p, ttnn.PlacementShard) else "R" for p in t.tensor_topology().placements()]


def call(op, x, y, args, extra=None):
    named = {"x": x, "y": y, **(extra or {})}
    if op in ("add", "sub", "mul"):
        return getattr(ttnn, op)(named[args["a"]], named[args["b"]])
    if op == "all_gather":
        return ttnn.all_gather(x, args["dim"])
    if op in ("squeeze", "unsqueeze"):
        return getattr(ttnn, op)(x, args["dim"])
    if op in ("reshape", "view"):
        return getattr(ttnn, op)(x, args["shape"])
    if op == "slice":
        return ttnn.slice(x, args["starts"], args["ends"])
    if op == "concat":
        return ttnn.concat([named[n] for n in args["tensors"]], args["dim"])
    if op == "pad":
        return ttnn.pad(x, [tuple(p) for p in args["padding"]], args["value"])
    if op == "transpose":
        return ttnn.transpose(x, args["dim0"], args["dim1"])
    if op == "to_layout":
        return ttnn.to_layout(x, {"tile": ttnn.TILE_LAYOUT, "row_major": ttnn.ROW_MAJOR_LAYOUT}[args["layout"]])
    return getattr(ttnn, op)(x)  # reallocate, tilize, untilize


def record(md, name, layout, op, args):
    data = np.arange(32 * 256, dtype=np.float32).reshape(1, 1, 32, 256)
    lay = {"tile": ttnn.TILE_LAYOUT, "row_major": ttnn.ROW_MAJOR_LAYOUT}[layout]
    x = ttnn.distribute_tensor(ttnn.Tensor(data, ttnn.bfloat16, None, lay), ttnn.shard_tensor_to_mesh_mapper(md, 3), md)
    y = ttnn.distribute_tensor(ttnn.Tensor(data, ttnn.float32, None, ttnn.TILE_LAYOUT), ttnn.shard_tensor_to_mesh_mapper(md, 3), md)
    row = {"name": name, "layout": layout, "op": op, "args": args, "input_address": x.buffer_address()}
    extra = {n: ttnn.distribute_tensor(ttnn.Tensor(np.zeros(s, dtype=np.float32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT),
                                       ttnn.shard_tensor_to_mesh_mapper(md, 3), md)
             for n, s in EXTRA.items() if n in args.values()}
    try:
        out = call(op, x, y, args, extra)
        row |= {"error": None, "shape": list(out.shape), "layout_out": "tile" if out.layout == ttnn.TILE_LAYOUT else "row_major",
                "placements": placements(out), "distribution_shape": list(out.tensor_topology().distribution_shape()),
                "address": out.buffer_address(), "input_allocated": x.is_allocated(),
                "device_coords": [list(c) for c in out.device_coords()]}
        if out.is_allocated():
            ttnn.deallocate(out)
    except Exception as exc:  # noqa: BLE001 - the library's refusal is the datum
        row |= {"error": str(exc).split("info:")[-1].strip().splitlines()[0]}
    for t in (x, y, *extra.values()):
        if t.is_allocated():
            ttnn.deallocate(t)
    return row


#: (name, deallocate a reshape view of x or x itself, force): which of the two stay allocated.
DEALLOCATE = [
    ("view_force", True, True),
    ("view_no_force", True, False),
    ("sole_no_force", False, False),
]


def record_deallocate(md, name, of_view, force):
    data = np.arange(32 * 256, dtype=np.float32).reshape(1, 1, 32, 256)
    x = ttnn.distribute_tensor(ttnn.Tensor(data, ttnn.bfloat16, None, ttnn.TILE_LAYOUT), ttnn.shard_tensor_to_mesh_mapper(md, 3), md)
    v = ttnn.reshape(x, [1, 32, 32]) if of_view else None
    ttnn.deallocate(v if of_view else x, force=force)
    row = {"name": name, "of_view": of_view, "force": force, "input_allocated": x.is_allocated(),
           "view_allocated": v.is_allocated() if of_view else None}
    for t in (x, v):
        if t is not None and t.is_allocated():
            ttnn.deallocate(t)
    return row


def main():
    if "TT_METAL_MOCK_CLUSTER_DESC_PATH" not in os.environ:
        sys.exit("record_views.py: run in the mock (source the ttnn-mock env.sh)")
    home = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # opening a device writes generated/ into the working directory
        try:
            md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
            rows = [record(md, *case) for case in CASES]
            frees = [record_deallocate(md, *case) for case in DEALLOCATE]
            ttnn.close_mesh_device(md)
        finally:
            os.chdir(home)
    OUT.write_text(json.dumps({"ttnn_version": "0.81.1", "recorded_by": "tools/golden/record_views.py", "views": rows, "deallocate": frees}, indent=1) + "\n")
    print(f"wrote {OUT}: {len(rows)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
