"""The README's picture is made by meshspec itself and is current (docs/make-pictures.sh)."""

from pathlib import Path


from cli_runner import invoke

ROOT = Path(__file__).resolve().parents[1]


def test_readme_picture_is_current(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.chdir(ROOT)
    fresh = tmp_path / "seed.svg"
    invoke(["run", "scenarios/seed-uneven-copy.yaml", "--view", "map", "--profile", "all", "--svg", str(fresh)])
    committed = ROOT / "docs" / "seed-map-all-profiles.svg"
    assert fresh.read_text() == committed.read_text(), "run docs/make-pictures.sh and commit the result"
    assert "docs/seed-map-all-profiles.svg" in (ROOT / "README.md").read_text()
    # the lying device is in the picture
    assert "stale" in committed.read_text() and "(1,3)" in committed.read_text()


def test_every_docstring_example_holds():
    """The worked examples in docstrings are run, module by module."""
    import doctest
    import importlib
    import pkgutil

    import meshspec

    failed = {}
    for info in pkgutil.walk_packages(meshspec.__path__, "meshspec."):
        if info.name.endswith("__main__"):
            continue  # importing it runs the CLI
        module = importlib.import_module(info.name)
        result = doctest.testmod(module)
        if result.failed:
            failed[info.name] = result.failed
    assert failed == {}


def test_every_test_file_the_docs_cite_exists():
    import re

    for doc in ("README.md", "docs/semantics.md"):
        cited = set(re.findall(r"tests/[\w/]+\.py", (ROOT / doc).read_text()))
        assert cited, doc
        missing = sorted(p for p in cited if not (ROOT / p).exists())
        assert missing == [], f"{doc} cites {missing}"
