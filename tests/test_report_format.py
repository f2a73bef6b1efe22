"""Issue 38 item 3: the report format (meshspec.report/1) is declared once, in meshspec/report.py.

A run's JSON is written through the declaration's records, ``meshspec diff`` validates a saved
report against it, and ``meshspec schema --report`` is made from it. These tests hold the writer to
the declaration: every key a run writes is declared, with its declared type, in declared order."""

import json
from pathlib import Path
from typing import Annotated

import jsonschema
import pytest

from cli_runner import invoke
from conftest import run_steps
from meshspec.judge.reports import ReportError, report_schema, validate_report
from meshspec.report import ErrorJSON, ReadbackJSON, ReportJSON, TensorJSON, invalid_json
from meshspec.typed import Alias, Typed

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def closed(schema: dict) -> dict:
    """``schema`` with every record closed: a key no record declares is refused."""
    schema = json.loads(json.dumps(schema))
    for body in [schema, *schema["$defs"].values()]:
        if body.get("type") == "object" and "properties" in body:
            body["additionalProperties"] = False
    return schema


@pytest.fixture(scope="module")
def every_report():
    """Every bundled scenario under its own profile, with every view that adds to the JSON: the
    data view (a device's ``data``), the trace (``steps``) and one device core by core (``cores``)."""
    res = invoke(["run", *map(str, SCENARIOS), "-f", "json", "--view", "data", "--trace", "--device", "0,0"])
    assert res.exit_code in (0, 1), res.stderr
    reports = json.loads(res.stdout)
    assert len(reports) >= len(SCENARIOS)  # a matrix scenario is a report a case
    return reports


def test_every_key_a_run_writes_is_declared_with_its_type(every_report):
    schema = closed(report_schema())
    for report in every_report:
        jsonschema.validate(report, schema)
    written = {k for r in every_report for t in r["tensors"] for k in t}
    assert {"cores", "values", "storage_kind"} <= written  # the views and fields this test is about are there
    assert any("data" in d for r in every_report for t in r["tensors"] for d in t["devices"])
    assert any(r.get("hosts") for r in every_report) and any(r["steps"] for r in every_report)


def test_every_run_reads_back(every_report):
    for report in every_report:
        assert validate_report(report, "r.json") is report


def test_keys_are_written_in_declared_order(every_report):
    """The declaration's order is the order a user sees (a report's JSON is unchanged by it)."""
    for report in every_report:
        assert list(report) == [k for k in ReportJSON.keys() if k in report]
        for t in report["tensors"]:
            assert list(t) == [k for k in TensorJSON.keys() if k in t]


def test_a_readback_whose_shards_landed_elsewhere_is_declared():
    """docs/semantics.md section 5: a composition on another dim writes ``source`` and ``landed``."""
    src = {"from_torch": {"as": "src", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}}
    report = run_steps([src, {"to_device": {"src": "src", "as": "dev"}},
                        {"to_torch": {"tensor": "dev", "mesh_composer": {"concat": 0}, "as": "y"}}])
    data = report.readbacks[0].to_json()
    assert list(data) == ["step", "tensor", "devices", "shape", "from_device", "source", "landed"]
    assert data["landed"][1] == {"device": [0, 1], "slice": "[0:1, 1:2, 0:32, 0:32]", "at": "[1:2, 0:1, 0:32, 0:32]"}
    jsonschema.validate(data, {"$defs": closed(report_schema())["$defs"], "$ref": "#/$defs/ReadbackJSON"})


def test_a_record_writes_only_what_it_declares():
    assert ErrorJSON.json(message="m", op="load", step=None) == {"step": None, "op": "load", "message": "m"}
    assert list(ErrorJSON.json(crash=True, message="m", step=1)) == ["step", "message", "crash"]
    with pytest.raises(TypeError, match="ErrorJSON declares no line"):
        ErrorJSON.json(step=1, message="m", line=3)

    class Aliased(Typed):
        as_: Annotated[str, Alias("as")]

    assert Aliased.json(as_="x") == {"as": "x"}


def test_the_entry_of_a_scenario_that_could_not_be_loaded_is_in_the_format_but_not_compared():
    entry = invalid_json("bad.yaml", "bad.yaml:3:1: unknown key 'stepz'")
    jsonschema.validate(entry, closed(report_schema()))
    with pytest.raises(ReportError, match=r"^b.json is the entry of a scenario that could not be loaded \(bad.yaml:3:1: unknown key 'stepz'\); "
                                          "diff compares reports of runs$"):
        validate_report(entry, "b.json")


def test_a_declared_key_of_a_wrong_type_is_refused_where_it_stands(every_report):
    report = json.loads(json.dumps(every_report[0]))
    report["tensors"][0]["plain"] = "no"
    with pytest.raises(ReportError, match=r"tensors\[0\]\.plain: expected true or false, got 'no'"):
        validate_report(report, "b.json")
    report = json.loads(json.dumps(every_report[0]))
    report["error"] = {"message": "m", "source": "torch"}
    with pytest.raises(ReportError, match=r"error\.source: .*'ttnn', 'meshspec'"):
        validate_report(report, "b.json")
