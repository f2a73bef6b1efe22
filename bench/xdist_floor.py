"""From what cost a test does pytest-xdist gain on this machine: the break-even behind the bench's
``pytest --meshspec -n 2 vs -n 0`` row.

    python bench/xdist_floor.py                  # 1,400 plain tests at each cost, three pairs each
    python bench/xdist_floor.py --ms 1 2 --pairs 5

Each point runs 1,400 plain tests (200 files of 7, as the bench's meshspec suite has 1,415
items) whose bodies each spin ``ms`` milliseconds of CPU, at ``-n 2`` and at ``-n 0``, in
interleaved pairs as ``bench/run.py`` runs its rows, and prints the median ratio and its range.
Tests that do nothing give xdist's own cost; the cost at which the ratio crosses 1.0 is what a
test must cost before two workers pay for themselves. Compare it with what a meshspec item costs
(``python bench/xdist_phases.py``: the loop's CPU a test at ``-n 0``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import pairs, plain_tests  # noqa: E402 - the bench's own measuring and tests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ms", type=float, nargs="+", default=[0.0, 0.5, 1.0, 1.5, 2.0, 3.0], help="CPU a test, in ms")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved pairs a point (default: 3)")
    args = parser.parse_args()
    print(f"{'a test':>8}  {'-n 2':>8}  {'-n 0':>8}  {'ratio (min..max)':>22}")
    with tempfile.TemporaryDirectory(prefix="meshspec-xdist-floor-") as tmp:
        for i, ms in enumerate(args.ms):
            body = f"_burn({ms / 1e3!r})" if ms > 0 else "pass"
            folder = plain_tests(Path(tmp) / f"tests-{i}", body)
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder)]
            two, zero = pairs([*cmd, "-n", "2"], [*cmd, "-n", "0"], args.pairs, Path(tmp))
            ratios = [a.wall / b.wall for a, b in zip(two, zero)]
            print(f"{ms:6.2f} ms  {statistics.median(s.wall for s in two):6.2f} s  {statistics.median(s.wall for s in zero):6.2f} s  "
                  f"{statistics.median(ratios):6.2f}x ({min(ratios):.2f}x..{max(ratios):.2f}x)")
    print(f"\nwall time, medians of {args.pairs} interleaved pairs; 1,400 tests a point; below 1.0x -n 2 is faster")


if __name__ == "__main__":
    main()
