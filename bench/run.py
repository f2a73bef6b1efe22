"""meshspec benchmarks: speed and memory as ratios measured in the same run (issue 5).

    python bench/run.py            # all cases, about a minute or two on 2 cores
    python bench/run.py --quick    # smaller sizes, to check the script itself

Each case runs in a fresh subprocess so its peak memory (ru_maxrss) is its own. The table has:
case, meshspec time, baseline time, ratio, peak memory, target, verdict. Not part of the tests:
these machines are noisy, so targets are judged here, on ratios, not in timed unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 1 << 20


# -- cases (run in a child process) ------------------------------------------------------------
def galaxy_scenario(rows: int, size: int) -> str:
    return textwrap.dedent(
        f"""\
        meshspec: 1
        name: bench-galaxy-seed
        mesh: galaxy
        profile: current
        steps:
          - allocate_tensor_on_device: {{as: dst, shape: [1, 1, {size}, {size}], dtype: bfloat16}}
          - from_torch: {{as: src, shape: [1, {rows}, {size}, {size}], dtype: bfloat16, data: {{random: 1}}, mesh_mapper: {{shard: 1}}}}
          - copy_host_to_device_tensor: {{src: src, dst: dst}}
          - to_torch: {{tensor: dst, mesh_composer: {{concat: 1}}}}
        """
    )


def case_meshspec_galaxy(rows: int, size: int) -> dict:
    from meshspec.runner import run
    from meshspec.scenario.loader import parse

    scenario = parse(galaxy_scenario(rows, size), ROOT / "bench.yaml")
    marks = {}

    def on_step(index: int, total: int, op: str) -> None:
        marks.setdefault(op, time.perf_counter())

    start = time.perf_counter()
    report = run(scenario, on_step=on_step)
    end = time.perf_counter()
    assert report.error is None and report.findings == (), report.summary()
    # copies only: from the copy step on (host data made before it)
    return {"seconds": end - start, "copy_seconds": end - marks["copy_host_to_device_tensor"]}


def case_numpy_galaxy(rows: int, size: int) -> dict:
    """The same copies in plain numpy: host tensor, split into per-device buffers, copy back,
    concatenate. Host data made the way meshspec makes it (chunks of float32 normals)."""
    import ml_dtypes
    import numpy as np

    start = time.perf_counter()
    n = rows * size * size
    host = np.empty(n, dtype=ml_dtypes.bfloat16)
    rng = np.random.default_rng(1)
    chunk = 1 << 22
    for i in range(0, n, chunk):
        host[i : i + chunk] = rng.standard_normal(min(chunk, n - i), dtype=np.float32)
    host = host.reshape(1, rows, size, size)
    copies = time.perf_counter()
    devices = [host[:, i : i + 1].copy() for i in range(rows)]  # to the devices
    readback = [d.copy() for d in devices]  # back to the host
    result = np.concatenate(readback, axis=1)
    end = time.perf_counter()
    assert result.shape == host.shape
    return {"seconds": end - start, "copy_seconds": end - copies}


def meta_scenario(rows: int, cols: int) -> str:
    """A 4 TiB bfloat16 tensor sharded over both axes of a rows x cols mesh, copied unevenly
    (the last mesh column gets a short shard) into a uniform allocation and read back."""
    # dim 1 of cols*32-3 splits into chunks of 32 with a last one of 29: the last column is short
    d0, d1 = rows * 32, cols * 32 - 3
    h = max(32, (2**41 // (d0 * d1 * 1024)) // 32 * 32)  # 2**41 bfloat16 elements = 4 TiB
    return textwrap.dedent(
        f"""\
        meshspec: 1
        name: bench-metadata
        mesh: [{rows}, {cols}]
        profile: uniform-by-value
        data: none
        steps:
          - allocate_tensor_on_device: {{as: dst, shape: [32, 32, {h}, 1024]}}
          - from_torch: {{as: src, shape: [{d0}, {d1}, {h}, 1024], mesh_mapper: {{placements: [{{shard: 0}}, {{shard: 1}}]}}}}
          - copy_host_to_device_tensor: {{src: src, dst: dst}}
          - to_torch: {{tensor: dst, mesh_composer: {{concat: [0, 1]}}}}
        """
    )


def case_meshspec_meta(rows: int, cols: int) -> dict:
    from meshspec.runner import run
    from meshspec.scenario.loader import parse

    scenario = parse(meta_scenario(rows, cols), ROOT / "bench.yaml")
    start = time.perf_counter()
    report = run(scenario)
    seconds = time.perf_counter() - start
    assert report.error is None and any(f.kind.value == "partial" for f in report.findings), report.summary()
    logical = 1
    for n in scenario.steps[1].args.shape:
        logical *= n
    return {"seconds": seconds, "logical_bytes": logical * 2}


CASES = {
    "meshspec-galaxy": case_meshspec_galaxy,
    "numpy-galaxy": case_numpy_galaxy,
    "meshspec-meta": case_meshspec_meta,
}


def child(name: str, args: list[int]) -> None:
    result = CASES[name](*args)
    result["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(result))


# -- the parent: run cases in subprocesses and print the table ----------------------------------
def measure(name: str, *args: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", name, *map(str, args)], capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"case {name} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def startup(cmd: list[str], repeat: int = 7) -> float:
    best = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        best.append(time.perf_counter() - start)
    best.sort()
    return best[len(best) // 2]  # median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], [int(a) for a in args.child[1:]])
        return

    rows, size = (31, 1024) if args.quick else (31, 4096)
    rows_out = []

    # 1. data plane: the seed scaled up on a Galaxy
    best = {}
    for name in ("numpy-galaxy", "meshspec-galaxy"):
        runs = [measure(name, rows, size) for _ in range(3)]
        best[name] = {
            "seconds": min(r["seconds"] for r in runs),
            "copy_seconds": min(r["copy_seconds"] for r in runs),
            "maxrss": max(r["maxrss"] for r in runs),
        }
    tensor = rows * size * size * 2
    needed = tensor * 3  # host tensor + device buffers + readback
    m, b = best["meshspec-galaxy"], best["numpy-galaxy"]
    ratio = m["seconds"] / b["seconds"]
    rows_out.append(("galaxy 8x4 (1,%d,%d,%d) bf16 scenario" % (rows, size, size), m["seconds"], b["seconds"], ratio, m["maxrss"], "time <= 1.5x", ratio <= 1.5))
    copy_ratio = m["copy_seconds"] / b["copy_seconds"]
    rows_out.append(("  copies only (host data made before)", m["copy_seconds"], b["copy_seconds"], copy_ratio, None, "time <= 1.5x", copy_ratio <= 1.5))
    mem_ok = m["maxrss"] <= 1.5 * needed + 150 * MB
    rows_out.append(("  peak memory vs %d MB needed" % (needed // MB), None, None, m["maxrss"] / needed, m["maxrss"], "<= 1.5x + 150 MB", mem_ok))

    # 2. metadata mode: 32x32 mesh, 4 TiB logical tensor; time per device as the mesh grows
    meta = {}
    for r, c in ((2, 4), (4, 8), (8, 16), (32, 32)):
        meta[r * c] = measure("meshspec-meta", r, c)
    big = meta[1024]
    rows_out.append(
        (f"metadata 32x32, {big['logical_bytes'] / 2**40:.1f} TiB logical", big["seconds"], None, None, big["maxrss"], "< 2 s, < 300 MB", big["seconds"] < 2 and big["maxrss"] < 300 * MB)
    )
    per_device = {n: meta[n]["seconds"] / n * 1000 for n in meta}
    for n in sorted(per_device):
        rows_out.append((f"  {n:>4} devices: {per_device[n]:.3f} ms/device", meta[n]["seconds"], None, None, meta[n]["maxrss"], "", None))
    linear = per_device[1024] <= 3 * per_device[32]
    rows_out.append(("  per-device cost 1024 vs 32 devices", None, None, per_device[1024] / per_device[32], None, "<= 3x (linear)", linear))

    # 3. start-up
    py = sys.executable
    meshspec = [py, "-m", "meshspec"]
    numpy_t = startup([py, "-c", "import numpy"])
    help_t = startup(meshspec + ["--help"])
    seed_t = startup(meshspec + ["run", str(ROOT / "scenarios" / "seed-uneven-copy.yaml")])
    rows_out.append(("start-up: meshspec --help", help_t, numpy_t, help_t / numpy_t, None, "<= 2.5x import numpy", help_t / numpy_t <= 2.5))
    rows_out.append(("start-up: meshspec run seed", seed_t, numpy_t, seed_t / numpy_t, None, "<= 4x import numpy", seed_t / numpy_t <= 4))

    header = f"{'case':<44} {'meshspec':>9} {'baseline':>9} {'ratio':>6} {'peak MB':>8}  {'target':<22} verdict"
    print(header)
    print("-" * len(header))
    for name, t, base, ratio, rss, target, ok in rows_out:
        fmt_t = f"{t:.3f}s" if t is not None else "-"
        fmt_b = f"{base:.3f}s" if base is not None else "-"
        fmt_r = f"{ratio:.2f}" if ratio is not None else "-"
        fmt_m = f"{rss / MB:.0f}" if rss is not None else "-"
        verdict = "" if ok is None else ("PASS" if ok else "FAIL")
        print(f"{name:<44} {fmt_t:>9} {fmt_b:>9} {fmt_r:>6} {fmt_m:>8}  {target:<22} {verdict}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("COLUMNS", "120")
    main()
