"""``meshspec record``: a real ttnn program, watched, written down as a scenario and a report.

Runs inside the program's own process, with ttnn's Python entry points wrapped as ttnn's
operation tracer wraps its ops (docs/semantics.md section 10: ``FastOperation.__call__``, module
attributes for the nanobind free functions, class attributes for ``Tensor`` and ``MeshDevice``
methods). A wrapper calls the real function, unchanged, and records only the outermost call
(``ttnn.to_torch`` calling ``ttnn.from_device`` is one step). What it writes (meshspec/bridge/calls.py
says which calls are which steps):

- a call meshspec models becomes that step; an argument no step can express, or any other
  registered op, an ``opaque`` step declaring the records its output got;
- a tensor the program made without a recorded call (``ttnn.Tensor(array, ...)``) is introduced
  where first used: a one-shard host tensor as ``from_torch`` of its values saved as ``.npy``,
  anything else as ``opaque`` with its records;
- a device tensor the program drops (its last reference gone) becomes a ``deallocate`` step when
  no other handle on its storage is alive: ttnn frees the buffer then, and the allocator's next
  address depends on it. The recorder holds tensors only until the program lets them go.

Names come from the program's variables (the assignment on the calling line, or the argument's
own name), made unique. ``report.json`` gets the runtime's records after every step (the final
state, and in ``steps`` each step's tensors), written before each step as if it will crash, so a
step that kills the process still leaves both files. A call that raised and that the program
caught stays only as a comment (meshspec stops at a step error); one that ended the program is
the scenario's last step and the report's error. The recorder never lets its own failure reach
the program: it stops recording, says so on stderr and in the scenario, and the program goes on.
"""

from __future__ import annotations

import ast
import functools
import json
import linecache
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional

from ..names import as_name
from ..sim.mesh import system_of
from ..sim.ops import OPS
from ..text import flow, one_line
from . import observe
from .calls import FACTORIES, METHODS, TRANSLATORS, NotModeled, spec_fields

active: Optional["Recorder"] = None
"""The recording under way in this process, if any (meshspec.view shows what it knows)."""
SCENARIO = "scenario.yaml"
REPORT = "report.json"
STEPS = "steps.jsonl"
"""Each step's state, one JSON line per step, appended as the program runs; ``report.json`` gets
them all in ``steps`` when the program ends (a report rewritten whole after every step would cost
the square of the steps)."""

CRASH = "the process died during this step (killed by a signal: no error was raised)"


def _ident(text: str) -> str:
    """A scenario name for a program's variable, function or file name: the one rule for names
    (names.as_name: ``dst`` stays ``dst``, ``dst_é`` becomes ``dst___67ced1``, always the same),
    so what record writes loads."""
    return as_name(text)


