"""What meshspec writes as a scenario loads: checked before it is written.

``import``, ``record`` and ``hunt`` make scenario text from what a program, a capture or a search
gave them. A value they pass on unchecked (a capture's ``storage_type`` that makes a host tensor a
device one, a name the loader refuses) once made a file that ``meshspec run`` then refused, while
the writer had exited 0. Each writer calls :func:`check_loads` on the text first: the loader
itself is the judge, so the writers and the format cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ScenarioError, UsageError
from ..text import one_line


def check_loads(text: str, path: Path | str, writer: str) -> None:
    """Raise :class:`UsageError` (one line: the writer, the loader's own error with its line and
    column, and that nothing was written) unless ``text`` loads as the scenario file ``path``
    (where it is about to be written: its data files are looked for beside it).

    ``check_loads("meshspec: 1\\nmesh: [1, 2]\\nsteps:\\n  - neg: {tensor: x}\\n", "s.yaml", "import")``
    raises ``import: the scenario it made does not load (s.yaml:4:19: ... 'x' ...), so nothing was written; ...``.
    """
    from .loader import parse

    try:
        parse(text, Path(path))
    except ScenarioError as err:
        raise UsageError(
            f"{one_line(writer)}: the scenario it made does not load ({one_line(str(err))}), so nothing was written; "
            f"the input holds something meshspec cannot express as a scenario (please report it with the input "
            f"if it came from ttnn as it is)"
        ) from None

