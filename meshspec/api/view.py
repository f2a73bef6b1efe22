"""``meshspec.view(tensor)``: a real ttnn tensor's per-device records, drawn from inside the program.

As ``ttnn.visualize_tensor`` and JAX's ``jax.debug.visualize_array_sharding`` draw a tensor where
the program runs, this draws what the runtime records for each device of a live ``ttnn.Tensor``:
the mesh as a grid (coordinate and physical device id, whether the device is recorded, its shape),
the spec and the topology. The records are read by meshspec/bridge/observe.py, the readers
``meshspec record`` and exported scripts use (ttnn 0.81.1, 0.67.0 and 0.66.0 alike).

Under ``meshspec record`` it also says what meshspec makes of the program so far: the recording's
scenario (every call up to this line) is run under a profile (``current`` unless given) and the
tensor's map drawn as ``meshspec run --view map`` draws it, written vs recorded, with any device
whose real record differs from the profile's named below it::

    import meshspec, ttnn
    ...
    ttnn.copy_host_to_device_tensor(host, dst)
    meshspec.view(dst)                 # prints the map (file=: where to)
"""

from __future__ import annotations

import sys
from typing import Any, Optional

GRID_DEVICES = 64
"""Meshes with more devices than this are listed device by device, not drawn as a grid."""


def view(tensor: Any, name: Optional[str] = None, *, profile: Optional[str] = None, file: Any = None,
         width: Optional[int] = None) -> None:
    """Print ``tensor``'s records to ``file`` (default stdout; nothing is returned, so a REPL
    shows the drawing once). ``name``:
    its title (default: its name in the recording, else the caller's variable holding it);
    ``profile``: the profile the recording is run under (``meshspec record`` only; default ``current``)."""
    from ..bridge import observe, record

    rec = record.active
    if rec is not None:
        rec.depth += 1  # the observer's own ttnn calls are no steps of the program
    try:
        recorded_name = _recorded_name(rec, tensor)
        shown = name or recorded_name or _variable(sys._getframe(1), tensor) or "tensor"
        try:
            data = observe.tensor_json(shown, tensor)
        except Exception as err:  # a tensor the runtime can no longer describe: said, as record says it
            lines = [f"{shown}: its records cannot be read: {_first_line(err)}"]
        else:
            lines = _records(data, _device_ids(tensor, data), width or 120)
            if rec is not None:
                lines += [""] + _under_record(rec, recorded_name, data, profile, width or 120)
    finally:
        if rec is not None:
            rec.depth -= 1
    out = file if file is not None else sys.stdout
    if out is not None:  # (a process started without stdout)
        out.write("\n".join(lines) + "\n")


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _variable(frame: Any, obj: Any) -> Optional[str]:
    """The name the calling code holds ``obj`` by (its locals first, then its globals), if any."""
    for scope in (frame.f_locals, frame.f_globals):
        for key, value in scope.items():
            if value is obj and not key.startswith("_"):
                return key
    return None


# -- the records -----------------------------------------------------------------------------
def _records(data: dict, ids: Optional[dict], width: int) -> list[str]:
    """The tensor's title, spec, topology and mesh grid, as text."""
    from ..sim.mesh import fmt_shape

    topo = data["topology"]
    title = f"{data['name']}: {data['storage']} tensor"
    if data.get("address") is not None:
        title += f" at address {data['address']}"
    lines = [title]
    if data["storage"] == "deallocated":
        return lines + ["deallocated: no device holds it"]
    specs = [d["spec"] for d in data["devices"] if d.get("spec")]
    if specs and all(s == specs[0] for s in specs):
        lines.append("spec: " + _spec_text(specs[0]))
    placements = ", ".join(f"S({p['shard']})" if isinstance(p, dict) else p for p in topo["placements"])
    lines.append(f"topology: distribution shape {topo['distribution_shape']}, placements [{placements}], "
                 f"{len(topo['coords'])} coordinate(s)")
    mesh = _mesh_shape(data)
    if not mesh:
        return lines + ["no device records"]
    cells = {tuple(d["coord"]): d for d in data["devices"]}
    lines.append(f"records on the {fmt_shape(mesh)} mesh ({sum(1 for d in data['devices'] if d['recorded'])} recorded):")
    return lines + _grid(mesh, cells, ids, specs_differ=bool(specs) and any(s != specs[0] for s in specs), width=width)


def _grid(mesh: tuple, cells: dict, ids: Optional[dict], *, specs_differ: bool, width: int) -> list[str]:
    from ..render.grid import boxed
    from ..render.map import device_text, planes
    from ..sim.mesh import fmt_shape, volume

    def lines_of(coord: tuple) -> list[str]:
        d = cells.get(coord)
        who = device_text(coord, ids.get(coord) if ids else None)
        if d is None:
            return [who, "no shard", "-"]
        if not d["recorded"]:
            return [who, "not recorded", "-"]
        spec = d.get("spec") or {}
        out = [who, "recorded", fmt_shape(tuple(spec["shape"])) if "shape" in spec else "-"]
        return out + [_spec_text(spec, shape=False)] if specs_differ else out

    every = [lines_of(c) for p in planes(mesh) for row in p.rows for c in row]
    inner = max(len(line) for cell in every for line in cell)
    if volume(mesh) > GRID_DEVICES or (inner + 3) * mesh[-1] + 1 > width:
        return ["  " + "  ".join(cell) for cell in every]
    out: list[str] = []
    for plane in planes(mesh):
        if plane.title:
            out.append(plane.title)
        out.append(boxed([[(lines_of(c), "", "") for c in row] for row in plane.rows], inner, styled=False).text)
    return out


