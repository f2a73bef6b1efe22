"""Instructions and last-level cache misses per device of the metadata bench case (issue 11's
per-device row), counted by cachegrind: deterministic, so a change to the per-device model can be
judged on this noisy machine without wall-clock pairs.

    python bench/cache.py                  # 2x4, 64x64, 256x256: 6 to 20 minutes (most of it 256x256)
    python bench/cache.py --meshes 2x4 64x64 128x128

The cache simulated is this machine's: 48 KiB L1 data, 32 MiB last level (lscpu). Each mesh runs
the bench's scenario (the seed with 20 copies and a readback, JSON out) under valgrind, with
OPENBLAS_NUM_THREADS=1 and a fixed hash seed; the first mesh is the base subtracted from the others
before dividing by their extra devices, as bench/run.py's row does with wall time. At f0daced,
and after the judge stopped holding a key per device and written pages became shared values
(2f32bbc)::

    mesh       instructions/device  LL misses/device      (2f32bbc)
    64x64      601.9 k              117                   501.1 k   99
    256x256    605.6 k              763                   502.3 k  484
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import seed_copies  # noqa: E402  (the row's own scenario)

CACHES = ["--D1=49152,12,64", "--LL=33554432,16,64"]


def count(meshspec: str, mesh: tuple[int, int], work: Path) -> tuple[int, int]:
    """(instructions, last-level data misses) of one run."""
    scenario = work / f"meta-{mesh[0]}x{mesh[1]}.yaml"
    scenario.write_text(seed_copies(mesh, 20))
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [meshspec, "run", str(scenario), "--format", "json", "-o", str(work / "out.json")]
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # bytecode caches first
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", *CACHES, f"--cachegrind-out-file={work / 'cg.out'}", *cmd],
                         env=env, capture_output=True, text=True, check=False).stderr
    refs = re.search(r"I\s+refs:\s+([\d,]+)", out)
    misses = re.search(r"LLd misses:\s+([\d,]+)", out)
    if refs is None or misses is None:
        raise SystemExit(f"bench/cache.py: no cachegrind summary for {mesh}:\n{out[-2000:]}")
    return int(refs.group(1).replace(",", "")), int(misses.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--meshes", nargs="+", default=["2x4", "64x64", "256x256"], help="ROWSxCOLS, the first the base")
    parser.add_argument("--meshspec", default=shutil.which("meshspec"), help="the meshspec command (default: the one on PATH)")
    args = parser.parse_args()
    if not args.meshspec or not shutil.which("valgrind"):
        raise SystemExit("bench/cache.py: needs meshspec on PATH (pip install .) and valgrind")
    meshes = [tuple(int(n) for n in m.split("x")) for m in args.meshes]
    with tempfile.TemporaryDirectory(prefix="meshspec-cache-") as tmp:
        counts = [count(args.meshspec, m, Path(tmp)) for m in meshes]
    (base_i, base_m), base_n = counts[0], meshes[0][0] * meshes[0][1]
    print(f"{'mesh':10} {'instructions/device':>20} {'LL misses/device':>17}")
    for mesh, (i, m) in zip(meshes[1:], counts[1:]):
        extra = mesh[0] * mesh[1] - base_n
        print(f"{mesh[0]}x{mesh[1]:<8} {(i - base_i) / extra / 1000:>18.1f} k {(m - base_m) / extra:>17.0f}")


if __name__ == "__main__":
    main()
