#!/usr/bin/env python3
"""Record what ttnn 0.81.1 does with what model tests write, for tests/test_golden_userwrites.py
(docs/semantics.md section 21):

- a rank-0 tensor (``shape: []``, tt-xla #3929) through the host constructor, a replicating and a
  sharding mapper, ``to_device``, ``cpu()`` and a concat composer, in each layout and two dtypes;
- ``ttnn.reshape`` of a sharded mesh tensor given each device's shape and given the global one;
- the names ``ttnn.TensorTopology`` takes its arguments by (``mesh_coords``).

Deterministic. Run in the ttnn venv, in mock mode:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_userwrites.py       # writes tests/golden/ttnn_0_81_1_userwrites.json
"""

import json
import os
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import numpy as np  # noqa: E402
import ttnn  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "golden" / "ttnn_0_81_1_userwrites.json"


def words(err: Exception) -> str:
    """The TT_FATAL's own message (the line after the assert's expression), else the first line."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    info = [line for line in lines if line.startswith("info:")]
    return lines[lines.index(info[0]) + 1] if info and lines.index(info[0]) + 1 < len(lines) else lines[0]


def rank0(md) -> list:
    out = []
    for layout_name, layout in (("row_major", ttnn.ROW_MAJOR_LAYOUT), ("tile", ttnn.TILE_LAYOUT)):
        for dtype_name, dtype in (("bfloat16", ttnn.bfloat16), ("float32", ttnn.float32)):
            h = ttnn.Tensor(np.array(3.5, dtype=np.float32), dtype, None, layout)
            case = {"layout": layout_name, "dtype": dtype_name, "host_shape": list(h.shape), "host_padded_shape": list(h.padded_shape)}
            d = ttnn.distribute_tensor(h, ttnn.replicate_tensor_to_mesh_mapper(md), None)
            topo = d.tensor_topology()
            case["replicated"] = {"shape": list(d.shape), "distribution_shape": list(topo.distribution_shape()),
                                  "shards": len(ttnn.get_device_tensors(d))}
            dev = ttnn.to_device(d, md)
            case["device"] = {"shape": list(dev.shape), "padded_shape": list(dev.padded_shape), "num_pages": dev.buffer_num_pages(),
                              "page_size": dev.buffer_page_size(), "aligned_page_size": dev.buffer_aligned_page_size(),
                              "device_coords": [list(c) for c in dev.device_coords()]}
            back = dev.cpu()
            case["cpu"] = {"shape": list(back.shape), "shards": len(ttnn.get_device_tensors(back))}
            try:
                ttnn.aggregate_tensor(back, ttnn.concat_mesh_to_tensor_composer(md, 0))
                case["concat_0_error"] = None
            except Exception as err:
                case["concat_0_error"] = words(err)
            for dim in (0, -1):
                try:
                    ttnn.distribute_tensor(h, ttnn.shard_tensor_to_mesh_mapper(md, dim), None)
                    case[f"shard_{dim}_error"] = None
                except Exception as err:
                    case[f"shard_{dim}_error"] = words(err)
            out.append(case)
    return out


def reshape(md) -> list:
    """A (1, 8, 32, 32) bfloat16 TILE tensor sharded on dim 1 over the T3K: each device holds (1, 1, 32, 32)."""
    h = ttnn.Tensor(np.arange(8 * 32 * 32, dtype=np.float32).reshape(1, 8, 32, 32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    dev = ttnn.to_device(ttnn.distribute_tensor(h, ttnn.shard_tensor_to_mesh_mapper(md, 1), None), md)
    out = []
    for shape in ([1, 1, 32, 32], [1, 32, 32], [32, 32], [8, 32, 32], [1, 8, 32, 32]):
        case = {"input_shape": list(dev.shape), "shape": shape}
        try:
            r = ttnn.reshape(dev, shape)
            case.update(error=None, out_shape=list(r.shape), distribution_shape=list(r.tensor_topology().distribution_shape()))
        except Exception as err:
            case.update(error=words(err))
        out.append(case)
    return out


def topology_names(md) -> dict:
    """The keyword names ttnn.TensorTopology's constructor takes (its pybind signature), and a call by them."""
    doc = ttnn.TensorTopology.__init__.__doc__ or ""
    signature = doc.strip().splitlines()[0]
    names = [part.split(":")[0].strip() for part in signature[signature.index("(") + 1 : signature.rindex(")")].split(",") if ":" in part]
    t = ttnn.TensorTopology(distribution_shape=ttnn.MeshShape([2]), placements=[ttnn.PlacementShard(0)],
                            mesh_coords=[ttnn.MeshCoordinate(0, 0), ttnn.MeshCoordinate(0, 1)])
    return {"arguments": [n for n in names if n != "self"], "by_keyword": [list(c) for c in t.mesh_coords()]}


def main() -> None:
    md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    data = {"ttnn_version": ttnn.__version__ if hasattr(ttnn, "__version__") else "0.81.1",
            "recorded_by": "tools/golden/record_userwrites.py",
            "rank0": rank0(md), "reshape": reshape(md), "tensor_topology": topology_names(md)}
    ttnn.close_mesh_device(md)
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
