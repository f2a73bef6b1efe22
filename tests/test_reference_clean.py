"""The ``reference`` profile is clean by construction (issue 35, item 5).

``reference`` is meshspec's runtime that records exactly what was written (docs/semantics.md section
6): no record it keeps can lie, so on any program it reports no finding but the user's own errors
(kinds with :attr:`~meshspec.kinds.KindInfo.user_error`: a tensor used after it was freed). Three
sources of programs are swept:

- every bundled scenario (``scenarios/*.yaml``);
- every scenario file under tests/ and every scenario a test writes out (a YAML string holding
  ``meshspec: 1`` and ``steps:``, or a literal list of steps given to ``run_steps`` /
  ``make_scenario``), found by reading the tests' source (a scenario a test builds from variables is
  not found: 55 are, of the tests as they stand);
- 300 random programs of the hunt generator (meshspec/hunt/programs.py), seed ``reference``.

A program that shows a record finding under ``reference`` is a bug in the judge or the simulator.
Those whose cause is in a device op's output body (the lead is moving them onto one output
primitive, sim/ops/output.py) are marked ``xfail(strict=True)`` with the diagnosis, so the test
turns red the moment a fix lands and the mark must go. A few bundled scenarios exist to show a lie the
*user* states (a topology the user sets by hand, a shard grid the user chose, a write the user
filtered to one core): those findings are listed in :data:`STATED_BY_USER`, finding by finding.
"""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest
import yaml
from conftest import run_steps

from meshspec.hunt.programs import generate
from meshspec.kinds import KINDS
from meshspec.runner import run
from meshspec.scenario.loader import load, parse

ROOT = Path(__file__).resolve().parents[1]

#: The hunt vocabulary as it was when the expectations below were written: a program's draws
#: depend on it, so the xfail marks name the same programs however the default vocabulary grows.
OPS = ("from_torch", "allocate_tensor_on_device", "copy_host_to_device_tensor", "to_device", "cpu", "to_torch", "deallocate",
       "squeeze", "unsqueeze", "permute", "all_gather", "all_gather_async", "neg", "add")
MESHES = (("t3k", (2, 4)), ("n300", (1, 2)), ([2, 2], (2, 2)), ("galaxy", (8, 4)))
PROGRAMS = 300


def record_findings(report) -> list[tuple]:
    """(kind, tensor, op) of every finding that is not the user's own error."""
    return sorted({(f.kind.value, f.tensor, f.op) for f in report.findings if not KINDS[f.kind].user_error})


# --- diagnoses (one per cause; the programs below name them) ----------------------------------


#: Findings a bundled scenario exists to show that the user states, not the runtime: (kind, tensor) -> why.
STATED_BY_USER: dict[str, dict[tuple[str, str], str]] = {
    "partial-core-write.yaml": {
        ("partial", "kv"): "copy_host_to_device_tensor_partial with core_filter (0,0): the user writes one core's pages only",
        ("partial", "back"): "cpu of kv after that write: the host copy holds kv's pages as they are, and carries its status",
    },
    "self-contradicting-calls.yaml": {
        ("topology_mismatch", "fresh"): "update_tensor_topology sets the topology the user wrote, unchecked",
    },
}

#: Bundled scenarios that reference does not keep clean yet: file -> diagnosis.
BUNDLED_KNOWN: dict[str, str] = {}

#: Test scenarios (file:line of the test that writes it) stating a lie by hand: (kind, tensor) -> why.
TEST_STATED_BY_USER: dict[str, dict[tuple[str, str], str]] = {
    "tests/sim/test_runtime.py:249": {
        ("topology_mismatch", "dev"): "update_tensor_topology claims a 100000 x 100000 distribution on one coordinate",
        ("topology_mismatch", "back"): "cpu() of that tensor keeps the claimed topology",
    },
}

#: Scenario files kept under tests/ that reference does not keep clean yet: path -> diagnosis.
TEST_KNOWN: dict[str, str] = {}

#: Hunt programs reference does not keep clean yet: example -> diagnosis.
HUNT_KNOWN: dict[int, str] = {
}


