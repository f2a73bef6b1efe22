#!/usr/bin/env python3
"""Record the physical device id at every mesh coordinate, as the real ttnn says, for every system
with a mock cluster descriptor and every mesh shape it opens: tests/golden/ttnn_<version>_device_ids.json
(read by tests/sim/test_device_ids.py; docs/semantics.md section 17).

Runs the real library on this CPU in mock mode (no hardware), under whichever ttnn the venv holds
(0.81.1, 0.67.0 and 0.66.0 open a mock mesh): one file per version. From the repository root:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh          # or /tmp/ttnn-mock-0.67.0/env.sh, -0.66.0
    MESHSPEC_CLUSTERS=../shared/ttnn-mock/clusters python tools/golden/record_device_ids.py

For each system (its descriptor, as tools/golden/record_ttnn.py names them) it asks every shape that
could open: lines of 1..N devices written (n), (1, n) and (n, 1), and every 2-D (r, c) that fits the
system mesh as it is or rotated; a shape that fails keeps the library's error. On the T3K it also
records what MeshDevice.reshape and create_submesh(es) do to the ids, and the order of
get_device_tensors against tensor_topology().mesh_coords() (storage order). Each system also keeps its
descriptor's ethernet links (chip pairs), read from the descriptor itself. A descriptor is read
once per process, so each system runs in a child process (``--system NAME --out FILE``, internal).
The output is deterministic.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

import ttnn  # noqa: E402
import yaml  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_ttnn import CLUSTERS, SYSTEM_CLUSTERS, dumps, error_text  # noqa: E402

SCRIPT = Path(__file__).resolve()
REPO = SCRIPT.parents[2]
RECORDED_BY = "tools/golden/record_device_ids.py"

#: The system mesh of each descriptor (what open_mesh_device() opens: tests/golden ttnn_0_81_1.json "systems").
HOME = {"n150": (1, 1), "n300": (2, 1), "t3k": (2, 4), "galaxy": (8, 4), "p150": (1, 1), "p150x4": (2, 2),
        "p150x8": (2, 4), "bh-galaxy": (8, 4)}


def candidate_shapes(home):
    """Every shape worth asking of a system mesh ``home``: the default (None), lines of 1..N written
    three ways, and every 2-D shape that fits as it is or rotated."""
    rows, cols = home
    n = rows * cols
    out = [None]
    for k in range(1, n + 1):
        out += [(k,), (1, k)] + ([(k, 1)] if k > 1 else [])
    for r in range(2, max(rows, cols) + 1):
        for c in range(2, max(rows, cols) + 1):
            if (r <= rows and c <= cols) or (r <= cols and c <= rows):
                out.append((r, c))
    return out


def opened_ids(shape):
    mesh_device = ttnn.open_mesh_device(None if shape is None else ttnn.MeshShape(list(shape)))
    try:
        return list(mesh_device.shape), [int(i) for i in mesh_device.get_device_ids()]
    finally:
        ttnn.close_mesh_device(mesh_device)


def play_system(system, out_path):
    rows = []
    for shape in candidate_shapes(HOME[system]):
        row = {"shape": None if shape is None else list(shape)}
        try:
            opened, ids = opened_ids(shape)
            row |= {"opened": opened, "device_ids": ids}
        except RuntimeError as exc:
            row["error"] = error_text(exc)
        rows.append(row)
    out = {"system": system, "descriptor": SYSTEM_CLUSTERS[system].split("/")[-1], "links": descriptor_links(system),
           "shapes": rows}
    if system == "t3k":
        out |= {"reshape": record_reshapes(RESHAPES), "submeshes": record_submeshes(), "storage_order": record_storage_order(),
                "submesh_reshapes": record_submesh_reshapes()}
    elif system in GALAXY_RESHAPES:
        out |= {"reshape": record_reshapes(GALAXY_RESHAPES[system])}
    Path(out_path).write_text(json.dumps(out))


def descriptor_links(system):
    """The descriptor's ethernet links as sorted [chip, chip] pairs (a pair with several channels once)."""
    text = (CLUSTERS / SYSTEM_CLUSTERS[system]).read_text()
    pairs = (yaml.safe_load(text).get("ethernet_connections") or [])
    return sorted({tuple(sorted((a["chip"], b["chip"]))) for a, b in pairs})


# --- T3K: reshape, submeshes, storage order --------------------------------------------------------

RESHAPES = [((2, 4), (1, 8)), ((2, 4), (8,)), ((2, 4), (4, 2)), ((1, 8), (2, 4)), ((1, 8), (8, 1)), ((2, 4), (8, 1)),
            ((2, 4), (1, 4, 2))]

#: The galaxies' own mesh (8x4) reshaped (issue #26118: 2x16 and 16x2 are refused, "too big and is
#: not rotatable"; meshspec crashed on them before).
GALAXY_RESHAPES = {system: [((8, 4), to) for to in ((2, 16), (16, 2), (4, 8), (1, 32), (32,), (8, 4), (2, 8, 2))]
                   for system in ("galaxy", "bh-galaxy")}


def reshaped(mesh, to, row):
    """``row`` with ``mesh``'s ids before and after ``mesh.reshape(to)``, or the refusal's words."""
    row["before"] = [int(i) for i in mesh.get_device_ids()]
    try:
        mesh.reshape(ttnn.MeshShape(list(to)))
        row["after"] = [int(i) for i in mesh.get_device_ids()]
    except RuntimeError as exc:
        row["error"] = error_text(exc)
    return row


def record_reshapes(cases):
    rows = []
    for start, to in cases:
        mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(list(start)))
        rows.append(reshaped(mesh_device, to, {"open": list(start), "reshape": list(to)}))
        ttnn.close_mesh_device(mesh_device)
    return rows


