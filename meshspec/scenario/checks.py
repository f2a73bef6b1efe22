"""The static checks of a validated scenario: what a schema cannot say, each error one line
naming ``file:line:column``.

A validation error becomes one line at its node (:func:`invalid`); then the scenario's own
profiles, its mesh and hosts, tensor names defined before use and of the right kind, ``expect``'s
names and coordinates, pasted specs, opaque code and data files are checked where they are written.
:mod:`meshspec.scenario.loader` runs them in order.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, NamedTuple, Optional

import yaml

from ..errors import ScenarioError, TTFatal, UsageError, MAX_LISTED, did_you_mean, listed, one_of
from ..sim.hosts import Hosts, topology_error
from ..sim.mesh import SYSTEM_ALIASES, SYSTEMS, Shape, open_shape, parse_coord, system_named, volume
from ..sim.meshdevice import ROOT as ROOT_MESH
from ..sim.ops import OPS, TensorKind
from ..sim.ops.fields import PrintedSpec
from ..sim.profiles import PROFILES, define
from ..sim.spec import Arch
from ..typed import Invalid, as_dict, given as given_fields, validate
from ..typed import where as _where
from .model import Scenario, SystemMesh, step_args, step_op
from .nodes import join_split, line_col, node_at, python_split

MAX_DEVICES = 1 << 16
"""Largest mesh meshspec simulates (32x32 multi-Galaxy systems are planned; this is 64x that)."""
MAX_HOSTS = 1 << 10
"""Most hosts a mesh may be spread over: one device a host of the largest planned 32x32 system
(tt-metal's multi-host descriptors have 2 and 4; docs/semantics.md section 15)."""


# -- validation errors -> one line ---------------------------------------------------------------
def invalid(err: Invalid, root: yaml.Node, file: str, data: Any = None, text: str = "") -> ScenarioError:
    """The validation error as ``file:line:column: message``; an unknown key that is a real ttnn
    argument of the step's call says what to write instead, and one that is a piece of a Python
    value YAML split gives way to that value's own error (:func:`_rejoined`)."""
    whole = _rejoined(err, data, root, text)
    if whole is not None:
        return invalid(whole, root, file, data, text)
    message = err.message
    if err.loc == ("meshspec",) and err.unknown_key is None:  # the version key left out
        message = "the format version is missing: a scenario starts with the line 'meshspec: 1'"
    if err.unknown_key is not None:
        op = _op_of(err) if err.record is not None else None
        hint = OPS[op].hint(err.unknown_key) if op is not None else None
        if hint is not None:
            message = f"unknown key {err.unknown_key!r} in {_where(err.loc[:-1])}: {hint}"
    line, col = line_col(node_at(root, err.loc, key=err.key))
    return ScenarioError(message, file, line, col)


def _op_of(err: Invalid) -> Optional[str]:
    """The op whose arguments ``err`` is in: the step's own key (``ones`` and ``zeros`` share one
    arguments model, so the model alone would name the wrong one), else any op with that model."""
    named = [p for p in err.loc if isinstance(p, str) and p in OPS and OPS[p].args is err.record]
    return named[-1] if named else next((name for name, op in OPS.items() if op.args is err.record), None)


def _rejoined(err: Invalid, data: Any, root: yaml.Node, text: str) -> Optional[Invalid]:
    """When ``err`` is an unknown key that is a piece of a Python value YAML split (the ``1`` of
    ``{shape: (1, 1, 32, 32)}``): the first error once the value is read whole, which says what to
    write; None when the key is no such piece, or the value read whole is valid (``err`` stands).
    Changes ``data`` and the nodes in place: the load fails either way."""
    if err.unknown_key is None:
        return None
    node, mapping = node_at(root, err.loc[:-1]), _data_at(data, err.loc[:-1])
    if not isinstance(node, yaml.MappingNode) or not isinstance(mapping, dict) or len(mapping) != len(node.value):
        return None  # keys and nodes pair up in order (no merge key)
    split = python_split(node, text)
    keys = list(mapping)
    pieces = keys[split.at + 1 : split.at + 1 + split.pieces] if split is not None else []
    if err.unknown_key not in pieces:
        return None
    mapping[keys[split.at]] = split.text
    for key in pieces:
        del mapping[key]
    try:
        validate(Scenario, data)
    except Invalid as whole:
        join_split(node, split)
        return whole
    return None


def _data_at(data: Any, loc: tuple) -> Any:
    """The value at ``loc`` (keys and indices) in ``data``; None where there is none."""
    for part in loc:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data


MAX_PROFILES = 256
"""Most profiles a scenario defines of its own (``profiles:``): a run under ``--profile all`` runs
each, and a message about them stays short (14,000 made a 1.7 MB one-line error)."""
INLINE_PROFILE = "custom"
"""The name of a profile a scenario defines in ``profile:`` itself."""


def own_profiles(scenario: Scenario, root: yaml.Node, file: str) -> tuple[dict, Optional[str]]:
    """The profiles the scenario defines (``profiles:``, and ``profile: {...}`` as ``custom``), and
    the name of the scenario's own profile; errors name the bad base, rule or choice where it is.

    A profile's base may be any of meshspec's profiles or the scenario's own, defined before or
    after it: each is made after its base, following the bases to one of meshspec's. A chain that
    comes back to itself is a cycle, said as one (``a -> b -> a``), where its first profile's base is."""
    defs: dict = dict(scenario.profiles or {})
    own: dict = {}
    choices = list(PROFILES) + list(defs)
    profile = scenario.profile
    inline = profile is not None and not isinstance(profile, str)

    def fail(loc: tuple, message: str, key: bool = False) -> None:
        line, col = line_col(node_at(root, loc, key=key))
        raise ScenarioError(f"{_where(loc)}: {message}", file, line, col)

    def make(name: str, d, loc: tuple) -> None:
        changes = {k: v for k, v in as_dict(d, only_given=True).items() if k not in ("base", "era")}
        try:
            own[name] = define(name, d.base, changes, d.era or "", parent=own.get(d.base))
        except UsageError as err:
            fail(loc, str(err))

    def unknown_base(base: str, loc: tuple) -> None:
        if inline and base == INLINE_PROFILE:
            fail(loc, f"{INLINE_PROFILE!r} is the name of the profile 'profile: {{...}}' defines, which is made after the "
                 f"scenario's profiles and so cannot be their base; base it on one of them or on meshspec's ({one_of(choices)})")
        fail(loc, f"unknown base profile {base!r}{did_you_mean(base, choices)}; {one_of(choices)}")

    def resolve(name: str) -> None:
        """Define ``name`` and, first, the scenario's profiles its base chain passes through."""
        chain: list[str] = []
        at = name
        while at not in own and at not in PROFILES:
            if at in chain:
                cycle = chain[chain.index(at):] + [at]
                shown = cycle if len(cycle) <= MAX_LISTED else [*cycle[:10], f"... ({len(cycle) - 20:,} more)", *cycle[-10:]]
                fail(("profiles", at, "base"), f"profile cycle: {' -> '.join(shown)}; a base chain must end at one of meshspec's "
                     f"profiles ({', '.join(PROFILES)})")
            if at not in defs:
                unknown_base(at, ("profiles", chain[-1], "base"))
            chain.append(at)
            at = defs[at].base
        for n in reversed(chain):
            make(n, defs[n], ("profiles", n))

    if len(defs) > MAX_PROFILES:
        fail(("profiles",), f"{len(defs):,} profiles; a scenario defines at most {MAX_PROFILES} of its own (each is run by "
             "--profile all): keep the ones its expect block needs", key=True)
    for name in defs:
        if name in PROFILES:
            fail(("profiles", name), f"{name!r} is one of meshspec's own profiles; give yours another name", key=True)
    if inline and INLINE_PROFILE in defs:
        fail(("profiles", INLINE_PROFILE), f"{INLINE_PROFILE!r} is the name of the profile 'profile: {{...}}' defines; give "
             "yours another name, or write profile: " + INLINE_PROFILE, key=True)
    for name in defs:
        resolve(name)
    if inline:
        if profile.base not in PROFILES and profile.base not in own:
            unknown_base(profile.base, ("profile", "base"))
        make(INLINE_PROFILE, profile, ("profile",))
        profile = INLINE_PROFILE
    elif profile is not None and profile not in PROFILES and profile not in own:
        fail(("profile",), f"unknown profile {profile!r}{did_you_mean(profile, choices)}; {one_of(choices)}")
    return {n: own[n] for n in [*defs, *own]}, profile  # in the file's order, custom last


def check_steps_shape(data: Any, steps_node: yaml.Node, root: yaml.Node, file: str) -> None:
    """Each step must be a mapping with exactly one known op (checked first for clear messages)."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        return
    for i, item in enumerate(data["steps"]):
        if isinstance(item, dict) and len(item) == 1:
            op = next(iter(item))
            if op in _OP_NAMES and item[op] is not None:
                continue  # the place of a message is found only for a step that is wrong (5 K a small scenario)
        node = steps_node.value[i] if isinstance(steps_node, yaml.SequenceNode) else root
        line, col = line_col(node)
        if not isinstance(item, dict) or len(item) != 1:
            got = list(item) if isinstance(item, dict) else item
            raise ScenarioError(
                f"steps[{i}]: a step is a mapping with one op, like '- from_torch: {{...}}', got {got!r}",
                file,
                line,
                col,
            )
        if op not in OPS:
            raise ScenarioError(
                f"steps[{i}]: unknown step {op!r}{did_you_mean(op, list(OPS))}; {one_of(list(OPS), limit=None)}",
                file,
                line,
                col,
            )
        raise ScenarioError(f"steps[{i}].{op}: needs arguments, e.g. {{tensor: t}}", file, line, col)


_OP_NAMES = frozenset(OPS)
"""Every op's name: a set's look-up, not the registry's own ``in`` (a Python call: 5 K instructions a small scenario)."""


class _Bound(NamedTuple):
    """What a name means after a step: its kind, whether it is a list, and the step that bound it."""

    kind: TensorKind
    many: bool
    step: int
    op: str

    def what(self) -> str:
        """``'a device tensor'``, ``'a list of mesh devices'``."""
        noun = "mesh device" if self.kind is TensorKind.MESH else "tensor" if self.kind is TensorKind.ANY else f"{self.kind.value} tensor"
        return f"a list of {noun}s" if self.many else f"a {noun}"

    def since(self) -> str:
        return "the scenario's mesh" if self.step < 0 else f"since step {self.step} ({self.op})"


def check_names(scenario: Scenario, root: yaml.Node, file: str) -> tuple[list[tuple], list[tuple], list[str], set[str]]:
    """Every tensor (and mesh device) a step uses is bound by an earlier step, and of the kind the
    op needs. A name means one thing at a time, as a Python variable does: the step that bound it
    last says what. ``parts[0]`` needs ``parts`` bound to a list; how long the list is, the run says.

    Returns, per step, the names it uses (:meth:`Op.names_used`) and the tensors it touches
    (:meth:`Op.touched`), which the runner needs again; and every name a step binds, in step
    order, and those bound to a list, which ``expect`` may name (:func:`check_expect`)."""
    bound: dict[str, _Bound] = {ROOT_MESH: _Bound(TensorKind.MESH, False, -1, "")}
    names: list[tuple] = []
    touched: list[tuple] = []
    defined: list[str] = []
    lists: set[str] = set()
    for i, step in enumerate(scenario.steps):
        name_of_op = step_op(step)
        op = OPS[name_of_op]
        args = getattr(step, name_of_op)
        used = tuple(op.names_used(args))
        many_fields = op.list_fields
        for field, name, want in used:
            had = bound.get(name)
            if had is not None and not had.many and field not in many_fields and (
                    had.kind is want or (want is TensorKind.ANY and had.kind is not TensorKind.MESH)):
                continue  # one thing of the kind wanted, in a field of one name: what _misnamed passes (26 K a small scenario)
            node_of = lambda f=field: node_at(root, ("steps", i, name_of_op, *f.split(".")))  # noqa: E731 - found only for a mistake
            message = _misnamed(name, want, field in many_fields, bound, name_of_op, node_of)
            if message is not None:
                raise ScenarioError(f"steps[{i}].{name_of_op}.{field}: {message}", file, *line_col(node_of()))
        new = op.bound(args)
        kind = op.bound_kind(args) if new is not None else None
        if op.follows is not None and new is not None:  # a host op on a host tensor, a device op on a device one
            had = bound.get(_split_index(getattr(args, op.follows))[0])
            if had is not None and had.kind in (TensorKind.HOST, TensorKind.DEVICE):
                kind = had.kind
        if new == ROOT_MESH and (kind is not TensorKind.MESH or op.binds.many):  # type: ignore[union-attr]
            _root_named(root, file, i, name_of_op, op.binds.field.rstrip("_"), _Bound(kind, op.binds.many, i, name_of_op))  # type: ignore[union-attr]
        if getattr(args, "trace", None) == ROOT_MESH:
            _root_named(root, file, i, name_of_op, "trace", None)
        if new is not None:
            bound[new] = _Bound(kind, op.binds.many, i, name_of_op)  # type: ignore[union-attr,arg-type]
            if new:
                defined.append(new)
            if op.binds.many:  # type: ignore[union-attr]
                lists.add(new)
        names.append(used)
        touched.append(op.touched(args, used))
    return names, touched, defined, lists


def _root_named(root: yaml.Node, file: str, i: int, op: str, field: str, what: Optional[_Bound]) -> None:
    """Refuse ``mesh_device`` as the name of a tensor, a list or a trace: it is the scenario's mesh,
    which every step given no mesh device runs on (a tensor bound to it left the run without one)."""
    thing = what.what() if what is not None else "a trace"  # 'a device tensor', 'a list of tensors'
    line, col = line_col(node_at(root, ("steps", i, op, field)))
    raise ScenarioError(
        f"steps[{i}].{op}.{field}: {ROOT_MESH!r} is the scenario's mesh (every step given no mesh device runs on it), "
        f"not a name for {thing}; give the {'list' if what is not None and what.many else thing[2:]} another name",
        file, line, col,
    )


def _misnamed(name: str, want: TensorKind, many: bool, bound: dict[str, _Bound], op: str, node_of) -> Optional[str]:
    """What is wrong with a step's use of ``name`` (``want``: the kind the op needs; ``many``: the
    field takes a list), given the names bound so far; None when nothing is. ``node_of()`` is the
    name's YAML node, looked up only where the answer depends on how it is written."""
    mesh = want is TensorKind.MESH
    what = "mesh device" if mesh else "tensor"
    base, index = _split_index(name)
    had = bound.get(base)
    if index is not None:
        if had is None:
            lister = "create_submeshes" if mesh else "get_device_tensors"
            return f"{name!r} names an item of {base!r}, but no earlier step bound {base!r} ({lister} binds a list)"
        if not had.many:
            return f"{name!r} names an item of {base!r}, but {base!r} is {had.what()} {had.since()}, not a list"
    elif had is not None and had.many and not many:
        if (had.kind is TensorKind.MESH) == mesh:
            return f"{name!r} is {had.what()} {had.since()}; name one of them, like {name}[0]"
    elif many and had is not None and not had.many and isinstance(node_of(), yaml.ScalarNode):
        return f"{name!r} is {had.what()} {had.since()}; {op} takes a list: write [{name}], or name a list (get_device_tensors binds one)"
    if had is None:
        known = sorted(n for n, b in bound.items() if (b.kind is TensorKind.MESH) == mesh)
        choices = f"defined so far: {listed(known)}" if known else f"no {what} is defined before this step"
        return f"unknown {what} {name!r}{did_you_mean(name, known)}; {choices}"
    if (had.kind is TensorKind.MESH) != mesh:
        return f"{base!r} is {had.what()} {had.since()}; {op} needs a {what} here"
    if want not in (TensorKind.ANY, TensorKind.MESH) and had.kind is not TensorKind.ANY and had.kind is not want:
        return f"{name!r} is {had.what()} {had.since()}; {op} needs a {want.value} tensor"
    return None


def _split_index(name: str) -> tuple[str, Optional[int]]:
    """``parts[3]`` -> ("parts", 3); a plain name -> (name, None)."""
    if name.endswith("]") and "[" in name:
        base, _, index = name[:-1].partition("[")
        return base, int(index)
    return name, None


def check_data_files(scenario: Scenario, root: yaml.Node, path: Path, file: str, allow_outside: bool) -> dict[str, Path]:
    """Every data file a step names, checked: beside the scenario (unless ``allow_outside``), a
    regular .npy file of plain numbers of the step's shape. Returns the resolved path of each
    name as written: the runtime opens exactly the file that was checked."""
    folder: Optional[Path] = None  # resolved at the first data file (most scenarios name none: no syscalls)
    resolved: dict[str, Path] = {}
    for i, step in enumerate(scenario.steps):
        args = step_args(step)
        file_name = getattr(getattr(args, "data", None), "file", None)
        if file_name is None:
            continue
        import numpy as np  # only for a data file: most scenarios name none

        line, col = line_col(node_at(root, ("steps", i, step_op(step), "data", "file")))
        try:
            target = (path.parent / file_name).resolve(strict=True)
        except FileNotFoundError:
            raise ScenarioError(f"data file {file_name!r} not found (looked for {path.parent / file_name})", file, line, col) from None
        except (OSError, RuntimeError) as err:  # a symlink loop, a name too long, no permission
            why = "a symlink loop" if isinstance(err, RuntimeError) or getattr(err, "errno", None) == 40 else (err.strerror or str(err))
            raise ScenarioError(f"data file {file_name!r} cannot be opened: {why}", file, line, col) from None
        folder = folder or path.parent.resolve()
        if not allow_outside and not target.is_relative_to(folder):
            raise ScenarioError(
                f"data file {file_name!r} is outside the scenario's folder {folder} (a scenario reads only files beside "
                "it unless you pass --allow-outside-data)",
                file,
                line,
                col,
            )
        if target.suffix != ".npy":
            raise ScenarioError(f"data file {file_name!r} must be a .npy file", file, line, col)
        if target.exists() and not target.is_file():
            raise ScenarioError(f"data file {file_name!r} is not a regular file", file, line, col)
        try:
            arr = _npy_header(np, target)
        except Exception as err:  # numpy raises ValueError, OSError, EOFError (an empty file) and more
            empty = " (it is empty)" if isinstance(err, EOFError) else ""
            raise ScenarioError(
                f"data file {file_name!r} is not a .npy array file{empty} (or needs pickle, which meshspec never loads)",
                file,
                line,
                col,
            ) from None
        if arr is None:
            raise ScenarioError(
                f"data file {file_name!r} is a zip of arrays (np.savez's .npz), not one array; save the one array "
                "the step reads with np.save",
                file, line, col,
            )
        if arr.dtype.kind not in "biuf":
            raise ScenarioError(
                f"data file {file_name!r} holds {arr.dtype} values; meshspec reads bool, integer and floating-point arrays",
                file,
                line,
                col,
            )
        if arr.shape != tuple(args.shape):
            raise ScenarioError(
                f"data file {file_name!r} has shape {list(arr.shape)}, the step says shape {list(args.shape)}",
                file,
                line,
                col,
            )
        resolved[file_name] = target
    return resolved


class _Header(NamedTuple):
    dtype: Any
    shape: tuple


def _npy_header(np: Any, target: Path) -> Optional[_Header]:
    """The dtype and shape of the one array a ``.npy`` file holds, or None for a zip of arrays
    (np.savez's, whatever its name): mapped, not read, and the file closed before this returns."""
    with warnings.catch_warnings():  # a header whose shape overflows warns before it fails: the error says it
        warnings.simplefilter("ignore", RuntimeWarning)
        loaded = np.load(target, mmap_mode="r", allow_pickle=False)
    if not isinstance(loaded, np.ndarray):  # an NpzFile keeps its file open until closed
        close = getattr(loaded, "close", None)
        if close is not None:
            close()
        return None
    return _Header(loaded.dtype, tuple(loaded.shape))  # the map ends with the array, here (numpy closed the file once mapped)


def check_expect(
    scenario: Scenario, mesh_shape: Shape, root: yaml.Node, file: str, defined: list[str], lists: set[str], own: tuple = ()
) -> None:
    """Names in ``expect`` must exist: profiles, tensors defined by a step (``defined``, ``lists``:
    as :func:`check_names` found them, not asked of every op again: 26 K instructions a small
    scenario), coordinates on the mesh. The checks are functions of the module, given what they
    need, and a place in the file is worked out only for a mistake: closures made at every call
    and a path built for each finding's device cost more than the checks (19 K instructions a
    small scenario's two findings)."""
    expect = scenario.expect
    assert expect is not None
    for pname, pe in (expect.profiles or {}).items():
        if pname != "default" and pname not in PROFILES and pname not in own:
            valid = list(PROFILES) + list(own) + ["default"]
            _fail_at(root, file, ("expect", "profiles", pname), f"expect.profiles: unknown profile {pname!r}{did_you_mean(pname, valid)}; {one_of(valid)}")
        for i, f in enumerate(pe.findings or ()):
            if f.tensor is not None and not _known(f.tensor, defined, lists):
                _fail_at(root, file, ("expect", "profiles", pname, "findings", i, "tensor"), f"expect.profiles.{pname}.findings[{i}]: unknown tensor {f.tensor!r}{did_you_mean(f.tensor, defined)}", False)
            if f.device is not None and not _on_mesh(f.device, mesh_shape):
                _check_coord(root, file, ("expect", "profiles", pname, "findings", i, "device"), tuple(f.device), mesh_shape, False)
        if pe.tensors:
            _check_expected_tensors(root, file, ("expect", "profiles", pname, "tensors"), pe.tensors, mesh_shape, defined, lists)
    if expect.tensors:
        _check_expected_tensors(root, file, ("expect", "tensors"), expect.tensors, mesh_shape, defined, lists)


def _known(name: str, defined: list[str], lists: set[str]) -> bool:
    """Whether a step defines ``name``; ``parts[3]`` is known when ``parts`` is a list a step binds (the run says how long)."""
    if not name.endswith("]"):  # a plain name, as nearly every one is: not taken apart
        return name in defined
    base, index = _split_index(name)
    return name in defined if index is None else base in lists


def _on_mesh(coord: list, mesh_shape: Shape) -> bool:
    if len(coord) != len(mesh_shape):
        return False
    for c, n in zip(coord, mesh_shape):
        if not 0 <= c < n:
            return False
    return True


def _fail_at(root: yaml.Node, file: str, loc: tuple, message: str, key: bool = True) -> None:
    line, col = line_col(node_at(root, loc, key=key))
    raise ScenarioError(message, file, line, col)


def _check_coord(root: yaml.Node, file: str, loc: tuple, coord: tuple, mesh_shape: Shape, key: bool) -> None:
    if not _on_mesh(coord, mesh_shape):
        _fail_at(root, file, loc, f"{_where(loc)}: device {list(coord)} is not on the mesh {list(mesh_shape)}", key)


def _check_expected_tensors(
    root: yaml.Node, file: str, loc: tuple, tensors: dict, mesh_shape: Shape, defined: list[str], lists: set[str]
) -> None:
    """The tensors an ``expect`` names (at ``loc``): each defined by a step, its devices on the mesh."""
    for name, t in tensors.items():
        if not _known(name, defined, lists):
            choices = f"tensors: {listed(dict.fromkeys(defined))}" if defined else "no step defines a tensor"
            _fail_at(root, file, loc + (name,), f"{_where(loc)}: unknown tensor {name!r}{did_you_mean(name, defined)}; {choices}")
        for i, c in enumerate(t.recorded or []):
            _check_coord(root, file, loc + (name, "recorded", i), tuple(c), mesh_shape, False)
        v = t.values
        refs = [] if v is None else [(("equals",), v.equals), (("pcc", "golden"), v.pcc and v.pcc.golden),
                                      (("allclose", "other"), v.allclose and v.allclose.other)]
        for path, eq in refs:  # the tensors (or slices of them) whose values it is compared with
            if eq is None:
                continue
            at = loc + (name, "values", *path)
            other = eq if isinstance(eq, str) else eq.tensor
            where = at + (() if isinstance(eq, str) else ("tensor",))
            if not _known(other, defined, lists):
                _fail_at(root, file, where, f"{_where(at)}: unknown tensor {other!r}{did_you_mean(other, defined)}", False)
            if not isinstance(eq, str) and eq.slice is not None:
                from ..sim.mapping import parse_slice

                try:
                    parse_slice(eq.slice, (1 << 30,) * 8)
                except ValueError as err:
                    _fail_at(root, file, at + ("slice",), f"{_where(at + ('slice',))}: {err}", False)
        for key in t.devices or {}:
            try:
                coord = parse_coord(key)
            except ValueError as err:
                _fail_at(root, file, loc + (name, "devices", key), f"{_where(loc + (name, 'devices'))}: {err}")
            _check_coord(root, file, loc + (name, "devices", key), coord, mesh_shape, True)


def _system_hint(name: str) -> str:
    return did_you_mean(name, list(SYSTEMS) + list(SYSTEM_ALIASES))


def mesh_error(data: dict, root: yaml.Node, file: str) -> Optional[ScenarioError]:
    """The error :func:`mesh_of` gives for the raw ``mesh``, if it is a valid value that names no
    system or a shape the system cannot open; else None (an invalid value is validation's)."""
    try:
        mesh = validate(Scenario.fields()["mesh"].type, data.get("mesh"), ("mesh",))
        mesh_of(mesh, root, file)
    except Invalid:
        return None
    except ScenarioError as err:
        return err
    return None


def mesh_of(mesh: Any, root: yaml.Node, file: str) -> tuple[Shape, Optional[str], Arch]:
    """The mesh shape, the system's name (None for a bare shape) and the chips' architecture."""
    if isinstance(mesh, list):
        shape = tuple(mesh)
        _check_devices(shape, ("mesh",), root, file)
        return shape, None, Arch.WORMHOLE_B0
    written, where = (mesh, ("mesh",)) if isinstance(mesh, str) else (mesh.system, ("mesh", "system"))
    name = system_named(written)
    if name is None:
        line, col = line_col(node_at(root, where))
        raise ScenarioError(
            f"{_where(where)}: unknown system {written!r}{_system_hint(written.lower())}; "
            f"{one_of(list(SYSTEMS))}, or a shape like [2, 4]",
            file,
            line,
            col,
        )
    requested = tuple(mesh.shape) if isinstance(mesh, SystemMesh) and mesh.shape is not None else None
    try:
        shape = open_shape(name, requested)
    except TTFatal as err:
        line, col = line_col(node_at(root, ("mesh", "shape")))
        raise ScenarioError(f"mesh.shape: {err} (open_mesh_device on a {name})", file, line, col) from None
    return shape, name, _ARCHS.get(SYSTEMS[name].arch) or Arch(SYSTEMS[name].arch)


def hosts_of(scenario: Scenario, mesh: Shape, root: yaml.Node, file: str) -> Optional[Hosts]:
    """The scenario's ``hosts:`` on its mesh, or the one-line error of a split the real library
    refuses or a rank no host has."""
    spec = scenario.hosts
    if spec is None:
        return None
    topology = tuple(spec.topology)
    if volume(topology) > MAX_HOSTS:
        line, col = line_col(node_at(root, ("hosts", "topology")))
        raise ScenarioError(f"hosts.topology: {list(topology)} has {volume(topology):,} hosts; meshspec spreads a mesh over up to "
                            f"{MAX_HOSTS:,} (one device a host of a 32x32 system; tt-metal's descriptors have 2 and 4): "
                            "give fewer, larger blocks, e.g. [1, 2]", file, line, col)
    error = topology_error(mesh, topology)
    if error is not None:
        line, col = line_col(node_at(root, ("hosts", "topology")))
        raise ScenarioError(f"hosts.topology: {error}", file, line, col)
    count = volume(topology)
    if spec.rank >= count:
        line, col = line_col(node_at(root, ("hosts", "rank")))
        raise ScenarioError(f"hosts.rank: {spec.rank} is not a host of topology {list(topology)}, which has {count} "
                            f"(ranks 0 to {count - 1}, row-major over the host grid)", file, line, col)
    return Hosts(mesh, topology, spec.rank)


_ARCHS = {arch.value: arch for arch in Arch}
"""An architecture's name -> it: a look-up, not the enum's call (6 K instructions a scenario)."""


def check_printed_specs(scenario: Scenario, arch: Arch, root: yaml.Node, file: str) -> None:
    """A spec pasted from a report keeps the keys the report worked out (padded_shape, page and
    buffer sizes): each must be what the spec the step's other fields give has, or the paste
    describes another spec than it makes. A spec ttnn refuses is left to the run, which says why."""
    for i, step in enumerate(scenario.steps):
        name_of_op = step_op(step)
        args = getattr(step, name_of_op)
        if not isinstance(args, PrintedSpec) or given_fields(args).isdisjoint(PrintedSpec.PRINTED):
            continue
        try:
            spec = args.spec(arch)  # type: ignore[attr-defined]
        except TTFatal:
            continue
        for key, want, have in args.differences(spec):
            line, col = line_col(node_at(root, ("steps", i, name_of_op, key)))
            raise ScenarioError(
                f"steps[{i}].{name_of_op}.{key}: {want} is not this spec's ({have}, from its shape, dtype, layout, tile and "
                f"memory on {arch.value}); a report prints {key}, the step works it out: correct it or leave it out",
                file, line, col,
            )


def check_code(scenario: Scenario, root: yaml.Node, file: str) -> None:
    """An opaque step's ``code`` is a line an exported script would run (meshspec/scenario/code.py:
    one call of the step's ttnn function on its tensors and bounded literals), or the scenario is
    refused where the code is: a scenario is data, and text that a script would not run is not
    kept in it to look as if it were (``meshspec record`` writes only such lines)."""
    parsed: dict[tuple, Any] = {}  # (code, call, uses) -> what parse said: a repeat block's steps are one code each
    for i, step in enumerate(scenario.steps):
        args = getattr(step, "opaque", None) if step_op(step) == "opaque" else None
        if args is None or args.code is None:
            continue
        from .code import parse as parse_code  # here: only a scenario with code pays for ttnn's list

        key = (args.code, args.call, tuple(args.uses))
        why = parsed[key] if key in parsed else parsed.setdefault(key, parse_code(args.code, args.call, list(args.uses)))
        if isinstance(why, str):
            line, col = line_col(node_at(root, ("steps", i, "opaque", "code")))
            raise ScenarioError(
                f"steps[{i}].opaque.code: not a line an exported script runs: {why}; the code must be one call of "
                f"{args.call} on the step's uses (see meshspec/scenario/code.py), or leave code out (export then makes "
                "a tensor with the recorded records)",
                file, line, col,
            )


def _check_devices(shape: Shape, where: tuple, root: yaml.Node, file: str) -> None:
    if volume(shape) > MAX_DEVICES:
        line, col = line_col(node_at(root, where))
        raise ScenarioError(
            f"mesh: {list(shape)} has {volume(shape):,} devices; meshspec simulates up to {MAX_DEVICES:,} "
            "(the largest planned systems are 32x32)",
            file,
            line,
            col,
        )
