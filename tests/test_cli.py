"""``meshspec run`` through ``meshspec.cli.app`` in this process (tests/cli_runner.py) and, where
the console entry point itself is what is tested, as a subprocess (issue 2, section 4).

Exit codes: 0 clean, 1 findings or a step error, 2 bad input or usage. The report goes to stdout
(or ``--output``); diagnostics go to stderr as one line each, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import meshspec
from cli_runner import invoke as run_cli
from meshspec.scenario.loader import load

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "scenarios"
SEED = SCENARIOS / "seed-uneven-copy.yaml"
EVEN = SCENARIOS / "even-copy.yaml"
NINE = SCENARIOS / "mapper-error-nine-over-eight.yaml"

ANSI = re.compile(r"\x1b\[")

BAD_SCENARIO = "meshspec: 1\nmesh: t3k\nsteps:\n  - cpux: {tensor: a}\n"
# the unknown op 'cpux' is on line 4, after "  - ": column 5
BAD_LINE, BAD_COL = 4, 5


def invoke(*args, env=None):
    result = run_cli(args, env=env)
    # an exception out of the command line is a crash of meshspec
    assert result.exception is None, (
        f"meshspec crashed: {result.exception!r}\n{result.output}"
    )
    assert "Traceback" not in result.output
    return result


def run_json(*args):
    result = invoke("run", *args, "--format", "json")
    return result, json.loads(result.stdout)


def stderr_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


@pytest.fixture
def bad_file(tmp_path) -> Path:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_SCENARIO, encoding="utf-8")
    return path


# -- exit codes --------------------------------------------------------------------------------
def test_exit_0_seed_under_current():
    # Under current TT-NN the copy records the 7 written coords, so the seed is clean
    # (docs/semantics.md section 6, the "current (2026)" row).
    result = invoke("run", SEED, "--profile", "current")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert "no findings" in result.stdout


def test_exit_0_seed_under_reference():
    # A correct runtime records exactly what was written (docs/semantics.md section 6/7).
    result = invoke("run", SEED, "--profile", "reference")
    assert result.exit_code == 0, result.output


def test_exit_1_seed_under_uniform_by_value():
    # The seed's bug (docs/semantics.md section 1): device (1,3) is recorded but never written.
    result = invoke("run", SEED, "--profile", "uniform-by-value")
    assert result.exit_code == 1, result.output
    assert result.stderr == ""


def _seed_expecting(tmp_path, expect: str) -> Path:
    path = tmp_path / "seed-expect.yaml"
    path.write_text(SEED.read_text(encoding="utf-8").split("expect:")[0] + expect, encoding="utf-8")
    return path


def test_exit_1_when_an_expect_block_fails(tmp_path):
    """Issue 35, item 6: ``run`` exits 1 when the expect block fails, as ``check`` does, and its
    summary counts the failed expectations. Under current the seed is clean (docs/semantics.md
    section 6) but this block expects its uniform-by-value finding, so current fails it."""
    path = _seed_expecting(tmp_path, "expect:\n  profiles:\n    default: {findings: [{kind: stale, tensor: dst, device: [1, 3]}]}\n")
    result = invoke("run", path, "--profile", "current")
    assert result.exit_code == 1, result.output
    assert "expect (current): FAIL, 1 mismatch" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1] == "no findings; 1 failed expectation"
    _, report = run_json(path, "--profile", "current")
    assert report["expect"]["passed"] is False


def test_a_passing_expect_block_keeps_a_clean_run_at_exit_0(tmp_path):
    path = _seed_expecting(tmp_path, "expect:\n  profiles:\n    current: {findings: []}\n")
    result = invoke("run", path, "--profile", "current")
    assert result.exit_code == 0, result.output
    assert "expect (current): PASS" in result.stdout and "failed expectation" not in result.stdout


def test_every_profile_that_fails_an_expect_block_says_so_under_profile_all(tmp_path):
    """The block below expects src on device, where the seed leaves it on host: every profile
    fails it, so --profile all exits 1 and every profile's summary counts the failure."""
    from meshspec.sim.profiles import PROFILES

    path = _seed_expecting(tmp_path, "expect:\n  tensors:\n    src: {storage: device}\n")
    result = invoke("run", path, "--profile", "all")
    assert result.exit_code == 1, result.output
    assert result.stdout.count("failed expectation") == len(PROFILES), result.stdout
    result, reports = run_json(path, "--profile", "all")
    assert result.exit_code == 1 and len(reports) == len(PROFILES)
    assert all(r["expect"]["passed"] is False for r in reports)


def test_scenario_profile_is_used_without_the_option():
    # stale under uniform-by-value, clean under current (docs/semantics.md sections 1 and 6)
    # seed-uneven-copy.yaml says `profile: uniform-by-value`; --profile overrides it.
    result, report = run_json(SEED)
    assert result.exit_code == 1
    assert report["profile"] == "uniform-by-value"
    result, report = run_json(SEED, "--profile", "current")
    assert result.exit_code == 0
    assert report["profile"] == "current"


def test_exit_1_step_error_mapper_nine_over_eight():
    # 9 rows over 8 devices: chunks 2,2,2,2,1; the current mapper's equal-shape rule raises
    # "Shard shape mismatch" (docs/semantics.md section 4).
    result, report = run_json(NINE, "--profile", "current")
    assert result.exit_code == 1, result.output
    assert report["error"] is not None
    assert report["error"]["step"] == 1
    assert report["error"]["op"] == "from_torch"
    assert "Shard shape mismatch" in report["error"]["message"]
    assert report["findings"] == []  # the exit code comes from the error alone


def test_step_error_table_still_prints_the_state():
    # the equal-shape mapper rule stops step 1 (docs/semantics.md section 4)
    # "the run stops there and still prints what it has" (issue 2 section 3)
    result = invoke("run", NINE, "--profile", "current")
    assert result.exit_code == 1
    assert "dst" in result.stdout
    assert "Shard shape mismatch" in result.stdout


def test_exit_2_invalid_scenario_one_line_on_stderr(bad_file):
    result = invoke("run", bad_file)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = stderr_lines(result)
    assert len(lines) == 1, result.stderr
    assert f"{bad_file}:{BAD_LINE}:{BAD_COL}: " in lines[0]
    assert "'cpux'" in lines[0]


def test_exit_2_unknown_profile():
    result = invoke("run", SEED, "--profile", "uniform")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = stderr_lines(result)
    assert len(lines) == 1, result.stderr
    assert "'uniform'" in lines[0]
    for name in ("current", "uniform-by-value", "unpopulated", "reference"):
        assert name in lines[0]


