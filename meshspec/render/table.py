"""Table output: header, a per-device table per tensor, findings, a summary line (rich text;
the per-device tables drawn by :mod:`.grid`).

Colour is only a help: every status is spelled out, so piped or NO_COLOR output says the same.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from typing import Optional

from rich.console import Group
from rich.text import Text

from ..report import DeviceView, Report, TensorReport
from ..sim.mesh import fmt_range, fmt_coord, fmt_shape, volume
from ..sim.spec import Layout
from .options import Options, View
from .common import STATUS_STYLE, device_id_lines, fit_title, ids_of, status_style, tensor_title
from ..text import one_line
from .grid import column_widths, columns as columns_text
from .map import legend, map_renderable
from .parts import PartGroup, differing, group_map, group_title, grouped


def report_renderable(r: Report, opts: "Options") -> Group:
    """One report in the chosen view."""
    return _report(r, opts.width, opts)


def _report(r: Report, width: int, opts: "Options") -> Group:
    parts = []
    mesh = "x".join(str(n) for n in r.mesh)
    now = r.meshes[0].shape if r.meshes else r.mesh
    if tuple(now) != tuple(r.mesh):  # MeshDevice.reshape: the tensors' coordinates may be on either
        mesh += f", reshaped to {'x'.join(str(n) for n in now)}"
    mesh_label = f"{r.mesh_name} ({mesh})" if r.mesh_name else mesh
    head = Text()  # the scenario's name (a file stem, its name:) and a profile's era are the user's text: one line each
    head.append("meshspec ", style="bold")
    head.append(one_line(r.scenario), style="bold cyan")
    head.append(f"  mesh {mesh_label}  profile {r.profile}: {one_line(r.era)}")
    parts.append(head)
    if r.hosts is not None:  # pastes back as the scenario's hosts:
        h = r.hosts
        rest = "every other device is remote" if h.count > 1 else "the only host: no device is remote"
        parts.append(Text(f"hosts: {{topology: {list(h.topology)}, rank: {h.rank}}}  ({h.describe()}; {rest})"))
    if r.description and not opts.brief:
        parts.append(Text(one_line(" ".join(r.description.split())), style="dim"))
    if not opts.brief:
        for line in device_id_lines(r.meshes):  # what it is, as a YAML comment (the line still pastes): beside it when it fits
            said = f"{line}  {DEVICE_IDS_NOTE}"
            parts += [Text(said, style="dim")] if len(said) <= width else [Text(DEVICE_IDS_NOTE, style="dim"), Text(line, style="dim")]
    titles: dict[int, Text] = {}  # each tensor's title, made once for its table and its map
    shown = grouped(r.tensors)  # a list's parts as one (a row per part)
    if opts.view is View.TABLE:
        for t in shown:
            parts.append(Text())
            title = group_title(t, r.meshes) if isinstance(t, PartGroup) else tensor_title(t, r.meshes)
            titles[id(t)] = title = fit_title(title, width)
            parts.append(title)
            if isinstance(t, PartGroup):
                parts += _group_table(t, width, styled=opts.color)
            elif t.devices:
                parts += _tensor_table(t, width, styled=opts.color)
            for one in t.tensors if isinstance(t, PartGroup) else (t,):
                if one.cores:
                    from .cores import cores_renderables

                    if one is not t:
                        parts.append(Text(f"{one.name}:", style="bold"))
                    parts += cores_renderables(one, styled=opts.color)
    if opts.view is View.MAP or (opts.view is View.TABLE and volume(r.mesh) <= 64):
        parts += _maps(r, shown, opts, only_device=opts.view is View.TABLE or opts.brief, titles=titles)
    # the data and trace views draw rich tables (rich.table, ~13 ms to import): loaded when shown
    if opts.view is View.DATA:
        from .data import data_renderables

        parts += data_renderables(r, opts)
    if opts.trace:
        from .trace import trace_renderable

        parts.append(Text())
        parts.append(Text("trace", style="bold"))
        parts.append(trace_renderable(r.steps, opts.width, r.mesh))
    if r.readbacks:
        parts.append(Text())
        for rb in r.readbacks:
            parts.append(Text(f"step {rb.step} to_torch({rb.tensor}): {_read(rb, r)} -> {fmt_shape(rb.shape)}"))
            note = rb.note()
            if note:  # information, not a finding: where each shard landed (docs/semantics.md section 5)
                parts.append(Text(textwrap.fill(f"note: {note}", width=max(40, width - 4), initial_indent="  ", subsequent_indent="    "),
                                  style="dim"))
    if r.error:
        parts.append(Text())
        line = f" (line {r.error.line})" if r.error.line else ""
        parts.append(Text(f"error at step {r.error.step} ({r.error.op}){line}: {r.error.message}", style="bold red"))
        if r.steps_run < r.steps_total:
            parts.append(Text(f"stopped after {r.steps_run} of {r.steps_total} steps; the tables show the state then", style="dim"))
    if r.findings:
        parts.append(Text())
        parts.append(Text("findings", style="bold"))
        parts += _findings(r.findings, width, {t.name: tuple(t.grid or r.mesh) for t in r.tensors})
    if r.expect is not None:
        parts.append(Text())
        if r.error is not None and r.error.source == "meshspec":  # what the expect block misses follows from the stop
            parts.append(Text(f"expect ({r.profile}): not checked: meshspec stopped the run at step {r.error.step}, so it has no "
                              "verdict (meshspec check reports it as an ERROR)", style="bold yellow"))
        elif r.expect.passed:
            # PASS beside findings and exit 1 read as a contradiction: say what passed
            also = ": the findings above are the ones the scenario expects (they still exit 1)" if r.findings else ""
            parts.append(Text(f"expect ({r.profile}): PASS{also}", style="bold green"))
        else:
            n = len(r.expect.mismatches)
            parts.append(Text(f"expect ({r.profile}): FAIL, {n} mismatch{'es' * (n != 1)}", style="bold red"))
            for m in r.expect.mismatches:
                parts.append(Text(textwrap.fill(m, width=max(40, width - 4), initial_indent="  ", subsequent_indent="    ")))
    parts.append(Text())
    summary = Text(r.summary(), style="bold red" if r.exit_code else "bold green")
    parts.append(summary)
    return Group(*parts)


DEVICE_COLUMNS = ("device", "recorded", "shape", "padded", "dtype", "layout", "pages", "B recorded", "B written", "offset", "status")
HOST_COLUMNS = ("device", "shape", "padded", "dtype", "layout", "pages", "bytes", "offset", "status")
RIGHT = {"pages", "B recorded", "B written", "bytes"}


DEVICE_IDS_NOTE = "# get_device_ids() of each mesh device"
"""Beside the header's ``device_ids:`` line, which reads as a bare list to someone new."""


