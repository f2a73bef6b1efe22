#!/usr/bin/env python3
"""Record what ttnn 0.81.1 does with its metadata-only device ops, for tests/test_golden_views.py.

squeeze, unsqueeze, reshape and reallocate of a tensor already lowest in memory run no kernel, so
the mock answers them: the output's shape, topology and buffer address, and whether the input is
still allocated. Deterministic. Run in the ttnn venv, in mock mode:

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

#: (name, op, argument): each on a (1, 1, 32, 256) bfloat16 TILE tensor sharded on dim 3 over a T3K.
CASES = [
    ("squeeze_0", "squeeze", 0),
    ("squeeze_1", "squeeze", 1),
    ("unsqueeze_0", "unsqueeze", 0),
    ("unsqueeze_2", "unsqueeze", 2),
    ("reshape_rank3", "reshape", [1, 32, 32]),
    ("reshape_same", "reshape", [1, 1, 32, 32]),
    ("reallocate_lowest", "reallocate", None),
]


def placements(t):
    return [{"shard": p.dim} if isinstance(p, ttnn.PlacementShard) else "R" for p in t.tensor_topology().placements()]


def record(md, name, op, arg):
    host = ttnn.Tensor(np.arange(32 * 256, dtype=np.float32).reshape(1, 1, 32, 256), ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    src = ttnn.distribute_tensor(host, ttnn.shard_tensor_to_mesh_mapper(md, 3), md)
    call = {"squeeze": lambda: ttnn.squeeze(src, arg), "unsqueeze": lambda: ttnn.unsqueeze(src, arg),
            "reshape": lambda: ttnn.reshape(src, arg), "reallocate": lambda: ttnn.reallocate(src)}[op]
    row = {"name": name, "op": op, "arg": arg, "input_address": src.buffer_address()}
    try:
        out = call()
        row |= {"error": None, "shape": list(out.shape), "placements": placements(out),
                "distribution_shape": list(out.tensor_topology().distribution_shape()),
                "address": out.buffer_address(), "input_allocated": src.is_allocated(),
                "device_coords": [list(c) for c in out.device_coords()]}
        ttnn.deallocate(out)
    except Exception as exc:  # noqa: BLE001 - the library's refusal is the datum
        row |= {"error": str(exc).split("info:")[-1].strip().splitlines()[0]}
    if src.is_allocated():
        ttnn.deallocate(src)
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
            ttnn.close_mesh_device(md)
        finally:
            os.chdir(home)
    OUT.write_text(json.dumps({"ttnn_version": "0.81.1", "recorded_by": "tools/golden/record_views.py", "views": rows}, indent=1) + "\n")
    print(f"wrote {OUT}: {len(rows)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
