"""Fuzz families of the scenario loader (issue 34): line breaks only YAML sees, nested repeats,
profile names that break the rule, cycles of profile bases.

Each case makes one input in ``scratch``, loads it as ``meshspec run`` does and checks what the
loader promises: a refusal is one line at the right place naming what is wrong; anything it
accepts is what the file says. The expected outcome is worked out here, independently of the
loader (by counting, by the rule in meshspec/names.py, by following the bases).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from meshspec.errors import ScenarioError
from meshspec.names import MAX_NAME, RESERVED_PROFILE_NAMES, is_name
from meshspec.scenario import loader
from meshspec.scenario.loader import load
from meshspec.sim.profiles import PROFILES

ROOT = Path(__file__).resolve().parents[2]
SEEDS = sorted((ROOT / "scenarios").glob("*.yaml"))
BREAKS = ["\r", "\x85", "\u2028", "\u2029", "\u202e", "\u2066"]  # line breaks only YAML sees, bidi controls


def _refusal(path: Path) -> ScenarioError | None:
    try:
        load(path)
    except ScenarioError as err:
        text = str(err)
        assert "\n" not in text and "\r" not in text and "\u2028" not in text and "\x85" not in text, repr(text)
        assert "Traceback" not in text and text.strip()
        return err
    return None


# -- line breaks -------------------------------------------------------------------------------
def line_breaks(rng: random.Random, scratch: Path) -> str:
    """A bundled scenario with one hidden break put in a comment (with a live-looking step after
    it), inside a word (a string or a key's text), or just before a key's colon; or the whole file
    in Windows line endings, which must load as the file does."""
    seed = rng.choice(SEEDS)
    text = seed.read_text(encoding="utf-8")
    path = scratch / seed.name
    if rng.random() < 0.15:
        path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
        a, b = load(seed), load(path)
        assert [(s.op, s.line) for s in a.steps] == [(s.op, s.line) for s in b.steps], seed.name
        assert (a.description, a.profile, list(a.profiles)) == (b.description, b.profile, list(b.profiles)), seed.name
        return "crlf loads as lf"
    lines = text.split("\n")
    i = rng.randrange(len(lines) - 1)  # the last "line" is what follows the final newline
    line = lines[i]
    brk = rng.choice(BREAKS)
    where = rng.choice(["comment", "word", "key"])
    if where == "comment":
        col = len(line) + 1 + len("  # note")
        lines[i] = line + "  # note" + brk + "  - deallocate: {tensor: x}"
    elif where == "key" and ":" in line:
        col = line.index(":") + 1
        lines[i] = line[: col - 1] + brk + line[col - 1 :]
    else:
        at = rng.randrange(len(line) + 1)
        col = at + 1
        lines[i] = line[:at] + brk + line[at:]
    path.write_bytes("\n".join(lines).encode("utf-8"))
    err = _refusal(path)
    if brk == "\r" and lines[i].endswith("\r"):  # put at the end of a line: a Windows line end, no hidden break
        assert err is None and [(s.op, s.line) for s in load(path).steps] == [(s.op, s.line) for s in load(seed).steps], str(err)
        return "crlf loads as lf"
    assert err is not None, f"{seed.name}: a {brk!r} at line {i + 1} was not refused"
    assert (err.line, err.column) == (i + 1, col), (str(err), i + 1, col)
    return "refused"


# -- nested repeats ----------------------------------------------------------------------------
def _times(rng: random.Random) -> int:
    return rng.choice([rng.randint(1, 6), rng.randint(1, 4096), 4096])


def _block(rng: random.Random, depth: int, indent: str) -> tuple[str, int]:
    """A repeat (or, now and then, a distribute) block of random depth: its text and its steps."""
    if depth == 0:
        n = rng.randint(1, 3)
        return "".join(f"{indent}- neg: {{tensor: a, as: a}}\n" for _ in range(n)), n
    body, inner = "", 0
    for _ in range(rng.randint(1, 2)):
        text, count = _block(rng, depth - 1 if rng.random() < 0.8 else 0, indent + "      ")
        body, inner = body + text, inner + count
    if rng.random() < 0.2:
        return f"{indent}- distribute:\n{indent}    mesh_composer: {{concat: 0}}\n{indent}    steps:\n{body}", inner
    times = _times(rng)
    return f"{indent}- repeat:\n{indent}    times: {times}\n{indent}    steps:\n{body}", inner * times


def nested_repeats(rng: random.Random, scratch: Path) -> str:
    """Blocks nested up to four deep with random counts, side by side: refused in one line at the
    first top-level block past the limit when the steps they expand to (counted here) are more
    than it allows; otherwise loaded, with exactly that many steps. Small totals are kept small so a
    case stays quick: a scenario of more than 20,000 steps is loaded only with a lower limit."""
    head = "meshspec: 1\nmesh: [1, 2]\ndata: none\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"
    text, total, first_past, line = head, 1, None, head.count("\n") + 1
    limit = loader.MAX_STEPS
    for _ in range(rng.randint(1, 3)):
        block, count = _block(rng, rng.randint(1, 4), "  ")
        total += count
        if first_past is None and total > limit:
            first_past, past = line, total  # the block's line, and the total with it
        text += block
        line += block.count("\n")
    path = scratch / "repeats.yaml"
    path.write_text(text, encoding="utf-8")
    if first_past is None and total > 20_000:
        return "large, not loaded"
    err = _refusal(path)
    if first_past is not None:
        assert err is not None, f"{total:,} steps loaded"
        message = str(err)
        assert (err.line, err.column) == (first_past, 5), (message, first_past)
        assert f"{past:,}" in message and f"at most {limit:,} steps" in message, (message, past)
        return "refused"
    assert err is None, str(err)
    assert len(load(path).steps) == total
    return "loaded"


# -- profile names -----------------------------------------------------------------------------
def _a_name(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice(["x/../../escaped", "a/b", "..", "./x", "/etc/passwd", "x\\y", "../" * rng.randint(1, 5) + "z"])
    if kind == 1:
        return rng.choice(["__init__", "__class__", "__dict__", "_-dict-_", "__builtins__", "__", "_"])
    if kind == 2:
        return rng.choice("pq_") * rng.choice([MAX_NAME - 1, MAX_NAME, MAX_NAME + 1, 240, 4000])
    if kind == 3:
        return rng.choice(sorted(RESERVED_PROFILE_NAMES))
    if kind == 4:
        return rng.choice(["dst_é", "ﬁx", "a b", "", "$(id)", "`id`", "a;b", "x\x1b[31m", "a\u2028b", "a\ud800", "1st", "-x", ".x"])
    if kind == 5:
        return rng.choice(list(PROFILES))
    return "".join(rng.choice("abcXYZ019_.-") for _ in range(rng.randint(1, 12)))


def profile_names(rng: random.Random, scratch: Path) -> str:
    """A profile name of any kind (path characters, dunders, great length, reserved, not ASCII,
    a control character) defined under ``profiles:`` and used by ``profile:`` and ``expect``: it
    loads exactly when the rule takes it (and it is neither reserved nor meshspec's own), else one
    line names it. A loaded one runs."""
    name = _a_name(rng)
    quoted = json.dumps(name)  # a JSON string is a YAML double-quoted one, every character escaped
    text = (
        f"meshspec: 1\nmesh: [1, 2]\nprofile: {quoted}\nprofiles:\n  {quoted}: {{base: current, copy: exact}}\n"
        "steps:\n  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n"
        "  - from_torch: {as: h, shape: [1, 2, 32, 32], mesh_mapper: {shard: 1}}\n"
        "  - copy_host_to_device_tensor: {src: h, dst: d}\n"
        f"expect:\n  profiles:\n    {quoted}: {{findings: []}}\n"
    )
    path = scratch / "names.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    err = _refusal(path)
    good = is_name(name) and name not in RESERVED_PROFILE_NAMES and name not in PROFILES
    if not good:
        assert err is not None, f"profile name {name!r} loaded"
        return "refused"
    assert err is None, (name, str(err))
    from meshspec.runner import run

    report = run(load(path), max_memory=64 << 20)
    assert report.profile == name and not report.findings, (name, report.findings)
    return "ran"


# -- profile cycles ----------------------------------------------------------------------------
def profile_cycles(rng: random.Random, scratch: Path) -> str:
    """Up to eight profiles whose bases point at each other, at meshspec's profiles, or at a name
    nobody defines, in random order: the first profile (in the file's order) whose chain of bases
    goes wrong says so, as a cycle (one the bases really make) or an unknown base; otherwise each
    profile is made with its base's rules."""
    names = [f"p{i}" for i in range(rng.randint(1, 8))]
    bases = {n: rng.choice(names + list(PROFILES) + ["nobody"]) if rng.random() < 0.9 else rng.choice(names) for n in names}
    text = "meshspec: 1\nmesh: [1, 2]\nprofiles:\n" + "".join(f"  {n}: {{base: {bases[n]}}}\n" for n in names)
    text += "steps:\n  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n"
    path = scratch / "cycles.yaml"
    path.write_text(text, encoding="utf-8")
    expected = None  # what the first broken chain is, followed here
    for n in names:
        chain, at = [], n
        while at in bases and at not in chain:
            chain.append(at)
            at = bases[at]
        if at in chain:
            expected = "cycle"
            break
        if at not in PROFILES:
            expected = "unknown"
            break
    err = _refusal(path)
    if expected is None:
        assert err is None, str(err)
        s = load(path)
        assert list(s.profiles) == names
        for n in names:
            root = n
            while root not in PROFILES:
                root = bases[root]
            assert s.profiles[n].allocation == PROFILES[root].allocation and s.profiles[n].base == bases[n]
        return "loaded"
    assert err is not None, f"{expected} not refused: {bases}"
    message = str(err)
    if expected == "cycle":
        assert "profile cycle: " in message, (message, bases)
        said = message.split("profile cycle: ", 1)[1].split(";", 1)[0].split(" -> ")
        assert said[0] == said[-1] and all(bases[a] == b for a, b in zip(said, said[1:])), (message, bases)
        return "cycle"
    assert "unknown base profile 'nobody'" in message and all(n in message for n in names), message
    return "unknown base"


FAMILIES = {
    "line_breaks": line_breaks,
    "nested_repeats": nested_repeats,
    "profile_names": profile_names,
    "profile_cycles": profile_cycles,
}


if __name__ == "__main__":  # a quick look: python tests/fuzz_families/loader.py
    import tempfile
    from collections import Counter

    import sys

    rng, counts = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0), Counter()
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(200):
            for fam, case in FAMILIES.items():
                folder = Path(scratch) / f"{fam}{i}"
                folder.mkdir()
                counts[f"{fam}:{case(rng, folder)}"] += 1
    print(dict(sorted(counts.items())))
