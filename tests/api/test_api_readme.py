"""The README's "Python API" section: each of its four examples runs as shown (the view's against
tests/api/fake_ttnn.py, the fixture's in a pytest run of its own)."""

import io
import re
import shutil
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
SECTION = re.search(r"^## Python API\n(.*?)^## ", (ROOT / "README.md").read_text(), flags=re.S | re.M).group(1)
BLOCKS = re.findall(r"```python\n(.*?)```", SECTION, flags=re.S)
RUN, BUILD, VIEW, FIXTURE = BLOCKS

sys.path.insert(0, str(Path(__file__).parent))
import fake_ttnn  # noqa: E402


def test_the_section_is_short_and_has_one_example_of_each():
    assert len(SECTION.strip().splitlines()) <= 40
    assert len(BLOCKS) == 4


def test_run_and_build(monkeypatch):
    monkeypatch.chdir(ROOT)
    space: dict = {}
    exec(RUN, space)  # its assert is the check
    out = io.StringIO()
    with redirect_stdout(out):
        exec(BUILD, space)
    import meshspec
    from meshspec.scenario.loader import parse

    text = out.getvalue()
    built = space["s"].build()
    assert parse(text[:-1], built.path) == built  # print added a newline
    # the seed's copy without the read-back: (1,3) is stale, and nothing reads it
    assert [(f["kind"], f["device"]) for f in meshspec.run(space["s"], "uniform-by-value")["findings"]] == [("stale", [1, 3])]


def test_view(monkeypatch):
    ttnn = fake_ttnn.module()
    ttnn.copy_host_to_device_tensor = lambda src, dst: None
    monkeypatch.setitem(sys.modules, "ttnn", ttnn)
    monkeypatch.setenv("TT_METAL_MOCK_CLUSTER_DESC_PATH", "mock")
    import meshspec

    out = io.StringIO()
    with redirect_stdout(out):
        exec(VIEW, {"ttnn": ttnn, "meshspec": meshspec, "sharded": None, "dst": fake_ttnn.seed_dst()})
    assert out.getvalue().startswith("dst: device tensor at address 1048640\n")
    assert "│ not recorded │" in out.getvalue()


def test_fixture(pytester):
    shutil.copytree(ROOT / "scenarios", pytester.path / "scenarios")
    pytester.makepyfile(test_inner_api_readme_fixture=FIXTURE)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    result.assert_outcomes(passed=1)


DOCS = (ROOT / "docs/python-api.md").read_text()


def test_the_reference_pages_builder_example_builds_and_its_map_is_the_views(monkeypatch):
    from test_api_view import RECORDS

    import meshspec

    builder = next(b for b in re.findall(r"```python\n(.*?)```", DOCS, flags=re.S) if "meshspec.Builder(" in b)
    space: dict = {"meshspec": meshspec}
    exec(builder, space)
    report = meshspec.run(space["scenario"], "uniform-by-value")
    assert report["expect"] == {"passed": True, "mismatches": []}
    assert RECORDS in DOCS  # the drawn records shown are the ones tests/api/test_api_view.py checks exactly