def _spec_text(spec: dict, shape: bool = True) -> str:
    """``1x1x32x32 bfloat16 tile dram``, as a report's table writes a spec."""
    from ..sim.mesh import fmt_shape

    words = [fmt_shape(tuple(spec["shape"]))] if shape else []
    words += [spec.get("dtype", "?"), spec.get("layout", "?"), spec.get("memory", "?")]
    config = spec.get("memory_config")
    if config:
        words.append(config["memory_layout"])
    return " ".join(words)


def _mesh_shape(data: dict) -> tuple:
    """The grid the devices are on: as many dims as the coordinates, each as long as the largest."""
    coords = [d["coord"] for d in data["devices"]]
    if not coords:
        return ()
    return tuple(max(c[i] for c in coords) + 1 for i in range(len(coords[0])))


def _device_ids(tensor: Any, data: dict) -> Optional[dict]:
    """The physical device id at each coordinate of a device tensor's mesh (``get_device_ids()``,
    row-major), or None where it cannot be asked (a host tensor, an older ttnn)."""
    if data["storage"] != "device":
        return None
    try:
        device = tensor.device()
        shape = tuple(device.shape)
        found = list(device.get_device_ids())
    except Exception:
        return None
    import itertools

    coords = list(itertools.product(*map(range, shape)))
    return dict(zip(coords, found)) if len(found) == len(coords) else None


# -- under meshspec record -------------------------------------------------------------------
def _recorded_name(rec: Any, tensor: Any) -> Optional[str]:
    if rec is None:
        return None
    name = rec.ids.get(id(tensor))
    if name is None:
        return None
    base, _, rest = name.partition("[")
    held = rec.objects.get(base)
    item = held[int(rest[:-1])] if rest and isinstance(held, list) else held
    return name if item is tensor else None


def _under_record(rec: Any, name: Optional[str], real: dict, profile: Optional[str], width: int) -> list[str]:
    """What meshspec makes of the recording so far, for this tensor: its map under ``profile``
    (written vs recorded), and the devices whose real records differ from the profile's."""
    from ..errors import MeshspecError
    from ..render import Options, View, render
    from ..render.options import Format
    from ..runner import run
    from ..scenario.loader import parse

    head = f"under meshspec record ({len(rec.steps)} step(s) so far)"
    if name is None:
        return [f"{head}: this tensor is not in the recording (no recorded call made or used it yet)"]
    text, _ = rec.scenario_text()
    try:
        scenario = parse(text, rec.out / "scenario.yaml")
        report = run(scenario, profile, trace=False)
    except MeshspecError as err:
        return [f"{head}: the recording so far does not run in meshspec: {err}"]
    simulated = next((t for t in report.tensors if t.name == name), None)
    if simulated is None:
        return [f"{head}: meshspec's run of the recording has no tensor {name!r}"]
    findings = tuple(f for f in report.findings if f.tensor == name)
    one = report.replace(tensors=(simulated,), findings=findings, readbacks=(), steps=())
    drawn = render([one], Format.TABLE, Options(view=View.MAP, width=width, color=False))
    lines = [f"{head}, as meshspec simulates it under {report.profile}: written vs recorded", *drawn.rstrip("\n").split("\n")]
    return lines + _compared(real, simulated, report.profile)


def _compared(real: dict, simulated: Any, profile: str) -> list[str]:
    """One line per device whose real record (recorded or not, its shape) differs from the
    profile's; one line saying they agree when none does."""
    from ..sim.mesh import fmt_coord, fmt_shape

    def shape(spec: Any) -> str:
        return fmt_shape(tuple(spec["shape"] if isinstance(spec, dict) else spec.shape)) if spec else "-"

    theirs = {tuple(v.coord): (v.recorded, shape(v.spec) if v.recorded else "-") for v in simulated.devices}
    ours = {tuple(d["coord"]): (d["recorded"], shape(d.get("spec")) if d["recorded"] else "-") for d in real["devices"]}
    differ = [c for c in sorted(set(theirs) | set(ours)) if theirs.get(c, (False, "-")) != ours.get(c, (False, "-"))]
    if not differ:
        return [f"the real records agree with {profile}'s on every device"]
    words = lambda r: f"recorded {r[1]}" if r[0] else "not recorded"  # noqa: E731
    return [f"device {fmt_coord(c)}: ttnn {words(ours.get(c, (False, '-')))}, {profile} {words(theirs.get(c, (False, '-')))}"
            for c in differ]
