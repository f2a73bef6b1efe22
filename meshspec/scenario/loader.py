"""Load a scenario file: YAML -> typed model, validated once, every error with file:line:column.

The YAML is composed into nodes first (:mod:`meshspec.scenario.nodes`: safe loader, plain data
only), so every value keeps its position; ``repeat`` and ``distribute`` blocks are expanded here;
meshspec/typed.py validates the plain data against :mod:`meshspec.scenario.model`; then the static
checks (:mod:`meshspec.scenario.checks`) say what a schema cannot (tensor names defined before use
and of the right kind, system names, profile names, data files).
"""

from __future__ import annotations

import copy
import errno
import os
import re
import stat
from functools import cached_property
from ..frozen import Frozen

from pathlib import Path
from typing import Any, Optional

import yaml

from ..errors import ScenarioError
from ..names import RESERVED_PROFILE_NAMES, is_name
from ..text import printable
from ..sim.hosts import Hosts
from ..sim.mesh import Shape
from ..sim.ops import OPS
from ..sim.spec import Arch
from ..typed import Invalid, Typed, validate
from . import checks
from .checks import INLINE_PROFILE, MAX_DEVICES, MAX_HOSTS, MAX_PROFILES
from .matrix import values_in
from .model import Expect, Scenario, step_op
from .nodes import MAX_DEPTH, MAX_INT_BITS, MAX_NODES, ScenarioLoader, check_hidden, compose, line_col, node_at
from .sniff import NONBLOCK, read_all, saved_format

__all__ = [
    "DISTRIBUTE", "INLINE_PROFILE", "LoadedScenario", "LoadedStep", "MAX_DEPTH", "MAX_DEVICES", "MAX_FILE_BYTES", "MAX_HOSTS",
    "MAX_INT_BITS", "MAX_NODES", "MAX_PROFILES", "MAX_REPEAT", "MAX_STEPS", "MAX_VALUES", "REPEAT", "defined_profiles", "load",
    "parse", "referenced_files",
]

MAX_FILE_BYTES = 4 * 1024 * 1024


class LoadedStep(Frozen):
    index: int
    op: str
    args: Typed
    line: int
    """1-based line of the step in the file."""
    names: Optional[tuple] = None
    """``(field, name, kind)`` of each tensor or mesh the step names (:meth:`Op.names_used`): the
    loader's, which checked them; None for a step built otherwise (computed when needed)."""

    @cached_property
    def touched(self) -> tuple[str, ...]:
        """The tensors the step names (:meth:`Op.touched`): what the runner judges after it. A step
        the loader made holds it already (:func:`_loaded_step`); one built otherwise finds it here."""
        return OPS[self.op].touched(self.args, self.names)


def _loaded_step(index: int, step: Typed, line: int, names: tuple, touched: tuple) -> LoadedStep:
    """A validated step as the runner takes it, its touched tensors given as the cached property
    would keep them, so the runner reads a plain attribute: the property's first read (its call,
    and before Python 3.12 its lock) cost more than finding them here (a check of a small scenario: 22 K instructions less)."""
    op = step_op(step)
    loaded = object.__new__(LoadedStep)  # its fields and touched in one update, not Frozen.__init__ and a second write (14 K instructions a small scenario)
    loaded.__dict__.update(index=index, op=op, args=getattr(step, op), line=line, names=names, touched=touched)
    return loaded


class LoadedScenario(Frozen):
    path: Path
    name: str
    description: str
    mesh_shape: Shape
    mesh_name: Optional[str]
    profile: Optional[str]
    steps: tuple[LoadedStep, ...]
    profiles: dict = {}
    """Profiles the scenario defines, by name."""
    expect: Optional[Expect] = None
    with_data: bool = True
    """False for ``data: none``: metadata mode."""
    arch: Arch = Arch.WORMHOLE_B0
    """The chips' architecture: the system's, or Wormhole for a bare shape."""
    files: dict[str, Path] = {}
    """Each data file name as written -> the file the loader checked (the one the runtime opens)."""
    hosts: Optional[Hosts] = None
    """The hosts the mesh is spread over and the one the scenario runs as (None: one host)."""
    case: Optional[str] = None
    """A matrix case's values, as its name ends (``bfloat16-tile``); None for a scenario without a matrix."""
    cases: tuple = ()
    """A ``matrix`` scenario's cases, this one (the first) among them, each a scenario named
    ``name[values]``; empty for a scenario without a matrix (meshspec/scenario/matrix.py)."""
    document: Any = None
    """The plain data it was validated from, as written (``repeat`` and ``distribute`` blocks
    unexpanded; a matrix case's with its values filled in): what
    :func:`meshspec.scenario.write.to_yaml` writes back."""

    @property
    def folder(self) -> Path:
        return self.path.parent