# --- the bundled scenarios --------------------------------------------------------------------

BUNDLED = sorted((ROOT / "scenarios").glob("*.yaml"))


def _unstated(found: list[tuple], stated: dict[tuple[str, str], str]) -> list[tuple]:
    return [f for f in found if (f[0], f[1]) not in stated]


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, id=p.name, marks=[pytest.mark.xfail(strict=True, reason=BUNDLED_KNOWN[p.name])] if p.name in BUNDLED_KNOWN else [])
     for p in BUNDLED],
)
def test_every_bundled_scenario_is_clean_under_reference(path):
    report = run(load(path), "reference")
    assert _unstated(record_findings(report), STATED_BY_USER.get(path.name, {})) == []


def test_the_findings_stated_by_the_user_are_still_there():
    """The exceptions above are not blanket passes: each names a finding reference still reports (a
    scenario that stopped showing it must leave the list)."""
    for name, stated in STATED_BY_USER.items():
        found = {(k, t) for k, t, _ in record_findings(run(load(ROOT / "scenarios" / name), "reference"))}
        assert set(stated) <= found, name


# --- the scenarios the tests write ------------------------------------------------------------

def _literal(node: ast.AST, names: dict[str, ast.AST]):
    try:
        return ast.literal_eval(node)
    except ValueError:
        if isinstance(node, ast.Name) and node.id in names:
            try:
                return ast.literal_eval(names[node.id])
            except ValueError:
                return None
        return None


def test_scenarios() -> list[tuple[str, str]]:
    """(test file:line, scenario text) of each scenario a test writes out literally and that loads
    (many of the others are refused on purpose: the loader's tests)."""
    out = []
    for path in sorted((ROOT / "tests").rglob("*.yaml")):  # none today; a scenario file a test keeps
        text = path.read_text(encoding="utf-8")
        try:
            load(path)
        except Exception:  # noqa: BLE001 - a file kept to be refused
            continue
        out.append((path.relative_to(ROOT).as_posix(), text))
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        where = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            text = None
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "meshspec: 1" in node.value and "steps:" in node.value:
                text = textwrap.dedent(node.value).lstrip("\n")
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("run_steps", "make_scenario") and node.args:
                steps = _literal(node.args[0], names)
                mesh = next((_literal(k.value, names) for k in node.keywords if k.arg == "mesh"), None)
                at = 2 if node.func.id == "run_steps" else 1
                if mesh is None and len(node.args) > at:
                    mesh = _literal(node.args[at], names)
                if isinstance(steps, list):
                    text = yaml.safe_dump({"meshspec": 1, "mesh": mesh or "t3k", "steps": steps}, sort_keys=False)
            if text is None:
                continue
            try:
                parse(text, f"{where}:{node.lineno}")
            except Exception:  # noqa: BLE001 - a scenario the test writes to be refused (or a template)
                continue
            out.append((f"{where}:{node.lineno}", text))
    return out


test_scenarios.__test__ = False  # a helper, not a test (its name reads like one)
TEST_SCENARIOS = test_scenarios()


def test_the_tests_scenarios_were_found():
    """The reader of the tests' source finds the scenarios they write (a change of how tests write
    them must not leave this sweep empty)."""
    assert len(TEST_SCENARIOS) >= 50


@pytest.mark.parametrize("where, text", [pytest.param(w, t, id=w, marks=[pytest.mark.xfail(strict=True, reason=TEST_KNOWN[w])] if w in TEST_KNOWN else [])
                                         for w, t in TEST_SCENARIOS])
def test_every_scenario_a_test_writes_is_clean_under_reference(where, text):
    report = run(parse(text, where), "reference")
    assert _unstated(record_findings(report), TEST_STATED_BY_USER.get(where, {})) == []


# --- random hunt programs ---------------------------------------------------------------------

def hunt_program(k: int):
    mesh, shape = MESHES[k % len(MESHES)]
    return generate(random.Random(f"reference:{k}"), shape, mesh, OPS)


