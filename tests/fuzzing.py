"""Fuzzing meshspec's loader, runner and diff: mutated bundled scenarios, random bytes, random
YAML, hostile values (lone surrogates, control characters, huge integers, base-60 numbers), data
files with edge cases (empty, a symlink loop, a path through a missing folder, float64 into small
integers, Fortran order, truncated), and mutated report JSON for ``meshspec diff``.

Every input must end as a report (exit 0/1) or a one-line error (exit 2): never a traceback,
never a hang. Used by tests/test_fuzz.py (a short run) and bench/fuzz.py (a long one).
"""

from __future__ import annotations

import json
import random
import signal
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import yaml

from meshspec.errors import ScenarioError, UsageError
from meshspec.render import Format, Options, View, render
from meshspec.runner import run
from meshspec.scenario.loader import parse

ROOT = Path(__file__).resolve().parents[1]
SEEDS = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "scenarios").glob("*.yaml"))]
TOKENS = [
    "0", "-1", "1.5", "999999999999", "[]", "{}", "null", "true", "~", "''", "[1, 2, 3, 4, 5]", "t3k", "galaxy",
    "bfloat4_b", "row_major", "{shard: 9}", "replicate", "[32, 32]", "*a", "&a x", "!!python/object:os.system",
    "<<: *a", "\t", "steps", "as", "dst", "src", "{concat: [0, 1]}", "- cpu: {tensor: dst}", "\x00", "é",
    # issue 10, section 2: the input classes that crashed meshspec
    '"a\\ud800b"', '"\\x1b[31mred"', "18446744073709551616", "1" + "0" * 400, "2305843009213693953", "1e400", "-1e400",
    "{fill: 18446744073709551616}", "{fill: 1e400}", "{fill: " + "9" * 420 + "}", "{fill: .nan}", "1:30", "[32.0, 32]",
    "{file: empty.npy}", "{file: loop.npy}", "{file: sub/../good.npy}", "{file: wide.npy}", "{file: fortran.npy}",
    "{file: short.npy}", "{file: good.npy}", "{system: t3k, shape: [1, 8]}", "{system: p150x8, shape: [2, 2, 2]}",
    "{match: '(x'}", "{match: Shard}",
]


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: float):
    def handler(signum, frame):  # pragma: no cover - only when something hangs
        raise Hang()

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(lines)) if lines else 0
        if op == 0 and lines:
            del lines[i]
        elif op == 1 and lines:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2 and lines:  # replace a word or number
            words = lines[i].split(" ")
            j = rng.randrange(len(words))
            words[j] = rng.choice(TOKENS)
            lines[i] = " ".join(words)
        elif op == 3 and lines:  # change a number
            digits = [k for k, ch in enumerate(lines[i]) if ch.isdigit()]
            if digits:
                k = rng.choice(digits)
                lines[i] = lines[i][:k] + str(rng.choice([0, 1, 3, 7, 9, 64, 1000])) + lines[i][k + 1 :]
        elif op == 4 and lines:  # indentation
            lines[i] = rng.choice(["", "  ", "    ", "\t"]) + lines[i].lstrip()
        elif op == 5:
            lines.insert(i, rng.choice(TOKENS) + ": " + rng.choice(TOKENS))
        else:  # truncate
            cut = rng.randrange(len(text) + 1)
            return text[:cut]
    return "\n".join(lines)


