"""Graph capture: ``ttnn.graph.begin_graph_capture`` / ``end_graph_capture`` (docs/semantics.md
section 15).

Between the two, ttnn's GraphProcessor tracks every op and the tensors it takes and makes
(``add_tensor``), which is what the graph report and ttnn-visualizer read. meshspec keeps no graph:
it models what tracking a tensor does to a run. On one host nothing. On a mesh spread over several
hosts, before PR #47846 ``add_tensor`` asked the mesh buffer of every coordinate a device tensor
spans, and a remote one throws, so the capture stops at the first device op (ttnn-visualizer issue
#1672); the era's ``graph_capture`` rule says which (checked where a device op's output is made,
:func:`meshspec.sim.ops.output.tracked`).
"""

from __future__ import annotations

from typing import Literal

from ...errors import TTFatal
from ...typed import Typed
from ..runtime import Runtime
from .base import Op


class BeginGraphCapture(Typed):
    """``ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NORMAL)``."""

    run_mode: Literal["normal"] = "normal"
    """Ops run as they are captured (NO_DISPATCH, which runs none, is not modelled)."""


class EndGraphCapture(Typed):
    """``captured = ttnn.graph.end_graph_capture()``."""


def begin(rt: Runtime, a: BeginGraphCapture) -> None:
    if rt.graph_capture:
        raise TTFatal("begin_graph_capture: a graph is being captured already; end it first (meshspec keeps one capture at a time)")
    rt.graph_capture = True


def end(rt: Runtime, a: EndGraphCapture) -> None:
    if not rt.graph_capture:
        raise TTFatal("end_graph_capture: no graph is being captured (begin_graph_capture first)")
    rt.graph_capture = False


def _export_begin_graph_capture(a, ctx):
    return ["graph_capture(True)"]


def _export_end_graph_capture(a, ctx):
    return ["graph_capture(False)"]


OPS = (
    Op("begin_graph_capture", BeginGraphCapture, begin,
       "Start tracking every op and its tensors (the graph report); on several hosts, by the era's graph_capture.",
       "ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NORMAL)", export=_export_begin_graph_capture),
    Op("end_graph_capture", EndGraphCapture, end, "Stop tracking ops (the captured graph itself is not kept).",
       "captured = ttnn.graph.end_graph_capture()", export=_export_end_graph_capture),
)
