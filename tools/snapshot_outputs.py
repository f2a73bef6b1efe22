"""Save, or compare against a saved copy, what meshspec prints for every bundled scenario.

A refactoring must not change output: run ``--save DIR`` before it and ``--check DIR`` after.
Each bundled scenario is run under every profile in every view (table, map, data, trace, JSON),
plus ``--profile all``, ``diff`` and ``check``, as whole processes with a fixed terminal width.

    python tools/snapshot_outputs.py --save /tmp/before
    python tools/snapshot_outputs.py --check /tmp/before   # exit 1 and the differing cases
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROFILES = ("current", "uniform-by-value", "unpopulated", "reference")
VIEWS = {
    "json": ["--format", "json"],
    "table": [],
    "map": ["--view", "map"],
    "data": ["--view", "data", "--show-values", "4"],
    "trace": ["--trace"],
}


def cases() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for path in sorted((REPO / "scenarios").glob("*.yaml")):
        rel = str(path.relative_to(REPO))
        for profile in PROFILES:
            for view, args in VIEWS.items():
                out[f"{path.stem}.{profile}.{view}"] = ["run", rel, "--profile", profile, *args]
        out[f"{path.stem}.all.table"] = ["run", rel, "--profile", "all"]
        out[f"{path.stem}.all.json"] = ["run", rel, "--profile", "all", "--format", "json"]
        out[f"{path.stem}.diff"] = ["diff", rel]
        out[f"{path.stem}.diff.json"] = ["diff", rel, "--format", "json"]
    out["check.all"] = ["check", "scenarios", "--profile", "all"]
    return out


def run(args: list[str]) -> str:
    env = dict(os.environ, COLUMNS="120", NO_COLOR="1")
    p = subprocess.run([sys.executable, "-m", "meshspec", *args], cwd=REPO, env=env, capture_output=True, text=True)
    return f"exit {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path)
    group.add_argument("--check", type=Path)
    a = ap.parse_args()
    todo = cases()
    with ThreadPoolExecutor(4) as pool:
        results = dict(zip(todo, pool.map(run, todo.values())))
    if a.save:
        a.save.mkdir(parents=True, exist_ok=True)
        for name, text in results.items():
            (a.save / f"{name}.txt").write_text(text)
        print(f"saved {len(results)} cases to {a.save}")
        return 0
    bad = 0
    for name, text in results.items():
        f = a.check / f"{name}.txt"
        old = f.read_text() if f.exists() else ""
        if old != text:
            bad += 1
            print(f"DIFFERS {name}")
            sys.stdout.writelines(list(difflib.unified_diff(old.splitlines(True), text.splitlines(True), "before", "after"))[:40])
    print(f"{len(results) - bad} same, {bad} different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