def test_exit_2_missing_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    result = invoke("run", missing)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = stderr_lines(result)
    assert len(lines) == 1, result.stderr
    assert str(missing) in lines[0]


def test_exit_2_unknown_format():
    result = invoke("run", SEED, "--format", "xml")
    assert result.exit_code == 2
    assert result.stdout == ""


def test_exit_2_no_scenario_given():
    result = invoke("run")
    assert result.exit_code == 2


def test_exit_code_is_the_worst_with_a_bad_file(bad_file):
    # the seed under uniform-by-value has findings (docs/semantics.md section 1)
    # a bad input (2) beats a finding (1); the good scenario's report is still printed
    result = invoke("run", SEED, bad_file, "--profile", "uniform-by-value", "--format", "json")
    assert result.exit_code == 2
    assert len(stderr_lines(result)) == 1
    # several inputs give an array in the order given; the invalid file keeps its place
    good, bad = json.loads(result.stdout)
    assert good["scenario"] == "seed-uneven-copy"
    assert bad["scenario"] is None and bad["error"]["op"] == "load"
    assert bad["error"]["message"] == stderr_lines(result)[0].removeprefix("meshspec: ")


# -- JSON report -------------------------------------------------------------------------------
REPORT_KEYS = {"format", "scenario", "profile", "mesh", "error", "tensors", "findings"}
TENSOR_KEYS = {"name", "storage", "topology", "devices"}
TOPOLOGY_KEYS = {"distribution_shape", "placements", "coords"}
DEVICE_KEYS = {"coord", "recorded", "spec", "written_bytes", "offset", "status"}
SPEC_KEYS = {
    "shape",
    "padded_shape",
    "dtype",
    "layout",
    "tile",
    "memory",
    "page_size",
    "aligned_page_size",
    "num_pages",
    "buffer_bytes",
}
FINDING_KEYS = {"kind", "tensor", "device", "step", "op", "message"}


def check_report_shape(report: dict) -> None:
    assert REPORT_KEYS <= set(report), REPORT_KEYS - set(report)
    assert report["format"] == "meshspec.report/1"
    assert isinstance(report["scenario"], str)
    assert isinstance(report["mesh"], list)
    assert report["error"] is None or {"step", "op", "message"} <= set(report["error"])
    for t in report["tensors"]:
        assert TENSOR_KEYS <= set(t), TENSOR_KEYS - set(t)
        assert TOPOLOGY_KEYS <= set(t["topology"])
        for p in t["topology"]["placements"]:
            assert p == "R" or (isinstance(p, dict) and set(p) == {"shard"} and isinstance(p["shard"], int))
        for d in t["devices"]:
            assert DEVICE_KEYS <= set(d), DEVICE_KEYS - set(d)
            assert isinstance(d["recorded"], bool)
            assert d["spec"] is None or SPEC_KEYS <= set(d["spec"])
            assert d["offset"] is None or isinstance(d["offset"], list)
    for f in report["findings"]:
        assert FINDING_KEYS <= set(f), FINDING_KEYS - set(f)


def tensor(report: dict, name: str) -> dict:
    matches = [t for t in report["tensors"] if t["name"] == name]
    assert len(matches) == 1, [t["name"] for t in report["tensors"]]
    return matches[0]


def device(t: dict, coord: list[int]) -> dict:
    matches = [d for d in t["devices"] if d["coord"] == coord]
    assert len(matches) == 1
    return matches[0]


ALL_T3K = [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]


def test_json_seed_uniform_by_value_stale_on_1_3():
    # docs/semantics.md section 1 (the seed's bug) and section 6 (PR #18833 row): allocation records a
    # uniform (1,1,32,32) spec on all 8 devices, the copy writes 7 shards and its record update is
    # lost, so device (1,3) is recorded but never written: stale, origin step 0 (allocation).
    result, report = run_json(SEED, "--profile", "uniform-by-value")
    assert result.exit_code == 1
    check_report_shape(report)
    assert report["scenario"] == "seed-uneven-copy"
    assert report["profile"] == "uniform-by-value"
    assert report["mesh"] == [2, 4]
    assert report["error"] is None

    dst = tensor(report, "dst")
    assert dst["storage"] == "device"
    # docs/semantics.md section 6: a freshly allocated mesh tensor has topology (mesh shape), all
    # Replicate, all coords; under uniform-by-value the copy does not change it.
    assert dst["topology"] == {"distribution_shape": [2, 4], "placements": ["R", "R"], "coords": ALL_T3K}
    d13 = device(dst, [1, 3])
    assert d13["recorded"] is True
    assert d13["written_bytes"] == 0
    assert d13["offset"] is None
    assert d13["status"] == "stale"
    # docs/semantics.md section 3: (1,1,32,32) bf16 TILE = 1 page of 2048 B
    spec = d13["spec"]
    assert spec["shape"] == [1, 1, 32, 32]
    assert spec["padded_shape"] == [1, 1, 32, 32]
    assert spec["dtype"] == "bfloat16"
    assert spec["layout"] == "tile"
    assert spec["tile"] == [32, 32]
    assert spec["memory"] == "dram"
    assert (spec["page_size"], spec["aligned_page_size"], spec["num_pages"], spec["buffer_bytes"]) == (2048, 2048, 1, 2048)
    # the 7 written devices are fine; shard j of dim 1 sits at global offset (0, j, 0, 0)
    # (docs/semantics.md section 4: 7 chunks of 1, laid out row-major)
    for j, coord in enumerate(ALL_T3K[:7]):
        d = device(dst, coord)
        assert d["status"] == "ok", d
        assert d["written_bytes"] == 2048
        assert d["offset"] == [0, j, 0, 0]

    stale = [f for f in report["findings"] if f["kind"] == "stale"]
    assert len(stale) == 1, report["findings"]
    f = stale[0]
    assert f["tensor"] == "dst"
    assert f["device"] == [1, 3]
    assert f["step"] == 0
    assert f["op"] == "allocate_tensor_on_device"
    assert f["message"]