FOLD_OVER = 64
"""Above this many devices the table lists only the devices with findings and counts the rest."""


DROP_ORDER = ("padded", "layout", "dtype", "pages", "offset", "topology", "B recorded", "shape", "slice")
"""Columns a narrow terminal loses first; device, recorded, written bytes and status stay."""


def _read(rb, r: Report) -> str:
    """``read all 8 devices``, ``read 7 devices: (0,0) (0,1) ...``, ``composed 2 host shards: ...``
    (a host tensor's shards are named by the devices they are for)."""
    n = len(rb.devices)
    what = "read" if rb.from_device else "composed"
    noun = "device" if rb.from_device else "host shard"
    grid = next((tuple(t.grid or r.mesh) for t in r.tensors if t.name == rb.tensor), tuple(r.mesh))
    if rb.from_device and n > 2 and len(set(rb.devices)) == volume(grid) and all(len(c) == len(grid) for c in rb.devices):
        return f"{what} all {n} {noun}s"
    shown = [fmt_coord(c) for c in rb.devices]
    if len(shown) > 8:
        shown = shown[:4] + ["..."] + shown[-2:]
    return f"{what} {n} {noun}{'s' * (n != 1)}: {' '.join(shown)}"


def _tensor_table(t: TensorReport, width: int = 120, *, styled: bool = True) -> list:
    host = t.storage == "host"
    return _table(list(HOST_COLUMNS if host else DEVICE_COLUMNS), list(t.devices), lambda v: _cells(v, host, t.plain, styled),
                  width, styled, "devices")


def _group_table(g: PartGroup, width: int = 120, *, styled: bool = True) -> list:
    """A list's parts: a row per device of each part (a part is on one device: a row per part),
    named in a first column, with its global slice where a tensor's table has the offset (the
    slice starts there; ``:`` is offset 0) and its topology when the parts' differ."""
    host = g.tensors[0].storage == "host"
    columns = ["part", *(HOST_COLUMNS if host else DEVICE_COLUMNS)]
    columns[columns.index("offset")] = "slice"
    topology = "topology" in differing(g)
    if topology:
        columns.insert(columns.index("status"), "topology")
    slices = g.slices
    part_of = {id(v): t for t in g.tensors for v in t.devices}

    def row(v: DeviceView) -> list:
        t = part_of[id(v)]
        cells = _cells(v, host, t.plain, styled)
        cells[-2] = slices[(t.name, v.coord)]
        return [t.name, *cells[:-1], *([str(t.topology)] if topology else []), cells[-1]]

    views = [v for t in g.tensors for v in t.devices]
    return _table(columns, views, row, width, styled, "parts" if len(views) == len(g.tensors) else "devices of parts")


