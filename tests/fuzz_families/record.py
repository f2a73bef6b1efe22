"""Fuzz families for what record and import write, and for output file names (issue 34).

Each case ends as a scenario that loads (and a report) or as a one-line error with exit 2; it
raises AssertionError otherwise: a comment that became two lines, a name the loader refuses, a
traceback, a file written after a refusal, an output meshspec cannot replace the next time.
"""

from __future__ import annotations

import json
import linecache
import os
import random
import shutil
import types
from pathlib import Path

import yaml

from cli_runner import invoke
from meshspec.bridge import record
from meshspec.names import is_name
from meshspec.scenario.loader import load, parse

TESTS = Path(__file__).resolve().parents[1]
DATA = TESTS / "bridge" / "data"
SEED = TESTS.parent / "scenarios" / "even-copy.yaml"

BREAKS = ["\n", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1b[2J", "\x00", "\udcfe"]
"""What breaks a line for YAML, an editor or a terminal, and what a UTF-8 file cannot hold."""
LETTERS = "abcXYZ_éèßøΩλжкあ中ᚠ𝔘ﬁⅨ٣"
"""Letters and digits of many scripts: Python takes them in identifiers, the name rule does not."""
ALLOCATE = {"shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile"}


def _text(rng: random.Random, n: int = 6) -> str:
    parts = []
    for _ in range(rng.randint(1, n)):
        parts.append(rng.choice(BREAKS + ["  - deallocate: {tensor: dst}", "# x", "a/b.py", "é", ": ", " "]))
    return "".join(parts)


def _frame(source: str):
    name = f"<fuzz-record-{abs(hash(source))}>"
    linecache.cache[name] = (len(source), None, [source + "\n"], name)
    return types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=name), f_lineno=1)


def _recorder(scratch: Path) -> record.Recorder:
    rec = record.Recorder(scratch / "rec", _text(random.Random(str(scratch))))
    rec.mesh, rec.mesh_shape = object(), [1, 2]
    rec._system = lambda: None
    return rec


def _allocate(rec: record.Recorder, source: str, where: str) -> str:
    step = {"op": "allocate_tensor_on_device", "fields": dict(ALLOCATE), "where": where, "source": source,
            "qualname": "ttnn.allocate_tensor_on_device"}
    rec.steps.append(step)
    step["fields"]["as"] = rec.bind(object(), _frame(source), "tensor", step)
    return step["fields"]["as"]


def _one_line_error(result) -> None:
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("meshspec: "), result.output
    assert "Traceback" not in result.output


def recorded_line_breaks(rng: random.Random, scratch: Path) -> str:
    """A program path, a source line and a stop reason holding line breaks of every kind: the
    recorded scenario holds the steps recorded and nothing else, each comment one line."""
    rec = _recorder(scratch)
    n = rng.randint(1, 4)
    for _ in range(n):
        _allocate(rec, f"dst = ttnn.allocate_tensor_on_device(spec, md)  # {_text(rng)}", where=f"/tmp/{_text(rng)}.py:{rng.randint(1, 99)}")
    if rng.random() < 0.5:
        rec._stop(f"ValueError: {_text(rng)}", warn=False)
    rec.finish()
    assert rec.refused is None, rec.refused
    text = (scratch / "rec" / record.SCENARIO).read_text(encoding="utf-8")
    assert not set("\r\x85\u2028\u2029\x0b\x0c\x00\x1b") & set(text), "a comment holds a line break or control character"
    steps = [next(iter(s)) for s in yaml.safe_load(text)["steps"]]
    assert steps == ["allocate_tensor_on_device"] * n, steps
    assert len(load(scratch / "rec" / record.SCENARIO).steps) == n
    return "loads"


def recorded_identifiers(rng: random.Random, scratch: Path) -> str:
    """Variables of a valid program named in any script: every name written is a name under the
    rule, its uses follow it, and the scenario loads."""
    rec = _recorder(scratch)
    names = []
    for _ in range(rng.randint(1, 4)):
        ident = ""
        while not ident.isidentifier():
            ident = "".join(rng.choice(LETTERS + "0123456789") for _ in range(rng.choice([1, 3, 8, 140])))
        name = _allocate(rec, f"{ident} = ttnn.allocate_tensor_on_device(spec, md)", "prog.py:1")
        assert is_name(name), name
        names.append(name)
    rec.steps.append({"op": "deallocate", "fields": {"tensor": rng.choice(names)}, "where": "prog.py:2", "source": "",
                      "qualname": "ttnn.deallocate"})
    text, _ = rec.scenario_text()
    assert len(parse(text, scratch / "s.yaml").steps) == len(names) + 1
    return "loads"


