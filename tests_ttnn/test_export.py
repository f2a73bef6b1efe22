"""Issue 15 section 4, issue 37: every bundled scenario, exported (meshspec/bridge/export.py) and run
on the real ttnn in mock mode (0.81.1, 0.67.0 or 0.66.0: conftest.VERSION), reports the same records
as the simulation under ``current``.

A difference is fixed or listed with its cause, and the cause is checked, so the lists stay true: a
listed scenario that agrees fails. Where the mock cannot run a step (KNOWN), the real run must show
the listed words; where a version records otherwise than 0.81.1 (RULE_DIFFERENCES), the simulation
under the version's built-in profile (conftest.PROFILE, ``ttnn-<version>``), which differs from
``current`` in the named rules, must agree with the real report. Device values are not compared: the mock reads zeros (observe.py
reports values on hardware only)."""

import json
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import ROOT, VERSION, absent_names, run_mock, version_profile, version_view
from meshspec.bridge.export import ABSENT_IN, export
from meshspec.judge.diff import diff_reports
from meshspec.render.diff import render_diff
from meshspec.runner import run
from meshspec.scenario.loader import load

BUNDLED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "real-tests").glob("*.yaml"))


class Known(NamedTuple):
    """Why a scenario's real run differs from the simulation, and words its run shows for it (in the
    script's stderr or the real or simulated error: the test checks them, so the cause cannot go stale)."""

    cause: str
    words: str


#: what a version says when a mesh opens with a fabric in the mock (its router cannot be built):
#: tools/ttnn-tier probes, docs/semantics.md section 10
FABRIC_WORDS = {
    "0.81.1": "Failed to generate binaries for fabric_erisc_router",
    "0.67.0": "querying num initialized routers for an unknown device",
    "0.66.0": "querying num initialized routers for an unknown device",  # then SIGABRT: no error raised
}
_FABRIC = Known("its collectives need the fabric, set up as tt-metal's tests do (ttnn.set_fabric_config before the mesh opens); "
                "in the mock the mesh does not open with a fabric (its router kernel cannot be built), and the script says so "
                "before any step", FABRIC_WORDS[VERSION])

#: scenario name -> why the mock cannot run it on any version (device kernels, the fabric, one host)
KNOWN: dict[str, Known] = {
    **dict.fromkeys(
        ("all-gather-async-label", "all-gather-async-padding", "all-gather-padding-2024", "all-gather-padding-window",
         "ring-all-gather-row-major", "submesh-ring-all-gather", "reshape-line-order", "traced-decode-seed"), _FABRIC),
    # device kernels the mock cannot compile (Failed to generate binaries ...): the real run stops at the op
    "linear-2d-mesh-label": Known("ttnn.linear runs a device kernel, which the mock cannot compile: the real run stops there",
                                  "Failed to generate binaries"),
    "galaxy-eltwise-mul-2d-fracture": Known("ttnn.mul runs a device kernel (eltwise_binary_sfpu_no_bcast), which the mock cannot "
                                            "compile: the real run stops there", "Failed to generate binaries"),
    "sharded-output-grid": Known("ttnn.slice runs a device kernel (writer_unary_interleaved_start_id), which the mock cannot compile",
                                 "Failed to generate binaries"),
    "dump-after-reshape-first-shard": Known("ttnn.reshape of a TILE tensor that moves tiles runs a device kernel (writer_reshape_tiled), "
                                            "which the mock cannot compile", "Failed to generate binaries"),
    "permute-composed-by-label": Known("ttnn.permute runs a device kernel (transpose_wh), which the mock cannot compile",
                                       "Failed to generate binaries"),
    # the mock runs one host (docs/semantics.md section 15): a multi-host scenario's errors are not the mock's
    "multihost-graph-capture": Known("graph capture traces to_device with torch, which the mock's Python 3.10 environment lacks",
                                     "No module named 'torch'"),
    "multihost-write-pinning": Known("the mock runs one host: its 32 MiB write owns every device and pins no remote one, where the "
                                     "simulation's host 1 of two fails as issue #48477 says", "Cannot get device for remote device"),
}

_OLD = ("0.67.0", "0.66.0")
_KILLED = "killed by a signal"  # 0.66/0.67: a device op whose kernel the mock cannot build kills the process (SIGSEGV)