def _table(columns: list[str], views: list[DeviceView], make_row, width: int, styled: bool, what: str) -> list:
    """A row of ``columns`` per device (``make_row``); above FOLD_OVER devices only those with a
    finding, the others counted (their rows never made); on a narrow terminal the columns of
    DROP_ORDER left out first."""
    fold = len(views) > FOLD_OVER
    chosen = [(v, make_row(v)) for v in views if not fold or v.status.is_finding]
    every = list(columns)
    texts = [r for _, r in chosen] if not styled else [[getattr(c, "plain", c) for c in r] for _, r in chosen]  # unstyled cells are strings
    widths = dict(zip(every, column_widths(every, texts)))
    dropped = []
    for name in DROP_ORDER:
        if sum(widths[c] for c in columns) + 2 * (len(columns) - 1) <= width:  # two spaces between columns
            break
        if name in columns:
            dropped.append(name)
            columns.remove(name)
    keep = [i for i, name in enumerate(every) if name in columns]
    table = columns_text(
        columns,
        [[r[i] for i in keep] for _, r in chosen],
        right={i for i, name in enumerate(columns) if name in RIGHT},
        row_styles=["bold" if v.status.is_finding else None for v, _ in chosen] if styled else None,
        widths=[widths[name] for name in columns],  # measured above, for the narrow-terminal drop
    )
    out: list = [table] if chosen else []
    if dropped:
        out.append(Text(f"(narrow terminal: {', '.join(dropped)} not shown)", style="dim"))
    if fold:
        rest = Counter(v.status.value for v in views if not v.status.is_finding)
        counts = ", ".join(f"{n} {status}" for status, n in sorted(rest.items()))
        more = "more " if chosen else ""
        out.append(Text(f"{len(views) - len(chosen)} {more}{what}: {counts} (a picture: --view map; every device: --format json)", style="dim"))
    return out


def _cells(v: DeviceView, host: bool, plain: bool = False, styled: bool = True) -> list:
    """The row of one device; without ``styled`` (no colour) plain strings, which cost nothing to lay out."""
    spec = v.spec
    if spec:
        layout = str(spec.layout) + ("" if spec.tile == (32, 32) or spec.layout is not Layout.TILE else f" {spec.tile[0]}x{spec.tile[1]}")
        spec_cells: list = [fmt_shape(spec.shape), fmt_shape(spec.padded_shape), str(spec.dtype), layout, str(spec.num_pages)]
        if styled and not v.recorded:
            # an unrecorded device's spec is the one the runtime keeps, not a claim of data: dim it
            spec_cells = [Text(c, style="dim") for c in spec_cells]
    else:
        spec_cells = ["-"] * 5
    offset = fmt_coord(v.offset) if v.offset is not None else "-"
    status = Text(v.status.value, style=STATUS_STYLE[v.status]) if styled else v.status.value
    if host:
        return [fmt_coord(v.coord) if not plain else "host", *spec_cells, str(spec.buffer_bytes if spec else 0), offset, status]
    recorded_bytes = str(spec.buffer_bytes) if spec and v.recorded else "0"
    return [fmt_coord(v.coord), "yes" if v.recorded else "no", *spec_cells, recorded_bytes, str(v.written_bytes), offset, status]


