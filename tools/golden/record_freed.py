#!/usr/bin/env python3
"""Record what ttnn does when a deallocated mesh tensor is used, op by op, for
tests/golden/ttnn_<version>_freed.json (0.81.1, 0.67.0, 0.66.0: whichever the venv holds; read by
tests/test_golden_freed.py; facts in docs/semantics.md
section 9, "Using a deallocated tensor"). ``to_torch`` needs torch, which the mock's Python 3.10
lacks: its case is the call it makes first on a device tensor, ``ttnn.from_device(tensor)``
(ttnn/operations/core.py of the 0.81.1 wheel).

Each case runs in a child process twice: on a live tensor (the control: in mock mode an op that needs
a kernel fails for that reason) and on the same tensor after ``ttnn.deallocate``. The outcome of the
second run is one of:

- ``crash``: the process is killed by a signal (SIGSEGV): the real library has no check here;
- ``raise``: a Python exception, with the first line of ttnn's message (``Tensor is not allocated``);
- ``runs``: the call returns, or fails exactly as it does on the live tensor (no check came first:
  the op would run on freed memory on hardware).

Deterministic. Run in the ttnn venv, in mock mode (about a minute):

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh
    python tools/golden/record_freed.py        # writes tests/golden/ttnn_0_81_1_freed.json

0.66.0 and 0.67.0 misread a numpy bfloat16 array (docs/semantics.md section 23, ``numpy_bfloat16``):
there the tensor is built with the flat-list constructor, the same values.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")

def version() -> str:
    from importlib.metadata import version as installed

    return installed("ttnn")


def out_path() -> Path:
    return Path(__file__).resolve().parents[2] / "tests" / "golden" / f"ttnn_{version().replace('.', '_')}_freed.json"

# meshspec op -> the ttnn call on t (a (1, 8, 32, 32) bfloat16 TILE tensor, [R, S(1)] on a 2x4 T3K: each
# device holds (1, 2, 32, 32)), h (its host tensor), u (a live copy of t) and md (the mesh device)
CASES = {
    "cpu": "t.cpu()",
    "to_torch": "ttnn.from_device(t)",
    "copy_host_to_device_tensor": "ttnn.copy_host_to_device_tensor(h, t)",
    "copy_device_to_host_tensor": "ttnn.copy_device_to_host_tensor(t, ttnn.allocate_tensor_on_host(t.spec, md))",
    "deallocate": "ttnn.deallocate(t)",
    "get_device_tensors": "ttnn.get_device_tensors(t)",
    "combine_device_tensors": "ttnn.combine_device_tensors(tensors=ttnn.get_device_tensors(t))",
    "update_tensor_topology": "t.update_tensor_topology(t.tensor_topology())",
    "to_device": "ttnn.to_device(t, md)",
    "to": "t.to(md)",
    "dump_tensor": "ttnn.dump_tensor('/tmp/meshspec-freed.tensorbin', t)",
    "empty_like": "ttnn.empty_like(t)",
    "zeros_like": "ttnn.zeros_like(t)",
    "squeeze": "ttnn.squeeze(t, 0)",
    "unsqueeze": "ttnn.unsqueeze(t, 0)",
    "reshape": "ttnn.reshape(t, (2, 32, 32))",
    "view": "ttnn.view(t, (2, 32, 32))",
    "permute": "ttnn.permute(t, (1, 0, 2, 3))",
    "slice": "ttnn.slice(t, (0, 0, 0, 0), (1, 1, 32, 32))",
    "concat": "ttnn.concat([t, t], 1)",
    "pad": "ttnn.pad(t, [(0, 0), (0, 0), (0, 0), (0, 32)], 0.0)",
    "all_gather": "ttnn.all_gather(t, dim=3, cluster_axis=1)",
    "all_reduce": "ttnn.all_reduce(t, cluster_axis=1)",
    "reduce_scatter": "ttnn.reduce_scatter(t, dim=3, cluster_axis=1)",
    "neg": "ttnn.neg(t)",
    "exp": "ttnn.exp(t)",
    "relu": "ttnn.relu(t)",
    "gelu": "ttnn.gelu(t)",
    "add": "ttnn.add(t, t)",
    "add (b freed)": "ttnn.add(u, t)",
    "sub": "ttnn.sub(t, t)",
    "mul": "ttnn.mul(t, t)",
    "matmul": "ttnn.matmul(t, t)",
    "linear": "ttnn.linear(t, t)",
    "sum": "ttnn.sum(t, 3)",
    "max": "ttnn.max(t, 3)",
    "transpose": "ttnn.transpose(t, 2, 3)",
    "typecast": "ttnn.typecast(t, ttnn.float32)",
    "to_layout": "ttnn.to_layout(t, ttnn.ROW_MAJOR_LAYOUT)",
    "untilize": "ttnn.untilize(t)",
    "clone": "ttnn.clone(t)",
    "reallocate": "ttnn.reallocate(t)",
    "to_memory_config": "ttnn.to_memory_config(t, ttnn.L1_MEMORY_CONFIG)",
}


def child(call: str, free: bool) -> None:
    import numpy as np
    import ttnn

    md = ttnn.open_mesh_device(ttnn.MeshShape(2, 4))
    values = np.arange(8 * 32 * 32, dtype=np.float32).reshape(1, 8, 32, 32)
    try:
        host = ttnn.Tensor(values, ttnn.bfloat16, None, ttnn.TILE_LAYOUT)
    except RuntimeError:  # 0.66.0 / 0.67.0: the flat-list constructor
        host = ttnn.Tensor(values.reshape(-1).tolist(), list(values.shape), ttnn.bfloat16, ttnn.TILE_LAYOUT)
    mapper = ttnn.create_mesh_mapper(md, ttnn.MeshMapperConfig([ttnn.PlacementReplicate(), ttnn.PlacementShard(1)]))
    h = ttnn.distribute_tensor(host, mapper, None)
    t = ttnn.to_device(h, md)
    u = ttnn.to_device(h, md)  # a live second operand
    if free:
        ttnn.deallocate(t)
    print("READY", flush=True)
    eval(call, {"ttnn": ttnn, "t": t, "u": u, "h": h, "md": md})
    print("RETURNED", flush=True)


def message(stderr: str) -> str:
    """ttnn's own words: the first line after 'info:' of a TT_FATAL / TT_THROW, else the exception line."""
    lines = [line.strip() for line in stderr.splitlines()]
    for i, line in enumerate(lines):
        if line == "info:" and i + 1 < len(lines):
            return lines[i + 1]
    return next((line for line in reversed(lines) if "Error" in line), "")