#: version -> scenario -> why that version's real run differs where 0.81.1's agrees or differs otherwise
#: (observed in the tier; no profile rule models these: they are listed, not fixed); None: a scenario
#: KNOWN lists that agrees on that version
VERSION_KNOWN: dict[str, dict[str, Known | None]] = {
    "0.81.1": {},
    "0.67.0": {
        **{name: Known(KNOWN[name].cause.split(", which")[0] + ": there its kernel build kills the process (SIGSEGV) instead of "
                       "raising", _KILLED)
           for name in ("linear-2d-mesh-label", "galaxy-eltwise-mul-2d-fracture", "sharded-output-grid", "dump-after-reshape-first-shard",
                        "permute-composed-by-label")},
        "multihost-graph-capture": Known("graph capture of to_device kills the process (SIGSEGV) there", _KILLED),
    },
    # 0.66.0's mock runs these device ops (it builds no kernel for them), and their records agree
    "0.66.0": {
        **dict.fromkeys(("linear-2d-mesh-label", "galaxy-eltwise-mul-2d-fracture", "permute-composed-by-label",
                         "multihost-graph-capture")),
        # it runs these too, and their records agree but for where the op's output is allocated
        "dump-after-reshape-first-shard": Known("ttnn.reshape runs there; the tensor loaded after it lands 64 bytes past where 0.81.1's "
                                                "allocator order puts it (no profile rule holds addresses)", "address: 1056832 -> 8288"),
        "sharded-output-grid": Known("ttnn.slice runs there; its L1 output lands 8192 bytes lower than 0.81.1's (no profile rule holds "
                                     "addresses)", "address: 1490944 -> 1482752"),
    },
}
for _version in _OLD:
    VERSION_KNOWN[_version] |= {
        "combine-round-trip": Known("no device_coords() there: the observer takes a tensor's devices from its topology, which for "
                                    "combine_device_tensors' flat positions, (3) on (0,0) (0,1) (0,2), are not the devices its parts "
                                    "came from, (0,1) (1,0) (1,2); under current dst's topology differs too, which the version's profile "
                                    "explains (handles: copied, docs/semantics.md section 23)",
                                    "topology: (3) [S(0)] on 3 devices -> (7) [S(1)] on 7 devices"),
        "dram-grid-bank-aliasing": Known("it takes the grid at to_device (dram_grid_rows: aliased, section 16), but the mock's read then "
                                         "maps each DRAM shard core to its channel, which checks it (get_dram_channel_from_logical_core); "
                                         "on hardware issue #51503 read another core's shard back: which the mock's refusal is, the "
                                         "version's or the mock's, is not known, so no rule models the read",
                                         "Bounds-Error -- Logical_core=(x=0,y=1) is outside of logical_grid_size=(x=12,y=1)"),
        "shard-core-without-bank": Known("it takes the grid at to_device (bank_check: unchecked, section 16), but the mock's read then "
                                         "refuses the core as above (on hardware PR #53263 saw such reads abort or give wrong data): no "
                                         "rule models the read",
                                         "Bounds-Error -- Logical_core=(x=12,y=0) is outside of logical_grid_size=(x=12,y=1)"),
        "nd-round-robin": Known("0.66/0.67 have no ND_SHARDED memory layout: an ND-sharded tensor's memory config says "
                                "BLOCK_SHARDED beside its nd_shard_spec (observed); the spec agrees, no rule relabels it",
                                "-> l1 block_sharded 32x64 on (0,0)-(3,0)"),
    }