def test_json_seed_under_current_records_the_seven_coords():
    # docs/semantics.md section 6, current: a partial write sets coords to the host's populated coords
    # and the host's topology; section 4: a 1-D distribution is cut to 7 shards, placement Shard(1).
    result, report = run_json(SEED, "--profile", "current")
    assert result.exit_code == 0
    check_report_shape(report)
    assert report["findings"] == []
    dst = tensor(report, "dst")
    assert dst["topology"]["distribution_shape"] == [7]
    assert dst["topology"]["placements"] == [{"shard": 1}]
    assert dst["topology"]["coords"] == ALL_T3K[:7]
    src = tensor(report, "src")
    assert src["storage"] == "host"
    # host tensors list their populated shards, each recorded with the per-shard spec
    assert [d["coord"] for d in src["devices"]] == ALL_T3K[:7]
    assert all(d["recorded"] is True and d["spec"]["shape"] == [1, 1, 32, 32] for d in src["devices"])


def test_json_several_scenarios_array_in_order_worst_exit():
    # even-copy is clean under uniform-by-value (8 shards fill all 8 devices; docs/semantics.md
    # section 4), the seed is not (section 1): the array follows the command line order.
    result, reports = run_json(EVEN, SEED, "--profile", "uniform-by-value")
    assert result.exit_code == 1
    assert isinstance(reports, list)
    assert [r["scenario"] for r in reports] == ["even-copy", "seed-uneven-copy"]
    assert reports[0]["findings"] == []
    assert reports[1]["findings"]
    for r in reports:
        check_report_shape(r)

    result, reports = run_json(SEED, EVEN, "--profile", "uniform-by-value")
    assert [r["scenario"] for r in reports] == ["seed-uneven-copy", "even-copy"]
    assert result.exit_code == 1


def test_json_several_clean_scenarios_exit_0():
    # both clean under current: the copy records the written coords (docs/semantics.md section 6)
    result, reports = run_json(SEED, EVEN, "--profile", "current")
    assert result.exit_code == 0
    assert [r["scenario"] for r in reports] == ["seed-uneven-copy", "even-copy"]


def test_json_step_error_beats_clean():
    # even 8-way split is clean; 9 over 8 breaks the equal-shape rule (docs/semantics.md section 4)
    result, reports = run_json(EVEN, NINE, "--profile", "current")
    assert result.exit_code == 1
    assert [r["error"] is None for r in reports] == [True, False]


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
@pytest.mark.parametrize("profile", ["current", "uniform-by-value", "unpopulated", "reference"])
def test_json_report_shape_for_every_bundled_scenario(path, profile):
    result, report = run_json(path, "--profile", profile)
    assert result.exit_code in (0, 1)
    reports = report if isinstance(report, list) else [report]  # a matrix scenario: a report per case, as several files give
    assert len(reports) == max(1, len(load(path).cases))
    for one in reports:
        check_report_shape(one)
    assert result.exit_code == (1 if any(r["findings"] or r["error"] for r in reports) else 0)


# -- --output ----------------------------------------------------------------------------------
def test_output_writes_the_report_and_nothing_on_stdout(tmp_path):
    # exit 1: the seed's stale device (docs/semantics.md section 1)
    out = tmp_path / "report.json"
    result = invoke("run", SEED, "--profile", "uniform-by-value", "--format", "json", "--output", out)
    assert result.exit_code == 1
    assert result.stdout == ""
    report = json.loads(out.read_text(encoding="utf-8"))
    check_report_shape(report)
    assert report["scenario"] == "seed-uneven-copy"


def test_output_table_has_no_ansi(tmp_path):
    # exit 1 and "stale": the seed's bug (docs/semantics.md section 1)
    out = tmp_path / "report.txt"
    result = invoke("run", SEED, "--profile", "uniform-by-value", "-o", out)
    assert result.exit_code == 1
    assert result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert "stale" in text
    assert not ANSI.search(text)


def test_output_refuses_to_overwrite_an_input(tmp_path):
    scenario = tmp_path / "seed.yaml"
    shutil.copy(SEED, scenario)
    before = scenario.read_bytes()
    result = invoke("run", scenario, "--format", "json", "--output", scenario)
    assert result.exit_code == 2
    assert scenario.read_bytes() == before
    lines = stderr_lines(result)
    assert len(lines) == 1, result.stderr
    assert str(scenario) in lines[0]


def test_output_refuses_an_input_spelled_differently(tmp_path):
    (tmp_path / "sub").mkdir()
    scenario = tmp_path / "seed.yaml"
    shutil.copy(SEED, scenario)
    before = scenario.read_bytes()
    result = invoke("run", scenario, "--output", tmp_path / "sub" / ".." / "seed.yaml")
    assert result.exit_code == 2
    assert scenario.read_bytes() == before


