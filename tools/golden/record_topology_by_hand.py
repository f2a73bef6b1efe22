#!/usr/bin/env python3
"""Record what ttnn 0.81.1 does with ``update_tensor_topology`` given a tensor's own coordinates
reversed, for tests/golden/ttnn_0_81_1_topology_by_hand.json (read by tests/sim/test_topology_by_hand.py;
docs/semantics.md section 9).

A (1, 8, 32, 32) float32 ROW_MAJOR tensor with arange data, sharded on dim 1 over (8) on a 2x4 T3K:
on the host (where the mock holds real values) the topology is set with the coordinates reversed, then
composed with an explicit composer; on the device, the topology and ``device_coords()`` after the same
update. Deterministic. Run in the ttnn venv, in mock mode:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_topology_by_hand.py
"""

import json
import os
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import numpy as np  # noqa: E402
import ttnn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "golden" / "ttnn_0_81_1_topology_by_hand.json"


def coords(topology) -> list:
    return [list(c) for c in topology.mesh_coords()]


def reversed_topology(t):
    topo = t.tensor_topology()
    return ttnn.TensorTopology(topo.distribution_shape(), topo.placements(), list(topo.mesh_coords())[::-1])


def main() -> None:
    md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    data = np.arange(8 * 32 * 32, dtype=np.float32).reshape(1, 8, 32, 32)
    mapper = ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementShard(1)], ttnn.MeshShape([8])))
    host = ttnn.distribute_tensor(ttnn.Tensor(data, ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT), mapper, None)
    before = coords(host.tensor_topology())
    host.update_tensor_topology(reversed_topology(host))
    composed = ttnn.aggregate_tensor(host, ttnn.concat_mesh_to_tensor_composer(md, 1)).to_numpy()
    device = ttnn.to_device(ttnn.distribute_tensor(ttnn.Tensor(data, ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT), mapper, None), md)
    device.update_tensor_topology(reversed_topology(device))
    out = {
        "recorded_by": "tools/golden/record_topology_by_hand.py",
        "tensor": "(1, 8, 32, 32) float32 arange, [S(1)] over (8) on a 2x4 T3K; update_tensor_topology with its coordinates reversed",
        "coords_before": before,
        "host": {
            "coords_after": coords(host.tensor_topology()),
            "shard_first_values": [float(p.to_numpy().flatten()[0]) for p in ttnn.get_device_tensors(host)],
            "composed_slice_first_values": [float(composed[0, i, 0, 0]) for i in range(composed.shape[1])],
        },
        "device": {
            "coords_after": coords(device.tensor_topology()),
            "device_coords": [list(c) for c in device.device_coords()],
            "cpu_coords_after": coords(device.cpu().tensor_topology()),
        },
    }
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out)[:400])


if __name__ == "__main__":
    main()
