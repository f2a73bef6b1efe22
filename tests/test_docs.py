"""The docs hold together: the README's picture is made by meshspec itself and is current
(docs/make-pictures.sh), every link between the docs leads somewhere, every test file they cite
exists, and the worked examples in docstrings hold."""

import re
from pathlib import Path

from cli_runner import invoke

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]


def test_readme_picture_is_current(tmp_path, monkeypatch):
    script = (ROOT / "docs" / "make-pictures.sh").read_text()
    columns = re.search(r"^export COLUMNS=(\d+)$", script, re.M).group(1)
    assert int(columns) <= 80, "the picture must read at README width"
    monkeypatch.setenv("COLUMNS", columns)  # as docs/make-pictures.sh makes it
    monkeypatch.chdir(ROOT)
    fresh = tmp_path / "seed.svg"
    invoke(["run", "scenarios/seed-uneven-copy.yaml", "--view", "map", "--svg", str(fresh)])
    committed = ROOT / "docs" / "seed-map.svg"
    assert fresh.read_text() == committed.read_text(), "run docs/make-pictures.sh and commit the result"
    assert "](docs/seed-map.svg)" in (ROOT / "README.md").read_text()
    # the lying device is in the picture
    assert "stale" in committed.read_text() and "(1,3)" in committed.read_text()


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[`*]", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_every_link_between_the_docs_leads_somewhere():
    broken = []
    for doc in DOCS:
        text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            path = (doc.parent / file).resolve() if file else doc
            if not path.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_every_doc_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text()
    unlinked = [p.name for p in DOCS[1:] if f"]({p.relative_to(ROOT).as_posix()})" not in readme]
    assert unlinked == []


def test_slug_is_githubs():
    assert _slug("PASS, FAIL and exit codes") == "pass-fail-and-exit-codes"
    assert _slug("JSON report (format `meshspec.report/1`)") == "json-report-format-meshspecreport1"
    assert _slug("Dependencies, and why") == "dependencies-and-why"


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
    cited_anywhere = set()
    for doc in DOCS:
        cited = set(re.findall(r"tests/[\w/]+\.py", doc.read_text()))
        cited_anywhere |= cited
        missing = sorted(p for p in cited if not (ROOT / p).exists())
        assert missing == [], f"{doc.relative_to(ROOT)} cites {missing}"
    assert cited_anywhere
