#!/usr/bin/env python3
"""Record what a ttnn tensor file keeps per shard and what a load of it gives, for
tests/sim/test_golden_tensor_files.py (docs/semantics.md section 20).

Each case builds a float32 host tensor of arange data (a shard's first value names the slice it
holds), maps it over a mock T3K (2x4), dumps it with ``ttnn.dump_tensor`` and loads it back with
``ttnn.load_tensor`` on host and, where the version opens a mock mesh, with ``device=``. It records
each shard's first value (host), and for a device load the topology and the device coordinates (the
mock reads device memory as zeros, so a device load's values cannot be observed). The ``as_tensor``
case runs the tensor cache on host twice (a miss, then a hit with another mapper). Deterministic.
Run in each ttnn venv, in mock mode:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_tensor_files.py     # adds this version to tests/golden/ttnn_tensor_files.json

ttnn.as_tensor imports torch, which has no Python 3.10 wheel here: the stand-in in
tools/import-examples/torch_stub.py is installed after ttnn is imported, and the data is handed over
as a ttnn host tensor (as_tensor converts with from_torch, which takes one as it is).
"""

import importlib.metadata
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "golden" / "ttnn_tensor_files.json"

import numpy as np  # noqa: E402
import ttnn  # noqa: E402


def arange(shape):
    return ttnn.Tensor(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape), ttnn.float32, None, ttnn.ROW_MAJOR_LAYOUT)


def placement(p):
    return ttnn.PlacementReplicate() if p == "R" else ttnn.PlacementShard(p)


MESH = {}
"""The mock T3K, once opened (0.66 and 0.67 make a mapper for a mesh device only)."""


def mapper(placements, override=None):
    config = ttnn.MeshMapperConfig([placement(p) for p in placements], *([ttnn.MeshShape(override)] if override else []))
    return ttnn.create_mesh_mapper(MESH.get("device") or ttnn.MeshShape(2, 4), config)


def mapped(shape, placements, override=None):
    return ttnn.distribute_tensor(arange(shape), mapper(placements, override), None)


def first_value(part):
    return float(np.asarray(part.to_numpy()).reshape(-1)[0])


def topology(t):
    topo = t.tensor_topology()
    return {"distribution_shape": list(topo.distribution_shape()), "placements": [str(p) for p in topo.placements()],
            "coords": [list(c) for c in topo.mesh_coords()]}


def host_view(t):
    return {"topology": topology(t), "first_values": [first_value(p) for p in ttnn.get_device_tensors(t)]}


def device_view(t):
    coords = [list(c) for c in t.device_coords()] if hasattr(t, "device_coords") else None
    return {"topology": topology(t), "device_coords": coords}


def relabel(t, placements, distribution):
    """The same shards under another label (update_tensor_topology, PR #39485): a label that says
    devices hold copies of one another though they hold different slices."""
    coords = [ttnn.MeshCoordinate(c) for c in t.tensor_topology().mesh_coords()]
    t.update_tensor_topology(ttnn.TensorTopology(ttnn.MeshShape(distribution), [placement(p) for p in placements], coords))
    return t


CASES = {
    # name -> (what it is, the tensor to dump)
    "sharded_8": ("(1, 8, 32, 32) sharded on dim 1 over (8)", lambda: mapped((1, 8, 32, 32), [1], [8])),
    "sharded_2d": ("(1, 1, 64, 128) sharded [S(2), S(3)] on 2x4", lambda: mapped((1, 1, 64, 128), [2, 3])),
    "replicated": ("(1, 1, 32, 32) replicated [R, R] on 2x4", lambda: mapped((1, 1, 32, 32), ["R", "R"])),
    "plain": ("(1, 1, 32, 32), no mapper: one shard", lambda: arange((1, 1, 32, 32))),
    "sharded_labelled_replicated": ("(1, 8, 32, 32) sharded on dim 1, then labelled (8) [R]",
                                    lambda: relabel(mapped((1, 8, 32, 32), [1], [8]), ["R"], [8])),
    "sharded_2d_labelled_replicate_rows": ("(1, 1, 64, 128) sharded [S(2), S(3)], then labelled (2, 4) [R, S(3)]",
                                           lambda: relabel(mapped((1, 1, 64, 128), [2, 3]), ["R", 3], [2, 4])),
    "replicated_labelled_sharded": ("(1, 1, 32, 32) replicated [R, R], then labelled (2, 4) [S(2), S(3)]",
                                    lambda: relabel(mapped((1, 1, 32, 32), ["R", "R"]), [2, 3], [2, 4])),
}