@pytest.mark.parametrize(
    "k", [pytest.param(k, marks=[pytest.mark.xfail(strict=True, reason=HUNT_KNOWN[k])] if k in HUNT_KNOWN else []) for k in range(PROGRAMS)]
)
def test_random_hunt_programs_are_clean_under_reference(k):
    program = hunt_program(k)
    report = run(parse(program.text(), f"hunt-reference-{k}.yaml"), "reference")
    assert record_findings(report) == [], program.text()


# --- a fix this sweep found -------------------------------------------------------------

@pytest.mark.parametrize("profile", ["reference", "current"])
@pytest.mark.parametrize("op", [{"neg": {"tensor": "d", "as": "out"}}, {"permute": {"tensor": "d", "dims": [0, 1, 3, 2], "as": "out"}},
                                {"add": {"a": "d", "b": "d", "as": "out"}}])
def test_an_op_output_overwritten_by_a_copy_is_judged_by_the_copy(op, profile):
    """A device op's output written over by a copy holds the copy's data under the copy's record:
    the op's own layout no longer describes it (docs/semantics.md section 12). The copy kept the op's
    layout (Record.truth) on the record it rewrote, and the judge compared the copy's [S(2)] label
    with it: a topology_stale at the op that reference (and current) did not earn (hunt programs of
    seed 35: neg, permute, add)."""
    report = run_steps([
        {"from_torch": {"as": "h", "shape": [1, 8, 32, 32], "mesh_mapper": "replicate"}},
        {"to_device": {"src": "h", "as": "d"}},
        op,
        {"from_torch": {"as": "sharded", "shape": [1, 8, 256, 32], "mesh_mapper": {"shard": 2}}},
        {"copy_host_to_device_tensor": {"src": "sharded", "dst": "out"}},
    ], profile)
    assert report.error is None
    assert record_findings(report) == []


@pytest.mark.parametrize("layout", ["tile", "row_major"])
def test_a_view_keeps_its_label_when_its_base_is_copied_into(layout):
    """reshape of a tensor sharded on dim 1 to rank 3 keeps Shard(1) under 0.81.1 (topology_stale):
    a view in TILE layout, a copy in ROW_MAJOR. A copy into the base afterwards rewrites the base's
    record, not the view's: the view's label is as stale as before, in both layouts (dropping the op's
    layout at any later write of the buffer hid it for the view alone)."""
    report = run_steps([
        {"from_torch": {"as": "h", "shape": [1, 64, 32, 64], "layout": layout, "mesh_mapper": {"shard": 1}}},
        {"to_device": {"src": "h", "as": "x"}},
        {"reshape": {"tensor": "x", "shape": [8, 32, 64], "as": "y"}},
        {"copy_host_to_device_tensor": {"src": "h", "dst": "x"}},
    ], "current")
    assert [(f.kind.value, f.tensor) for f in report.findings] == [("topology_stale", "y")]


@pytest.mark.parametrize("mapper", ["replicate", {"shard": 1}])
def test_a_copy_into_a_views_storage_is_recorded_for_the_view_under_reference(mapper):
    """A runtime that records exactly what is written (reference, copy: exact) records a copy into
    a tensor for every view of its storage too, in the view's own dims (an unsqueeze's Shard(1) is
    its Shard(2)): the view made before the copy listed the devices it held then (hunt programs 7,
    128, 129, 176, 223, 241, 255 were stale, lost and topology_mismatch)."""
    steps = [{"from_torch": {"as": "h", "shape": [1, 1, 32, 32], "mesh_mapper": "replicate", "device": "mesh_device"}},
             {"unsqueeze": {"tensor": "h", "dim": 0, "as": "v"}},
             {"from_torch": {"as": "w", "shape": [1, 7, 32, 32] if mapper != "replicate" else [1, 1, 32, 32], "mesh_mapper": mapper}},
             {"copy_host_to_device_tensor": {"src": "w", "dst": "h"}}]
    from conftest import run_steps

    report = run_steps(steps, "reference")
    assert report.error is None and record_findings(report) == []
    v = next(t for t in report.tensors if t.name == "v")
    if mapper != "replicate":
        assert [d.coord for d in v.devices if d.recorded] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)]
        assert v.topology.placements[0].dim == 2