class Recorder:
    """The recording of one program (or one test): its steps, names and per-step states."""

    def __init__(self, out: Path, name: str) -> None:
        self.out = Path(out).resolve()  # the program may change directory
        self.name = _ident(name)
        self.steps: list[dict] = []  # {"op", "fields", "where", "source", "qualname", "error"?}
        self.states: list[dict] = []
        self.objects: dict[str, Any] = {}  # name -> the tensor, list of tensors, or mesh device
        self.ids: dict[int, str] = {}  # id(object) -> name, for objects held in ``objects``
        self.gone: dict[str, dict] = {}  # name -> its last report, for tensors the program dropped
        self.mappers: dict[int, Any] = {}  # id(mapper or composer) -> its YAML form
        self.keep: list[Any] = []  # the mappers and composers (their ids stay theirs)
        self.mesh: Optional[Any] = None
        self.mesh_shape: Optional[list] = None  # as first opened (a reshape is a step)
        self.depth = 0
        self.comments: list[str] = []
        self.stopped: Optional[str] = None
        self._undo: list[Callable[[], None]] = []
        self._reports: dict[str, dict] = {}  # name -> its report as last read (see Op.only_makes)
        self._texts: dict[int, tuple[dict, str]] = {}
        self._wrote: dict[str, tuple[int, str]] = {}  # file name -> (size, SHA-256) of what this recording wrote there
        self._steps_at: Optional[tuple[int, int]] = None  # steps.jsonl as the recording left it: (inode, size)
        self._arrays: list[Path] = []  # the .npy files this recording saved
        self.refused: Optional[str] = None  # why the recording was not kept: its scenario did not load

    # -- installing ---------------------------------------------------------------------------
    def install(self) -> None:
        import ttnn
        from ttnn import decorators

        for attr, translate in TRANSLATORS.items():
            if hasattr(ttnn, attr):
                self._patch(ttnn, attr, self._modeled(getattr(ttnn, attr), attr, translate))
        for attr, form in FACTORIES.items():
            if hasattr(ttnn, attr):
                self._patch(ttnn, attr, self._factory(getattr(ttnn, attr), form))
        for (cls, method), translate in METHODS.items():
            owner = getattr(ttnn, cls)
            self._patch(owner, method, self._modeled(getattr(owner, method), f"{cls}.{method}", translate))
        self._patch(ttnn, "open_mesh_device", self._opener(ttnn.open_mesh_device))
        self._patch(ttnn, "close_mesh_device", self._closer(ttnn.close_mesh_device))
        for cls in (decorators.FastOperation, decorators.Operation):
            self._patch(cls, "__call__", self._any_op(cls.__call__))
        from . import record as module  # this module by its name, also when it runs as __main__ (meshspec record)

        module.active = self

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()
        from . import record as module

        if module.active is self:
            module.active = None

    def _patch(self, owner: Any, attr: str, new: Any) -> None:
        old = owner.__dict__[attr] if isinstance(owner, type) and attr in owner.__dict__ else getattr(owner, attr)
        setattr(owner, attr, new)
        self._undo.append(lambda: setattr(owner, attr, old))

    # -- wrappers -----------------------------------------------------------------------------
    def _modeled(self, real: Callable, qualname: str, translate: Callable) -> Callable:
        rec = self

        @functools.wraps(real)
        def wrapper(*args, **kwargs):
            if rec.depth or rec.stopped:
                return real(*args, **kwargs)
            return rec._call(real, args, kwargs, qualname, translate, sys._getframe(1))

        return wrapper

    def _any_op(self, real_call: Callable) -> Callable:
        rec = self

        def __call__(op_self, *args, **kwargs):
            if rec.depth or rec.stopped:
                return real_call(op_self, *args, **kwargs)
            qualname = getattr(op_self, "python_fully_qualified_name", "ttnn.<op>")
            return rec._call(lambda *a, **k: real_call(op_self, *a, **k), args, kwargs, qualname, None, sys._getframe(1))

        return __call__

    def _factory(self, real: Callable, form: Callable) -> Callable:
        rec = self

        @functools.wraps(real)
        def wrapper(*args, **kwargs):
            made = real(*args, **kwargs)
            try:
                rec.mappers[id(made)] = form(rec, *args, **kwargs)
                rec.keep.append(made)
            except Exception:  # a form meshspec cannot write: a step using it becomes opaque
                pass
            return made

        return wrapper

    def _opener(self, real: Callable) -> Callable:
        rec = self

        @functools.wraps(real)
        def wrapper(*args, **kwargs):
            md = real(*args, **kwargs)
            if rec.mesh is None and not rec.stopped:
                rec._adopt_mesh(md)
            return md

        return wrapper

    def _closer(self, real: Callable) -> Callable:
        rec = self

        @functools.wraps(real)
        def wrapper(md, *args, **kwargs):
            if md is rec.mesh and not rec.stopped:  # its tensors cannot be read after this
                where = _where(sys._getframe(1))
                rec._guard(rec._save)
                rec._stop(f"the program closed the mesh at {where}; nothing after it is recorded", warn=False)
            return real(md, *args, **kwargs)

        return wrapper

    # -- one call -----------------------------------------------------------------------------
    def _call(self, real, args, kwargs, qualname, translate, frame):
        self.depth += 1
        try:
            try:
                step = self._begin(args, kwargs, qualname, translate, frame)
            except Exception as exc:  # the recorder's own failure never reaches the program
                self._stop(f"{_where(frame)}: {type(exc).__name__}: {exc}")
                step = None
            try:
                result = real(*args, **kwargs)
            except Exception as exc:
                if step is not None:
                    self._guard(self._failed, step, exc, frame)
                raise
            if step is not None:
                self._guard(self._done, step, result, frame)
            return result
        finally:
            self.depth -= 1

    def _begin(self, args, kwargs, qualname, translate, frame) -> dict:
        self._settle_failure()
        self._sweep()
        op, fields, binds = "opaque", None, "opaque"
        if translate is not None:
            try:
                op, fields, binds = translate(self, frame, *args, **kwargs)
            except NotModeled:
                pass
        if fields is None:
            call = qualname if qualname.startswith("ttnn.") else f"ttnn.{qualname}"
            fields = {"call": call, "uses": [self.name_of(t, frame) for t in _tensors_in(args, kwargs)]}
        step = {"op": op, "fields": fields, "binds": binds, "where": _where(frame), "source": _statement(frame), "qualname": qualname}
        self.steps.append(step)
        self._save(pending=True)
        return step

    def _done(self, step: dict, result: Any, frame) -> None:
        binds = step.pop("binds")
        if binds == "opaque":
            self._opaque_outputs(step, result, frame)
        elif binds == "mesh":
            step["fields"]["as"] = self.bind(result, frame, "submesh", step)
        elif binds == "meshes":
            step["fields"]["as"] = self.bind(list(result), frame, "submeshes", step)
        elif binds:
            step["fields"]["as"] = self.bind(result, frame, binds, step)
        if step["op"] == "MeshDevice.reshape" and self.mesh is not None:
            pass  # the mesh's new shape shows in the records; the scenario keeps the shape it opened with
        if step in self.steps:
            self._snapshot(step)
        self._save()

    def _failed(self, step: dict, exc: BaseException, frame) -> None:
        binds = step.pop("binds")
        if binds and binds != "opaque":  # the step is written as the program wrote it
            step["fields"]["as"] = self._take(self.assigned(frame, step["qualname"]), binds, step)
        if binds == "opaque":
            step["fields"]["as"] = self._take(self.assigned(frame, step["qualname"]), "out", step)
            step["fields"].setdefault("shape", [1])
            step["fields"].setdefault("topology", {"distribution_shape": [1], "placements": ["R"], "coords": [[0, 0]]})
        step["error"] = observe.error_json(self.steps.index(step), step["op"], exc)
        self._snapshot(step)
        self._save()

    def _opaque_outputs(self, step: dict, result: Any, frame) -> None:
        """An unmodeled call's tensor outputs: the first is the step's, the others steps of their own."""
        outputs = [result] if _is_tensor(result) else [r for r in (result if isinstance(result, (list, tuple)) else []) if _is_tensor(r)]
        if not outputs:
            self.steps.remove(step)  # no tensor made (a query, a no-op): nothing to declare
            return
        base = self.bind(outputs[0] if len(outputs) == 1 else list(outputs), frame, step["qualname"].split(".")[-1], step)
        for i, out in enumerate(outputs):
            fields = dict(step["fields"]) if i == 0 else {"call": step["fields"]["call"], "uses": step["fields"]["uses"]}
            fields.update(_declared(out))
            fields["as"] = base if len(outputs) == 1 else f"{base}[{i}]"
            if i == 0:
                step["fields"] = fields
                code = _portable(step["source"], step["fields"]["call"], step["fields"]["uses"])
                if code:
                    fields["code"] = code
            else:
                self.steps.append(dict(step, fields=fields))

    def _settle_failure(self) -> None:
        """A call that raised and was followed by another: the program caught it. meshspec stops at
        a step's error, so the step becomes a comment."""
        if self.steps and self.steps[-1].get("error"):
            failed = self.steps.pop()
            if self.states and self.states[-1]["step"] == len(self.steps):
                self.states.pop()
            self.objects.pop(failed["fields"].get("as"), None)
            self.comments.append(f"{failed['where']}: {failed['qualname']} raised, and the program went on: {failed['error']['message']}")

    def _write(self, path: Path, text: str) -> None:
        """Write one of the recording's own files, atomically; never over a file the recording did
        not write as it is now (the recorded program may write into the output folder itself):
        that stops the recording (:meth:`_guard`) and leaves the program's file as it was."""
        from ..files import replace_entry
        from ..written import data_digest, file_digest

        if os.path.lexists(path) and file_digest(path) != self._wrote.get(path.name):  # (None: a link to nothing, unreadable)
            raise FileExistsError(f"{path} was written by the program itself, not by the recording; meshspec leaves it as it is "
                                  "(record into a folder the program does not write)")
        replace_entry(path, text)
        self._wrote[path.name] = data_digest(text.encode("utf-8"))

    def _guard(self, fn: Callable, *args) -> None:
        try:
            fn(*args)
        except Exception as exc:
            self._stop(f"{type(exc).__name__}: {exc}")

    def _stop(self, why: str, warn: bool = True) -> None:
        """Stop recording (the program goes on untouched); what was recorded is kept and says why."""
        if self.stopped:
            return
        self.stopped = why
        self.comments.append(f"recording stopped: {why}")
        if warn:
            print(f"meshspec record: stopped recording ({one_line(why)}); the program goes on", file=sys.stderr)
        try:
            self._save()
        except Exception:
            pass

    # -- names ----------------------------------------------------------------------------------
    def name_of(self, obj: Any, frame) -> str:
        """The scenario name of a tensor (or mesh) the program passes; one not yet seen is introduced."""
        known = self.ids.get(id(obj))
        if known is not None:
            return known
        if _is_mesh(obj):
            if self.mesh is None:
                self._adopt_mesh(obj)
                return "mesh_device"
            raise NotModeled("a mesh device no recorded call made")
        if self.mesh is None and _is_tensor(obj):  # the mesh was opened before recording (a fixture)
            device = obj.device() if obj.storage_type() == _ttnn().StorageType.DEVICE else None
            if device is not None:
                self._adopt_mesh(device)
        return self._introduce(obj, frame)

    def mesh_field(self, obj: Any, frame) -> Optional[str]:
        """``mesh_device: NAME`` for a step on a mesh other than the scenario's, else None."""
        if obj is None:
            return None
        name = self.name_of(obj, frame)
        return None if name == "mesh_device" else name

    def _adopt_mesh(self, md) -> None:
        self.mesh = md
        self.mesh_shape = list(md.shape)
        self.ids[id(md)] = "mesh_device"
        self.objects["mesh_device"] = md

    def assigned(self, frame, qualname: str) -> Optional[str]:
        """The program's own name for the call's result (any identifier Python takes), or None."""
        return _assigned_name(frame, qualname.split(".")[-1])

    def _take(self, program: Optional[str], default: str, step: Optional[dict]) -> str:
        """A new scenario name for what the program calls ``program`` (else ``default``), made by
        the one rule; when the rule changed the program's name, the step's comment keeps it."""
        name = self._fresh(_ident(program or default))
        if program and _ident(program) != program and step is not None:
            step["program_name"] = program
        return name

    def bind(self, result: Any, frame, default: str, step: Optional[dict] = None) -> str:
        name = self._take(self.assigned(frame, step["qualname"]) if step else None, default, step)
        self.objects[name] = result
        self.ids[id(result)] = name
        if isinstance(result, list):
            for i, item in enumerate(result):
                self.ids[id(item)] = f"{name}[{i}]"
        return name

    def _fresh(self, wanted: Optional[str]) -> str:
        wanted = wanted or "t"
        name, n = wanted, 1
        while name in self.objects or name in self.gone or name == "mesh_device":
            n += 1
            name = _ident(f"{wanted}_{n}")  # a name at the length limit gets a hash, not a 129th character
        return name

    def save_array(self, stem: str, array) -> str:
        import numpy as np

        self.out.mkdir(parents=True, exist_ok=True)
        name, n = f"{_ident(stem)}.npy", 1
        while True:  # a new file, made here: never one that is there already, nor through a link (even a dangling one)
            try:
                fd = os.open(self.out / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
                break
            except FileExistsError:
                n += 1
                name = f"{_ident(stem)}_{n}.npy"
        with os.fdopen(fd, "wb") as f:
            np.save(f, array)
        self._arrays.append(self.out / name)
        return name

    def _introduce(self, t: Any, frame) -> str:
        """A tensor made without a recorded call: a step that makes it, before the current one."""
        ttnn = _ttnn()
        note: dict = {}  # the program's own name, if the rule changed it
        name = self._take(_local_name(frame, t), "tensor", note)
        record = observe.tensor_json(name, t)
        if record["storage"] == "host" and len(record["devices"]) == 1:
            data = self.save_array(name, observe.host_array(ttnn.get_device_tensors(t)[0]))
            step = {"op": "from_torch", "fields": {"as": name, **spec_fields(record["devices"][0]["spec"]), "data": {"file": data}}}
        else:
            step = {"op": "opaque", "fields": {"call": "ttnn.Tensor", "uses": [], **_declared(t), "as": name}}
        step |= {"where": "(made before it was used)", "source": "", "qualname": "ttnn.Tensor"} | note
        self.steps.append(step)
        self.objects[name] = t
        self.ids[id(t)] = name
        self._snapshot(step)
        return name

    def _sweep(self) -> None:
        """Let go of tensors only the recorder still holds: the program dropped them. A device
        tensor whose storage no other live handle shares is freed by ttnn then: a deallocate step."""
        for name in [n for n in self.objects if n != "mesh_device" and _unreferenced(self.objects, n)]:
            value = self.objects.pop(name)
            self.ids.pop(id(value), None)
            items = value if isinstance(value, list) else [value]
            for i, t in enumerate(items):
                if not _is_tensor(t):
                    continue
                key = f"{name}[{i}]" if isinstance(value, list) else name
                if isinstance(value, list) and sys.getrefcount(t) > 3:  # the program dropped the list, not the item
                    self.objects[key] = t
                    continue
                self.ids.pop(id(t), None)
                report = observe.tensor_json(key, t)
                if report["storage"] == "device" and not self._shared(t):
                    self.steps.append({"op": "deallocate", "fields": {"tensor": key}, "qualname": "ttnn.deallocate", "source": "",
                                       "where": "(the program dropped its last reference: ttnn frees the buffer)"})
                    report = dict(report, storage="deallocated", devices=[], address=None, values=None)
                    self.gone[key] = report
                    self._snapshot(self.steps[-1])
                else:
                    self.gone[key] = report
            del value, items

    def _shared(self, t) -> bool:
        """Another live handle on ``t``'s storage (a part, a combined tensor): the same buffer address."""
        try:
            address = t.buffer_address()
        except Exception:
            return True
        for other in self._tensors().values():
            try:
                if other is not t and other.storage_type() == t.storage_type() and other.is_allocated() and other.buffer_address() == address:
                    return True
            except Exception:
                continue
        return False

    # -- writing ------------------------------------------------------------------------------
    def finish(self, program_ended_normally: bool = True) -> None:
        """The last save. A call that raised last and that the program caught (it ended normally)
        is a comment, as any caught call is."""
        if program_ended_normally:
            self._guard(self._settle_failure)
        from ..errors import UsageError

        try:
            self._save(False, True)
        except UsageError as err:  # the scenario would not load: nothing is kept
            self._refuse(str(err))
        except Exception as exc:
            self._stop(f"{type(exc).__name__}: {exc}")

    def _refuse(self, why: str) -> None:
        """The recording's scenario does not load: its files go (those it wrote as they are now),
        and the one line that says why is on stderr; ``meshspec record`` then exits 2."""
        from ..written import file_digest

        self.refused = why
        for path in (self.out / SCENARIO, self.out / REPORT):
            if self._wrote.get(path.name) is not None and file_digest(path) == self._wrote[path.name]:
                path.unlink(missing_ok=True)
        try:
            self._check_steps_file()
            if self._steps_at is not None:
                (self.out / STEPS).unlink(missing_ok=True)
        except (FileExistsError, OSError):
            pass
        for array in self._arrays:
            array.unlink(missing_ok=True)
        print(f"meshspec: {one_line(why)}", file=sys.stderr)

    def _tensors(self) -> dict:
        out = {}
        for name, value in self.objects.items():
            if isinstance(value, list):
                out |= {f"{name}[{i}]": item for i, item in enumerate(value) if _is_tensor(item)}
            elif _is_tensor(value):
                out[name] = value
        return out

    def _report(self, error, names: Optional[set] = None) -> dict:
        done = len(self.steps) if error is None else error["step"]
        tensors = {n: t for n, t in self._tensors().items() if names is None or n in names}
        fresh = {n: t for n, t in tensors.items() if n not in self._reports}
        report = observe.report_json(self.name, self.mesh_shape or [], fresh, error, done, len(self.steps))
        self._reports |= {r["name"]: r for r in report["tensors"]}
        report["tensors"] = [self._reports[n] for n in tensors] + [r for n, r in self.gone.items() if names is None or n in names]
        return report

    def _snapshot(self, step: dict) -> None:
        """The step's own tensors (those it names), as the runtime records them after it."""
        names = set(_names_in(step["fields"]))
        if step["op"] in OPS and OPS[step["op"]].only_makes:
            for n in [n for n in self._reports if n in names or n.split("[")[0] in names]:
                del self._reports[n]
        else:
            self._reports.clear()
        names |= {n for n in list(names) for m in self._tensors() if m.startswith(n + "[")}
        report = self._report(step.get("error"), {m for m in self._tensors() if m in names or m.split("[")[0] in names} | names)
        self.states.append({"step": self.steps.index(step), "op": step["op"], "where": step["where"], "error": step.get("error"),
                            "tensors": report["tensors"]})
        self.out.mkdir(parents=True, exist_ok=True)
        self._check_steps_file()
        with open(self.out / STEPS, "a", encoding="utf-8") as f:
            f.write(json.dumps(self.states[-1]) + "\n")
            f.flush()
            info = os.fstat(f.fileno())
        self._steps_at = (info.st_ino, info.st_size)  # appended to, not rewritten: its inode and size say it is ours

    def _check_steps_file(self) -> None:
        """steps.jsonl is the recording's own: missing before its first state, then the file it
        appended to, as long as it left it (the program may write into the folder itself)."""
        path = self.out / STEPS
        try:
            info = os.lstat(path)
            now: Optional[tuple] = (info.st_ino, info.st_size)
        except FileNotFoundError:
            now = None
        if now != self._steps_at:
            raise FileExistsError(f"{path} was written by the program itself, not by the recording; meshspec leaves it as it is "
                                  "(record into a folder the program does not write)")

    def _save(self, pending: bool = False, final: bool = False) -> None:
        """The scenario and the report as they stand. ``pending``: the last step is about to run; if
        it kills the process, this report (its error a crash at that step) is what remains, with
        the steps' states in steps.jsonl. ``final``: the program ended; the states go into the
        report's ``steps``."""
        if self.mesh is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        text, lines = self.scenario_text()
        error = self.steps[-1].get("error") if self.steps else None
        if pending:
            last = len(self.steps) - 1
            error = {"step": last, "op": self.steps[last]["op"], "source": "ttnn", "crash": True, "message": CRASH}
        report = self._report(error)
        report["path"] = str(self.out / SCENARIO)
        if final:
            report["steps"] = [dict(s, line=lines.get(s["step"])) for s in self.states]
        else:
            report["steps_file"] = STEPS
        if final:  # what record keeps loads (checked once, at the end: a check per step would cost the square of the steps)
            from ..scenario.loads import check_loads

            check_loads(text, self.out / SCENARIO, f"record {self.out}")
        self._write(self.out / SCENARIO, text)
        if final:
            self._write(self.out / REPORT, json.dumps(report, indent=1) + "\n")
            if self._steps_at is not None:
                self._check_steps_file()
                (self.out / STEPS).unlink(missing_ok=True)  # all in the report now
            return
        # between steps: compact, each tensor's JSON made once (the report is rewritten at every step)
        tensors = ", ".join(self._text(t) for t in report.pop("tensors"))
        self._write(self.out / REPORT, json.dumps(report)[:-1] + f', "tensors": [{tensors}]}}\n')

    def _text(self, report: dict) -> str:
        """A tensor report's JSON, made once per report (reports are reused until their tensor changes)."""
        hit = self._texts.get(id(report))
        if hit is None or hit[0] is not report:
            hit = self._texts[id(report)] = (report, json.dumps(report))
        return hit[1]

    def scenario_text(self) -> tuple[str, dict[int, int]]:
        """The scenario YAML, and each step's line in it."""
        mesh = flow({"system": self._system(), "shape": self.mesh_shape}) if self._system() else flow(self.mesh_shape)
        out = [
            "meshspec: 1",
            f"name: {flow(self.name)}",
            "description: >",
            f"  Recorded by meshspec record from a run of the real ttnn {one_line(observe.ttnn_version())}.",
            "  Host tensors the program made itself are read back from the runtime and saved beside",
            "  this file; opaque steps are calls meshspec does not model, with the records they produced.",
            f"mesh: {mesh}",
        ]
        out += [f"# {one_line(c)}" for c in self.comments]  # one line each, whatever the text (an exception's)
        out.append("steps:")
        lines: dict[int, int] = {}
        for i, step in enumerate(self.steps):
            # one line whatever the path or source hold: YAML also ends a comment at \r, U+0085, U+2028, U+2029
            renamed = f"{step['program_name']} in the program; " if step.get("program_name") else ""
            where = renamed + step["where"] + (f": {step['source']}" if step["source"] else "")
            out.append(f"  # {one_line(where)}"[:200])
            lines[i] = len(out) + 1
            out.append(f"  - {step['op']}: {_flow_cached(json.dumps(step['fields']))}")
        return "\n".join(out) + "\n", lines

    def _system(self) -> Optional[str]:
        """The system the cluster is (its device count, not the mesh's: a 1x2 mesh of a T3K is a T3K)."""
        ttnn = _ttnn()
        try:
            count = ttnn.get_num_devices()
        except Exception:
            count = len(list(self.mesh.get_device_ids()))
        return system_of(observe._name(self.mesh.arch()), count)


@functools.lru_cache(maxsize=100_000)
def _flow_cached(fields_json: str) -> str:
    """A step's fields as flow YAML (the scenario is rewritten after every step: each step's line
    is made once)."""
    return flow(json.loads(fields_json))


def _unreferenced(held: dict, name: str) -> bool:
    """Nothing but ``held`` refers to ``held[name]``: the program let it go. (Counted: the dict,
    the local below, getrefcount's argument.)"""
    value = held[name]
    return sys.getrefcount(value) <= 3


def _ttnn():
    import ttnn

    return ttnn




def _where(frame) -> str:
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


# -- what the runtime's objects are -----------------------------------------------------------------
def _is_tensor(x: Any) -> bool:
    return hasattr(x, "storage_type") and hasattr(x, "tensor_topology")


def _is_mesh(x: Any) -> bool:
    return hasattr(x, "get_device_ids") and hasattr(x, "create_submesh")


def _tensors_in(args, kwargs) -> list:
    found = []
    for a in list(args) + list(kwargs.values()):
        if _is_tensor(a):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found += [x for x in a if _is_tensor(x)]
    return found


def _names_in(fields: Any):
    """Every string in a step's fields (the tensor names among them are its tensors)."""
    if isinstance(fields, str):
        yield fields
    elif isinstance(fields, dict):
        for v in fields.values():
            yield from _names_in(v)
    elif isinstance(fields, list):
        for v in fields:
            yield from _names_in(v)


def _declared(t) -> dict:
    """An opaque step's records: the output's spec, storage, topology and recorded coordinates."""
    record = observe.tensor_json("_", t)
    devices = [d for d in record["devices"] if d.get("recorded")]
    spec = devices[0]["spec"] if devices else observe.spec_json(t, pages=False)
    return {**spec_fields(spec), "storage": "host" if record["storage"] == "host" else "device",
            "topology": record["topology"], "recorded": [d["coord"] for d in devices]}


# -- the program's source ----------------------------------------------------------------------------
def _statement(frame) -> str:
    """The whole simple statement the call is in (a call may span lines), joined onto one line;
    '' when the source cannot be read."""
    spans = _statements(frame.f_code.co_filename)
    n = frame.f_lineno
    inside = [(a, b) for a, b in spans if a <= n <= b]
    if not inside:
        return linecache.getline(frame.f_code.co_filename, n).strip()
    a, b = min(inside, key=lambda s: s[1] - s[0])
    return " ".join("".join(linecache.getlines(frame.f_code.co_filename)[a - 1 : b]).split())


@functools.lru_cache(maxsize=64)
def _statements(filename: str) -> tuple[tuple[int, int], ...]:
    """Every simple statement's (first line, last line) in a source file."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return ()
    compound = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
                ast.AsyncWith, ast.Try)
    return tuple((s.lineno, s.end_lineno or s.lineno) for s in ast.walk(tree) if isinstance(s, ast.stmt) and not isinstance(s, compound))


def _assigned_name(frame, func: str) -> Optional[str]:
    """``x`` for a statement ``x = ttnn.f(...)`` whose own call is this one (``self.x`` -> ``x``);
    None for a call nested inside another (``back = g(ttnn.f(d))``: ``back`` is g's). The program's
    own identifier, as Python spells it (``dst_é`` too): :meth:`Recorder._take` makes it a name."""
    text = _statement(frame)
    try:
        node = ast.parse(text).body[0] if text else None
    except (SyntaxError, ValueError):  # ValueError: a NUL, or a lone surrogate (no source file holds one)
        node = None
    if not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return None
    value = node.value
    calls = [c for c in ast.walk(value) if isinstance(c, ast.Call)] if value is not None else []
    if not isinstance(value, ast.Call) or (len(calls) > 1 and _func_name(value) != func):
        return None
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return None


def _func_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _local_name(frame, obj) -> Optional[str]:
    """The program's name for ``obj``: a module-level variable holding it (a function's locals are
    not read: reading them keeps every local alive until the function returns)."""
    if frame.f_code.co_flags & 0x1:  # CO_OPTIMIZED: a function's frame
        return None
    return next((k for k, v in frame.f_globals.items() if v is obj and not k.startswith("_")), None)


def _portable(source: str, call: str, uses: list) -> Optional[str]:
    """The program's statement for an opaque call, when an exported script may run it (it is the
    step's own call on its tensors, literals and ttnn's constants: :func:`meshspec.scenario.code.usable`); else None."""
    from ..scenario.code import usable

    return source if source and usable(source, call, uses) is None else None


# -- running a program --------------------------------------------------------------------------
def run_program(out: Path, argv: list[str]) -> int:
    """Run ``python ARGV...`` (``prog.py ARGS``, ``-m module ARGS`` or ``-c code ARGS``) in this
    process with the recorder installed, as plain Python would: ``__main__``, ``sys.argv``, the
    script's folder first on ``sys.path``. Its exit code, unchanged."""
    import runpy

    if argv[0] == "-m":
        target, name, rest = argv[1], argv[1].split(".")[-1], argv[2:]
    elif argv[0] == "-c":
        target, name, rest = argv[1], "program", argv[2:]
    else:
        target, name, rest = str(Path(argv[0]).resolve()), Path(argv[0]).stem, argv[1:]
    rec = Recorder(out, name)
    rec.install()
    code, normal = 0, True
    try:
        if argv[0] == "-m":
            sys.argv = [target, *rest]
            sys.path[0] = os.getcwd()
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        elif argv[0] == "-c":
            sys.argv = ["-c", *rest]
            sys.path[0] = ""
            exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = [target, *rest]
            sys.path[0] = str(Path(target).parent)
            runpy.run_path(target, run_name="__main__")
    except SystemExit as exc:
        normal = exc.code in (None, 0)
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException as exc:
        _print_traceback(exc)
        code, normal = 1, False
    finally:
        rec.uninstall()
        rec.finish(program_ended_normally=normal)
    return 2 if rec.refused else code


def _print_traceback(exc: BaseException) -> None:
    """The program's traceback as plain Python prints it: without the recorder's and runpy's frames."""
    import traceback

    here = {__file__, getattr(sys.modules.get("runpy"), "__file__", "")}
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename not in here]
    text = ["Traceback (most recent call last):\n", *traceback.format_list(frames)] if frames else []
    sys.stderr.write("".join(text + traceback.format_exception_only(type(exc), exc)))


def main() -> None:
    """``python -m meshspec.bridge.record DIR -- PROGRAM ARGS...`` (what ``meshspec record`` runs)."""
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        raise SystemExit("usage: python -m meshspec.bridge.record DIR -- prog.py ARGS...")
    sys.exit(run_program(Path(args[0]), args[2:]))


if __name__ == "__main__":
    main()