# -- repeat and distribute blocks -------------------------------------------------------------
REPEAT = "repeat"
"""``- repeat: {times: N, steps: [...]}``: the steps N times, numbered with the others (a decode loop)."""
MAX_REPEAT = 4096
"""Most passes one repeat block makes."""
MAX_STEPS = 100_000
"""Most steps a scenario runs, its blocks expanded: a decode loop of 4,096 passes over 16 steps
and the steps around it fit (loaded in about 2 s and 200 MB). A file without blocks cannot hold
that many steps (:data:`MAX_NODES` values, five a step); nested repeats could (three of 4,096
around one step: 68.7 billion), so the total is counted on the blocks as written, before any is
expanded (:func:`_check_total`)."""
MAX_VALUES = 10 * MAX_NODES
"""Most values (YAML nodes: mappings, lists, keys, scalars) a scenario's blocks expand to, counted
on the blocks as written before any is expanded (:func:`_check_total`): a step is copied with all
it holds, so 4,096 passes over one step holding 60,000 values (a 120 KB file) made 245 million
(1.3 GB, then a MemoryError). 2,000,000 leaves room for 100,000 steps of up to 20 values each (a
step with a shape and a memory config holds about 15)."""
DISTRIBUTE = "distribute"
"""``with ttnn.distribute(mapper_or_composer):``, spelt ``- distribute: {mesh_mapper: M, steps: [...]}``."""


