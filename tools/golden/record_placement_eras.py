"""Record what three releases of the real ttnn say about per-core sharded placement, as golden data
for meshspec's placement eras (docs/semantics.md section 16).

Runs the real library on this CPU in mock mode (the mock T3K cluster descriptor; no hardware) and
merges what the active ttnn version says into tests/golden/ttnn_placement_eras.json, under its
version. Run it once per version, from the repository root:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh && python tools/golden/record_placement_eras.py         # 0.81.1
    source ${TMPDIR:-/tmp}/ttnn-mock-0.67.0/env.sh && python tools/golden/record_placement_eras.py  # 0.67.0
    source ${TMPDIR:-/tmp}/ttnn-mock-0.66.0/env.sh && python tools/golden/record_placement_eras.py  # 0.66.0

Host tensors are made with the flat-list constructor ``ttnn.Tensor(values, shape, dtype, layout)``
(0.66 and 0.67 misread numpy arrays; torch is not installed); a mapped host tensor with
``distribute_tensor(create_mesh_mapper(...))``. Each mesh shape runs in a child process of its own
(`--child ROWS,COLS --out FILE`, internal), in a scratch directory. An error is recorded as its
``info`` line and the source file:line that raised it (paths cut after ``/project/``). The output is
deterministic. The case lists below are the data: edit them, re-run for every version, commit both.

What is recorded, per mesh shape (1x1 and 2x4) and case:

- ``to_device`` / ``copy``: a ROW_MAJOR bfloat16 host tensor (plain, mapped with Shard(3) over every
  device, or replicated) put with ``ttnn.to_device(host, mesh, memory_config)``, or copied with
  ``copy_host_to_device_tensor`` into a tensor allocated with the same memory config: the error, or
  the device tensor's logical and padded shape;
- ``allocate``: ``allocate_tensor_on_device(TensorSpec(...))``: the padded shape, or the error;
- ``grids``: a TILE (1,1,128,64) bfloat16 host tensor put in height shards of 32x64 (or an ND spec)
  on grids the later releases refuse (DRAM cores off row 0, cores with no bank) or over-provision:
  the error, or the recorded shard grid.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve()
REPO = SCRIPT.parents[2]
OUTPUT = REPO / "tests" / "golden" / "ttnn_placement_eras.json"
MESHES = ((1, 1), (2, 4))

HEIGHT_32 = {"layout": "height_sharded", "buffer_type": "l1", "grid": [[0, 0], [1, 0]], "shard": [32, 32]}
WIDTH_96 = {"layout": "width_sharded", "buffer_type": "l1", "grid": [[0, 0], [1, 0]], "shard": [1, 64]}

#: ROW_MAJOR transfers: name -> (host shape per device, how the host is made, call, memory config).
TRANSFERS = {
    "width_uneven_plain_to_device": ([1, 1, 1, 96], "plain", "to_device", WIDTH_96),
    "width_uneven_mapped_to_device": ([1, 1, 1, 96], "mapped", "to_device", WIDTH_96),
    "width_uneven_replicated_to_device": ([1, 1, 1, 96], "replicated", "to_device", WIDTH_96),
    "width_uneven_plain_tensor_to": ([1, 1, 1, 96], "plain", "to", WIDTH_96),
    "width_uneven_plain_copy": ([1, 1, 1, 96], "plain", "copy", WIDTH_96),
    "width_uneven_mapped_copy": ([1, 1, 1, 96], "mapped", "copy", WIDTH_96),
    "width_even_plain_to_device": ([1, 1, 1, 128], "plain", "to_device", WIDTH_96),
    "block_uneven_plain_to_device": ([1, 1, 64, 96], "plain", "to_device",
                                     {"layout": "block_sharded", "buffer_type": "l1", "grid": [[0, 0], [1, 1]], "shard": [32, 64]}),
    "height_uneven_plain_to_device": ([1, 1, 96, 1], "plain", "to_device",
                                      {"layout": "height_sharded", "buffer_type": "l1", "grid": [[0, 0], [1, 0]], "shard": [64, 1]}),
    # height shards wider than the rows (issue #22947: a conv input's 30 channels in 32-wide shards)
    "height_padded_plain_to_device": ([1, 1, 64, 30], "plain", "to_device", HEIGHT_32),
    "height_padded_mapped_to_device": ([1, 1, 64, 30], "mapped", "to_device", HEIGHT_32),
    "height_padded_plain_tensor_to": ([1, 1, 64, 30], "plain", "to", HEIGHT_32),
    "height_narrow_plain_to_device": ([1, 1, 64, 30], "plain", "to_device",
                                      {"layout": "height_sharded", "buffer_type": "l1", "grid": [[0, 0], [1, 0]], "shard": [32, 16]}),
    "height_exact_plain_to_device": ([1, 1, 64, 32], "plain", "to_device", HEIGHT_32),
    "width_padded_plain_to_device": ([1, 1, 32, 30], "plain", "to_device",
                                     {"layout": "width_sharded", "buffer_type": "l1", "grid": [[0, 0], [1, 0]], "shard": [32, 16]}),
}

#: Grids: name -> memory config of a TILE (1,1,128,64) tensor in 32x64 height shards (4 shards).
GRIDS = {
    "dram_two_rows": {"layout": "height_sharded", "buffer_type": "dram", "grid": [[0, 0], [1, 1]], "shard": [32, 64]},
    "dram_row_one": {"layout": "height_sharded", "buffer_type": "dram", "grid": [[0, 1], [3, 1]], "shard": [32, 64]},
    "dram_past_banks": {"layout": "height_sharded", "buffer_type": "dram", "grid": [[10, 0], [13, 0]], "shard": [32, 64]},
    "dram_nd_two_rows": {"nd": True, "buffer_type": "dram", "grid": [[0, 0], [1, 1]], "shard": [1, 1, 32, 64]},
    "l1_past_columns": {"layout": "height_sharded", "buffer_type": "l1", "grid": [[6, 0], [9, 0]], "shard": [32, 64]},
    "l1_past_rows": {"layout": "height_sharded", "buffer_type": "l1", "grid": [[0, 6], [0, 9]], "shard": [32, 64]},
    "l1_over_provisioned": {"layout": "height_sharded", "buffer_type": "l1", "grid": [[0, 0], [7, 7]], "shard": [32, 64]},
    "l1_block_over_provisioned": {"layout": "block_sharded", "buffer_type": "l1", "grid": [[0, 0], [3, 3]], "shard": [32, 32]},
}
GRID_SHAPE = [1, 1, 128, 64]


def error_json(exc) -> dict:
    """An error as data: its info line (the TT_FATAL's message) and the file:line that raised it."""
    text = str(exc)
    raised = re.search(r"@ (\S+):(\d+):", text)
    where = None if raised is None else re.sub(r"^.*?/project/", "", raised.group(1)) + ":" + raised.group(2)
    if "info:" in text:
        info = text.split("info:", 1)[1].split("backtrace:", 1)[0]
        message = " ".join(line.strip() for line in info.strip().splitlines())
    else:
        message = f"{type(exc).__name__}: {text.strip().splitlines()[0] if text.strip() else ''}"
    return {"error": message, "raised_in": where}


def child(mesh_shape: tuple[int, int]) -> dict:
    import ttnn

    mesh = ttnn.open_mesh_device(ttnn.MeshShape(*mesh_shape))
    n = mesh.get_num_devices()
    buffer_types = {"l1": ttnn.BufferType.L1, "dram": ttnn.BufferType.DRAM}
    layouts = {"height_sharded": ttnn.TensorMemoryLayout.HEIGHT_SHARDED, "width_sharded": ttnn.TensorMemoryLayout.WIDTH_SHARDED,
               "block_sharded": ttnn.TensorMemoryLayout.BLOCK_SHARDED}

    def grid(g):
        (x0, y0), (x1, y1) = g
        return ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(x0, y0), ttnn.CoreCoord(x1, y1))])

    def memory_config(mc):
        if mc.get("nd"):
            return ttnn.MemoryConfig(buffer_types[mc["buffer_type"]], ttnn.NdShardSpec(ttnn.Shape(mc["shard"]), grid(mc["grid"])))
        spec = ttnn.ShardSpec(grid(mc["grid"]), list(mc["shard"]), ttnn.ShardOrientation.ROW_MAJOR)
        return ttnn.MemoryConfig(layouts[mc["layout"]], buffer_types[mc["buffer_type"]], spec)

    def host(shape, how, layout):
        if how == "mapped":
            shape = shape[:-1] + [shape[-1] * n]
        made = ttnn.Tensor([float(i) for i in range(int(__import__("math").prod(shape)))], shape, ttnn.bfloat16, layout)
        if how == "plain":
            return made
        placement = ttnn.PlacementShard(3) if how == "mapped" else ttnn.PlacementReplicate()
        mapper = ttnn.create_mesh_mapper(mesh, ttnn.MeshMapperConfig([placement], ttnn.MeshShape([n])))
        return ttnn.distribute_tensor(made, mapper, None)

    def shapes(t):
        return {"error": None, "shape": list(t.shape), "padded_shape": list(t.padded_shape)}

    def grid_of(t):
        spec = t.memory_config().shard_spec
        return [[[r.start.x, r.start.y], [r.end.x, r.end.y]] for r in spec.grid.ranges()]

    out = {"transfers": {}, "allocate": {}, "grids": {}}
    for name, (shape, how, call, mc) in TRANSFERS.items():
        try:
            h = host(shape, how, ttnn.ROW_MAJOR_LAYOUT)
            if call == "to_device":
                result = shapes(ttnn.to_device(h, mesh, memory_config=memory_config(mc)))
            elif call == "to":
                result = shapes(h.to(mesh, memory_config(mc)))
            else:
                spec = ttnn.TensorSpec(ttnn.Shape(shape), ttnn.bfloat16, ttnn.ROW_MAJOR_LAYOUT, layouts[mc["layout"]],
                                       memory_config(mc).shard_spec, buffer_types[mc["buffer_type"]])
                dst = ttnn.allocate_tensor_on_device(spec, mesh)
                ttnn.copy_host_to_device_tensor(h, dst)
                result = shapes(dst)
        except (RuntimeError, TypeError, ValueError) as exc:
            result = error_json(exc)
        out["transfers"][name] = result
    for name, (shape, _, _, mc) in TRANSFERS.items():
        if name.endswith("plain_to_device"):
            try:
                spec = ttnn.TensorSpec(ttnn.Shape(shape), ttnn.bfloat16, ttnn.ROW_MAJOR_LAYOUT, layouts[mc["layout"]],
                                       memory_config(mc).shard_spec, buffer_types[mc["buffer_type"]])
                result = shapes(ttnn.allocate_tensor_on_device(spec, mesh))
            except (RuntimeError, TypeError, ValueError) as exc:
                result = error_json(exc)
            out["allocate"][name.replace("_plain_to_device", "")] = result
    for name, mc in GRIDS.items():
        try:
            t = ttnn.to_device(host(GRID_SHAPE, "plain", ttnn.TILE_LAYOUT), mesh, memory_config=memory_config(mc))
            result = {"error": None, "grid": grid_of(t)}
        except (RuntimeError, TypeError, ValueError) as exc:
            result = error_json(exc)
        out["grids"][name] = result
    ttnn.close_mesh_device(mesh)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, default=OUTPUT)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        args.out.write_text(json.dumps(child(tuple(int(x) for x in args.child.split(",")))))
        return
    version = importlib.metadata.version("ttnn")
    meshes = {}
    with tempfile.TemporaryDirectory() as scratch:
        for shape in MESHES:
            out = Path(scratch) / "out.json"
            subprocess.run([sys.executable, str(SCRIPT), "--child", ",".join(map(str, shape)), "--out", str(out)], cwd=scratch,
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
            meshes["x".join(map(str, shape))] = json.loads(out.read_text())
    golden = json.loads(args.golden.read_text()) if args.golden.exists() else {}
    golden["about"] = {  # the case lists as they are now (a case added since the last run is described too)
        "recorded_by": "tools/golden/record_placement_eras.py",
        "cases": {"transfers": {k: {"host_shape": v[0], "host": v[1], "call": v[2], "memory_config": v[3]} for k, v in TRANSFERS.items()},
                  "grids": {"host_shape": GRID_SHAPE, "layout": "tile", "memory_configs": GRIDS}},
        "format": "per version, per mesh (rows x cols), per case: {error, raised_in} or the result (shape, padded_shape; grid "
                  "as [[x0, y0], [x1, y1]] ranges)",
    }
    golden.setdefault("versions", {})[version] = meshes
    golden["versions"] = dict(sorted(golden["versions"].items()))
    args.golden.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"recorded ttnn {version} into {args.golden}")


if __name__ == "__main__":
    main()
