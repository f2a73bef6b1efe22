#!/usr/bin/env python3
"""Record how ttnn 0.81.1 prints a mesh tensor on one host (``print(t)``, ``Tensor.__repr__``, which is
``ttnn::to_string``), for tests/golden/ttnn_0_81_1_print.json (read by tests/test_golden_print.py;
docs/semantics.md section 15). The mock runs one host, so every coordinate is local: the record is
which shard each printed ``device_id: N, MeshCoordinate([r, c])`` header stands for, in order, and
``is_local`` of every coordinate. What a host of several prints is source-only (section 15).

Deterministic. Run in the ttnn venv, in mock mode, on the T3K descriptor (a few seconds):

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    TT_METAL_MOCK_CLUSTER_DESC_PATH=../shared/ttnn-mock/t3k_cluster_desc.yaml python tools/golden/record_print.py
"""

import contextlib
import io
import json
import os
import re
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import numpy as np  # noqa: E402
import ttnn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "golden" / "ttnn_0_81_1_print.json"
HEADER = re.compile(r"device_id: (\d+), MeshCoordinate\(\[(\d+), (\d+)\]\)")


def printed(t) -> list:
    """The headers ``print(t)`` writes: [device id, [row, col]] each, in order."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(t)
    return [[int(d), [int(r), int(c)]] for d, r, c in HEADER.findall(out.getvalue())]


def main() -> None:
    md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    cases = {}
    # (1, 8, 32, 32) sharded on dim 1 over the 8 devices: scenarios/multihost-print-labels.yaml's tensor
    host = ttnn.Tensor(np.arange(8 * 32 * 32, dtype=np.float32).reshape(1, 8, 32, 32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    mapper = ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementShard(1)], ttnn.MeshShape([8])))
    cases["sharded_8"] = printed(ttnn.distribute_tensor(host, mapper, md))
    # the seed: 7 shards copied into a (1, 1, 32, 32) allocation, 7 coordinates recorded
    seven = ttnn.Tensor(np.zeros((1, 7, 32, 32), dtype=np.float32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    src = ttnn.distribute_tensor(seven, ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementShard(1)], ttnn.MeshShape([8]))), None)
    dst = ttnn.allocate_tensor_on_device(ttnn.TensorSpec((1, 1, 32, 32), ttnn.bfloat16, ttnn.TILE_LAYOUT), md)
    ttnn.copy_host_to_device_tensor(src, dst)
    cases["seed_7"] = printed(dst)
    view = md.get_view()
    local = [[r, c] for r in range(2) for c in range(4) if view.is_local(ttnn.MeshCoordinate(r, c))]
    OUT.write_text(json.dumps({"ttnn": ttnn.__version__ if hasattr(ttnn, "__version__") else "0.81.1", "mesh": [2, 4],
                               "is_local": local, "printed": cases}, indent=1) + "\n")
    print(f"{OUT}: {', '.join(f'{k}: {len(v)} headers' for k, v in cases.items())}")


if __name__ == "__main__":
    main()