def record_case(folder, name, make, mesh_device):
    try:
        t = make()
    except (RuntimeError, AttributeError, TypeError) as exc:  # a call this version lacks
        return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}
    path = str(Path(folder) / f"{name}.tensorbin")
    ttnn.dump_tensor(path, t)
    seen = {"dumped": host_view(t), "file_bytes": os.path.getsize(path), "host_load": host_view(ttnn.load_tensor(path))}
    if mesh_device is not None:
        seen["device_load"] = device_view(ttnn.load_tensor(path, device=mesh_device))
    return seen


def record_as_tensor(folder):
    """The tensor cache on host: a miss sharded on dim 1 dumps the file, a hit asking for a
    replication loads it (the file name has neither mapper in it)."""
    sys.path.insert(0, str(ROOT / "tools" / "import-examples"))
    import torch_stub

    torch_stub.install()
    name = str(Path(folder) / "weights")
    out = {}
    for call, placements in (("miss", [1]), ("hit", ["R", "R"])):
        try:
            t = ttnn.as_tensor(np.arange(8 * 32 * 32, dtype=np.float32).reshape(1, 8, 32, 32), ttnn.float32, layout=ttnn.ROW_MAJOR_LAYOUT, mesh_mapper=mapper(placements, [8] if placements == [1] else None),
                               cache_file_name=name)
        except Exception as exc:  # noqa: BLE001 - recorded as data
            return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"}
        out[call] = host_view(t)
    out["files"] = sorted(p.name for p in Path(folder).iterdir() if p.name.startswith("weights"))
    return out


def memory(t):
    """A tensor's memory config as plain data: layout, buffer type, and the shard spec if any."""
    config = t.memory_config()
    out = {"memory_layout": str(config.memory_layout).split(".")[-1].split("::")[-1].lower(),
           "buffer_type": str(config.buffer_type).split(".")[-1].split("::")[-1].lower()}
    spec = config.shard_spec
    if spec is not None:
        out["shard_spec"] = {"grid": [[[r.start.x, r.start.y], [r.end.x, r.end.y]] for r in spec.grid.ranges()],
                             "shape": list(spec.shape), "orientation": str(spec.orientation).split(".")[-1].split("::")[-1].lower()}
    return out


def record_dram_sharded(folder, mesh_device):
    """Issue #26763's weight, (256, 128) instead of (7168, 128): WIDTH_SHARDED over the 12 DRAM banks
    in shards of (256, 32), put on every device of the mesh, dumped and loaded back onto it (PR
    #26831 made the load keep the config); and the names dump_tensor refuses (the issue wrote
    ``tmp.ttnn``)."""
    grid = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(11, 0))})
    config = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.WIDTH_SHARDED, ttnn.BufferType.DRAM,
                               ttnn.ShardSpec(grid, [256, 32], ttnn.ShardOrientation.ROW_MAJOR))
    weight = ttnn.to_device(ttnn.Tensor(np.zeros((256, 128), dtype=np.float32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT),
                            mesh_device, config)
    path = str(Path(folder) / "weight.tensorbin")
    ttnn.dump_tensor(path, weight)
    out = {"what": "(256, 128) bfloat16 TILE, WIDTH_SHARDED DRAM over 12 banks, (256, 32) shards, dumped and loaded",
           "dumped": memory(weight), "device_load": memory(ttnn.load_tensor(path, device=mesh_device)),
           "host_load": memory(ttnn.load_tensor(path)), "refused_names": {}}
    for name in ("tmp.ttnn", "tmp"):
        try:
            ttnn.dump_tensor(str(Path(folder) / name), weight)
        except RuntimeError as exc:
            out["refused_names"][name] = str(exc).replace(str(folder) + os.sep, "")
    return out


def main():
    version = importlib.metadata.version("ttnn")
    try:
        mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    except Exception:  # noqa: BLE001 - a version that cannot open a mock mesh records host loads only
        mesh_device = None
    MESH["device"] = mesh_device
    with tempfile.TemporaryDirectory() as folder:
        cases = {name: {"what": what} | record_case(folder, name, make, mesh_device) for name, (what, make) in CASES.items()}
        with tempfile.TemporaryDirectory() as cache:
            cases["as_tensor_cache"] = {"what": "as_tensor on host: a miss sharded on dim 1, then a hit asking for [R, R]"} | \
                record_as_tensor(cache)
        if mesh_device is not None:
            cases["dram_width_sharded"] = record_dram_sharded(folder, mesh_device)
    golden = json.loads(OUT.read_text()) if OUT.exists() else {}
    golden[version] = cases
    OUT.write_text(json.dumps(dict(sorted(golden.items())), indent=1) + "\n")
    print(f"{version}: {len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
