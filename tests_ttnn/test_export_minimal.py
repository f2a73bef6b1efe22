"""``meshspec export --minimal`` on the real ttnn (0.81.1, 0.67.0 or 0.66.0: conftest.VERSION; mock
mode; issue 37 item 4): the seed's script runs as it is, in an environment with no torch, and prints
the records the simulation reports under the version's profile: each tensor's storage, its topology (distribution shape, placements, coords),
the devices a device tensor records (``device_coords()``) and each shard's shape. Every bundled
scenario's script does the same, or stops with the error (or the crash) the simulation reports."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import PROFILE, ROOT, VERSION, run_mock
from meshspec.bridge.minimal import export_minimal
from meshspec.runner import run
from meshspec.scenario.loader import load

BUNDLED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "real-tests").glob("*.yaml"))


_FABRIC = ("ttnn.all_gather needs the fabric the script sets before the mesh opens, and with a fabric set the mock cannot open "
           "the mesh (it builds the fabric_erisc_router kernel); the script says so at its top")
_KERNEL = ("runs a device kernel, which the mock cannot compile (Failed to generate binaries ...; 0.67.0's mock dies there, SIGSEGV, "
           "and 0.66.0's runs some): the real run stops there")
#: scenario name -> why its minimal script's run differs from the simulation (tests_ttnn/test_export.py's KNOWN has the same causes).
KNOWN: dict[str, str] = {
    **dict.fromkeys(("all-gather-padding-2024", "all-gather-padding-window", "ring-all-gather-row-major", "submesh-ring-all-gather",
                     "reshape-line-order", "traced-decode-seed"), _FABRIC),
    "linear-2d-mesh-label": f"ttnn.linear {_KERNEL}",
    "galaxy-eltwise-mul-2d-fracture": f"ttnn.mul {_KERNEL}",
    "sharded-output-grid": f"ttnn.slice {_KERNEL}",
    "dump-after-reshape-first-shard": f"ttnn.reshape of a TILE tensor that moves tiles {_KERNEL}",
    "permute-composed-by-label": f"ttnn.permute {_KERNEL}",
    "multihost-write-pinning": "the mock runs one host: its 32 MiB write owns every device and pins no remote one, where the "
    "simulation's host 1 of two fails as issue #48477 says",
}

#: on 0.66.0 / 0.67.0, why a script's run differs where 0.81.1's agrees, or None where it agrees where
#: 0.81.1's does not (tests_ttnn/test_export.py VERSION_KNOWN has the same causes)
_MOCK_READ = ("it takes the DRAM grid at to_device (section 16), but the mock's read then refuses the core "
              "(get_dram_channel_from_logical_core: Bounds-Error); no rule models that read")
VERSION_KNOWN: dict[str, dict[str, str]] = {
    "0.81.1": {},
    "0.67.0": dict.fromkeys(("dram-grid-bank-aliasing", "shard-core-without-bank"), _MOCK_READ),
    # 0.66.0's mock runs these device ops (it builds no kernel for them), and the records they print agree (None)
    "0.66.0": {**dict.fromkeys(("dram-grid-bank-aliasing", "shard-core-without-bank"), _MOCK_READ),
               **dict.fromkeys(("dump-after-reshape-first-shard", "permute-composed-by-label", "sharded-output-grid",
                                "galaxy-eltwise-mul-2d-fracture"))},
}

COORD = re.compile(r"MeshCoordinate\(\[([\d, ]*)\]\)")


def _coords(text: str) -> list[list[int]]:
    return [[int(x) for x in m.split(",")] for m in COORD.findall(text)]


def printed_records(stdout: str) -> dict:
    """The records the script printed, per tensor, in the simulation report's terms.

    ``dst StorageType.DEVICE TensorTopology(distribution_shape=MeshShape([7]), placements=SmallVector([PlacementShard(1)]),
    mesh_coords=MeshCoordinate([0, 0]), ...)``, then ``  device_coords: [...]`` (device tensors) and ``  shapes: [[...], ...]``."""
    out: dict = {}
    name = None
    for line in stdout.splitlines():
        m = re.fullmatch(r"(\S+) StorageType\.(\w+) TensorTopology\(distribution_shape=MeshShape\(\[([\d, ]*)\]\), "
                         r"placements=SmallVector\(\[(.*)\]\), mesh_coords=(.*)\)", line)
        if m:
            name = m.group(1)
            placements = [{"shard": int(p)} if p.isdigit() else "R"
                          for p in re.findall(r"Placement(?:Shard\((\d+)\)|Replicate\(\))", m.group(4))]
            out[name] = {"storage": m.group(2).lower(),
                         "topology": {"distribution_shape": [int(x) for x in m.group(3).split(",")],
                                      "placements": placements, "coords": _coords(m.group(5))}}
        elif line.startswith("  device_coords: "):
            out[name]["recorded"] = _coords(line)
        elif line.startswith("  shapes: "):
            out[name]["shapes"] = eval(line.removeprefix("  shapes: "), {"__builtins__": {}})  # a list of int lists
    return out


def simulated_records(report: dict) -> dict:
    """The same records from meshspec's report: a host tensor's shards are those it holds, a device
    tensor's the devices it records (docs/semantics.md section 2)."""
    out = {}
    for t in report["tensors"]:
        recorded = [d for d in t["devices"] if d["recorded"]]
        records = {"storage": t["storage"], "topology": t["topology"],
                   "shapes": [d["spec"]["shape"] for d in recorded]}
        if t["storage"] == "device" and VERSION == "0.81.1":  # 0.66/0.67 have no device_coords() to print
            records["recorded"] = [d["coord"] for d in recorded]
        out[t["name"]] = records
    return out