def outcome(call: str, free: bool) -> dict:
    p = subprocess.run([sys.executable, __file__, "--child", call, "1" if free else "0"], capture_output=True, text=True, timeout=600)
    if "READY" not in p.stdout:
        raise SystemExit(f"{call}: the set-up failed:\n{p.stderr[-2000:]}")
    if p.returncode < 0:
        return {"outcome": "crash", "signal": signal.Signals(-p.returncode).name}
    if "RETURNED" in p.stdout:
        return {"outcome": "returns"}
    return {"outcome": "raise", "error": message(p.stderr)}


def main() -> None:
    out = {"ttnn_version": version(), "recorded_by": "tools/golden/record_freed.py",
           "tensor": "(1, 8, 32, 32) bfloat16 TILE, [R, S(1)] on a 2x4 T3K, then ttnn.deallocate(t)", "ops": {}}
    for op, call in CASES.items():
        live, freed = outcome(call, False), outcome(call, True)
        if freed["outcome"] in ("crash", "raise") and freed != live:
            verdict = freed["outcome"]
        else:
            verdict = "runs"  # returns, or fails as the live tensor does: nothing checked it first
        out["ops"][op] = {"call": call, "verdict": verdict, "freed": freed, "live": live}
        print(f"{op:28} {verdict:6} {freed}", flush=True)
    out_path().write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3] == "1")
    else:
        main()