def random_yaml(rng: random.Random, depth: int = 0):
    kind = rng.randrange(6 if depth < 4 else 3)
    if kind == 0:
        return rng.choice([0, 1, -5, 2**40, 3.5, None, True, "x", "t3k", "meshspec"])
    if kind == 1:
        return rng.choice(["from_torch", "cpu", "dst", "[1, 3]", "bfloat16"])
    if kind == 2:
        return rng.randint(-3, 70)
    if kind == 3:
        return [random_yaml(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["meshspec", "mesh", "steps", "as", "shape", "dtype", "tensor", "src", "dst", "expect", "profiles", "x"]
    return {rng.choice(keys): random_yaml(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def random_input(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.7:
        return mutate(rng.choice(SEEDS), rng)
    if r < 0.85:
        doc = random_yaml(rng)
        if isinstance(doc, dict) and rng.random() < 0.7:
            doc.setdefault("meshspec", 1)
        return yaml.safe_dump(doc)
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 200))).decode("latin-1")


def data_folder(folder: Path) -> Path:
    """The data files the hostile tokens name, made in ``folder`` (which scenarios are parsed in)."""
    import os

    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "empty.npy").write_bytes(b"")
    for a, b in (("loop.npy", "loop2.npy"), ("loop2.npy", "loop.npy")):
        if not os.path.lexists(folder / a):
            os.symlink(b, folder / a)
    np.save(folder / "good.npy", np.arange(32, dtype=np.float32))
    np.save(folder / "wide.npy", np.full(32, 1e300, dtype=np.float64))
    np.save(folder / "fortran.npy", np.asfortranarray(np.arange(64, dtype=np.float64).reshape(8, 8)))
    (folder / "short.npy").write_bytes((folder / "good.npy").read_bytes()[:100])
    return folder


def outcome(text: str, seconds: float = 5.0, folder: Path = ROOT / "scenarios") -> str:
    """What meshspec does with ``text`` as a scenario: 'invalid' (exit 2, one line), 'error'
    (a step error, exit 1), 'findings' (exit 1), 'clean' (exit 0). Anything else raises."""
    with time_limit(seconds):
        try:
            scenario = parse(text, folder / "fuzz.yaml")
        except (ScenarioError, UsageError) as err:
            message = str(err)
            assert "\n" not in message and message.strip(), repr(message)
            return "invalid"
        report = run(scenario, max_memory=64 << 20, data=True, show_values=3)
        report.to_json()
        render([report], Format.JSON)
        render([report], Format.TABLE, Options(trace=True))
        render([report], Format.TABLE, Options(view=View.MAP, width=60))
        if report.error:
            assert "\n" not in report.error.message
            return "error"
        return "findings" if report.findings else "clean"


REPORT = None


def a_report() -> dict:
    global REPORT
    if REPORT is None:
        from meshspec.scenario.loader import load

        REPORT = run(load(ROOT / "scenarios" / "seed-uneven-copy.yaml")).to_json()
    return json.loads(json.dumps(REPORT))


JSON_VALUES = [None, True, 0, -1, 2**70, 1.5, "", "x", "R", [], [1, 3], [[0, 0]], {}, {"shard": "1"}, {"shard": 1}]


def mutate_report(data, rng: random.Random, depth: int = 0):
    """A report with a few values swapped, keys dropped or added, lists emptied."""
    if isinstance(data, dict) and data:
        key = rng.choice(list(data))
        r = rng.random()
        if r < 0.25:
            del data[key]
        elif r < 0.5 or depth > 6:
            data[key] = rng.choice(JSON_VALUES)
        else:
            data[key] = mutate_report(data[key], rng, depth + 1)
    elif isinstance(data, list) and data:
        i = rng.randrange(len(data))
        data[i] = mutate_report(data[i], rng, depth + 1) if rng.random() < 0.7 else rng.choice(JSON_VALUES)
    else:
        return rng.choice(JSON_VALUES)
    return data


def diff_outcome(expected: dict, actual: dict) -> str:
    """What ``meshspec diff`` does with two reports: 'invalid' (one line) or 'equal'/'different'."""
    from meshspec.errors import MeshspecError
    from meshspec.judge.diff import check_report, diff_reports
    from meshspec.render import render_diff

    try:
        a, b = check_report(expected, "a.json"), check_report(actual, "b.json")
        result = diff_reports(a, b)
    except MeshspecError as err:
        assert "\n" not in str(err), str(err)
        return "invalid report"
    render_diff(result, Format.TABLE)
    render_diff(result, Format.JSON)
    return "equal" if result.equal else "different"


def families() -> dict:
    """The fuzz families beyond the scenario and report inputs above, by name: every module
    ``tests/fuzz_families/*.py`` defines ``FAMILIES``, a dict of name -> ``case(rng, scratch)``, a
    function that makes one input of its family in the folder ``scratch``, runs it through meshspec
    as a user would (export, record, hunt, an output name ...) and returns an outcome word, raising
    (an AssertionError) when meshspec broke one of its promises."""
    import importlib.util

    found = {}
    for path in sorted((Path(__file__).resolve().parent / "fuzz_families").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"fuzz_families_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        found.update({f"{path.stem}.{name}": case for name, case in getattr(module, "FAMILIES", {}).items()})
    return found


def campaign(n: int, seed: int = 0, seconds_per_case: float = 5.0, folder: Path | None = None) -> Counter:
    """``n`` inputs: nine in ten scenarios (parsed in ``folder``, where data_folder() made the data
    files), one in ten a pair of reports for diff; and one input of each family in
    ``tests/fuzz_families`` for every 20 of those (at least one each), counted as FAMILY:OUTCOME."""
    import tempfile

    rng = random.Random(seed)
    counts: Counter = Counter()
    with tempfile.TemporaryDirectory() as scratch:
        where = data_folder(folder or Path(scratch))
        for _ in range(n):
            if rng.random() < 0.1:
                counts[diff_outcome(a_report(), mutate_report(a_report(), rng))] += 1
            else:
                counts[outcome(random_input(rng), seconds_per_case, where)] += 1
        for name, case in families().items():
            for i in range(max(1, n // 20)):
                with time_limit(max(seconds_per_case, 30.0)):
                    folder_i = Path(scratch) / "families" / name / str(i)
                    folder_i.mkdir(parents=True)
                    counts[f"{name}:{case(rng, folder_i)}"] += 1
    return counts