def test_the_seeds_minimal_script_runs_and_prints_what_the_simulation_reports(tmp_path):
    scenario = load(ROOT / "scenarios" / "seed-uneven-copy.yaml")
    (tmp_path / "repro.py").write_text(export_minimal(scenario))
    result = run_mock(["python", "repro.py"], "t3k", tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    real = printed_records(result.stdout)
    simulated = simulated_records(run(scenario, PROFILE).to_json())
    assert sorted(real) == ["dst", "src"]
    assert real == simulated
    # by hand (docs/semantics.md section 1): 7 shards of dim 1, the copy records devices (0,0)..(1,2), not (1,3)
    if VERSION == "0.81.1":  # 0.66/0.67 have no device_coords() to print
        assert real["dst"]["recorded"] == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]]
    assert real["dst"]["shapes"] == [[1, 1, 32, 32]] * 7


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_minimal_script_prints_the_simulated_records_or_stops_where_the_simulation_does(path, tmp_path):
    scenario = load(path)
    text = export_minimal(scenario)
    (tmp_path / "repro.py").write_text(text)
    for data in scenario.files.values():
        shutil.copy(data, tmp_path / data.name)
    result = run_mock(["python", "repro.py"], scenario.mesh_name, tmp_path)
    report = run(scenario, PROFILE).to_json()
    error = report["error"]
    real = printed_records(result.stdout) if result.returncode == 0 else None
    simulated = simulated_records(report)
    if real is not None:
        simulated = {name: records for name, records in simulated.items() if name in real}
    agrees = (real == simulated) if error is None else (
        result.returncode < 0 or result.returncode > 128 if error.get("crash") else
        result.returncode == 1 and error["message"].split("; ")[0][:40] in result.stderr)  # ttnn's words, before meshspec's
    known = VERSION_KNOWN[VERSION].get(path.stem, KNOWN.get(path.stem))
    if known is not None:
        assert not agrees, f"{path.stem} now agrees with the real library: remove it from (VERSION_)KNOWN"
        pytest.xfail(known)
    assert agrees, f"exit {result.returncode}; simulated error: {error}\n{result.stdout[-1500:]}\n{result.stderr[-1500:]}"
    if error is None and "# Left out:" not in text:  # every tensor printed but list items and to_torch's numpy arrays
        numpy = {s.args.as_ for s in scenario.steps if s.op == "to_torch"}
        unprinted = set(simulated_records(report)) - set(real)
        assert all("[" in name or name in numpy for name in unprinted), sorted(unprinted)