def _findings(findings, width: int, grids: Optional[dict] = None) -> list[Text]:
    """Each lie with its origin, and under it what it caused (reads of the same device, host
    tensors that carry it). Identical findings on several devices share one entry (``grids``: each
    tensor's mesh shape, so every device of it reads "on all 8 devices").

    A root is a finding of its own (no source), but for the data_mismatch of a device that another
    finding calls a lie. Under the first root of a device go the findings read from it (their
    source), and under its first lie that device's data_mismatch. Roots are looked up by tensor and
    device: compared each with every finding, a 64x64 mesh whose every device lies took 31 s here."""
    lies = {(g.tensor, g.device) for g in findings if g.source is None and g.device is not None and g.kind.value != "data_mismatch"}
    roots = [f for f in findings if f.source is None and not (f.kind.value == "data_mismatch" and (f.tensor, f.device) in lies)]
    caused: dict[int, list] = {id(f): [] for f in roots}
    claimed: set[int] = {id(f) for f in roots}
    first_root: dict[tuple, object] = {}
    first_lie: dict[tuple, object] = {}
    for f in roots:
        if f.device is not None:
            first_root.setdefault((f.tensor, f.device), f)
            if f.kind.value != "data_mismatch":
                first_lie.setdefault((f.tensor, f.device), f)
    for g in findings:
        if id(g) in claimed:
            continue
        if g.source is not None:
            root = first_root.get(g.source)
        else:
            root = first_lie.get((g.tensor, g.device)) if g.kind.value == "data_mismatch" else None
        if root is not None:
            caused[id(root)].append(g)
            claimed.add(id(g))
    roots += [f for f in findings if id(f) not in claimed]  # anything unexplained stands alone
    out: list[Text] = []
    for group in _group(roots, key=lambda f: (f.kind, f.tensor, f.step, _strip_where(f))):
        f = group[0]
        line = Text("  ")
        line.append(f.kind.value, style=status_style(f.kind.value))
        line.append(f" {f.tensor}{_devices(group, (grids or {}).get(f.tensor))}", style="bold")
        if f.step is not None:
            line.append(f"  origin: step {f.step} {f.op}")
        out.append(fit_title(line, width))
        out.append(Text(textwrap.fill(_strip_where(f), width=max(40, width - 6), initial_indent="      ", subsequent_indent="      ")))
        echoes = [g for r in group for g in caused.get(id(r), [])]
        for eg in _group(echoes, key=lambda g: (g.kind, g.tensor, _strip_where(g))):
            g = eg[0]
            text = f"-> {g.kind.value} {g.tensor}{_devices(eg, (grids or {}).get(g.tensor))}: {_strip_where(g)}"
            out.append(Text(textwrap.fill(text, width=max(40, width - 6), initial_indent="      ", subsequent_indent="         ")))
    return out


def _group(items: list, key) -> list[list]:
    groups: dict = {}
    for it in items:
        groups.setdefault(key(it), []).append(it)
    return list(groups.values())


def _devices(group: list, grid: Optional[tuple] = None) -> str:
    """`` (0,0) (1,3)``; `` on all 8 devices`` (more than two: every device of ``grid``)."""
    devices = [f.device for f in group if f.device is not None]
    if len(devices) > 2 and grid is not None and len(set(devices)) == volume(grid) and all(len(d) == len(grid) for d in devices):
        return f" on all {len(devices)} devices"
    coords = [fmt_coord(d) for d in devices]
    if len(coords) > 8:
        coords = coords[:4] + [f"... ({len(coords)} devices)"] + coords[-2:]
    return (" " + " ".join(coords)) if coords else ""


def _strip_where(f) -> str:
    prefix = f"{f.tensor}" + (f" {fmt_coord(f.device)}" if f.device is not None else "") + ": "
    return f.message[len(prefix):] if f.message.startswith(prefix) else f.message


def _maps(r: Report, tensors: list, opts: "Options", only_device: bool, titles: dict[int, Text]) -> list:
    out: list = []
    first = lambda t: t.tensors[0] if isinstance(t, PartGroup) else t  # noqa: E731 - what a group's parts share
    shown = [t for t in tensors if first(t).devices and not first(t).plain and (first(t).storage == "device" or not only_device)]
    if not shown:
        return out
    out.append(Text())
    out.append(Text("mesh map", style="bold"))
    for item in shown:
        t = first(item)
        out.append(Text())
        title = titles.get(id(item))
        if isinstance(item, PartGroup):
            out.append(title if title is not None else fit_title(group_title(item, r.meshes), opts.width))
            out.append(group_map(item, t.grid or r.mesh, width=opts.width, styled=opts.color, ids=ids_of(t, r.meshes), marked=opts.device))
            continue
        out.append(title if title is not None else fit_title(tensor_title(t, r.meshes), opts.width))
        out.append(map_renderable(t, t.grid or r.mesh, width=opts.width, styled=opts.color, ids=ids_of(t, r.meshes),
                                  marked=opts.device))
        if r.hosts is not None and t.mesh_device is None and t.storage == "device":  # the scenario's mesh: which of its devices this host owns
            rest = ("every other device is remote (another host's: this one holds no buffer there)" if r.hosts.count > 1
                    else "the only host: no device is remote")
            out.append(Text(f"local to host {r.hosts.rank}: {fmt_range(r.hosts.local)}; {rest}", style="dim"))
    out.append(legend(opts.device))
    return out
