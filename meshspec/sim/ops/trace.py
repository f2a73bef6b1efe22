"""Metal traces: ``ttnn.begin_trace_capture`` / ``end_trace_capture`` / ``execute_trace`` /
``release_trace`` (docs/semantics.md section 12).

tt-metal's BeginTraceCapture delays the captured programs until the trace is replayed; a replay
re-runs them against the buffers captured (the same output tensors, the same addresses) and
neither recomputes a topology nor touches a record (tt_metal trace docs; research of
ttnn/cpp/ttnn/operations/core/core.cpp); a runtime that records exactly what is written (the
reference's ``copy: exact``) records the replay's output as written. meshspec runs a captured step when it is captured (its
output and records made then) and, at each ``execute_trace``, computes it again from what its
inputs' buffers and records hold at that moment, writing the result into the captured output's
buffer. That is the decode loop of models/tt_transformers: persistent inputs refreshed with
``copy_host_to_device_tensor``, then the trace replayed: it reads whatever the record says after
the copy.
"""

from __future__ import annotations

from ...errors import TTFatal
from ...typed import Typed
from ..profiles import CopyRecord
from ..runtime import Runtime
from ..tensor import DeviceTensor
from .base import Op
from .fields import NewName
from .output import shard


class BeginTrace(Typed):
    """``tid = ttnn.begin_trace_capture(mesh_device, cq_id=0)``."""

    trace: NewName


class TraceName(Typed):
    """``ttnn.end_trace_capture`` / ``execute_trace`` / ``release_trace(mesh_device, tid)``."""

    trace: NewName


def begin(rt: Runtime, a: BeginTrace) -> None:
    if rt.capturing is not None:
        raise TTFatal(f"begin_trace_capture: trace {rt.capturing} is still being captured; end it first")
    rt.capturing = a.trace
    rt.traces[a.trace] = []


def end(rt: Runtime, a: TraceName) -> None:
    if rt.capturing != a.trace:
        raise TTFatal(f"end_trace_capture: no trace {a.trace} is being captured")
    rt.capturing = None
    if a.trace not in rt.traces:  # released while it was captured (docs/semantics.md section 12)
        raise TTFatal(f"Trace instance {a.trace} must exist on device 0's active sub-device manager 0 (release_trace released "
                      "it while it was still being captured: ttnn 0.81.1 releases it without a word, and ending the capture fails)")


def execute(rt: Runtime, a: TraceName) -> None:
    from . import OPS

    if a.trace not in rt.traces or rt.capturing == a.trace:
        raise TTFatal(f"execute_trace: no captured trace {a.trace}")
    for op, args, output in rt.traces[a.trace]:
        name = getattr(args, "as_", None)
        held = rt.tensors.pop(name, None) if name is not None and output is not None else None  # computed aside, not rebound
        OPS[op].run(rt, args)
        if name is None or output is None:
            continue
        fresh = rt.tensors.pop(name)
        if isinstance(fresh, DeviceTensor) and fresh is not output and fresh.buffer is not output.buffer:
            _into(rt, fresh, output, op)
        rt.tensors[name] = held if held is not None else output  # the captured output, written again in place
        rt.touched.add(name)


def _into(rt: Runtime, fresh: DeviceTensor, output: DeviceTensor, op: str) -> None:
    """Write ``fresh``'s per-device data into ``output``'s buffer and drop ``fresh``'s buffer."""
    shards = {}
    for c in fresh.record.recorded:
        spec = fresh.record.specs.get(c)
        if spec is None:
            continue
        shards[c] = shard(c, spec, fresh.buffer.read(c, spec) if rt.with_data else None, rt)  # metadata mode: the pages only
    if shards:
        rt.write(output, None, shards, source=f"{rt.op} at step {rt.step}")
    if rt.profile.copy is CopyRecord.EXACT:  # a runtime that records exactly what is written does so on a replay too
        rt.set_recorded(output.record, tuple(fresh.record.recorded))
        output.record.specs = dict(fresh.record.specs)
        output.record.spec = fresh.record.spec
        output.record.topology = fresh.record.topology
    made = fresh.provenance  # what the replay read, now: judged at this step, named for the op replayed
    output.provenance = made.replace(op=f"{op} replayed by {rt.op}") if made is not None else None
    rt.free(fresh)  # its block, its bytes under --max-memory and its memory for --uninitialized reuse


def release(rt: Runtime, a: TraceName) -> None:
    if rt.traces.pop(a.trace, None) is None:
        raise TTFatal(f"release_trace: no trace {a.trace}")


def _export_begin_trace_capture(a, ctx):
    return [f"{ctx.trace(a.trace)} = ttnn.begin_trace_capture(mesh_device, cq_id=0)"]


def _export_end_trace_capture(a, ctx):
    return [f"ttnn.end_trace_capture(mesh_device, {ctx.trace(a.trace)}, cq_id=0)"]


def _export_execute_trace(a, ctx):
    return [f"ttnn.execute_trace(mesh_device, {ctx.trace(a.trace)}, cq_id=0, blocking=True)"]


def _export_release_trace(a, ctx):
    return [f"ttnn.release_trace(mesh_device, {ctx.trace(a.trace)})"]


OPS = (
    Op("begin_trace_capture", BeginTrace, begin, "Start capturing a trace: the device steps until end_trace_capture are recorded in it.",
       "tid = ttnn.begin_trace_capture(mesh_device, cq_id=0)", captured=False, export=_export_begin_trace_capture),
    Op("end_trace_capture", TraceName, end, "Stop capturing the trace.", "ttnn.end_trace_capture(mesh_device, tid, cq_id=0)", captured=False, export=_export_end_trace_capture),
    Op("execute_trace", TraceName, execute,
       "Replay the trace: each captured step computed again from its inputs as they are now, into its captured output.",
       "ttnn.execute_trace(mesh_device, tid, cq_id=0, blocking=False)", captured=False, export=_export_execute_trace),
    Op("release_trace", TraceName, release, "Release the trace.", "ttnn.release_trace(mesh_device, tid)", captured=False, export=_export_release_trace),
)
