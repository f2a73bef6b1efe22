"""The meshspec_check fixture (meshspec/pytest_plugin.py): a scenario, from a file or built in Python,
checked against its expect block inside a test; a failure says what `meshspec check` says."""

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")

TESTS = f'''
import meshspec

SCENARIOS = {str(SCENARIOS)!r}


def test_a_file_passes(meshspec_check):
    results = meshspec_check(SCENARIOS + "/seed-uneven-copy.yaml")
    assert [(r.profile, r.outcome) for r in results] == [
        ("uniform-by-value", "PASS"), ("unpopulated", "PASS")]


def test_a_matrix_case(meshspec_check):
    results = meshspec_check(SCENARIOS + "/seed-uneven-copy-matrix.yaml", "uniform-by-value", case="bfloat16-tile-1x8")
    assert [(r.case, r.outcome) for r in results] == [("bfloat16-tile-1x8", "PASS")]


def _seed(expected_device):
    s = meshspec.Builder(mesh="t3k", name="built-seed")
    dst = s.allocate_tensor_on_device(as_="dst", shape=(1, 1, 32, 32))
    src = s.from_torch(as_="src", shape=(1, 7, 32, 32), mesh_mapper={{"shard": 1}})
    s.copy_host_to_device_tensor(src=src, dst=dst)
    return s.expect(profiles={{"uniform-by-value": {{"findings": [{{"kind": "stale", "tensor": "dst", "device": expected_device}}]}}}})


def test_a_built_scenario_passes(meshspec_check):
    meshspec_check(_seed([1, 3]))


def test_a_built_scenario_fails_with_the_findings(meshspec_check):
    meshspec_check(_seed([0, 3]))
'''


def test_the_fixture_passes_and_fails_as_check_does(pytester):
    pytester.makepyfile(test_inner_api_fixture=TESTS)
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "*_ test_a_built_scenario_fails_with_the_findings _*",
        "built-seed [uniform-by-value]: FAIL, 2 mismatch(es)",
        "  unexpected finding: stale dst (1,3) (step 0): *but never written since allocation",
        "  missing finding {kind: stale, tensor: dst, device: [0, 3]}",
    ])
    assert "Traceback" not in result.stdout.str() and "def check(" not in result.stdout.str()  # the mismatches alone, no pytest trace


def test_a_bad_case_fails_the_test_with_the_one_line(pytester):
    pytester.makepyfile(test_inner_api_bad_case=f'''
def test_bad_case(meshspec_check):
    meshspec_check({str(SCENARIOS / "seed-uneven-copy-matrix.yaml")!r}, case="float32")
''')
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["meshspec: case: *seed-uneven-copy-matrix.yaml has no case 'float32'*; its cases: bfloat16-tile-2x4*"])
    assert "Traceback" not in result.stdout.str() and "raise " not in result.stdout.str()


@pytest.mark.parametrize("call, words", [
    ("meshspec_check('no-such-file.yaml')", "meshspec: *no-such-file.yaml*"),
    (f"meshspec_check({str(SCENARIOS / 'seed-uneven-copy.yaml')!r}, 'nope')", "meshspec: *unknown profile 'nope'*"),
])
def test_a_scenario_the_fixture_cannot_run_fails_the_test_with_its_one_line(pytester, call, words):
    """A missing file or an unknown profile fails the test with meshspec's line, not a 40-line
    traceback through the plugin (a tester)."""
    pytester.makepyfile(test_inner_api_bad_input=f"def test_bad(meshspec_check):\n    {call}\n")
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([words])
    assert "Traceback" not in result.stdout.str() and "pytest_plugin.py" not in result.stdout.str()
