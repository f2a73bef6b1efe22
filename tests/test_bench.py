"""The bench's own measuring (bench/run.py): whole processes, peaks from wait4, ratios per pair."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def test_measure_sees_a_child_s_time_and_peak(tmp_path):
    b = bench()
    s = b.measure([sys.executable, "-c", "import time; x = bytearray(200 << 20); x[::4096] = b'1' * len(x[::4096]); time.sleep(0.2)"], tmp_path)
    assert s.wall >= 0.2 and s.cpu > 0
    assert s.peak >= 200 << 20  # the 200 MB it touched


def test_pairs_alternate_which_side_runs_first(tmp_path):
    b = bench()
    log = tmp_path / "log"
    a = [sys.executable, "-c", f"open({str(log)!r}, 'a').write('a')"]
    f = [sys.executable, "-c", f"open({str(log)!r}, 'a').write('f')"]
    sa, sf = b.pairs(a, f, 4, tmp_path)
    assert len(sa) == len(sf) == 4
    assert log.read_text() == "fa" + "af" + "fa" + "af"


def test_a_ratio_row_is_judged_on_the_median_of_the_pairs():
    b = bench()
    S = b.Sample
    a = [S(1.0, 1.0, 0), S(3.0, 1.0, 0), S(1.1, 1.0, 0)]
    f = [S(1.0, 1.0, 0), S(1.0, 1.0, 0), S(1.0, 1.0, 0)]
    row = b.ratio_row("case", a, f, 1.2)
    assert row.ok is True and row.result == "1.10x (1.00x..3.00x)"  # one slow pair does not fail it
    assert b.ratio_row("case", a, f, 1.05).ok is False


def test_markdown_table_escapes_pipes():
    b = bench()
    text = b.render([b.Row("a | b", "1 s", "-", "1.00x", "<= 2x", True)], markdown=True)
    assert text.splitlines()[2] == "| a \\| b | 1 s | - | 1.00x | <= 2x | PASS |"


def test_an_editable_install_is_told_from_its_command(tmp_path):
    """The bench says when the meshspec it measures is an editable install (its import finder is
    start-up time a user's install does not have): the command's own Python is asked."""
    b = bench()
    for answer in ("True", "False"):
        python = tmp_path / f"python-{answer}"
        python.write_text(f"#!/bin/sh\necho {answer}\n")
        python.chmod(0o755)
        command = tmp_path / f"meshspec-{answer}"
        command.write_text(f"#!{python}\nimport meshspec\n")
        assert b.editable_install(str(command)) is (answer == "True")
    assert b.editable_install(str(tmp_path / "missing")) is False


def test_triples_run_the_short_commands_several_times_a_round_and_keep_their_median(tmp_path):
    """The per-device row runs its two short commands three times a round, interleaved with the
    others, and each round keeps the run of median wall time (bench/run.py, triples)."""
    b = bench()
    log = tmp_path / "log"
    cmds = [[sys.executable, "-c", f"open({str(log)!r}, 'a').write({c!r})"] for c in "BSZ"]
    bench_ = b.Bench(tmp_path, 1, 1, True, ["meshspec"], sys.executable)
    big, small, base = b.triples(bench_, cmds, 2, runs=[1, 3, 3])
    assert len(big) == len(small) == len(base) == 2
    assert log.read_text() == "BSZSZSZ" + "SZSZSZB"  # round 2 starts one command later
    times = iter([5.0, 0.9, 0.2, 0.5, 0.3, 0.7, 0.1])
    b.measure = lambda cmd, cwd: b.Sample(next(times), 0.0, 0)
    big, small, base = b.triples(bench_, cmds, 1, runs=[1, 3, 3])
    assert (big[0].wall, small[0].wall, base[0].wall) == (5.0, 0.7, 0.2)  # medians of (0.9, 0.5, 0.7) and (0.2, 0.3, 0.1)


def test_xdist_phases_charge_each_process_its_own_loop():
    """bench/xdist_phases.py: a worker's loop runs from its collection's end to its session's end,
    the controller's (it collects nothing) from its start; CPU per test is that loop's CPU over
    the tests the process ran (its own, for a worker)."""
    bench()  # bench/run.py, which xdist_phases imports its suite from
    spec = importlib.util.spec_from_file_location("xdist_phases", ROOT / "bench" / "xdist_phases.py")
    phases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(phases)
    run = {
        "main": {"configured": (0.2, 0.2, 0), "loop-done": (3.4, 1.2, 100), "exited": (3.6, 1.4, 100), "end": (3.8, 0.0, 0)},
        "gw0": {"configured": (0.4, 0.2, 0), "collected": (0.9, 0.6, 0), "loop-done": (3.0, 2.6, 40), "exited": (3.2, 2.8, 40)},
    }
    controller, worker, command = phases.table("-n 2", [run])
    assert controller.split()[2] == "controller" and controller.endswith("  1.00 s    100  10.00 ms")  # (1.2 - 0.2) / 100
    assert worker.split()[2] == "gw0" and worker.endswith("  2.00 s     40  50.00 ms")  # (2.6 - 0.6) / 40
    assert command.endswith("ended at 3.80 s")


def test_collected_reads_pytest_s_count(tmp_path):
    b = bench()
    tests = b.plain_tests(tmp_path / "t", "_burn(0.0001)")
    assert len(list(tests.glob("test_*.py"))) == 200
    assert b.collected([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests / "test_000.py")], tmp_path) == 7


def test_plain_tests_burn_the_cpu_time_asked(tmp_path):
    b = bench()
    tests = b.plain_tests(tmp_path / "t", "_burn(0.05)")
    s = b.measure([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests / "test_000.py")], tmp_path)
    assert s.cpu >= 7 * 0.05  # seven tests of 50 ms each, and pytest's own start-up