# every command that writes a file, as (arguments before the file, its option): what each writes is
# replaced by a second run; a file meshspec did not write is never touched (files.py)
WRITERS = {
    "run table": (["run", SEED], "-o"),
    "run json": (["run", SEED, SEED, "--format", "json"], "-o"),
    "run svg": (["run", SEED], "--svg"),
    "run html": (["run", SEED], "--html"),
    "diff": (["diff", SEED], "-o"),
    "diff json": (["diff", SEED, "--format", "json"], "-o"),
    "check junit": (["check", SEED], "--junit-xml"),
    "export": (["export", SEED], "-o"),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_output_replaces_only_a_file_meshspec_wrote(tmp_path, writer):
    args, option = WRITERS[writer]
    out = tmp_path / "out"
    first = invoke(*args, option, out)
    assert first.exit_code in (0, 1), first.stderr
    written = out.read_bytes()
    assert written
    head = written.splitlines()[0]  # the rest may differ run to run (JUnit's timings)
    out.write_bytes(b"")  # empty: nothing to lose
    assert invoke(*args, option, out).exit_code in (0, 1) and out.read_bytes().splitlines()[0] == head
    assert invoke(*args, option, out).exit_code in (0, 1)  # as meshspec wrote it: replaced
    refused = [
        f"meshspec: {out} exists, and meshspec did not write it as it is now (a file of yours, one written elsewhere, "
        "or one changed since); refusing to overwrite it (remove it first, or choose another name)"
    ]
    mine = b"import ttnn\n\ndef test_my_model():\n    ...\n"
    edited = out.read_bytes() + b"# my notes: bug 1234\n"  # its own, edited since: the notes are the user's
    for text in (mine, edited):
        out.write_bytes(text)
        result = invoke(*args, option, out)
        assert result.exit_code == 2 and out.read_bytes() == text
        assert stderr_lines(result) == refused


def test_output_into_missing_folder_is_usage_error(tmp_path):
    result = invoke("run", SEED, "--output", tmp_path / "no" / "such" / "r.json")
    assert result.exit_code == 2
    assert len(stderr_lines(result)) == 1


# -- help and version --------------------------------------------------------------------------
def test_help():
    result = invoke("-h")
    assert result.exit_code == 0
    assert "run" in result.stdout
    result = invoke("run", "-h")
    assert result.exit_code == 0
    for option in ("--profile", "--format", "--output"):
        assert option in result.stdout


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"meshspec {meshspec.__version__}"


def test_python_dash_m_version():
    proc = subprocess.run(
        [sys.executable, "-m", "meshspec", "--version"], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"meshspec {meshspec.__version__}"


# -- table output ------------------------------------------------------------------------------
SUMMARY = re.compile(r"^(\d+) findings? \((.+)\) in (\d+) tensors?$")


def test_table_summary_and_stale_row():
    # docs/semantics.md section 1 / 7: (1,3) of dst is stale under uniform-by-value.
    result = invoke("run", SEED, "--profile", "uniform-by-value")
    assert result.exit_code == 1
    text = result.stdout
    assert not ANSI.search(text)  # not a terminal: plain text
    lines = text.splitlines()
    assert any("seed-uneven-copy" in line and "uniform-by-value" in line for line in lines[:3])

    summaries = [m for m in (SUMMARY.match(line.strip()) for line in lines) if m]
    assert len(summaries) == 1, text
    summary = summaries[0]
    _, report = run_json(SEED, "--profile", "uniform-by-value")
    assert int(summary.group(1)) == len(report["findings"])
    assert "1 stale" in summary.group(2)
    assert summary.group(3) == "1"

    # the dst table comes first; its (1,3) row says stale, its (0,0) row does not
    dst_start = next(i for i, line in enumerate(lines) if line.startswith("dst"))
    src_start = next(i for i, line in enumerate(lines) if line.startswith("src"))
    dst_rows = lines[dst_start:src_start] if src_start > dst_start else lines[dst_start:]
    row13 = [line for line in dst_rows if line.startswith("(1,3)")]
    assert len(row13) == 1
    assert "stale" in row13[0].split()
    row00 = [line for line in dst_rows if line.startswith("(0,0)")]
    assert len(row00) == 1 and "stale" not in row00[0]


def test_table_clean_summary():
    # the seed is clean under current (docs/semantics.md section 6)
    result = invoke("run", SEED, "--profile", "current")
    assert result.stdout.rstrip().splitlines()[-1].strip() == "no findings"


def test_no_color_env_in_process():
    # "stale": the seed under uniform-by-value (docs/semantics.md section 1)
    result = invoke("run", SEED, "--profile", "uniform-by-value", env={"NO_COLOR": "1"})
    assert result.exit_code == 1
    assert "stale" in result.stdout
    assert not ANSI.search(result.stdout)


def _run_on_tty(env_overrides: dict[str, str | None], *extra: str) -> tuple[int, str]:
    """Run meshspec with stdout on a pseudo-terminal; return its exit code and output."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    env = dict(os.environ)
    for k, v in env_overrides.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    env["COLUMNS"] = "160"
    proc = subprocess.Popen(
        [sys.executable, "-m", "meshspec", "run", str(SEED), "--profile", "uniform-by-value", *extra],
        stdout=slave,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO once the child has closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = proc.wait(timeout=60)
    proc.stderr.close()
    return code, b"".join(chunks).decode("utf-8", "replace")


def test_no_color_on_a_terminal():
    # exit 1 / "stale": the seed under uniform-by-value (docs/semantics.md section 1)
    # control: on a terminal without NO_COLOR the table is coloured ...
    code, text = _run_on_tty({"NO_COLOR": None})
    assert code == 1
    assert ANSI.search(text), "expected colour on a terminal"
    # ... and NO_COLOR turns every escape code off, keeping the words
    code, text = _run_on_tty({"NO_COLOR": "1"})
    assert code == 1
    assert "stale" in text
    assert not ANSI.search(text)
    # --no-color does the same on a terminal
    code, text = _run_on_tty({"NO_COLOR": None}, "--no-color")
    assert code == 1
    assert "stale" in text
    assert not ANSI.search(text)


def test_a_bad_option_is_one_line_naming_the_value_and_where_to_look():
    # argparse prints usage and the error on two lines; meshspec makes one: the option, the bad
    # value, what it takes, and which command's -h lists the options
    import subprocess
    import sys

    for args, said in [
        (["run", "--view", "bogus", "x.yaml"], "meshspec: --view 'bogus': not one of table, map, data ('meshspec run -h' lists the options)"),
        (["run", "x.yaml", "--view", "mapp"],
         "meshspec: --view 'mapp': not one of table, map, data (did you mean 'map'?) ('meshspec run -h' lists the options)"),
        (["check", "-j", "0", "scenarios"], "meshspec: --jobs 0: at least 1 ('meshspec check -h' lists the options)"),
        (["check", "-j", "two", "scenarios"], "meshspec: --jobs 'two': not a whole number ('meshspec check -h' lists the options)"),
        (["bogus"], "meshspec: no command 'bogus'; the commands are run, diff, check, systems, export, import, record, hunt, "
                    "profiles, explain, init, schema ('meshspec -h' lists the options)"),
        (["chek", "scenarios"], "meshspec: no command 'chek' (did you mean 'check'?); the commands are run, diff, check, systems, "
                                "export, import, record, hunt, profiles, explain, init, schema ('meshspec -h' lists the options)"),
        # an option without its value: its help and choices are said too
        (["run", "x.yaml", "--format"], "meshspec: --format needs a value: Output format (one of: table, json) ('meshspec run -h' lists the options)"),
        (["check", "scenarios", "-p"], "meshspec: --profile needs a value: A profile name, or 'all'. Default: the profiles "
                                       "each scenario's expect block names, else its own ('meshspec check -h' lists the options)"),
        (["run", "x.yaml", "--profil", "current"], "meshspec: no option '--profil' here (did you mean '--profile'?) ('meshspec run -h' lists the options)"),
        (["run"], "meshspec: SCENARIO missing: Scenario YAML file(s) ('meshspec run -h' lists the options)"),
    ]:
        res = subprocess.run([sys.executable, "-m", "meshspec", *args], capture_output=True, text=True, cwd=REPO, check=False)
        said = said.replace("('meshspec", "('python -m meshspec")  # the program named as it was started
        assert res.returncode == 2 and res.stderr == said + "\n" and res.stdout == "", args


def test_words_after_an_option_join_the_files(tmp_path):
    # `meshspec run a.yaml -p current b.yaml` runs both, as `check a b -p x` does
    result = invoke("run", SEED, "-p", "current", EVEN, "--format", "json")
    assert result.exit_code == 0, result.output
    assert [r["scenario"] for r in json.loads(result.stdout)] == ["seed-uneven-copy", "even-copy"]


def test_an_empty_argument_is_named_not_read_as_the_current_folder(tmp_path):
    # click makes '' a Path('') that is '.': `meshspec run "$FILE"` with FILE unset said '.: is a folder'
    import subprocess
    import sys

    for args, said in [
        (["run", ""], "argument 2 is empty (''), after 'run'"),
        (["run", str(SEED), "-o", ""], "argument 4 is empty (''), after '-o'"),
        (["check", "scenarios", ""], "argument 3 is empty (''), after 'scenarios'"),
    ]:
        res = subprocess.run([sys.executable, "-m", "meshspec", *args], capture_output=True, text=True, cwd=tmp_path, check=False)
        assert res.returncode == 2 and res.stdout == "", args
        assert res.stderr == f"meshspec: {said}: give a file or a value (an unset shell variable?)\n", args
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_diff_of_a_missing_report_says_there_is_no_such_file(tmp_path):
    result = invoke("diff", tmp_path / "zz.json")
    assert result.exit_code == 2
    assert stderr_lines(result) == [f"meshspec: {tmp_path / 'zz.json'}: no such file (diff takes one scenario or two reports)"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_diff_of_a_fifo_or_device_refuses_it_instead_of_reading_forever(tmp_path):
    report = tmp_path / "report.json"
    invoke("run", SEED, "--format", "json", "-o", report)
    fifo = tmp_path / "a.json"
    os.mkfifo(fifo)  # no writer: reading it would block for ever
    for side in (fifo, Path("/dev/zero")):  # /dev/zero: reading it would fill memory
        result = invoke("diff", side, report)
        assert result.exit_code == 2
        assert stderr_lines(result) == [f"meshspec: {side}: is not a regular file (a pipe or device?); give a report .json file"]


def test_a_nul_in_a_data_files_name_is_the_scenarios_error_with_an_output_file(tmp_path):
    # the output checks compare paths; a NUL in the scenario's data file name made them raise
    # (line 4: "  - from_torch: {" 1-17, "as: s, " 18-24, "shape: [1, 1, 32, 32], " 25-47, "data: {" 48-54,
    # "file: " 55-60, the value at 61)
    scenario = tmp_path / "nul.yaml"
    scenario.write_text('meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {as: s, shape: [1, 1, 32, 32], data: {file: "\\0"}}\n')
    for args in (("run", scenario, "-o", tmp_path / "r.json"), ("run", scenario, "--svg", tmp_path / "r.svg"),
                 ("check", scenario, "--junit-xml", tmp_path / "j.xml")):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert f"{scenario}:4:61: the control character \\x00" in result.stderr + result.stdout


def test_init_of_a_folder_asks_for_the_file_name(tmp_path):
    result = invoke("init", tmp_path)
    assert result.exit_code == 2
    assert stderr_lines(result) == [
        f"meshspec: {tmp_path} is a folder; give the name of the file to create, e.g. {tmp_path / 'scenario.yaml'}"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_saved_report_given_as_a_scenario_says_what_it_is(tmp_path):
    # the run's own JSON report handed to run or check: named as a report, with the scenario it came from
    report = tmp_path / "report.json"
    invoke("run", SEED, "--format", "json", "-o", report)
    for command in ("run", "check"):
        result = invoke(command, report)
        assert result.exit_code == 2
        text = result.stderr + result.stdout
        assert f"{report}:1:1: a file meshspec wrote (meshspec.report/1, from {SEED}), not a scenario" in text
        assert "'meshspec diff A.json B.json'" in text


def test_a_report_given_to_import_says_it_is_no_capture(tmp_path):
    report = tmp_path / "report.json"
    invoke("run", SEED, "--format", "json", "-o", report)
    result = invoke("import", report)
    assert result.exit_code == 2
    assert stderr_lines(result)[0].startswith(f"meshspec: {report}: a file meshspec wrote (meshspec.report/1), not a capture; ")


def test_diff_of_a_report_and_a_scenario_says_how_diff_takes_a_scenario(tmp_path):
    report = tmp_path / "report.json"
    invoke("run", SEED, "--format", "json", "-o", report)
    result = invoke("diff", report, SEED)
    assert result.exit_code == 2
    line, = stderr_lines(result)
    assert line.startswith(f"meshspec: {SEED}:1:1: not JSON: ") and "'meshspec diff SCENARIO' runs it under two profiles" in line


def test_a_scenario_without_its_version_key_is_told_the_first_line(tmp_path):
    path = tmp_path / "nover.yaml"
    path.write_text("\n".join(SEED.read_text().splitlines()[1:]) + "\n")
    result = invoke("run", path)
    assert result.exit_code == 2
    assert stderr_lines(result) == [f"meshspec: {path}:1:1: the format version is missing: a scenario starts with the line 'meshspec: 1'"]



def test_a_serial_check_collects_cycles_once_per_chunk_of_files(monkeypatch):
    """progress.check_in_chunks: the collector is off while files run, and a file's cycles are
    collected once COLLECT_EVERY files have run (not held for the whole suite); -j keeps it on."""
    import gc
    import weakref

    from meshspec import progress

    class Node:
        pass

    seen = []

    def check_files(files, profile, jobs, allow_outside):
        seen.append(gc.isenabled())
        out = []
        for f in files:
            node = Node()
            node.me = node  # a reference cycle: only the collector frees it
            refs.append(weakref.ref(node))
            out.append([f])
        return out

    refs: list = []
    monkeypatch.setattr(progress, "COLLECT_EVERY", 2)
    files = [Path(f"f{i}.yaml") for i in range(5)]
    assert progress.check_in_chunks(check_files, files, None, 1, False) == [[f] for f in files]
    assert seen == [False, False, False] and gc.isenabled()
    assert [r() is None for r in refs] == [True] * 4 + [False]  # the fifth waits for the next chunk's collection
    seen.clear()
    progress.check_in_chunks(check_files, files, None, 2, False)
    assert seen == [True]  # with workers the parent only waits: nothing to change
    gc.collect()


def test_every_format_meshspec_writes_is_known_as_a_saved_file():
    from meshspec.report import DIFF_FORMAT, HUNT_FORMAT, REPORT_FORMAT
    from meshspec.scenario.sniff import saved_format

    for fmt in (REPORT_FORMAT, DIFF_FORMAT, HUNT_FORMAT):
        assert saved_format({"format": fmt}) == fmt
    assert saved_format({"format": "other.report/1"}) is None


def test_one_scenario_runs_without_the_cycle_collector_and_several_keep_it(tmp_path):
    """progress.one_pass: loading and running make no reference cycles
    (test_check.py::test_loading_and_running_make_no_reference_cycles), so a lone scenario's run
    skips collections; with several, one file's garbage must not hold the next one's memory."""
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: sys.stderr.write(f'GC {gc.isenabled()} {gc.get_threshold()[0]}'))\n"
        "sys.argv = ['meshspec', *sys.argv[1:]]\n"
        "from meshspec.cli import main\n"
        "main()\n"
    )
    def gc_at_exit(*args):
        res = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, cwd=REPO)
        return res.stderr.rpartition("GC ")[2].split()

    assert gc_at_exit("run", SEED, "-o", tmp_path / "one.txt") == ["False", "50000"]
    assert gc_at_exit("run", SEED, SEED, "-o", tmp_path / "two.txt") == ["True", "50000"]
    assert gc_at_exit("check", SEED) == ["True", "50000"]  # a serial check turns it off while it runs files, and back on
    assert (tmp_path / "one.txt").read_text(encoding="utf-8").startswith("meshspec seed-uneven-copy")


def test_a_replaced_output_keeps_its_permissions_and_a_read_only_one_is_refused(tmp_path):
    """A private report stays private when replaced (it was written through a temporary file,
    which the rename made 0644), and a read-only one is not replaced at all, root or not."""
    out = tmp_path / "r.json"
    assert invoke("run", SEED, "--format", "json", "-o", out).exit_code == 1
    out.chmod(0o600)
    assert invoke("run", SEED, "--format", "json", "-o", out).exit_code == 1
    assert out.stat().st_mode & 0o777 == 0o600
    out.chmod(0o444)
    before = out.read_bytes()
    result = invoke("run", SEED, "--profile", "reference", "--format", "json", "-o", out)
    assert result.exit_code == 2 and out.read_bytes() == before
    assert stderr_lines(result) == [f"meshspec: {out} is read-only; refusing to replace it (make it writable first, or choose another name)"]


def test_an_output_meshspec_wrote_elsewhere_is_not_replaced(tmp_path, monkeypatch):
    """What meshspec wrote is known from its own record of each path: a report that begins as
    meshspec's do but was written on another machine (a hardware capture from an exported script,
    say) is the user's."""
    out = tmp_path / "real.json"
    assert invoke("run", SEED, "--format", "json", "-o", out).exit_code == 1
    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(tmp_path / "another-machine"))
    assert invoke("run", SEED, "--format", "json", "-o", out).exit_code == 2


