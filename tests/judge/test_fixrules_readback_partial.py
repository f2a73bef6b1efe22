"""A host copy read from a device the current write reached only in part is ``partial``, as a copy
of a never-written device is ``stale`` (docs/findings.md, "Read-back host tensors carry the lie too";
docs/semantics.md section 7): the read-back shard is judged by the pages the write put there,
not by its spec's size (a tester's report: after the DRAM grid of issue #51503 aliased two shards
away, ``back`` read ``ok`` though 4 of its 8 pages were never written)."""

from pathlib import Path

from meshspec.runner import run
from meshspec.scenario.loader import load, parse

SCENARIOS = Path(__file__).parents[2] / "scenarios"


def _device(report, name):
    return next(t.to_json() for t in report.tensors if t.name == name)["devices"][0]


def test_a_host_copy_of_a_partly_written_device_is_partial_and_says_which_pages():
    report = run(load(SCENARIOS / "dram-grid-bank-aliasing.yaml"), "before-pr-51542")
    back = _device(report, "back")
    assert back["status"] == "partial"
    finding = next(f for f in report.findings if f.tensor == "back")
    assert finding.kind.value == "partial"
    assert "4 of its 8 pages (8192 B)" in finding.message


def test_a_host_copy_of_a_whole_write_stays_ok():
    """The same tensor in the era whose grid is refused: nothing is read; a one-row grid reads back ok."""
    text = (SCENARIOS / "dram-grid-bank-aliasing.yaml").read_text().replace("[[[0, 0], [1, 1]]]", "[[[0, 0], [3, 0]]]")
    report = run(parse(text, Path("one-row.yaml")), "before-pr-51542")
    assert report.error is None, report.error
    assert _device(report, "back")["status"] == "ok"
    assert not [f for f in report.findings if f.tensor == "back"]
