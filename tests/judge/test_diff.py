"""meshspec diff: per-device records of two runs, field by field."""

import json
from pathlib import Path

import pytest

from cli_runner import invoke
from meshspec.judge.diff import DiffError, check_report, diff_reports
from meshspec.runner import run
from meshspec.scenario.loader import load

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
SEED = SCENARIOS / "seed-uneven-copy.yaml"


def report(name, profile):
    return run(load(SCENARIOS / f"{name}.yaml"), profile).to_json()


# docs/semantics.md sections 1 and 6: reference records the 7 written devices; uniform-by-value
# records all 8, so only device (1,3) (and the tensor's topology) differ.
def test_seed_reference_vs_uniform_by_value():
    d = diff_reports(report("seed-uneven-copy", "reference"), report("seed-uneven-copy", "uniform-by-value"))
    assert not d.equal
    per_device = [(x.tensor, x.device, x.field, x.expected, x.actual) for x in d.differences if x.device]
    assert per_device == [("dst", (1, 3), "recorded", False, True), ("dst", (1, 3), "bytes", 0, 2048)]
    tensor_level = [(x.tensor, x.field) for x in d.differences if x.device is None]
    assert tensor_level == [("dst", "topology")]


def test_equal_runs():
    d = diff_reports(report("even-copy", "reference"), report("even-copy", "current"))
    assert d.equal and d.exit_code == 0


# docs/semantics.md section 6: the current library's gap. The topology is the same as the reference's
# ((8) [S(1)] on 8 devices): only the record of (1,3) says otherwise.
def test_gap_vs_reference():
    d = diff_reports(report("partial-then-full", "reference"), report("partial-then-full", "current"))
    assert [(x.device, x.field, x.expected, x.actual) for x in d.differences] == [
        ((1, 3), "recorded", True, False),
        ((1, 3), "bytes", 2048, 0),
    ]


def test_different_scenarios_or_meshes_are_refused():
    with pytest.raises(DiffError, match="different scenarios"):
        diff_reports(report("seed-uneven-copy", "current"), report("even-copy", "current"))
    other = report("seed-uneven-copy", "current") | {"mesh": [1, 8]}
    with pytest.raises(DiffError, match="different meshes"):
        diff_reports(report("seed-uneven-copy", "current"), other)
    with pytest.raises(DiffError, match="holds 2 reports"):
        check_report([{}, {}], "x.json")
    with pytest.raises(DiffError, match="not a meshspec report"):
        check_report({"format": "junk"}, "x.json")


def test_a_tensor_s_values_that_are_not_a_summary_are_refused_by_name():
    """diff compares the values' sha256: a report whose values are a number (found by
    bench/fuzz.py) is one line naming the place, not an AttributeError."""
    b = report("seed-uneven-copy", "current")
    b["tensors"][1]["values"] = 1.5
    with pytest.raises(DiffError, match=r"^b.json is not a valid meshspec.report/1 report: tensors\[1\].values: expected a mapping"):
        check_report(b, "b.json")
    b["tensors"][1]["values"] = {"sha256": 7}
    with pytest.raises(DiffError, match=r"tensors\[1\].values.sha256: expected text"):
        check_report(b, "b.json")
    b["tensors"][1]["values"] = None  # a tensor with no single array
    assert check_report(b, "b.json") is b


def test_missing_tensor_is_a_difference():
    a = report("seed-uneven-copy", "current")
    b = json.loads(json.dumps(a))
    b["tensors"] = [t for t in b["tensors"] if t["name"] != "src"]
    d = diff_reports(a, b)
    assert [(x.tensor, x.field, x.expected, x.actual) for x in d.differences] == [("src", "present", True, False)]




def test_cli_scenario_mode_table_and_json():
    res = invoke(["diff", str(SEED)])
    assert res.exit_code == 1
    out = res.stdout
    assert "expected reference  actual uniform-by-value" in out
    assert "(1,3)   no -> yes" in out and "0 -> 2048" in out
    assert "7 devices agree" in out and "3 differences in 1 tensor" in out
    assert "(1,2)" not in out.split("7 devices agree")[0]  # agreeing devices are folded
    res = invoke(["diff", str(SEED), "--all"])
    assert "(1,2)" in res.stdout and "agree" not in res.stdout
    res = invoke(["diff", str(SEED), "--format", "json"])
    data = json.loads(res.stdout)
    assert data["format"] == "meshspec.diff/1" and data["equal"] is False
    assert {"tensor": "dst", "device": [1, 3], "field": "recorded", "expected": False, "actual": True} in data["differences"]
    res = invoke(["diff", str(SEED), "--expected", "reference", "--actual", "current"])
    assert res.exit_code == 0 and "equal: no differences" in res.stdout


