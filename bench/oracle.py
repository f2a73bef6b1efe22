"""The differential oracle's slower tier: thousands of random hunt programs, each under every
built-in profile and every era profile (tests/oracle/oracle_diff.ERAS: current with one rule of
issue 36 set to each other choice, 29 of them), meshspec's device statuses and stale_input findings
against the naive model of tests/oracle/naive.py (its docstring says what is compared;
docs/semantics.md section 14).

    python bench/oracle.py                      # 2,000 programs x 36 profiles, metadata then data mode: about 10 minutes
    python bench/oracle.py --programs 1000      # about 5 minutes (metadata 2, data 3, on one free core)
    python bench/oracle.py --programs 10000 --seed 7 --max-steps 9 --eras 4

A run costs about 3 ms in metadata mode and 5 ms in data mode (one core), so a program costs
36 runs; ``--eras N`` runs N era profiles a program, in turn, instead of all of them (0: only the
built-in profiles, 7 runs a program, as before issue 36).

Programs run on a T3K, a 2x2, a 1x8, a 4x2 and a 1x1 mesh in turn (example k of seed s is the same
program on every machine, as hunt's); both modes run the same programs, so meshspec's metadata
mode is held to the same verdicts as its data mode. It prints the counts (programs, runs, skipped, agreeing runs,
verdicts compared, disagreements by class, each class marked as known or NEW, with its first
program as a scenario) and how long it took, and exits 1 on any disagreement of a NEW class, 0
otherwise (a known class, oracle_diff.KNOWN, is held by its strict xfail case in the main suite). The main
suite runs a few hundred of the same (tests/oracle/test_oracle_programs.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracle"))
from oracle_diff import KNOWN, campaign  # noqa: E402

MESHES = (("t3k", (2, 4)), ([2, 2], (2, 2)), ([1, 8], (1, 8)), ([4, 2], (4, 2)), ([1, 1], (1, 1)))
"""A 1x1 mesh too: the unit_mesh era (a single-device storage, docs/semantics.md section 19) shows on no other."""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--programs", type=int, default=2000, help="programs per mode (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="hunt seed (default 0)")
    p.add_argument("--max-steps", type=int, default=7, help="steps a program has at most (default 7)")
    p.add_argument("--mode", choices=["both", "metadata", "data"], default="both")
    p.add_argument("--eras", type=int, default=None, metavar="N", help="era profiles a program runs under, in turn (default: all)")
    a = p.parse_args(argv)
    start = time.monotonic()
    total = new = 0
    for mode in (["metadata", "data"] if a.mode == "both" else [a.mode]):
        t = time.monotonic()
        s = campaign(a.seed, a.programs, with_data=mode == "data", max_steps=a.max_steps, meshes=MESHES, eras_per_program=a.eras)
        took = time.monotonic() - t
        n = sum(s.by_category.values())
        total += n
        new += sum(c for k, c in s.by_category.items() if k not in KNOWN)
        print(f"{mode}: {s.programs} programs x {s.runs // max(s.programs, 1)} profiles = {s.runs} runs, {s.skipped} skipped, "
              f"{s.agreeing} agreeing, {s.runs - s.skipped - s.agreeing} disagreeing; {s.compared} verdicts compared, "
              f"{n} disagreements ({took:.1f} s); never-written reads required "
              + (", ".join(f"{v} {k}" for k, v in sorted(s.kinds.items())) or "nothing"))
        for category, count in sorted(s.by_category.items()):
            text, profile, detail = s.example[category]
            print(f"  {count:6d}  {category}  [{'known' if category in KNOWN else 'NEW'}]  first under {profile}: {detail}")
            print("          " + text.rstrip().replace("\n", "\n          "))
    print(f"oracle tier: {total} disagreements, {new} of a new class, in {time.monotonic() - start:.1f} s")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
