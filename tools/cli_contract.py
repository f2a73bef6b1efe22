"""The command line's contract: every command's help, usage errors and exit codes, recorded.

Issue 38, item 1: the command line moved from argparse to typer and had to behave as before. This
records, through :func:`meshspec.cli.app` in this process (what the console entry point wraps), what
each command line in :func:`cases` prints on stderr and which exit code it gives, and every
command's ``--help`` text, into tests/cli/contract.json; tests/cli/test_cli_contract.py compares
the command line of the tree it runs in against that file. Recorded once, on the argparse tree
(commit "cli contract recorded"), so the file is the behaviour before the move::

    python tools/cli_contract.py            # write tests/cli/contract.json
    python tools/cli_contract.py --check    # say which cases differ from it (exit 1 if any)

The command lines run in the repository (so ``scenarios/...`` are found) with COLUMNS=100, NO_COLOR
set and a fresh state folder; ``{tmp}`` in a case is a fresh empty folder, written back as
``{tmp}`` in what was printed. A report's text is not recorded (other work changes it): for a
command that runs, its exit code and its stderr are.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "tests" / "cli" / "contract.json"
COLUMNS = "100"

SEED = "scenarios/seed-uneven-copy.yaml"
EVEN = "scenarios/even-copy.yaml"
NINE = "scenarios/mapper-error-nine-over-eight.yaml"
GRAPH = "tests/bridge/data/graph-example.json"
TRACER = "tests/bridge/data/tracer-example"

COMMANDS = ("run", "diff", "check", "systems", "export", "import", "record", "hunt", "profiles", "explain", "init", "schema")

# what each command needs to get past its required arguments, and its options by kind
REQUIRED = {"run": [SEED], "diff": [SEED], "check": [SEED], "export": [SEED], "import": [GRAPH], "init": ["{tmp}/new.yaml"],
            "record": ["-o", "{tmp}/rec"], "hunt": ["-p", "uniform-by-value", "--out", "{tmp}/h"]}
CHOICES = {
    "run": {"--format": "table json", "--view": "table map data", "--uninitialized": "poison zeros reuse"},
    "diff": {"--format": "table json"},
    "export": {"--to": "ttnn"},
    "hunt": {"--format": "table json"},
    "profiles": {"--format": "table json"},
}
COUNTS = {"run": {"--show-values": 0, "--max-work": 1}, "diff": {"--max-work": 1}, "check": {"--jobs": 1},
          "hunt": {"--examples": 1, "--seed": None, "--max-work": 1}}
SIZES = {"run": "--max-memory", "diff": "--max-memory", "hunt": "--max-memory"}
VALUED = {  # options that take a value, each given none (the last word)
    "run": ["-p", "--profile", "-f", "--format", "--view", "--device", "--show-values", "-o", "--output", "--uninitialized",
            "--max-memory", "--max-work", "--svg", "--html"],
    "diff": ["--expected", "--actual", "--case", "-f", "--format", "-o", "--output", "--max-memory", "--max-work"],
    "check": ["-p", "--profile", "--junit-xml", "-j", "--jobs", "--shard"],
    "export": ["--to", "--case", "-o", "--output"],
    "import": ["-o", "--output"],
    "hunt": ["-p", "--profile", "--against", "--mesh", "--ops", "--time", "--examples", "--seed", "--shard", "--fault",
             "--profiles", "--out", "--max-memory", "--max-work", "-f", "--format"],
    "profiles": ["-f", "--format"],
    "init": ["-s", "--system"],
}
FLAGS = {"run": "--no-color", "diff": "--all", "check": "--allow-outside-data", "export": "--minimal", "hunt": "--merge",
         "schema": "--report"}


def cases() -> list[list[str]]:
    """Every command line whose stderr and exit code are recorded: usage errors first, then runs."""
    out: list[list[str]] = [[], ["bogus"], ["chek", SEED], ["--version"], ["--bogus"], ["-f", "json", "run", SEED],
                            ["--no-color", "run", SEED], ["--profile", "current", "run", SEED], ["run", SEED, "--version"],
                            ["", "run"], ["-h", "bogus"]]
    for cmd in COMMANDS:
        need = REQUIRED.get(cmd, [])
        out.append([cmd, *need, "--bogus"])
        out.append([cmd, "--bogus", *need])
        out.append([cmd, *need, "-Z"])
        if need:
            out.append([cmd])
        for option, choices in CHOICES.get(cmd, {}).items():
            out.append([cmd, *need, option, "bogus"])
            out.append([cmd, *need, option, choices.split()[-1][:-1]])  # a near miss: did you mean
            out.append([cmd, *need, f"{option}=BOGUS"])
        for option, least in COUNTS.get(cmd, {}).items():
            out.append([cmd, *need, option, "two"])
            out.append([cmd, *need, option, "1.5"])
            if least is not None:
                out.append([cmd, *need, option, str(least - 1)])
        if cmd in SIZES:
            out.append([cmd, *need, SIZES[cmd], "lots"])
        for option in VALUED.get(cmd, []):
            out.append([cmd, *need, option])
        if cmd in FLAGS:
            out.append([cmd, *need, f"{FLAGS[cmd]}=x"])
        if cmd not in ("record",):
            out.append([cmd, *need, ""])
    out += [
        # empty values and words too many
        ["run", "--output=", SEED], ["run", SEED, "-o", ""], ["hunt", "--out=", "-p", "current"],
        ["systems", "extra"], ["schema", "extra"], ["init", "a.yaml", "b.yaml"], ["export", SEED, SEED], ["explain", "stale", "extra"],
        ["profiles", SEED, SEED], ["run", SEED, "--", "-dash.yaml"], ["run", "-dash.yaml"], ["run", SEED, "--device", "-1,3"],
        ["run", SEED, "--format", "--view", "map"], ["run", SEED, "--profil", "current"], ["check", SEED, "--jobs=0"],
        ["check", SEED, "-j0"], ["hunt", "--seed", "-5", "--out", "{tmp}/h", "-p", "uniform-by-value", "--examples", "0"],
        ["record", "python", "prog.py", "-o", "D"], ["record"], ["hunt", "x", "-p", "current"], ["diff", SEED, SEED, SEED],
        # runs: exit codes
        ["run", SEED], ["run", SEED, "-p", "current"], ["run", SEED, "--format", "json"], ["run", SEED, "--view", "map"],
        ["run", SEED, "--view", "data"], ["run", SEED, "--trace"], ["run", SEED, "-p", "all"], ["run", NINE, "-p", "current"],
        ["run", SEED, EVEN, "-p", "current", "-f", "json"], ["run", "nosuch.yaml"], ["run", SEED, "-p", "bogus"],
        ["run", SEED, "--device", "1,3"], ["run", SEED, "--device", "x"], ["run", SEED, "--show-values", "2"],
        ["run", SEED, "--no-data"], ["run", SEED, "--max-memory", "1K"], ["run", SEED, "--max-work", "1"],
        ["run", SEED, "-o", "{tmp}/r.txt"], ["run", SEED, "--svg", "{tmp}/r.svg"], ["run", SEED, "-f", "json", "--svg", "{tmp}/r.svg"],
        ["diff", SEED], ["diff", SEED, "--format", "json"], ["diff", SEED, "--expected", "reference", "--actual", "current"],
        ["diff", SEED, "--all"], ["diff", "{tmp}/a.json", "{tmp}/b.json"],
        ["check", SEED], ["check", EVEN], ["check", SEED, "-p", "all"], ["check", SEED, "--shard", "1/2"], ["check", SEED, "--shard", "3/2"],
        ["systems"], ["profiles"], ["profiles", "--format", "json"], ["profiles", SEED], ["explain"], ["explain", "stale"],
        ["explain", "bogus"], ["schema"], ["schema", "--report"], ["export", SEED], ["export", SEED, "--minimal"],
        ["export", SEED, "--case", "x"], ["import", GRAPH], ["import", TRACER], ["import", "{tmp}"],
        ["init", "{tmp}/new.yaml"], ["init", "{tmp}/new.yaml", "-s", "bogus"], ["init", "{tmp}"],
        ["hunt", "-p", "uniform-by-value", "--examples", "2", "--out", "{tmp}/h", "--format", "json"],
        ["hunt", "-p", "uniform-by-value", "--examples", "2", "--out", "{tmp}/h", "--mesh", "2x4", "--ops", "bogus"],
        ["hunt", "-p", "uniform-by-value", "--examples", "2", "--out", "{tmp}/h", "--time", "soon"],
        ["hunt", "-p", "uniform-by-value", "--examples", "2", "--out", "{tmp}/h", "--fault", "bogus"],
        ["hunt", "--merge", "--out", "{tmp}/m"],
        ["record", "-o", "{tmp}/rec"], ["record", "-o", "{tmp}/rec", "--"],
    ]
    return out


@contextmanager
def _environment(env: dict):
    saved = {k: os.environ.get(k) for k in env}
    try:
        os.environ.update(env)
        yield
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def capture(args: list[str]) -> dict:
    """``meshspec ARGS`` in this process: its exit code, stderr and stdout, ``{tmp}`` put back."""
    from meshspec.cli import app

    with tempfile.TemporaryDirectory() as tmp, _environment({"COLUMNS": COLUMNS, "NO_COLOR": "1", "MESHSPEC_STATE_DIR": f"{tmp}/.state"}):
        if args[:2] == ["diff", "{tmp}/a.json"]:  # two saved reports
            for side, profile in (("a", "uniform-by-value"), ("b", "current")):
                capture_in(app, ["run", SEED, "-p", profile, "-f", "json", "-o", f"{tmp}/{side}.json"])
        code, out, err = capture_in(app, [a.replace("{tmp}", tmp) for a in args])
    return {"args": args, "exit": code, "stderr": err.replace(tmp, "{tmp}"), "stdout": out.replace(tmp, "{tmp}")}


def capture_in(app, argv: list[str]) -> tuple[int, str, str]:
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace") for _ in range(2))
    saved, cwd = (sys.stdout, sys.stderr), os.getcwd()
    sys.stdout, sys.stderr = out, err
    try:
        os.chdir(ROOT)
        code = app(argv)
    finally:
        sys.stdout, sys.stderr = saved
        os.chdir(cwd)
    out.flush(), err.flush()
    return code, out.buffer.getvalue().decode("utf-8", "replace"), err.buffer.getvalue().decode("utf-8", "replace")


def helps() -> dict[str, str]:
    """``meshspec --help`` (key ``""``) and each command's ``--help``."""
    return {name: capture([*([name] if name else []), "--help"])["stdout"] for name in ("", *COMMANDS)}


def record() -> dict:
    results = [capture(args) for args in cases()]
    return {
        "columns": int(COLUMNS),
        "help": helps(),
        # a report's text is not part of the contract: what a run printed on stdout is kept only when
        # it is help (a usage error prints none) or empty
        "cases": [{**r, "stdout": r["stdout"] if r["exit"] == 2 or not r["stdout"] else "<report>"} for r in results],
    }


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    if argv == ["--check"]:
        contract = json.loads(CONTRACT.read_text(encoding="utf-8"))
        bad = 0
        for case in contract["cases"]:
            now = capture(case["args"])
            if (now["exit"], now["stderr"]) != (case["exit"], case["stderr"]):
                bad += 1
                print(f"{case['args']}\n  was {case['exit']}: {case['stderr']!r}\n  now {now['exit']}: {now['stderr']!r}")
        print(f"{bad} of {len(contract['cases'])} cases differ")
        return 1 if bad else 0
    CONTRACT.parent.mkdir(parents=True, exist_ok=True)
    CONTRACT.write_text(json.dumps(record(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {CONTRACT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