def test_cli_report_mode(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, profile in ((a, "reference"), (b, "uniform-by-value")):
        res = invoke(["run", str(SEED), "-p", profile, "-f", "json", "-o", str(path)])
        assert res.exit_code in (0, 1)
    res = invoke(["diff", str(a), str(b), "-f", "json"])
    assert res.exit_code == 1
    assert [d["device"] for d in json.loads(res.stdout)["differences"]] == [None, [1, 3], [1, 3]]
    assert invoke(["diff", str(a), str(a)]).exit_code == 0


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not JSON"),
        ('{"format": "other"}', "not a meshspec report"),
    ],
)
def test_cli_bad_reports(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    res = invoke(["diff", str(bad), str(bad)])
    assert res.exit_code == 2 and message in res.stderr and "Traceback" not in res.stderr


def test_cli_usage_errors(tmp_path):
    assert invoke(["diff", str(SEED), "--expected", "nope"]).exit_code == 2
    assert invoke(["diff", str(SEED), str(SEED), str(SEED)]).exit_code == 2
    a = tmp_path / "a.json"
    invoke(["run", str(SEED), "-f", "json", "-o", str(a)])
    other = tmp_path / "b.json"
    invoke(["run", str(SCENARIOS / "even-copy.yaml"), "-f", "json", "-o", str(other)])
    res = invoke(["diff", str(a), str(other)])
    assert res.exit_code == 2 and "different scenarios" in res.stderr


# meshspec/bridge/observe.py: a report of the real runtime leaves out what the runtime cannot know
# (a spec off its records, offsets, values on the mock); diff compares only what both reports state.
def _real_like(sim):
    real = json.loads(json.dumps(sim))
    for t in real["tensors"]:
        t["values"] = None
        for d in t["devices"]:
            d.pop("offset", None)
            if not d["recorded"]:
                d.pop("spec", None)
    return real


def test_fields_a_report_leaves_out_are_not_compared():
    sim = report("seed-uneven-copy", "current")
    assert diff_reports(sim, _real_like(sim)).equal


def test_values_are_compared_where_both_reports_read_one_array():
    sim = report("seed-uneven-copy", "current")
    real = json.loads(json.dumps(sim))
    held = next(t for t in real["tensors"] if t["values"])
    held["values"] = dict(held["values"], sha256="0" * 64, first=[7.0])
    d = diff_reports(sim, real)
    assert [(x.tensor, x.field) for x in d.differences] == [(held["name"], "values")]
    assert "[7.0, ...] sha256 000000000000" in d.differences[0].actual


def test_a_crash_at_the_same_step_is_the_same_error_whatever_the_words():
    sim = report("use-after-deallocate", "current")
    assert sim["error"]["crash"] is True  # the real library crashes there (docs/semantics.md section 9)
    real = json.loads(json.dumps(sim))
    real["error"] = {"step": sim["error"]["step"], "op": "cpu", "crash": True, "message": "the process died during this step"}
    assert diff_reports(sim, real).equal
    real["error"] = {"step": sim["error"]["step"], "op": "cpu", "message": "some other error"}
    d = diff_reports(sim, real)
    assert [x.field for x in d.differences] == ["error"]
    real["error"] = dict(real["error"], step=2, crash=True)
    assert not diff_reports(sim, real).equal


def test_a_refused_step_is_the_same_when_one_message_begins_the_other():
    sim = report("mapper-error-nine-over-eight", "current")
    words = sim["error"]["message"]
    real = json.loads(json.dumps(sim))
    real["error"] = dict(sim["error"], message=words[: len(words) // 2])
    assert diff_reports(sim, real).equal


def test_a_report_that_names_a_tensor_or_device_twice_is_no_report():
    """A report lists each tensor once and each device of a tensor once, and steps_run is a count:
    a malformed one is refused in one line, not compared (it was 'equal')."""
    good = report("even-copy", "reference")
    bad = json.loads(json.dumps(good))
    bad["tensors"].append(bad["tensors"][0])
    with pytest.raises(DiffError, match="tensor 'dst' is listed twice"):
        check_report(bad, "b.json")
    bad = json.loads(json.dumps(good))
    bad["tensors"][0]["devices"].append(bad["tensors"][0]["devices"][0])
    with pytest.raises(DiffError, match=r"tensor 'dst' lists device \(0,0\) twice"):
        check_report(bad, "b.json")
    with pytest.raises(DiffError, match="steps_run: expected an integer, got true"):
        check_report({**good, "steps_run": True}, "b.json")
    assert check_report(good, "a.json") is good


def test_a_saved_report_cannot_act_on_the_terminal(tmp_path):
    """A report is a file anyone can write: a tensor named with an escape sequence is printed
    escaped by diff, with colours or without (cli.py, text.printable_data)."""
    good = report("even-copy", "reference")
    bad = json.loads(json.dumps(good))
    bad["tensors"][0]["name"] = "\x1b[31mRED"
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(good))
    b.write_text(json.dumps(bad))
    out = invoke(["diff", str(a), str(b), "--no-color"]).stdout
    assert "\x1b" not in out and "\\x1b[31mRED" in out
