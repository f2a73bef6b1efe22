"""Rewrite the parts of the docs that are generated from the code: the step table in
docs/ttnn-spelling.md (from the op registry). tests/test_readme.py fails when it is out of date.

    python tools/update_readme.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from meshspec.explain import step_table  # noqa: E402


def main() -> None:
    doc = REPO / "docs" / "ttnn-spelling.md"
    text = doc.read_text()
    start = text.index("| step | ttnn | fields |")
    end = text.index("\n\n", start)
    doc.write_text(text[:start] + step_table().rstrip("\n") + text[end:])
    print("docs/ttnn-spelling.md: step table updated")


if __name__ == "__main__":
    main()
