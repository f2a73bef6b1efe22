"""Runs exported programs on the real ttnn, one after another in one process (``meshspec hunt --real``).

Started by :mod:`meshspec.hunt.real` as ``PYTHON worker.py`` in the Python that has ttnn, so it
imports nothing of meshspec. Importing ttnn and opening the first mesh take most of a program's
time in a process of its own (measured in the mock: 0.35 s of 0.4 s); here they are paid once.

Each line on stdin is a job, ``{"script": PATH, "out": PATH}``: the exported script (meshspec
export) is loaded as a module and its ``main(out)`` run, which writes the real records to ``out``
(before each step too, so a step that kills the process leaves its report). The meshes it opened
are closed afterwards, so the next program starts on a fresh mesh (its buffers at the same
addresses as in a process of its own). Each job is answered by one JSON line on the original
stdout: ``{"ran": true}``, or ``{"exit": TEXT}`` when the script stopped itself (a name the
version lacks, the fabric), or ``{"failed": TEXT}`` when it raised. Everything else written to
stdout or stderr (ttnn's own log lines) goes to stderr.
"""

import gc
import json
import os
import runpy
import sys


def main():
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # ttnn's lines on stdout would garble the answers: stdout is stderr from here
    sys.stdout = sys.stderr
    import ttnn

    opened = []
    real_open = ttnn.open_mesh_device

    def open_mesh_device(*args, **kwargs):
        mesh = real_open(*args, **kwargs)
        opened.append(mesh)
        return mesh

    ttnn.open_mesh_device = open_mesh_device
    answer(channel, {"ready": True})
    for line in sys.stdin:
        job = json.loads(line)
        answer(channel, run(job["script"], job["out"]))
        gc.collect()  # the program's tensors, before their mesh closes
        while opened:
            try:
                ttnn.close_mesh_device(opened.pop())
            except Exception as exc:  # noqa: BLE001 - the next job gets a fresh process
                print(f"worker: closing the mesh failed ({first_line(exc)}); stopping", file=sys.stderr)
                return


def run(script, out):
    sys.argv = [script, out]
    try:
        module = runpy.run_path(script, run_name="meshspec_hunt_program")
        module["main"](out)
    except SystemExit as exc:
        return {"exit": str(exc.code)}
    except Exception as exc:  # noqa: BLE001 - the script's own failure (not a step's: main catches those)
        return {"failed": f"{type(exc).__name__}: {first_line(exc)}"}
    finally:
        module = None
    return {"ran": True}


def first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


def answer(channel, data):
    channel.write(json.dumps(data) + "\n")
    channel.flush()


if __name__ == "__main__":
    main()
