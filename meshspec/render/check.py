"""Output of ``meshspec check``: one line per case, and JUnit XML for CI systems."""

from __future__ import annotations

from pathlib import Path

from ..report import ERROR, FAIL, PASS, CaseResult, summarize
from ..text import printable


def _xml_text(text: str) -> str:
    """XML 1.0 cannot hold most control characters, even escaped: show them as \\xNN."""
    return "".join(c if c in "\t\n\r" or ord(c) >= 0x20 and c not in "\ufffe\uffff" else f"\\x{ord(c):02x}" for c in text)


def junit_xml(results: list[CaseResult]) -> str:
    """JUnit XML, as GitHub Actions, GitLab and Jenkins read it: one testcase per case."""
    import xml.etree.ElementTree as ET

    s = summarize(results)
    total = sum(r.seconds for r in results)
    suites = ET.Element("testsuites", name="meshspec", tests=str(len(results)), failures=str(s.failed), errors=str(s.errors), time=f"{total:.3f}")
    suite = ET.SubElement(
        suites, "testsuite", name="meshspec check", tests=str(len(results)), failures=str(s.failed), errors=str(s.errors), skipped="0", time=f"{total:.3f}"
    )
    for r in results:
        classname = Path(r.path).with_suffix("").as_posix().replace("/", ".").lstrip(".")
        case = ET.SubElement(
            suite, "testcase", classname=_xml_text(classname), name=_xml_text(r.case_id), file=_xml_text(r.path), time=f"{r.seconds:.3f}"
        )
        if r.outcome == FAIL:
            headline = r.message if len(r.details) == 1 else f"{len(r.details)} mismatches: {r.message} ..."
            ET.SubElement(case, "failure", message=_xml_text(headline), type="ExpectMismatch").text = _xml_text("\n".join(r.details))
        elif r.outcome == ERROR:
            ET.SubElement(case, "error", message=_xml_text(r.message), type="ScenarioError").text = _xml_text("\n".join(r.details))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def result_line(r: CaseResult) -> str:
    """``PASS  path [profile]``; ``FAIL  path [profile]: the mismatch``, or with several, a count and
    then every mismatch on its own line (missing and unexpected findings alike); ``ERROR path: error``."""
    path = f"{r.path}[{r.case}]" if r.case else r.path  # a matrix case, as pytest names one
    where = printable(f"{path} [{r.profile}]" if r.profile else path)
    if r.outcome == PASS:
        return f"PASS  {where}"
    if r.outcome == ERROR and r.profile is None:
        return f"ERROR {printable(r.message)}"
    if len(r.details) <= 1:
        return f"{r.outcome:<5} {where}: {printable(r.message)}"
    lines = [f"{r.outcome:<5} {where}: {len(r.details)} mismatches"]
    lines += [f"      {printable(d)}" for d in r.details]
    return "\n".join(lines)