def output_names(rng: random.Random, scratch: Path) -> str:
    """An output name that is not UTF-8 (run -o, check --junit-xml): written, then replaced by the
    same command, as any other name."""
    raw = bytes(rng.choice([rng.randrange(0x80, 0x100), rng.randrange(0x20, 0x7f)]) for _ in range(rng.randint(1, 12)))
    raw = raw.replace(b"/", b"_").lstrip(b".") or b"x"
    raw += b"\xfe"  # never valid UTF-8 on its own
    out = os.fsdecode(os.fsencode(scratch) + b"/" + raw)
    command, option = rng.choice([("run", "-o"), ("check", "--junit-xml")])
    env = {"MESHSPEC_STATE_DIR": str(scratch / "state")}
    for _ in range(2):
        r = invoke([command, str(SEED), option, out], env=env)
        assert r.exception is None, repr(r.exception)
        assert r.exit_code == 0, r.output
    assert os.path.getsize(out) > 0
    return "written twice"


_GRAPH_FIELDS = ("storage_type", "dtype", "layout", "shape", "address", "tensor_id", "buffer_type", "device_tensors")
_JUNK = ["Bogus", "", None, 7, -1, 2**70, ["DEVICE"], {"a": 1}, "DEVICE", "HOST", "device", "StorageType::HOST", "\u2028DEVICE",
         "Shape([1, 1, 32])", "Shape([0, 1, 32, 32])", "DataType::UINT8", "Layout::ROW_MAJOR", "[]", 1.5, True]


def graph_fields(rng: random.Random, scratch: Path) -> str:
    """A graph capture with malformed fields in its tensor nodes: import writes a scenario that
    loads, or says why in one line (exit 2) and writes nothing."""
    source = rng.choice(["graph-example", "graph-more"])
    data = json.loads((DATA / f"{source}.json").read_text())
    tensors = [n for n in data["graph"] if n["node_type"] == "tensor"]
    for _ in range(rng.randint(1, 3)):
        node = rng.choice(tensors)
        node["params"][rng.choice(_GRAPH_FIELDS)] = rng.choice(_JUNK)
    capture = scratch / f"{source}.json"
    capture.write_text(json.dumps(data))
    if rng.random() < 0.7:
        shutil.copy(DATA / f"{source}.python_io.json", scratch / f"{source}.python_io.json")
    out = scratch / "out.yaml"
    r = invoke(["import", str(capture), "-o", str(out)], env={"MESHSPEC_STATE_DIR": str(scratch / "state")})
    assert r.exception is None, repr(r.exception)
    if r.exit_code == 0:
        load(out)
        return "imported"
    _one_line_error(r)
    assert not out.exists(), "a refused import wrote its output"
    return "refused"


def import_fifos(rng: random.Random, scratch: Path) -> str:
    """FIFOs and links to devices named like op files in a tracer folder: never opened (a FIFO
    would hang the case), named on stderr; the scenario loads, or all are such and it is one line."""
    trace = scratch / "trace"
    if rng.random() < 0.8:
        shutil.copytree(DATA / "tracer-example", trace)
    else:
        trace.mkdir()
    odd = []
    for i in range(rng.randint(1, 3)):
        entry = trace / f"{90 + i}_ttnn_add_20261201_000000_{i:06d}.json"
        kind = rng.choice(["fifo", "zero", "null", "dangling"])
        if kind == "fifo":
            os.mkfifo(entry)
        else:
            entry.symlink_to({"zero": "/dev/zero", "null": "/dev/null", "dangling": str(scratch / "nowhere")}[kind])
        odd.append(entry.name)
    out = scratch / "out.yaml"
    r = invoke(["import", str(trace), "-o", str(out)], env={"MESHSPEC_STATE_DIR": str(scratch / "state")})
    assert r.exception is None, repr(r.exception)
    if r.exit_code == 0:
        load(out)
        for name in odd:
            assert f"meshspec: not imported: {name}: " in r.stderr, (name, r.stderr)
        return "imported"
    _one_line_error(r)
    assert not out.exists()
    return "refused"


FAMILIES = {
    "recorded_line_breaks": recorded_line_breaks,
    "recorded_identifiers": recorded_identifiers,
    "output_names": output_names,
    "graph_fields": graph_fields,
    "import_fifos": import_fifos,
}
