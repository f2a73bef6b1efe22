"""A scenario built in Python, step by step, from the op registry: the scenario a YAML file loads to.

Each op of :data:`meshspec.sim.ops.OPS` is a method, called with the step's keys as keywords
(``as_`` for ``as``, tuples for lists); an op whose name is no Python name is
``builder.step("MeshDevice.reshape", ...)``. A step that binds a tensor returns its name, to pass
to later steps::

    s = meshspec.Builder(mesh=(2, 4), system="t3k", name="seed")
    src = s.from_torch(as_="src", shape=(1, 7, 32, 32), mesh_mapper={"shard": 1})
    dst = s.allocate_tensor_on_device(as_="dst", shape=(1, 1, 32, 32))
    s.copy_host_to_device_tensor(src=src, dst=dst)
    scenario = s.build()          # what meshspec.load returns for the same YAML
    print(meshspec.to_yaml(s))    # the YAML, which loads back equal

There is no second validator: every call hands the scenario so far to the loader
(``loader.parse``), so a step is checked by the rules a YAML file is, when it is added; its error is
the loader's one line (the place in the scenario, the bad value, the choices, a hint), raised as a
:class:`~meshspec.errors.ScenarioError` at the Python line that added the step.
"""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Any, Optional, Union

from ..errors import ScenarioError

PYTHON = "<python>"
"""The file name a built scenario has (its data files are found in ``folder``)."""


class UnknownOp(ScenarioError, AttributeError):
    """``builder.frm_torch``: no op of that name (the loader's words, with the choices)."""


class Builder:
    """A scenario being built; :meth:`build` is the loaded scenario (``LoadedScenario``)."""

    def __init__(self, mesh: Any, *, system: Optional[str] = None, name: str = "python", description: Optional[str] = None,
                 profile: Any = None, profiles: Optional[dict] = None, hosts: Optional[dict] = None, data: Optional[str] = None,
                 folder: Union[str, Path, None] = None) -> None:
        """``mesh``: a system name (``"t3k"``), a shape (``(2, 4)``), or with ``system`` the shape
        opened on that system (``mesh=(1, 8), system="t3k"``). The other keywords are the
        scenario's keys of the same names; ``folder``: where its data files are (default: here)."""
        document: dict[str, Any] = {"meshspec": 1, "name": name}
        if description is not None:
            document["description"] = description
        document["mesh"] = _plain({"system": system, "shape": mesh} if system is not None else mesh)
        for key, value in (("profile", profile), ("profiles", profiles), ("hosts", hosts), ("data", data)):
            if value is not None:
                document[key] = _plain(value)
        document["steps"] = []
        object.__setattr__(self, "_document", document)
        object.__setattr__(self, "_path", Path(folder if folder is not None else ".", PYTHON))
        object.__setattr__(self, "_built", None)

    # -- steps ----------------------------------------------------------------------------------
    def step(self, op: str, /, **args: Any) -> Optional[str]:
        """Add the step ``op`` with ``args``; the name of the tensor (or mesh) it binds, if any.
        A tensor the op must bind and ``as_`` does not name gets ``t<step index>``."""
        from ..sim.ops import OPS

        index = len(self._document["steps"])
        fields = OPS[op].args.fields() if op in OPS else {}
        plain = {fields[k].key if k in fields else k: _plain(v) for k, v in args.items()}
        binds = OPS[op].binds if op in OPS else None
        key = fields[binds.field].key if binds is not None else None
        if binds is not None and key not in plain and fields[binds.field].required:
            plain[key] = f"t{index}"
        self._try({**self._document, "steps": [*self._document["steps"], {op: plain}]}, UnknownOp if op not in OPS else ScenarioError)
        return plain.get(key) if key is not None else None

    def __getattr__(self, op: str):
        if op.startswith("_"):
            raise AttributeError(op)

        def add(**args: Any) -> Optional[str]:
            return self.step(op, **args)

        from ..sim.ops import OPS

        if op not in OPS:  # said now, in the loader's words, not at the call
            self._try({**self._document, "steps": [*self._document["steps"], {op: {}}]}, UnknownOp)
        add.__name__ = add.__qualname__ = op
        add.__doc__ = OPS[op].doc
        return add

    def expect(self, **block: Any) -> "Builder":
        """The scenario's ``expect`` block (``profiles=``, ``tensors=``), as a file writes it."""
        self._try({**self._document, "expect": _plain(block)}, ScenarioError)
        return self

    # -- the scenario ---------------------------------------------------------------------------
    def build(self):
        """The scenario, loaded (the same object ``meshspec.load`` makes of its YAML)."""
        if self._built is None:
            raise ScenarioError("has no steps yet: add one, e.g. s.from_torch(as_='x', shape=(1, 1, 32, 32))", str(self._path))
        return self._built

    @property
    def document(self) -> dict:
        """The scenario as plain data, as its YAML reads."""
        return self._document

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Builder is changed by its steps, not by setting {name!r}")

    def __repr__(self) -> str:
        return f"Builder({self._document['name']!r}, {len(self._document['steps'])} steps)"

    def _try(self, document: dict, error: type[ScenarioError]) -> None:
        """Take ``document`` if the loader takes it; else raise the loader's error where the caller is."""
        from ..scenario.loader import parse
        from ..scenario.write import to_yaml

        try:
            text = to_yaml(document)
        except Exception as err:  # a value yaml cannot write (an object, not plain data)
            raise error(f"{_not_plain(err)}; give numbers, text, lists and dicts, as a scenario file holds", *_caller()) from None
        try:
            built = parse(text, self._path)
        except ScenarioError as err:
            raise error(err.message, *_caller()) from None
        object.__setattr__(self, "_document", built.document)
        object.__setattr__(self, "_built", built)


def _caller() -> tuple[str, int]:
    """The file and line of the code that called into this module."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else (PYTHON, None)


def _not_plain(err: Exception) -> str:
    """What yaml could not write, in one line."""
    bad = err.args[1] if len(err.args) > 1 else None
    if bad is None:
        return f"not plain data ({type(err).__name__})"
    from ..text import one_line

    return f"{type(bad).__name__} {one_line(repr(bad))[:80]} is not plain data"


def _plain(value: Any) -> Any:
    """``value`` as YAML data: tuples as lists, an enum as its value, a str or int subclass as itself."""
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value
