"""A long fuzz campaign over meshspec's loader, runner and renderers.

    python bench/fuzz.py --minutes 10 [--seed N]

Inputs: mutated bundled scenarios, random YAML documents, random bytes (tests/fuzzing.py). Every
input must end as a report or a one-line error within 5 seconds; the first that does not stops
the campaign with its input saved to fuzz-failure.yaml. Prints outcomes by kind.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzzing import outcome, random_input  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts: Counter = Counter()
    stop = time.monotonic() + args.minutes * 60
    while time.monotonic() < stop:
        text = random_input(rng)
        try:
            counts[outcome(text)] += 1
        except BaseException:
            Path("fuzz-failure.yaml").write_text(text, encoding="utf-8", errors="replace")
            traceback.print_exc()
            print(f"FAILED after {sum(counts.values())} inputs; input saved to fuzz-failure.yaml", file=sys.stderr)
            sys.exit(1)
    total = sum(counts.values())
    print(f"{total} inputs in {args.minutes:g} min, seed {args.seed}: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


if __name__ == "__main__":
    main()