def record_submeshes():
    rows = []
    mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    for shape in ((2, 2), (1, 4), (2, 1), (1, 2)):
        subs = mesh_device.create_submeshes(ttnn.MeshShape(list(shape)))
        rows.append({"create_submeshes": list(shape), "device_ids": [[int(i) for i in s.get_device_ids()] for s in subs]})
    sub = mesh_device.create_submesh(ttnn.MeshShape(2, 2), ttnn.MeshCoordinate(0, 1))
    rows.append({"create_submesh": [2, 2], "offset": [0, 1], "device_ids": [int(i) for i in sub.get_device_ids()]})
    try:  # PR #18319's fix: the 2x2 submesh reshaped to a line
        sub2 = mesh_device.create_submeshes(ttnn.MeshShape(2, 2))[0]
        before = [int(i) for i in sub2.get_device_ids()]
        sub2.reshape(ttnn.MeshShape(1, 4))
        rows.append({"create_submeshes": [2, 2], "first_reshaped_to": [1, 4], "before": before,
                     "after": [int(i) for i in sub2.get_device_ids()]})
    except RuntimeError as exc:
        rows.append({"create_submeshes": [2, 2], "first_reshaped_to": [1, 4], "error": error_text(exc)})
    ttnn.close_mesh_device(mesh_device)
    return rows


#: (submesh shape, offset, reshaped to) on a 2x4 T3K: a submesh reshaped to a 2-D grid must be the
#: block of the system mesh at its offset (rotated or not) and hold the same chips; a line always goes.
SUBMESH_RESHAPES = [((1, 4), (0, 0), (2, 2)), ((1, 4), (1, 0), (2, 2)), ((1, 4), (0, 0), (4, 1)), ((1, 4), (0, 0), (4,)),
                    ((2, 2), (0, 0), (1, 4)), ((2, 2), (0, 2), (4, 1)), ((2, 2), (0, 1), (1, 4)), ((2, 2), (0, 0), (2, 2)),
                    ((1, 2), (0, 0), (2, 1)), ((2, 1), (0, 3), (1, 2)), ((2, 4), (0, 0), (4, 2))]


def record_submesh_reshapes():
    rows = []
    mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    for shape, offset, to in SUBMESH_RESHAPES:
        sub = mesh_device.create_submesh(ttnn.MeshShape(list(shape)), ttnn.MeshCoordinate(list(offset)))
        rows.append(reshaped(sub, to, {"create_submesh": list(shape), "offset": list(offset), "reshape": list(to)}))
    ttnn.close_mesh_device(mesh_device)
    return rows


def host_tensor(n):
    data = [float(i) for i in range(n * 32)]
    return ttnn.Tensor(data, [1, n, 1, 32], ttnn.float32, ttnn.ROW_MAJOR_LAYOUT)


def record_storage_order():
    """A (1, 8, 1, 32) float32 arange tensor sharded on dim 1 (8 shards, shard i starts at 32*i) onto
    a 2x4 and a 1x8 T3K: per part of get_device_tensors (on the host copy, where values are real),
    its first value, and the topology's mesh_coords()."""
    rows = []
    for shape in ((2, 4), (1, 8)):
        mesh_device = ttnn.open_mesh_device(ttnn.MeshShape(list(shape)))
        mapper = ttnn.shard_tensor_to_mesh_mapper(mesh_device, 1)
        host = ttnn.distribute_tensor(host_tensor(8), mapper, None)
        device = ttnn.to_device(host, mesh_device)
        row = {"mesh": list(shape), "device_ids": [int(i) for i in mesh_device.get_device_ids()],
               "host_mesh_coords": [list(c) for c in host.tensor_topology().mesh_coords()],
               "host_part_first_values": [float(p.to_numpy().flatten()[0]) for p in ttnn.get_device_tensors(host)],
               "device_mesh_coords": [list(c) for c in device.tensor_topology().mesh_coords()]}
        if hasattr(device, "device_coords"):
            row["device_coords"] = [list(c) for c in device.device_coords()]
        ttnn.close_mesh_device(mesh_device)
        rows.append(row)
    return rows


# --- driver ----------------------------------------------------------------------------------------

def record_system(system):
    env = dict(os.environ, TT_METAL_MOCK_CLUSTER_DESC_PATH=str((CLUSTERS / SYSTEM_CLUSTERS[system]).resolve()))
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out, tempfile.TemporaryDirectory() as scratch:
        child = subprocess.run([sys.executable, str(SCRIPT), "--system", system, "--out", out.name],
                               capture_output=True, text=True, env=env, cwd=scratch)
        if child.returncode != 0:
            sys.exit(f"system {system!r} failed:\n{child.stdout[-3000:]}\n{child.stderr[-3000:]}")
        return json.loads(out.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--system", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--only", default=",".join(SYSTEM_CLUSTERS), help="systems to record (comma-separated)")
    options = parser.parse_args()
    if options.system:
        play_system(options.system, options.out)
        return
    version = importlib.metadata.version("ttnn")
    target = REPO / "tests" / "golden" / f"ttnn_{version.replace('.', '_')}_device_ids.json"
    systems = [record_system(s) for s in options.only.split(",")]
    golden = {"ttnn_version": version, "recorded_by": RECORDED_BY,
              "about": "Per system (its mock cluster descriptor): every shape asked of open_mesh_device, the mesh opened "
                       "and get_device_ids() (row-major over the mesh's coordinates), or the library's error; on the t3k and the galaxies, "
                       "MeshDevice.reshape, submeshes and the storage order of a sharded tensor.",
              "systems": systems}
    target.write_text(dumps(golden) + "\n")
    print(f"wrote {target}: {sum(len(s['shapes']) for s in systems)} shapes", file=sys.stderr)


if __name__ == "__main__":
    main()
