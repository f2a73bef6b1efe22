#!/usr/bin/env python3
"""Record the distribution shape ttnn gives a replicated tensor, for
tests/golden/ttnn_<version>_replicated_distribution.json (read by
tests/sim/test_records_replicated.py; docs/semantics.md section 22; tt-metal issue #28755).

On a 1x8 and a 2x4 mock T3K, a (1, 1, 32, 32) bfloat16 ROW_MAJOR host tensor is distributed by
``replicate_tensor_to_mesh_mapper`` (what ``ttnn.ReplicateTensorToMesh`` wraps), by
``create_mesh_mapper`` with a Replicate per mesh axis, and by ``shard_tensor_to_mesh_mapper(dim=3)``
(the 1-D mapper it is built like), then put on the mesh, and the same host tensor with no mapper put
on the mesh (its one host buffer replicated to every device); for each, the host and the device
tensor's distribution shape, placements and number of coordinates. Run once in each ttnn venv (0.81.1,
0.67.0, 0.66.0), in mock mode; the flat-list constructor works in all three:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh && python tools/golden/record_replicated_distribution.py
    source ${TMPDIR:-/tmp}/ttnn-mock-0.67.0/env.sh && python tools/golden/record_replicated_distribution.py
"""

import json
import os
from importlib.metadata import version
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import ttnn  # noqa: E402

VERSION = version("ttnn")
OUT = Path(__file__).resolve().parents[2] / "tests" / "golden" / f"ttnn_{VERSION.replace('.', '_')}_replicated_distribution.json"


def topology(t) -> dict:
    topo = t.tensor_topology()
    return {
        "distribution_shape": list(topo.distribution_shape()),
        "placements": [str(p) for p in topo.placements()],
        "coords": len(list(topo.mesh_coords())),
    }


def main() -> None:
    out = {"recorded_by": "tools/golden/record_replicated_distribution.py", "ttnn": VERSION,
           "tensor": "(1, 1, 32, 32) bfloat16 ROW_MAJOR, put on the mesh with ttnn.to_device", "meshes": {}}
    for rows, cols in ((1, 8), (2, 4)):
        md = ttnn.open_mesh_device(ttnn.MeshShape(rows, cols))
        mappers = {
            "replicate_tensor_to_mesh_mapper": ttnn.replicate_tensor_to_mesh_mapper(md),
            "create_mesh_mapper_replicate_per_axis": ttnn.create_mesh_mapper(
                md, ttnn.MeshMapperConfig([ttnn.PlacementReplicate(), ttnn.PlacementReplicate()])),
            "shard_tensor_to_mesh_mapper_dim3": ttnn.shard_tensor_to_mesh_mapper(md, 3),
        }
        cases = {}
        for name, mapper in mappers.items():
            host = ttnn.Tensor([float(i) for i in range(32 * 32)], [1, 1, 32, 32], ttnn.bfloat16, ttnn.ROW_MAJOR_LAYOUT)
            mapped = ttnn.distribute_tensor(host, mapper, None)
            cases[name] = {"host": topology(mapped), "device": topology(ttnn.to_device(mapped, md))}
        plain = ttnn.Tensor([float(i) for i in range(32 * 32)], [1, 1, 32, 32], ttnn.bfloat16, ttnn.ROW_MAJOR_LAYOUT)
        cases["plain_host_tensor"] = {"host": topology(plain), "device": topology(ttnn.to_device(plain, md))}
        out["meshes"][f"{rows}x{cols}"] = cases
        ttnn.close_mesh_device(md)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(OUT.name, json.dumps(out)[:300])


if __name__ == "__main__":
    main()