#: version -> scenario -> the rules in which that version (its built-in profile) records it otherwise
#: than 0.81.1 (the simulation with them changed must agree with the real report)
RULE_DIFFERENCES: dict[str, dict[str, tuple[str, ...]]] = {
    "0.81.1": {},
    **dict.fromkeys(_OLD, {
        "partial-then-full": ("copy",),  # a full copy after a partial one records all 8 devices there
        "uneven-row-major-width-shards": ("uneven_row_major_shards",),  # section 16
        "height-shard-padded-width": ("uneven_row_major_shards",),  # section 16 (#22947)
        "reshape-alias-deallocate": ("freed_transfer",),  # cpu() of a freed buffer raises there (section 23)
        "use-after-deallocate": ("freed_transfer",),
        "submesh-copy": ("host_buffer_shape",),  # to_device of a 1x4 buffer onto the 2x4 parent refused up front (section 23)
    }),
}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_export_runs_on_the_real_library_and_agrees(path, tmp_path):
    scenario = load(path)
    script = tmp_path / "repro.py"
    script.write_text(export(scenario))
    for data in scenario.files.values():
        shutil.copy(data, tmp_path / data.name)
    result = run_mock(["python", str(script), str(tmp_path / "real.json")], scenario.mesh_name, tmp_path)
    known = VERSION_KNOWN[VERSION].get(path.stem, KNOWN.get(path.stem))
    absent = absent_names(script.read_text())
    if absent:  # the script says so first, in one line, and runs nothing
        assert result.returncode == 1 and f"this script calls {', '.join(absent)}, which ttnn {VERSION} has not" in result.stderr, \
            result.stderr[-2000:]
        assert not (tmp_path / "real.json").exists()
        pytest.xfail(f"ttnn {VERSION} has no {', '.join(absent)}: the script says so before any step")
    if known is not None and not (tmp_path / "real.json").exists():
        assert known.words in result.stderr, f"{path.stem}: {known.words!r} not in:\n{result.stderr[-2000:]}"
        pytest.xfail(known.cause)
    assert (tmp_path / "real.json").exists(), f"no report (exit {result.returncode}):\n{result.stderr[-2000:]}"
    real = json.loads((tmp_path / "real.json").read_text())
    simulated, real = version_view(run(scenario, "current").to_json(), real)
    d = diff_reports(simulated, real, "simulated", "real")
    rules = RULE_DIFFERENCES[VERSION].get(path.stem)
    if known is not None or rules:
        assert not d.equal, f"{path.stem} now agrees with the real ttnn {VERSION}: remove it from (VERSION_)KNOWN or RULE_DIFFERENCES"
    if known is not None:
        said = result.stderr + json.dumps(real["error"]) + json.dumps(simulated["error"]) + render_diff(d, width=200)
        assert known.words in said, f"{path.stem}: {known.words!r} not in the run's errors"
        pytest.xfail(known.cause)
    if rules:  # the named rules, and they alone, explain the difference
        name = version_profile(rules)
        simulated, _ = version_view(run(scenario, name).to_json(), real)
        assert diff_reports(simulated, real).equal, render_diff(diff_reports(simulated, real, name, "real"), width=140)
    else:
        assert d.equal, render_diff(d, width=140)
    # the run went as far in both: a crash (use-after-deallocate) leaves the pending report
    assert real["steps_run"] == simulated["steps_run"]
    if simulated["error"] and simulated["error"].get("crash"):
        assert result.returncode < 0 or result.returncode > 128, "the simulation says the process dies here"
    # with rules: ttnn VERSION records otherwise than 0.81.1 in them, and the simulation under
    # current with just those rules changed agrees (a pass: the version's profile explains it)


def test_the_names_a_version_lacks_are_listed_as_it_lacks_them(tmp_path):
    """export.ABSENT_IN, which a script's top comment and its first check rest on, is true of this version."""
    program = "import json, ttnn\nfrom meshspec.bridge.export import ABSENT_IN\n" \
              "def has(n):\n    o = ttnn\n    for p in n.split('.')[1:]:\n        o = getattr(o, p, None)\n    return o is not None\n" \
              "print(json.dumps({n: has(n) for n in ABSENT_IN}))"
    result = run_mock(["python", "-c", program], "t3k", tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    has = json.loads(result.stdout.strip().splitlines()[-1])
    assert has == {n: VERSION not in versions for n, versions in ABSENT_IN.items()}


def test_the_script_replaces_only_a_report_it_wrote_as_it_is(tmp_path, monkeypatch):
    """python repro.py real.json keeps meshspec run -o's rule (docs/commands.md, Exit codes): it replaces its
    own report, again and again, but not one annotated since, a file of yours, nor itself."""
    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(tmp_path / "state"))
    seed = ROOT / "scenarios" / "seed-uneven-copy.yaml"
    shutil.copy(seed, tmp_path / "seed.yaml")
    (tmp_path / "repro.py").write_text(export(load(tmp_path / "seed.yaml")))
    for _ in range(2):
        assert run_mock(["python", "repro.py", "real.json"], "t3k", tmp_path).returncode == 0
    assert json.loads((tmp_path / "real.json").read_text())["format"] == "meshspec.report/1"
    with open(tmp_path / "real.json", "a") as f:
        f.write("\n")  # an annotation
    for target in ("real.json", "seed.yaml", "repro.py"):
        before = (tmp_path / target).read_bytes()
        result = run_mock(["python", "repro.py", target], "t3k", tmp_path)
        assert result.returncode == 1 and (tmp_path / target).read_bytes() == before, target
        assert "refusing to overwrite it" in result.stderr or "is this script" in result.stderr, result.stderr[-500:]
