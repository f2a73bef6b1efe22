"""``meshspec import PATH``: what a real ttnn program did, as a meshspec scenario that runs.

Two formats, told apart by their content:

- a folder of ttnn's operation-tracer files (``pytest --trace-params``; ttnn/ttnn/operation_tracer.py),
  read by :mod:`.tracer`;
- a ttnn graph capture (``ttnn.graph.end_graph_capture_to_file``; ttnn/ttnn/graph.py), with the
  ``.python_io.json`` sidecar beside it when there is one, read by :mod:`.graph`.

Both become :class:`~.common.Call` records that :func:`~.steps.build` maps to steps. The result
is plain data and text; nothing here writes a file (the CLI does)::

    imported = import_path(Path("generated/ttnn/reports/operation_parameters"))
    print(imported.text)             # the scenario, commented step by step
    for line in imported.unmapped:   # "<file or node>: ttnn.foo (why)"
        print(line, file=sys.stderr)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ScenarioError, UsageError
from ...text import flow, one_line, printable
from .common import check_mesh, load_json
from .steps import Built, Item, build

KINDS = (
    "a folder of ttnn operation-tracer files (pytest --trace-params)",
    "a ttnn graph capture .json (ttnn.graph.end_graph_capture_to_file)",
)


@dataclass(frozen=True)
class Imported:
    scenario: dict
    """The scenario as plain data, ready for ``yaml.safe_dump`` (keys in the order a human writes them)."""
    text: str
    """The scenario as YAML: a header saying where it came from, and above each step the file or
    node it came from; a call not imported is a comment where it ran."""
    unmapped: tuple[str, ...]
    """One line per call not imported: ``<source file or node id>: ttnn.foo (why)``."""


def import_path(path: Path | str) -> Imported:
    """The scenario a tracer folder or a graph capture file describes (see the module doc)."""
    path = Path(path)
    kind, data = sniff(path)
    if kind == "tracer":
        return _from_tracer(path)
    return _from_graph(path, data)


def import_paths(paths: list[Path]) -> Imported:
    """One path as :func:`import_path`; several, the runs of one parametrized test (a tracer folder
    or a capture each), as one scenario with a matrix (:mod:`.matrix`)."""
    if len(paths) == 1:
        return import_path(paths[0])
    from .matrix import combine, render as render_matrix

    runs = [(Path(p), import_path(p)) for p in paths]
    scenario = combine([(p.name, imported.scenario) for p, imported in runs])
    header = [
        f"Imported by meshspec import from {len(runs)} runs of one parametrized test, a case each:",
        *(f"  {p}" for p, _ in runs),
        f"What differs between them is the matrix ({', '.join(scenario['matrix'])}); each run's own import says how it was read.",
    ]
    unmapped = tuple(f"{p.name}: {line}" for p, imported in runs for line in imported.unmapped)
    return Imported(scenario, render_matrix(scenario, header), unmapped)


def sniff(path: Path) -> tuple[str, Any]:
    """``("tracer", None)`` for a folder, ``("graph", content)`` for a graph capture file; any
    other path is a one-line error naming it and what would do."""
    choices = "; give " + " or ".join(KINDS)
    if path.is_dir():
        return "tracer", None
    if not path.exists():
        raise UsageError(f"{printable(str(path))}: no such file or folder{choices}")
    if not path.is_file():
        raise UsageError(f"{printable(str(path))}: not a regular file or a folder{choices}")
    try:
        data = load_json(path)
    except ScenarioError:
        if path.suffix.lower() == ".json":
            raise
        raise UsageError(f"{printable(str(path))}: neither a folder nor JSON{choices}") from None
    return "graph", _graph_content(path, data, choices)


def _graph_content(path: Path, data: Any, choices: str) -> Any:
    where = printable(str(path))
    if isinstance(data, dict) and "graph" in data:
        return data
    if isinstance(data, list) and data and all(isinstance(n, dict) and "node_type" in n for n in data):
        return data  # the node list end_graph_capture() returns, saved with json.dump
    if isinstance(data, dict) and "operation_name" in data:
        raise UsageError(f"{where}: one operation-tracer file; import its folder, {printable(str(path.parent))}")
    if isinstance(data, list) and data and all(isinstance(r, dict) and "input_tensor_ids" in r for r in data):
        capture = path.name.removesuffix(".python_io.json") + ".json"
        raise UsageError(f"{where}: a graph capture's python_io sidecar; import the capture beside it, {capture}")
    from ...scenario.sniff import saved_format

    saved = saved_format(data)
    if saved is not None:
        raise UsageError(f"{where}: a file meshspec wrote ({saved}), not a capture{choices}")
    shape = (f"an object with keys {', '.join(list(data)[:5])}" if data else "an empty object") if isinstance(data, dict) else f"a JSON {type(data).__name__}"
    raise UsageError(f"{where}: {shape}, not a graph capture (an object with a 'graph' list of nodes){choices}")


# -- the two formats -------------------------------------------------------------------------
def _from_tracer(folder: Path) -> Imported:
    from .tracer import read_folder

    run = read_folder(folder)
    check_mesh(run.mesh, str(folder))
    built = build(run.calls, run.mesh)
    data = "the tracer records shapes, not values" + (" (the values it recorded are not imported)" if run.values else "")
    header = [
        "Imported by meshspec import from ttnn's operation tracer (ttnn/operation_tracer.py, pytest --trace-params):",
        f"  {folder} ({run.files} op files)",
        f"Host data: {data}; from_torch steps use meshspec's default data (arange).",
        "Tensors are matched between calls by spec and topology: the tracer records no tensor ids.",
        "Mesh mappers and composers are read back from the tensors they made: the tracer records no mapper config.",
        f"Mesh: {run.mesh_note or 'the traced mesh device'} (Wormhole chips: the tracer does not record the arch).",
    ]
    if run.skipped:
        shown = "; ".join(run.skipped[:3]) + ("; ..." if len(run.skipped) > 3 else "")
        header.append(f"Skipped {len(run.skipped)} entr{'ies' if len(run.skipped) != 1 else 'y'} named like op files (never opened): {shown}")
    what = f"ttnn operation-tracer output {folder.name}"
    return _imported(folder, folder.name, what, header, list(run.mesh), run.files, built, run.skipped)


def _from_graph(path: Path, data: Any) -> Imported:
    from .graph import read_capture

    run = read_capture(path, data)
    check_mesh(run.mesh, str(path))
    built = build(run.calls, run.mesh)
    version = data.get("metadata", {}).get("version") if isinstance(data, dict) and isinstance(data.get("metadata"), dict) else None
    header = [
        "Imported by meshspec import from a ttnn graph capture (ttnn/graph.py, end_graph_capture_to_file):",
        f"  {path} ({run.nodes} nodes{f', ttnn {version}' if version else ''}; {len(run.calls)} top-level calls)",
        *run.notes,
        "Host data: the capture records no values; from_torch steps use meshspec's default data (arange).",
        "Tensors: a device tensor is its buffer's address, a host tensor its tensor_id.",
    ]
    what = f"ttnn graph capture {path.name}"
    return _imported(path, path.stem, what, header, run.mesh_value, len(run.calls), built)


def _imported(path: Path, name: str, what: str, header: list[str], mesh: Any, calls: int, built: Built,
              unread: tuple[str, ...] = ()) -> Imported:
    steps = built.steps
    if not steps:
        first = built.unmapped[0] if built.unmapped else "the trace holds no calls"
        raise ScenarioError(f"none of its {calls} calls maps to a meshspec step (first: {first})", str(path))
    skipped = len(built.unmapped)
    kept = ""
    if built.opaque:
        kept = " (1 of them as an opaque step declaring what it returned)" if built.opaque == 1 else \
            f" ({built.opaque} of them as opaque steps declaring what they returned)"
    description = f"Imported from {what}: {len(steps)} steps from {calls} calls" + (f"; {skipped} not imported{kept}." if skipped else ".")
    if skipped:
        header.append(f"{skipped} call{'s' * (skipped != 1)} not imported{kept}: see the 'not imported' comments where they ran.")
    # the file's or folder's name, as text the loader takes (a control character or line break escaped)
    scenario = {"meshspec": 1, "name": one_line(name), "description": one_line(description), "mesh": mesh, "steps": steps}
    return Imported(scenario, render(header, scenario, built.items), (*unread, *built.unmapped))


# -- YAML text -------------------------------------------------------------------------------
def render(header: list[str], scenario: dict, items: list[Item]) -> str:
    """The scenario as YAML with ``header`` above it and each item's comment above its step;
    ``yaml.safe_load`` of it is ``scenario``."""
    lines = [_comment(h, "") for h in header]
    for key, value in scenario.items():
        if key != "steps":  # one line each, a line break in a folder's name escaped (text.flow)
            lines.append(f"{key}: {flow(value)}")
    lines.append("steps:")
    for item in items:
        lines += [_comment(c, "  ") for c in item.comment]
        if item.step is not None:
            (op, args), = item.step.items()
            lines.append(f"  - {op}: {flow(args)}")
    return "\n".join(lines) + "\n"


def _comment(text: str, indent: str) -> str:
    """One comment line, whatever ``text`` holds: a line break of any kind (``\\r``, U+2028 ...),
    which YAML would end the comment at, is escaped (text.one_line)."""
    return f"{indent}# {one_line(text)}".rstrip()


__all__ = ["Imported", "import_path", "import_paths", "sniff"]
