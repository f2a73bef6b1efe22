#!/usr/bin/env python3
"""Record the topology ttnn 0.81.1 gives a device op's output by its default imputation, for
tests/sim/test_imputation_0_81_1.py (docs/semantics.md section 12).

A device op runs its host half (validation, output specs, output topology, allocation) in graph
capture's NO_DISPATCH mode and launches nothing, so the mock answers binary_ng ops (add, subtract,
multiply) and the ternary ``where`` there. Ops whose program is built on the host first (matmul,
concat, unary ops) fail in the mock's kernel compiler before they return, and are not recorded.
Each case distributes numpy data over a mock T3K (2x4) with ``create_mesh_mapper`` and records the
output's ``tensor_topology()`` and ``device_coords()``. Deterministic. Run in the ttnn venv, in
mock mode:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_imputation.py     # writes tests/golden/ttnn_0_81_1_imputation.json

ttnn 0.81.1 has no torch for Python 3.10 here; ttnn.add's Python wrapper imports torch lazily, so
the stand-in in tools/import-examples/torch_stub.py is installed after ttnn is imported.
"""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "import-examples"))

import numpy as np  # noqa: E402
import ttnn  # noqa: E402
import torch_stub  # noqa: E402

torch_stub.install()
OUT = ROOT / "tests" / "golden" / "ttnn_0_81_1_imputation.json"

R, S2, S3, SM1 = "replicate", {"shard": 2}, {"shard": 3}, {"shard": -1}
#: name -> (op, inputs in argument order). An input is (global shape, placements, mesh_shape_override
#: or None); every case's inputs hold the same per-device shape, so the op's shape checks pass.
CASES = {
    # two 2-D labels sharding dim 3 on different axes: the first input's axis wins
    "add_col_row": ("add", [((1, 1, 32, 256), [R, S3], None), ((1, 1, 32, 128), [S3, R], None)]),
    "add_row_col": ("add", [((1, 1, 32, 128), [S3, R], None), ((1, 1, 32, 256), [R, S3], None)]),
    "subtract_row_col": ("subtract", [((1, 1, 32, 128), [S3, R], None), ((1, 1, 32, 256), [R, S3], None)]),
    "multiply_col_row": ("multiply", [((1, 1, 32, 256), [R, S3], None), ((1, 1, 32, 128), [S3, R], None)]),
    # a fully replicated 2-D label does not count for the rank when a sharded 1-D label is there
    "add_replicated_2d_sharded_1d": ("add", [((1, 1, 32, 32), [R, R], None), ((1, 1, 32, 256), [S3], [8])]),
    "add_sharded_1d_replicated_2d": ("add", [((1, 1, 32, 256), [S3], [8]), ((1, 1, 32, 32), [R, R], None)]),
    # nothing sharded: the first input's rank
    "add_replicated_1d_replicated_2d": ("add", [((1, 1, 32, 32), [R], [8]), ((1, 1, 32, 32), [R, R], None)]),
    "add_replicated_2d_replicated_1d": ("add", [((1, 1, 32, 32), [R, R], None), ((1, 1, 32, 32), [R], [8])]),
    # the distribution shape is the per-axis maximum over the inputs of that rank, replicated ones too
    "add_full_row0": ("add", [((1, 1, 32, 128), [R, S3], None), ((1, 1, 32, 128), [R, S3], [1, 4])]),
    "add_row0_full": ("add", [((1, 1, 32, 128), [R, S3], [1, 4]), ((1, 1, 32, 128), [R, S3], None)]),
    "add_row0_replicated_2d": ("add", [((1, 1, 32, 128), [R, S3], [1, 4]), ((1, 1, 32, 32), [R, R], None)]),
    # dims compared as written: -1 and 3 are different keys (issue #35362)
    "add_negative_dim": ("add", [((1, 1, 32, 128), [SM1, R], None), ((1, 1, 32, 256), [R, S3], None)]),
    # a dim first seen on an axis another dim already holds is claimed there all the same
    "where_claimed_dim": ("where", [((1, 1, 64, 64), [S2, R], None), ((1, 1, 32, 128), [S3, R], None),
                                    ((1, 1, 32, 256), [R, S3], None)]),
    "where_claimed_dim_reversed": ("where", [((1, 1, 32, 256), [R, S3], None), ((1, 1, 32, 128), [S3, R], None),
                                             ((1, 1, 64, 64), [S2, R], None)]),
}


def placement(p):
    return ttnn.PlacementReplicate() if p == R else ttnn.PlacementShard(p["shard"])


def as_json(p):
    return {"shard": p.dim} if isinstance(p, ttnn.PlacementShard) else R


def distribute(md, shape, placements, override):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    host = ttnn.Tensor(data, ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    cfg = [placement(p) for p in placements]
    config = ttnn.MeshMapperConfig(cfg, ttnn.MeshShape(override)) if override else ttnn.MeshMapperConfig(cfg)
    return ttnn.distribute_tensor(host, ttnn.create_mesh_mapper(md, config), md)


def topology(t):
    topo = t.tensor_topology()
    return {"distribution_shape": list(topo.distribution_shape()),
            "placements": [as_json(p) for p in topo.placements()],
            "coords": [list(c) for c in topo.mesh_coords()],
            "device_coords": [list(c) for c in t.device_coords()]}


def main():
    md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    rows = []
    for name, (op, inputs) in CASES.items():
        tensors = [distribute(md, *i) for i in inputs]
        ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
        try:
            out = getattr(ttnn, op)(*tensors)
        finally:
            ttnn.graph.end_graph_capture()
        rows.append({"name": name, "op": op,
                     "inputs": [{"shape": list(s), "placements": p, "mesh_shape_override": o, **topology(t)}
                                for (s, p, o), t in zip(inputs, tensors)],
                     "output": {"shape": list(out.shape), **topology(out)}})
    ttnn.close_mesh_device(md)
    OUT.write_text(json.dumps({"ttnn_version": ttnn.__version__ if hasattr(ttnn, "__version__") else "0.81.1",
                               "recorded_by": "tools/golden/record_imputation.py", "cases": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