def test_an_output_touched_but_unchanged_is_still_meshspecs(tmp_path):
    """A new modification time alone (touch, a copy back) does not make a file the user's: its
    bytes are compared with what meshspec wrote."""
    import os

    out = tmp_path / "r.json"
    assert invoke("run", SEED, "--format", "json", "-o", out).exit_code == 1
    os.utime(out, ns=(1, 1))
    assert invoke("run", SEED, "--format", "json", "-o", out).exit_code == 1


def test_an_output_edited_in_place_with_its_time_kept_is_the_users(tmp_path):
    """An edit of the same size that keeps the file's inode and modification time (cp -p over it,
    rsync -t --inplace) is still an edit: the bytes are what is compared."""
    import os

    out = tmp_path / "r.txt"
    assert invoke("run", SEED, "-o", out).exit_code == 1
    before = os.stat(out)
    data = out.read_bytes()
    edited = b"M" + data[1:]  # 'meshspec ...' -> 'Meshspec ...': one byte, the same size
    with open(out, "r+b") as f:
        f.write(edited)
    os.utime(out, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(out).st_ino == before.st_ino and os.stat(out).st_mtime_ns == before.st_mtime_ns
    assert invoke("run", SEED, "-o", out).exit_code == 2 and out.read_bytes() == edited


def test_with_no_state_folder_to_write_the_refusal_says_so(tmp_path, monkeypatch):
    """meshspec writes the output all the same, but keeps no record of it: the next run's refusal
    says where the record should have been and how to give one."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(blocker / "state"))  # under a file: cannot be made
    out = tmp_path / "r.txt"
    assert invoke("run", SEED, "-o", out).exit_code == 1 and out.exists()
    result = invoke("run", SEED, "-o", out)
    assert result.exit_code == 2
    assert stderr_lines(result)[0].endswith(f"; meshspec keeps its record of what it wrote in {blocker / 'state'}, which it cannot write: set MESHSPEC_STATE_DIR")


@pytest.mark.parametrize("args, said", [
    # '--' ends the options even after one (a file whose name starts with '-')
    (["run", "SEED", "-p", "current", "--", "-dash.yaml"], "meshspec: -dash.yaml: no such file"),
    # a value that begins with '-': named, with the form that takes it
    (["run", "SEED", "--device", "-1,3"],
     "meshspec: --device needs a value; '-1,3' looks like an option: write --device=-1,3 ('meshspec run -h' lists the options)"),
    # an unknown option is named before the file it left missing
    (["run", "--bogus"], "meshspec: no option '--bogus' here ('meshspec run -h' lists the options)"),
    (["run", "-dash.yaml"], "meshspec: no option '-dash.yaml' here; a file whose name starts with '-' goes after -- "
                            "(or write ./-dash.yaml) ('meshspec run -h' lists the options)"),
    (["run", "--version"], "meshspec: --version is meshspec's own option: meshspec --version ('meshspec run -h' lists the options)"),
    # a word too many is an argument, not an option
    (["init", "x.yaml", "y.yaml"], "meshspec: unexpected argument 'y.yaml': init takes FILE ('meshspec init -h' lists the options)"),
    (["systems", "extra"], "meshspec: unexpected argument 'extra': systems takes no arguments ('meshspec systems -h' lists the options)"),
    # an option of the command written before it
    (["--no-color", "run", "SEED"], "meshspec: --no-color is an option of run: put it after 'run' ('meshspec run -h' lists the options)"),
    (["-f", "json", "run", "SEED"],
     "meshspec: -f is not an option of meshspec itself: put it after the command, e.g. meshspec run -f json ('meshspec -h' lists the options)"),
    # a bad value is shown once, as typed (a backslash is not doubled again)
    (["run", "SEED", "--format", "a\\b"], "meshspec: --format 'a\\\\b': not one of table, json ('meshspec run -h' lists the options)"),
    # an empty value written with '=' is the current folder to a Path: refused like ''
    (["hunt", "--out=", "-p", "current"],
     "meshspec: argument 2 ('--out=') gives --out an empty value: give a file or a value (an unset shell variable?)"),
    # record's own options go before the program
    (["record", "python", "prog.py", "-o", "D"],
     "meshspec: --output DIR missing (the -o after the program is the program's own): record's own options go before the "
     "program: meshspec record -o DIR -- python prog.py ARGS...  (or -m MODULE, -c CODE; for pytest: pytest --meshspec-record DIR)"),
])
def test_each_way_a_command_line_goes_wrong_is_one_line_that_says_what_to_write(args, said, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(*[str(SEED) if a == "SEED" else a for a in args])
    assert result.exit_code == 2 and stderr_lines(result) == [said], result.output
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_negative_hunt_seed_is_a_seed(tmp_path):
    result = invoke("hunt", "--seed", "-5", "-p", "uniform-by-value", "--examples", "2", "--out", tmp_path / "h", "--format", "json")
    assert result.exit_code in (0, 1), result.output
    assert json.loads(result.stdout)["tried"] == 2


def test_help_says_defaults_limits_and_paragraphs():
    text = invoke("hunt", "-h").stdout
    assert "(default: 0)" in text and "(at least 1)" in text  # --seed's 0 is a default worth saying; --examples' limit
    assert "-f, --format {table,json}" in text  # the value written once
    record = invoke("record", "-h").stdout
    assert "ARGS...\n\n  The program runs as it would" in record  # the docstring's paragraphs stay apart
    assert "\nCommands:\n  run " in invoke("-h").stdout  # each command with its line


def test_a_closed_stdout_is_nothing_to_print_to_not_a_crash():
    proc = subprocess.run(f"{sys.executable} -m meshspec systems >&-", shell=True, capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0 and proc.stderr == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_stdout_is_the_users_environment_not_a_bug_in_meshspec():
    """stdout on a full device: one line naming standard output and exit 2, as -o /dev/full does
    (it was exit 3, 'internal error ... a bug in meshspec')."""
    for command in (f"run {SEED}", "schema", "systems", "--help", "run --help", "--version"):  # argparse's help too
        proc = subprocess.run(f"{sys.executable} -m meshspec {command} >/dev/full", shell=True, capture_output=True, text=True, cwd=REPO)
        assert proc.returncode == 2, command
        assert proc.stderr == "meshspec: cannot write standard output: No space left on device\n", command


def test_a_closed_stderr_keeps_a_usage_error_s_exit_code():
    """A usage error with stderr closed still exits 2 (1 would read as findings in CI)."""
    for redirect in ("2>&-", "2>/dev/full"):
        proc = subprocess.run(f"{sys.executable} -m meshspec run nosuch.yaml {redirect}", shell=True, capture_output=True, text=True, cwd=REPO)
        assert proc.returncode == 2 and proc.stdout == "", redirect


def test_a_recorded_program_s_own_empty_arguments_are_its_business():
    """An empty word after record's own options belongs to the program (python -c '', --name=);
    one among record's own options is still named."""
    from meshspec.cli import _empty_argument

    assert _empty_argument(["record", "-o", "D", "python", "prog.py", "--name="]) is None
    assert _empty_argument(["record", "--output", "D", "python", "-c", ""]) is None
    assert _empty_argument(["record", "-o", "D", "--", "python", "-c", ""]) is None
    assert "argument 3 is empty (''), after '-o'" in _empty_argument(["record", "-o", "", "python", "p.py"])
    assert "gives --output an empty value" in _empty_argument(["record", "--output=", "python", "p.py"])


def test_a_npy_header_whose_shape_overflows_is_one_line_with_no_numpy_warning(tmp_path):
    # numpy warns ("overflow encountered in scalar multiply") before it refuses such a header
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 1000000000000), }"
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    (tmp_path / "big.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 64)
    (tmp_path / "s.yaml").write_text("meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {as: s, shape: [1, 1, 32, 32], data: {file: big.npy}}\n")
    proc = subprocess.run([sys.executable, "-m", "meshspec", "run", "s.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "meshspec: s.yaml:4:61: data file 'big.npy' is not a .npy array file (or needs pickle, which meshspec never loads)\n"


@pytest.mark.parametrize("command, option, suffix", [
    ("run", "-o", ".txt"),
    ("check", "--junit-xml", ".xml"),
    ("export", "-o", ".py"),
])
def test_an_output_name_that_is_not_utf8_is_written_and_replaced_like_any_other(tmp_path, command, option, suffix):
    """Issue 34, section 4: ``-o $'r\\xfe.txt'`` wrote the report, then exit 3 (the record of what
    meshspec wrote was UTF-8 text); the same command again refused the file as not meshspec's own.
    Any name the file system takes is an output, written and then replaced by the same command."""
    name = os.fsdecode(b"r\xfe" + suffix.encode())  # as Python hands such a name over from argv
    out = tmp_path / name
    first = invoke(command, EVEN, option, out)
    assert first.exit_code == 0, first.output
    written = out.read_bytes()
    assert written and os.listdir(os.fsencode(tmp_path)) == [b"r\xfe" + suffix.encode()]
    again = invoke(command, EVEN, option, out)
    assert again.exit_code == 0, again.output
    timed = re.compile(rb'time="[0-9.]+"')  # a JUnit file gives each case's duration, which differs run to run
    assert timed.sub(b"", out.read_bytes()) == timed.sub(b"", written) and stderr_lines(again) == []
    with open(out, "ab") as f:  # an edit since: the user's file now, refused as any other would be
        f.write(b"\n")
    refused = invoke(command, EVEN, option, out)
    assert refused.exit_code == 2
    assert stderr_lines(refused)[0].startswith(f"meshspec: {tmp_path}/r\\udcfe{suffix} exists, and meshspec did not write it")


def _four_copies(tmp_path, mesh) -> Path:
    """bigdiff2.yaml of issue 34 on a smaller mesh: one host tensor copied to the mesh four times."""
    path = tmp_path / "four.yaml"
    path.write_text(f"meshspec: 1\nname: four\nmesh: {mesh}\nsteps:\n  - from_torch: {{as: src, shape: [1, 1, 32, 32]}}\n"
                    + "".join(f"  - to_device: {{src: src, as: d{i}}}\n" for i in range(4)))
    return path


def test_diff_is_bounded_by_max_work_and_max_memory_as_run_is(tmp_path):
    # diff SCENARIO ran both runs and drew the table unbounded: 256x256 with --all ran past 2
    # minutes at 1.8 GB. On 32x32 each run costs 8,193 work units: from_torch 1, each to_device a
    # buffer (1,024 devices; 2 KiB of bfloat16 each is under a unit's 16 KiB) and its write (1,024);
    # the diff compares 4 x 1,024 + 1 devices, and with --all draws them all at 16 units a row
    path = _four_copies(tmp_path, [32, 32])
    # within the bound; every device agrees, each label differs: the reference records a tensor
    # replicated to every device with the mesh's shape (docs/semantics.md section 22)
    result = invoke("diff", path, "--expected", "reference", "--max-work", "50000")
    assert result.exit_code == 1 and result.stdout.count("topology: (32x32) [R, R] on 1024 devices -> (1024) [R] on 1024 devices") == 4
    assert "4 differences in 4 tensors" in result.stdout
    result = invoke("diff", path, "--expected", "reference", "--all", "--max-work", "50000")
    assert result.exit_code == 4 and result.stdout == ""
    assert stderr_lines(result) == [
        f"meshspec: {path}: the diff of 4,097 devices, 4,097 of them drawn, would take 69,649 work units (one a device "
        "compared, 16 a row drawn), over meshspec's work bound of 50,000; raise --max-work, or drop --all (only the "
        "devices that differ are drawn)"]
    result = invoke("diff", path, "--expected", "reference", "--max-work", "5000")  # 4,097 + d2's buffer: 5,121
    assert result.exit_code == 4 and len(stderr_lines(result)) == 1
    line = stderr_lines(result)[0]
    assert line.startswith(f"meshspec: {path}: the reference run stopped at meshspec's own limit at step 3 (to_device): a buffer")
    assert "work bound of 5,000 work units" in line
    result = invoke("diff", path, "--expected", "reference", "--max-memory", "4M")  # 3 MiB a to_device, buffer and records
    assert result.exit_code == 4 and len(stderr_lines(result)) == 1
    assert "the reference run stopped at meshspec's own limit at step 2 (to_device): a buffer" in result.stderr and "--max-memory" in result.stderr
    assert invoke("diff", path, "--max-work", "0").exit_code == 2


def test_diff_draws_the_shared_topology_of_parts_on_a_mesh_of_more_than_64_devices(tmp_path):
    # p89.yaml: a report names a topology of more than 64 devices once ({"same_as": "dst"} for the
    # parts that share it); diff compared the names and its table crashed (KeyError, exit 3).
    # reference: each part its own topology, (1) [R] on its device; current: dst's, a plain tensor
    # replicated to all 72 devices, (72) [R] (mapping.replicate_all)
    path = tmp_path / "p89.yaml"
    path.write_text("meshspec: 1\nname: parts\nmesh: [8, 9]\nsteps:\n  - from_torch: {as: src, shape: [1, 1, 32, 32]}\n"
                    "  - to_device: {src: src, as: dst}\n  - get_device_tensors: {tensor: dst, as: parts}\n")
    result = invoke("diff", path, "--expected", "reference")
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines.count("  topology: (1) [R] on 1 device -> (72) [R] on 72 devices") == 72
    # and dst itself: the reference records it with the mesh's shape (docs/semantics.md section 22)
    assert lines.count("  topology: (8x9) [R, R] on 72 devices -> (72) [R] on 72 devices") == 1
    assert "73 differences in 73 tensors" in result.stdout
    data = json.loads(invoke("diff", path, "--expected", "reference", "--format", "json").stdout)
    topologies = [d for d in data["differences"] if d["field"] == "topology"]
    assert len(topologies) == 73 and all(len(d["actual"]["coords"]) == 72 for d in topologies)


def test_a_short_option_written_with_equals_reads_as_argparse_read_it(tmp_path):
    """-o=FILE, -p=NAME, -f=json and -j=2 mean what the space form means, as under argparse; click
    alone took '=FILE' as the value (a file named '=out.txt', an unknown profile '=current')."""
    seed = str(SCENARIOS / "seed-uneven-copy.yaml")
    out = tmp_path / "out.json"
    res = invoke("run", seed, f"-o={out}", "-p=current", "-f=json")
    assert res.exit_code == 0 and json.loads(out.read_text())["profile"] == "current"
    assert not (tmp_path / f"={out.name}").exists()
    assert invoke("check", seed, "-j=1").exit_code == 0


@pytest.mark.parametrize("name", [None, "stale", "copy_host_to_device_tensor"])
def test_explain_wraps_at_the_terminal_width(name):
    """explain's prose was one line a paragraph (453 columns for stale); it wraps between words at
    the width, a 'name  meaning' row under its meaning."""
    res = invoke("explain", *([name] if name else []), env={"COLUMNS": "80"})
    assert res.exit_code == 0
    # only a word longer than what is left of the line may pass the width (a dotted ttnn name)
    long = [line for line in res.stdout.splitlines() if len(line) > 80 and " " in re.split(r"\s{2,}", line.strip())[-1]]
    assert long == []


def test_systems_fits_80_columns():
    """A system's note wraps under itself at the width (t3k's ran to 111 columns)."""
    res = invoke("systems", env={"COLUMNS": "80"})
    assert res.exit_code == 0 and max(len(line) for line in res.stdout.splitlines()) <= 80
    assert res.stdout.splitlines()[0].split()[:2] == ["n150", "1x1"]


@pytest.mark.parametrize("size", ["0", "0.1", "0K"])
def test_a_max_memory_of_nothing_is_a_usage_error(size):
    """--max-memory 0 ran and stopped at step 0 with exit 4, where --max-work 0 is refused (a tester)."""
    res = run_cli(["run", str(SCENARIOS / "seed-uneven-copy.yaml"), "--max-memory", size])
    assert res.exit_code == 2 and "at least one byte" in res.stderr and len(res.stderr.splitlines()) == 1


def test_init_into_a_folder_that_takes_no_file_does_not_say_it_is_missing():
    """init /proc/foo.yaml said 'folder /proc does not exist (create it first: mkdir -p /proc)' (a tester)."""
    if not Path("/proc").is_dir():
        pytest.skip("no /proc on this system")
    res = run_cli(["init", "/proc/meshspec-test.yaml"])
    assert res.exit_code == 2 and "does not exist" not in res.stderr and "takes no new file" in res.stderr
