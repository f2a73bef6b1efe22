"""A long fuzz campaign over meshspec's loader, runner, renderers and diff.

    python bench/fuzz.py --minutes 10 [--seed N]

Inputs (tests/fuzzing.py): the families of tests/fuzz_families (export, record, hunt, output
names, ...: one input in ten), mutated bundled scenarios, random YAML documents, random bytes, hostile
values (lone surrogates, control characters, huge integers, base-60 numbers), data files with
edge cases, and mutated report JSON for ``meshspec diff``. Every input must end as a report or a
one-line error within 5 seconds; the first that does not stops the campaign with its input saved
to fuzz-failure.yaml (or fuzz-failure.json for a report). Prints outcomes by kind.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzzing import a_report, data_folder, diff_outcome, families, mutate_report, outcome, random_input, time_limit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts: Counter = Counter()
    stop = time.monotonic() + args.minutes * 60
    cases = families()
    with tempfile.TemporaryDirectory() as scratch:
        folder = data_folder(Path(scratch))
        while time.monotonic() < stop:
            if cases and rng.random() < 0.1:  # one of tests/fuzz_families, each as often as the others
                name = rng.choice(sorted(cases))
                where = Path(scratch) / "families" / str(sum(counts.values()))
                where.mkdir(parents=True)
                try:
                    with time_limit(30.0):
                        counts[f"{name}:{cases[name](rng, where)}"] += 1
                except BaseException:
                    traceback.print_exc()
                    print(f"FAILED in family {name} after {sum(counts.values())} inputs; its input is in {where} (kept)", file=sys.stderr)
                    import shutil

                    shutil.copytree(where, "fuzz-failure-family", dirs_exist_ok=True)
                    sys.exit(1)
                continue
            if rng.random() < 0.1:
                report = mutate_report(a_report(), rng)
                try:
                    counts[diff_outcome(a_report(), report)] += 1
                except BaseException:
                    Path("fuzz-failure.json").write_text(json.dumps(report), encoding="utf-8")
                    return _failed(counts, "fuzz-failure.json")
                continue
            text = random_input(rng)
            try:
                counts[outcome(text, folder=folder)] += 1
            except BaseException:
                Path("fuzz-failure.yaml").write_text(text, encoding="utf-8", errors="backslashreplace")
                return _failed(counts, "fuzz-failure.yaml")
    total = sum(counts.values())
    print(f"{total} inputs in {args.minutes:g} min, seed {args.seed}: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


def _failed(counts: Counter, saved: str) -> None:
    traceback.print_exc()
    print(f"FAILED after {sum(counts.values())} inputs; input saved to {saved}", file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