def _expand_distribute(data: Any, steps_node: yaml.Node, file: str) -> None:
    """Replace each ``distribute`` block by its steps, in place (data and nodes alike, so every
    later message still names the line and column in the file): a from_torch inside without a
    mesh_mapper gets the block's (``ttnn.distribute`` patches ``ttnn.from_torch`` with it as a
    keyword default, ``ttnn/distributed/distributed.py``), a to_torch without a mesh_composer the
    block's composer. Steps inside are numbered with the others, in order. ``steps_node``: the
    node of the top-level ``steps``, whose items are replaced."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        return
    if not isinstance(steps_node, yaml.SequenceNode):
        return
    if len(data["steps"]) == len(steps_node.value):
        for item in data["steps"]:
            if isinstance(item, dict) and (REPEAT in item or DISTRIBUTE in item):
                break
        else:
            return  # no block: every step stays as it is (9 K instructions less a small scenario)
    _check_total(data["steps"], steps_node.value, file)
    items, nodes = _flatten(data["steps"], list(steps_node.value), None, file)
    data["steps"] = items
    steps_node.value = nodes


def _steps_in(items: list) -> tuple[int, int]:
    """How many steps ``items`` expand to, and how many values those steps hold, counted on the
    blocks as written (a repeat: its times its steps'; a step in a distribute block also holds the
    block's mapper or composer), so nothing is expanded to count them. A malformed block counts as
    its steps once: :func:`_flatten` says what is wrong with it. Visits each value once (aliases
    each time used, as :data:`MAX_NODES` counts them)."""
    steps = values = 0
    for item in items:
        block = next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else None
        if isinstance(block, dict) and isinstance(block.get("steps"), list) and (REPEAT in item or DISTRIBUTE in item):
            inner, held = _steps_in(block["steps"])
            if REPEAT in item:
                times = block.get("times")
                times = times if type(times) is int and 1 <= times <= MAX_REPEAT else 1
            else:
                times = 1
                given = block.get("mesh_mapper", block.get("mesh_composer"))
                held += inner * (1 + values_in(given))  # the key and its value, in each step (within MAX_NODES: small)
            steps += inner * times
            values += held * times
        else:
            steps += 1
            values += values_in(item)
    return steps, values


def _check_total(items: list, nodes: list, file: str) -> None:
    """Refuse a scenario whose blocks expand to more than :data:`MAX_STEPS` steps, or to steps
    holding more than :data:`MAX_VALUES` values, at the outermost block that takes the total past
    it, before anything is expanded."""
    total = total_values = 0
    for item, node in zip(items, nodes):
        n, v = _steps_in([item])
        total += n
        total_values += v
        what = next(iter(item)) if isinstance(item, dict) and len(item) == 1 else "steps"
        if total > MAX_STEPS:
            before = f", {total:,} with the {total - n:,} before it" if total > n else ""
            raise ScenarioError(
                f"{what}: this block expands to {n:,} steps{before}; a scenario runs at most {MAX_STEPS:,} steps, its blocks "
                "expanded: repeat fewer times, or fewer steps in the loop",
                file, *line_col(node),
            )
        if total_values > MAX_VALUES:
            before = f", {total_values:,} with the {total_values - v:,} before it" if total_values > v else ""
            raise ScenarioError(
                f"{what}: this block expands to steps holding {v:,} values{before}; a scenario's steps hold at most "
                f"{MAX_VALUES:,} values, its blocks expanded: repeat fewer times, or fewer or smaller steps in the loop",
                file, *line_col(node),
            )


def _flatten(items: list, nodes: list, defaults: Optional[tuple], file: str) -> tuple[list, list]:
    out_items, out_nodes = [], []
    for item, node in zip(items, nodes):
        if isinstance(item, dict) and len(item) == 1 and REPEAT in item:
            block, block_node = item[REPEAT], node.value[0][1]
            line, col = line_col(block_node)
            times = block.get("times") if isinstance(block, dict) else None
            if not isinstance(block, dict) or not isinstance(block.get("steps"), list) or set(block) != {"times", "steps"}:
                raise ScenarioError("repeat: a block is {times: N, steps: [...]} (the steps run N times, in order)", file, line, col)
            if not isinstance(times, int) or isinstance(times, bool) or not 1 <= times <= MAX_REPEAT:
                raise ScenarioError(f"repeat: times {times!r} is not a whole number from 1 to {MAX_REPEAT}", file, line, col)
            inner_node = next(v for k, v in block_node.value if k.value == "steps")
            sub_items, sub_nodes = _flatten(block["steps"], list(inner_node.value), defaults, file)
            for _ in range(times):  # each pass its own copies (validation mutates nothing, but keep them apart)
                out_items += copy.deepcopy(sub_items)
                out_nodes += sub_nodes
            continue
        if isinstance(item, dict) and len(item) == 1 and DISTRIBUTE in item:
            block, block_node = item[DISTRIBUTE], node.value[0][1]
            line, col = line_col(block_node)
            if not isinstance(block, dict) or not isinstance(block.get("steps"), list):
                raise ScenarioError(
                    "distribute: a block is {mesh_mapper: M, steps: [...]} or {mesh_composer: C, steps: [...]}", file, line, col
                )
            extra = [k for k in block if k not in ("mesh_mapper", "mesh_composer", "steps")]
            given = [k for k in ("mesh_mapper", "mesh_composer") if k in block]
            if extra or len(given) != 1:
                why = f"unknown key {extra[0]!r}" if extra else "give one of mesh_mapper and mesh_composer"
                raise ScenarioError(
                    f"distribute: {why}; ttnn.distribute takes one mapper or one composer (ValueError otherwise)", file, line, col
                )
            key = given[0]
            value_node = next(v for k, v in block_node.value if k.value == key)
            inner_node = next(v for k, v in block_node.value if k.value == "steps")
            op = "from_torch" if key == "mesh_mapper" else "to_torch"
            sub_items, sub_nodes = _flatten(block["steps"], list(inner_node.value), (op, key, block[key], value_node), file)
            out_items += sub_items
            out_nodes += sub_nodes
            continue
        if defaults is not None and isinstance(item, dict) and len(item) == 1:
            op, key, value, value_node = defaults
            args = item.get(op)
            if isinstance(args, dict) and key not in args:
                args[key] = value
                args_node = node.value[0][1]
                if isinstance(args_node, yaml.MappingNode):
                    args_node.value.append((yaml.ScalarNode("tag:yaml.org,2002:str", key, value_node.start_mark, value_node.end_mark), value_node))
        out_items.append(item)
        out_nodes.append(node)
    return out_items, out_nodes


def parse(text: str, path: Path | str = "<scenario>", *, allow_outside_data: bool = False) -> LoadedScenario:
    """Parse scenario text; ``path`` names it in messages and anchors relative data files, which
    must lie in its folder unless ``allow_outside_data``."""
    path = path if isinstance(path, Path) else Path(path)  # a copy of a Path would parse its text again
    file = str(path)
    check_hidden(text, file)
    data, root = compose(text, file)
    saved = saved_format(data)
    if saved is not None:
        first = data[0] if isinstance(data, list) else data
        origin = f", from {printable(str(first['path']))}" if isinstance(first.get("path"), str) else ""
        raise ScenarioError(f"a file meshspec wrote ({saved}{origin}), not a scenario: compare two reports with "
                            "'meshspec diff A.json B.json', and run or check the scenario itself", file, 1, 1)
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario is a mapping starting with 'meshspec: 1', got {type(data).__name__}", file, 1, 1)
    version = data.get("meshspec", 1)
    if version != 1 or not isinstance(version, int) or isinstance(version, bool):
        line, col = line_col(node_at(root, ("meshspec",)))
        if isinstance(version, int) and not isinstance(version, bool):
            msg = f"meshspec: format version {version} is not supported; this meshspec reads version 1"
        else:
            msg = f"meshspec: the format version is the number 1, got {version!r}"
        raise ScenarioError(msg, file, line, col)
    if "matrix" in data:
        return _matrix_cases(data, root, text, path, file, allow_outside_data)
    return _parse_document(data, root, text, path, file, allow_outside_data)


def _matrix_cases(data: dict, root: yaml.Node, text: str, path: Path, file: str, allow_outside_data: bool) -> LoadedScenario:
    """The first case of a ``matrix`` scenario, holding every case (meshspec/scenario/matrix.py).
    Each case is validated as a scenario of its own, against its own copy of the nodes; an error in
    one names the case after the place in the file."""
    from .matrix import expand, placeholders

    at = lambda loc: line_col(node_at(root, loc))  # noqa: E731
    filled = {at(loc): name for loc, name in placeholders(data)}  # where a $name stands -> the variable
    loaded = []
    for case, doc, picked in expand(data, file, at, MAX_VALUES):
        try:
            one = _parse_document(doc, copy.deepcopy(root), text, path, file, allow_outside_data)
        except ScenarioError as err:
            name = filled.get((err.line, err.column))  # type: ignore[arg-type]
            if name is not None:  # the value is the matrix's: point there, and say where it went
                err.line, err.column = at(("matrix", name, picked[name]))
                err.message = f"{err.message} (the value of ${name} in matrix case [{case}])"
            else:
                err.message = f"{err.message} (matrix case [{case}])"
            raise
        loaded.append(one.replace(name=f"{one.name}[{case}]", case=case))
    cases = tuple(loaded)
    return cases[0].replace(cases=cases, document=data)


def _parse_document(data: dict, root: yaml.Node, text: str, path: Path, file: str, allow_outside_data: bool) -> LoadedScenario:
    """A scenario's document (composed, its version checked) as the runner takes it."""
    steps_node = node_at(root, ("steps",))  # found once (8 K instructions): distribute blocks replace its items, never the node
    written = dict(data)  # its steps as written, blocks unexpanded: what it keeps as its document (a repeat's steps are not held twice)
    _expand_distribute(data, steps_node, file)
    checks.check_steps_shape(data, steps_node, root, file)
    try:
        scenario = validate(Scenario, data)
    except Invalid as err:
        error = checks.invalid(err, root, file, data, text)
        earlier = checks.mesh_error(data, root, file)  # checked after validation, but first in the file: said first
        raise (earlier if earlier is not None and (earlier.line, earlier.column) < (error.line, error.column) else error) from None
    own, profile = checks.own_profiles(scenario, root, file)
    mesh_shape, mesh_name, arch = checks.mesh_of(scenario.mesh, root, file)
    hosts = checks.hosts_of(scenario, mesh_shape, root, file)
    checks.check_printed_specs(scenario, arch, root, file)
    checks.check_code(scenario, root, file)
    names, touched, defined, lists = checks.check_names(scenario, root, file)
    if scenario.expect is not None:
        checks.check_expect(scenario, mesh_shape, root, file, defined, lists, tuple(own))
    files = checks.check_data_files(scenario, root, path, file, allow_outside_data)
    steps = tuple(
        _loaded_step(i, s, steps_node.value[i].start_mark.line + 1, names[i], touched[i]) for i, s in enumerate(scenario.steps)
    )
    return LoadedScenario(
        path=path,
        name=scenario.name or path.stem,
        description=scenario.description or "",
        mesh_shape=mesh_shape,
        mesh_name=mesh_name,
        arch=arch,
        files=files,
        profile=profile,
        profiles=own,
        steps=steps,
        expect=scenario.expect,
        with_data=scenario.data != "none",
        hosts=hosts,
        document=written,
    )


def load(path: Path | str, *, allow_outside_data: bool = False) -> LoadedScenario:
    """Read and parse a scenario file."""
    path = path if isinstance(path, Path) else Path(path)  # a copy of a Path would parse its text again
    try:
        try:
            fd = os.open(path, os.O_RDONLY | NONBLOCK)  # what it is, from the open file (a FIFO opens without waiting)
        except OSError as err:
            if err.errno == errno.ENXIO:  # a socket cannot be opened at all
                raise _not_regular(path) from None
            raise
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError
            if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
                raise _not_regular(path)
            if info.st_size > MAX_FILE_BYTES:
                raise ScenarioError(f"file is {info.st_size} bytes; scenarios are limited to {MAX_FILE_BYTES} bytes", str(path))
            raw = read_all(fd, info.st_size, MAX_FILE_BYTES)
        finally:
            os.close(fd)
        if len(raw) > MAX_FILE_BYTES:
            raise ScenarioError(f"file is over {MAX_FILE_BYTES} bytes; scenarios are limited to that", str(path))
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such file", str(path)) from None
    except IsADirectoryError:
        raise ScenarioError("is a folder; give a scenario .yaml file", str(path)) from None
    except UnicodeDecodeError as err:
        raise ScenarioError(f"not UTF-8 text ({err.reason} at byte {err.start})", str(path)) from None
    except OSError as err:
        raise ScenarioError(f"cannot read: {err.strerror}", str(path)) from None
    return parse(text, path, allow_outside_data=allow_outside_data)


def _not_regular(path: Path) -> ScenarioError:
    """Made when raised, not beforehand in case (an error made and dropped at every load was 5 K instructions)."""
    return ScenarioError("is not a regular file (a pipe or device?); give a scenario .yaml file", str(path))


def defined_profiles(path: Path | str) -> list[str]:
    """The profile names a scenario file defines (``profiles:``, ``custom`` for ``profile: {...}``),
    from a quick read of its YAML without validating it (a broken file defines none)."""
    try:
        path = Path(path)
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return []
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=ScenarioLoader)
    except Exception:
        return []
    if not isinstance(data, dict):
        return []
    defined = data.get("profiles")
    # only names the loader would take: a raw key is text from the file (a path, a control character)
    names = [n for n in defined if is_name(n) and n not in RESERVED_PROFILE_NAMES] if isinstance(defined, dict) else []
    return names + ([INLINE_PROFILE] if isinstance(data.get("profile"), dict) else [])


_FILE_KEY = re.compile(r"\bfile\b")
"""The word ``file`` (a data file's key, plain or quoted), not ``profiles`` or ``files``."""


def referenced_files(path: Path | str) -> list[Path]:
    """The data files a scenario file names (``data: {file: ...}``), resolved beside it, from a
    quick read of its YAML without validating it: the files a run must never write over."""
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return []
        text = path.read_text(encoding="utf-8")
        if _FILE_KEY.search(text) is None:  # every spelling of a data file's key has it: nothing to parse for
            return []
        data = yaml.load(text, Loader=ScenarioLoader)
    except Exception:  # a broken file names nothing; loading it reports why
        return []
    found: list[Path] = []
    stack = [data]
    while stack and len(found) < 10_000:
        item = stack.pop()
        if isinstance(item, dict):
            data_field = item.get("data")
            if isinstance(data_field, dict) and isinstance(data_field.get("file"), str):
                found.append(path.parent / data_field["file"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
