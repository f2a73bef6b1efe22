"""msgspec against meshspec's own typed layer (typed.py, frozen.py) and the report's JSON (issue 38).

    python bench/report_format.py                       # every section, about 3 minutes on 2 cores
    python bench/report_format.py --only startup --pairs 41
    python bench/report_format.py --only startup --baseline /tmp/venv-main/bin/meshspec

Sections:

* ``startup``: what importing msgspec adds to ``meshspec run SEED --format json`` and to
  ``meshspec --help``, whole processes of the installed command (install it with ``pip install .``,
  not ``-e``: an editable install's import finder costs every start about 18 ms), in interleaved
  pairs (the plain run first in even pairs): the median and min..max of the differences. With
  ``--baseline CMD``: the same commands of two installs (this tree's against another), paired so.
* ``instances``: making one value of six fields (four given by position or keyword, two defaulted),
  per class layer: ``frozen.Frozen``, ``typed.Typed``, ``msgspec.Struct(frozen=True)``, a frozen
  dataclass, a dict; and reading one field. In-process (timeit's best of 7), microseconds a value.
* ``report``: a large report (the seed on a 64x64 mesh, 4,096 devices a tensor, the bench's
  metadata case; and the galaxy copy of bench/run.py): building its JSON data (``to_json``), its
  text (render/json.py's ``dumps``), reading it back for ``meshspec diff`` (``json.loads`` and the
  typed validation) against msgspec: ``msgspec.json.decode`` into Structs declaring the same format,
  ``msgspec.to_builtins`` of those Structs, and msgspec's own (compact) encoder. Best of 5, ms.

* ``instructions``: the start-up rows again as valgrind instruction counts (medians of ``--counts``,
  interleaved), for a machine too busy for wall-clock pairs.

Measured on the 2-core machine of issue 38 (Python 3.11, msgspec 0.23.0, non-editable installs):

    startup, 31 pairs        run SEED --format json: msgspec imported first +2.7 ms (117 ms, 1.02x);
                             --help: +6.1 ms (26 ms, 1.24x)
    instructions, median     run SEED --format json 781 M, msgspec imported first +11 M (+13, +16, +29
                             in other runs: a run's count varies by 2-4% on a busy machine); --help
                             167 M, msgspec first +44 M (+56). This tree against the one before the
                             report declaration (medians of 7): 819 M vs 822 M, --help 191 vs 199 M
    import alone             python -X importtime: msgspec 17 ms cold (typing_extensions, inspect,
                             uuid, decimal, datetime ...), 3.5 ms after meshspec's own imports
    instances, us a value    Frozen 0.73 by position, 0.80 by keyword; Typed 2.0 by keyword;
                             msgspec.Struct(frozen=True) 0.058 / 0.064; frozen dataclass 0.56 / 0.70;
                             a dict literal 0.08. A class: Frozen 5.9 us, Struct 6.4, Typed 3.9.
                             A seed run makes about 126 Frozen values (0.1 ms in all).
    report, 64x64 metadata   3.5 MB, 8,191 device entries: to_json 4.6 ms, dumps 37 ms (the layout
                             a user reads; msgspec's compact encoder 2.6 ms writes no such layout,
                             to_builtins of Structs 8.7 ms); reading back json.loads 25 ms + typed
                             validation 68 ms = 93 ms, msgspec.json.decode into Structs 7.4 ms.

Decision (README and docs/development.md, Dependencies): msgspec is not adopted. On the start-up path it costs 2.7 ms and
removes nothing (about 126 frozen values a run; the JSON text keeps its layout, so the C encoder of
``_json`` stays; diff's and scenarios' messages are meshspec's own, and msgspec takes no untagged
union of the two topology forms); it wins only where meshspec spends little (reading a report back
for ``diff``). The report format is declared once as typed records (meshspec/report.py). Declaring
its 27 records costs 0.55 ms of ``import meshspec.report``; ``render/json.py`` taking the encoder
from ``_json`` instead of the json package saves 1 ms of a JSON run, so ``run --format json``
starts no slower than before (``import meshspec.render.json`` best of 15: 12.6 ms before, 11.8 after).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
SEED = ROOT / "scenarios" / "seed-uneven-copy.yaml"


# -- start-up: whole processes -------------------------------------------------------------------
def wall(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start


def python_of(command: str) -> str:
    """The interpreter an installed console script runs with (its ``#!`` line)."""
    with open(command, "rb") as f:
        first = f.readline().decode()
    return first[2:].strip() if first.startswith("#!") else sys.executable


def as_code(argv: list[str], first: str = "") -> str:
    """``meshspec ARGV`` as ``python -c`` code, with ``first`` run before meshspec is imported."""
    return f"{first}\nimport sys\nsys.argv = ['meshspec', *{argv!r}]\nfrom meshspec.cli import main\nmain()\n"


def paired(a: list[str], b: list[str], n: int, env: dict) -> tuple[list[float], list[float]]:
    """``n`` interleaved runs of ``a`` and ``b`` (``b`` first in even pairs)."""
    sa, sb = [], []
    for i in range(n):
        if i % 2 == 0:
            sb.append(wall(b, env))
            sa.append(wall(a, env))
        else:
            sa.append(wall(a, env))
            sb.append(wall(b, env))
    return sa, sb


def ms(x: float) -> str:
    return f"{x * 1000:+.1f}" if x < 0 else f"{x * 1000:.1f}"


def show_pairs(case: str, a: list[float], b: list[float]) -> None:
    d = [x - y for x, y in zip(a, b)]
    print(f"  {case}: {ms(statistics.median(a))} ms vs {ms(statistics.median(b))} ms; "
          f"difference median {ms(statistics.median(d))} ms ({ms(min(d))}..{ms(max(d))}), "
          f"ratio {statistics.median([x / y for x, y in zip(a, b)]):.3f}x")


def startup(meshspec: str, baseline: Optional[str], n: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    work = Path(tempfile.mkdtemp(prefix="meshspec-bench-"))
    try:
        json_run = ["run", str(SEED), "--format", "json", "-o", str(work / "seed.json")]
        commands = {"run SEED --format json": json_run, "--help": ["--help"]}
        python = python_of(meshspec)
        for argv in commands.values():  # bytecode caches first
            subprocess.run([meshspec, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
            if baseline:
                subprocess.run([baseline, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        print(f"startup ({n} pairs, {meshspec})")
        for case, argv in commands.items():
            with_msgspec = [python, "-c", as_code(argv, "import msgspec, msgspec.json")]
            plain = [python, "-c", as_code(argv)]
            show_pairs(f"{case}, msgspec imported first vs not", *paired(with_msgspec, plain, n, env))
        if baseline:
            for case, argv in commands.items():
                show_pairs(f"{case}, this install vs {baseline}", *paired([meshspec, *argv], [baseline, *argv], n, env))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def instructions(cmd: list[str], env: dict) -> int:
    """Instructions ``cmd`` executes (cachegrind, no cache simulation): deterministic, so a
    difference of a fraction of a millisecond shows on a machine too busy for wall-clock pairs."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={tmp}/cg.out", *cmd],
                             env=env, capture_output=True, text=True, check=False).stderr
    found = re.search(r"I\s+refs:\s+([\d,]+)", out)
    if found is None:
        raise SystemExit(f"bench: no cachegrind summary for {cmd}:\n{out[-2000:]}")
    return int(found.group(1).replace(",", ""))


def startup_instructions(meshspec: str, baseline: Optional[str], n: int) -> None:
    """Medians of ``n`` counts of each command, the variants interleaved (a run's count still varies
    by about 2%: a thread hashing values, the collector's timing)."""
    if not shutil.which("valgrind"):
        raise SystemExit("bench: the instructions section needs valgrind")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    work = Path(tempfile.mkdtemp(prefix="meshspec-bench-"))
    try:
        commands = {"run SEED --format json": ["run", str(SEED), "--format", "json", "-o", str(work / "seed.json")], "--help": ["--help"]}
        print(f"instructions (valgrind, M, median of {n}; {meshspec})")
        for case, argv in commands.items():
            variants = {"plain": [python_of(meshspec), "-c", as_code(argv)],
                        "msgspec imported first": [python_of(meshspec), "-c", as_code(argv, "import msgspec, msgspec.json")]}
            if baseline:
                variants[baseline] = [python_of(baseline), "-c", as_code(argv)]
            for command in (meshspec, baseline or meshspec):  # bytecode caches first
                subprocess.run([command, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
            counts: dict[str, list[int]] = {k: [] for k in variants}
            for i in range(n):
                names = list(variants)
                for name in names[i % len(names):] + names[: i % len(names)]:
                    counts[name].append(instructions(variants[name], env))
            med = {k: statistics.median(v) for k, v in counts.items()}
            plain = med["plain"]
            print(f"  {case}: " + "; ".join(f"{k} {m / 1e6:.1f} M ({(m - plain) / 1e6:+.1f} M, {min(counts[k]) / 1e6:.1f}..{max(counts[k]) / 1e6:.1f})"
                                            for k, m in med.items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- instances: in-process -----------------------------------------------------------------------
def instances() -> None:
    import dataclasses
    from typing import Optional as Opt

    import msgspec

    from meshspec.frozen import Frozen
    from meshspec.typed import Typed

    class F(Frozen):
        step: int
        op: str
        message: str
        line: Opt[int] = None
        source: str = "ttnn"
        crash: bool = False

    class T(Typed):
        step: int
        op: str
        message: str
        line: Opt[int] = None
        source: str = "ttnn"
        crash: bool = False

    class S(msgspec.Struct, frozen=True):
        step: int
        op: str
        message: str
        line: Opt[int] = None
        source: str = "ttnn"
        crash: bool = False

    @dataclasses.dataclass(frozen=True)
    class D:
        step: int
        op: str
        message: str
        line: Opt[int] = None
        source: str = "ttnn"
        crash: bool = False

    n = 200_000

    def best(fn) -> float:
        return min(timeit.repeat(fn, number=n, repeat=7)) / n * 1e6

    print("instances (us a value, best of 7)")
    rows = [
        ("frozen.Frozen", F), ("typed.Typed", T), ("msgspec.Struct(frozen=True)", S), ("@dataclass(frozen=True)", D),
    ]
    for name, cls in rows:
        pos = "-" if cls is T else f"{best(lambda: cls(3, 'to_torch', 'x', 7)):.3f}"
        kw = best(lambda: cls(step=3, op="to_torch", message="x", line=7))
        value = cls(step=3, op="to_torch", message="x", line=7)
        read = best(lambda: value.op)
        print(f"  {name:30s} by position {pos:>6}  by keyword {kw:.3f}  read a field {read:.3f}")
    print(f"  {'dict':30s} {'':11s} {'':6s}  literal    {best(lambda: {'step': 3, 'op': 'to_torch', 'message': 'x', 'line': 7}):.3f}")
    for name, make in (("frozen.Frozen", lambda: type("X", (Frozen,), {"__annotations__": {"a": int, "b": str}, "b": ""})),
                       ("msgspec.Struct", lambda: msgspec.defstruct("X", [("a", int), ("b", str, "")], frozen=True)),
                       ("typed.Typed", lambda: type("X", (Typed,), {"__annotations__": {"a": int, "b": str}, "b": ""}))):
        per = min(timeit.repeat(make, number=2000, repeat=5)) / 2000 * 1e6
        print(f"  declaring a class of 2 fields, {name:15s} {per:.1f} us")


# -- a large report: in-process ------------------------------------------------------------------
def mirror():
    """The report's reading declaration (judge/reports.py's) as msgspec Structs: what diff validates."""
    from typing import Any, Literal, Optional as Opt, Union

    import msgspec
    from typing_extensions import Annotated

    Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
    Count = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
    Ints = list[Int]

    class Base(msgspec.Struct):
        pass

    class ShardSpec(Base, kw_only=True):
        grid: list[list[Ints]]
        shape: Ints
        orientation: str

    class NdShardSpec(Base, kw_only=True):
        shard_shape: Ints
        grid: list[list[Ints]]
        orientation: str
        distribution: str

    class MemoryConfig(Base, kw_only=True):
        memory_layout: str
        buffer_type: str
        shard_spec: Opt[ShardSpec] = None
        nd_shard_spec: Opt[NdShardSpec] = None

    class Spec(Base, kw_only=True):
        shape: Ints
        padded_shape: Opt[Ints] = None
        dtype: str
        layout: str
        tile: Opt[Ints] = None
        memory: Opt[str] = None
        page_size: Opt[Count] = None
        aligned_page_size: Opt[Count] = None
        num_pages: Opt[Count] = None
        buffer_bytes: Opt[Count] = None
        memory_config: Opt[MemoryConfig] = None

    class Shard(Base, kw_only=True):
        shard: Int

    class Topology(Base, kw_only=True):  # msgspec takes no union of two object types: the {"same_as": name} form folded in
        distribution_shape: Opt[Ints] = None
        placements: Opt[list[Union[Literal["R"], Shard]]] = None
        coords: Opt[list[Ints]] = None
        same_as: Opt[str] = None

    class Device(Base, kw_only=True):
        coord: Ints
        recorded: bool
        spec: Opt[Spec] = None
        written_bytes: Opt[Count] = None
        offset: Opt[Ints] = None
        status: Opt[str] = None

    class Values(Base, kw_only=True):
        shape: Opt[Ints] = None
        dtype: Opt[str] = None
        sha256: Opt[str] = None
        first: Opt[list[Any]] = None

    class Tensor(Base, kw_only=True):
        name: str
        storage: Literal["device", "host", "deallocated"]
        topology: Topology
        devices: list[Device]
        address: Opt[Count] = None
        values: Opt[Values] = None

    class Error(Base, kw_only=True):
        step: Opt[Int] = None
        op: Opt[str] = None
        message: str
        crash: bool = False

    class Finding(Base, kw_only=True):
        kind: str
        tensor: str
        device: Opt[Ints] = None
        step: Opt[Int] = None
        message: str = ""

    class Report(Base, kw_only=True):
        format: Literal["meshspec.report/1"]
        scenario: Opt[str]
        profile: Opt[str] = None
        mesh: Ints
        steps_run: Opt[Count] = None
        error: Opt[Error] = None
        tensors: list[Tensor]
        findings: list[Finding] = []

    return Report


def report_section() -> None:
    import json

    import msgspec

    from meshspec.judge.reports import validate_report
    from meshspec.render.json import dumps
    from meshspec.runner import run
    from meshspec.scenario.loader import load
    from run import copy_scenario, seed_copies  # bench/run.py's cases

    Report = mirror()
    work = Path(tempfile.mkdtemp(prefix="meshspec-bench-"))
    try:
        cases = {"seed + 20 copies, 64x64 mesh, metadata": seed_copies((64, 64), 20),
                 "galaxy copy (1,31,512,512) bf16": copy_scenario("galaxy", 31, 512)}
        print("report (ms, best of 5)")
        for case, text in cases.items():
            path = work / "case.yaml"
            path.write_text(text)
            report = run(load(path), None)
            data = report.to_json()
            out = dumps(data)

            def best(fn, k=5) -> float:
                return min(timeit.repeat(fn, number=1, repeat=k)) * 1e3

            structs = msgspec.json.decode(out, type=Report)
            print(f"  {case}: {len(out) / 1e6:.1f} MB of JSON, {sum(len(t['devices']) for t in data['tensors'])} device entries")
            print(f"    write  report.to_json() {best(report.to_json):8.1f}   dumps(data) {best(lambda: dumps(data)):8.1f}   "
                  f"msgspec.to_builtins(structs) {best(lambda: msgspec.to_builtins(structs)):8.1f}   "
                  f"msgspec.json.encode(data), compact {best(lambda: msgspec.json.encode(data)):8.1f}")
            print(f"    read   json.loads {best(lambda: json.loads(out)):8.1f}   + validate_report (typed) "
                  f"{best(lambda: validate_report(json.loads(out), 'r.json')):8.1f}   "
                  f"msgspec.json.decode(type=Report) {best(lambda: msgspec.json.decode(out, type=Report)):8.1f}   "
                  f"msgspec.convert(loaded, Report) {best(lambda: msgspec.convert(json.loads(out), Report)):8.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="only the sections whose name contains this: startup, instructions, instances, report")
    parser.add_argument("--meshspec", default=shutil.which("meshspec"), help="the installed meshspec command (pip install .)")
    parser.add_argument("--baseline", default=None, help="another install's meshspec command, paired against --meshspec")
    parser.add_argument("--pairs", type=int, default=21, help="pairs of start-up runs (default 21)")
    parser.add_argument("--counts", type=int, default=5, help="instruction counts of each command (default 5)")
    args = parser.parse_args()
    if args.only in "startup":
        if not args.meshspec:
            raise SystemExit("bench: no meshspec command on PATH (pip install . first)")
        startup(args.meshspec, args.baseline, args.pairs)
    if args.only in "instructions":
        startup_instructions(args.meshspec, args.baseline, args.counts)
    if args.only in "instances":
        instances()
    if args.only in "report":
        report_section()


if __name__ == "__main__":
    main()
