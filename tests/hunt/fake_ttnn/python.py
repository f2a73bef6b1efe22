"""A stand-in for the Python that has ttnn (``meshspec hunt --real PYTHON``), for tests that need
no ttnn: asked for ttnn's version (``-c ...``) it prints $FAKE_TTNN_VERSION; started as the worker
(``worker.py``) it speaks the worker's protocol, and answers each job as $FAKE_TTNN_MODE says:

- ``error``: a report of the exported program (its MESH_SHAPE and STEPS read from the script) whose
  first step raised ``fake refusal``;
- ``exit``: the script stopped itself (a name the version lacks);
- ``die``: the process dies before writing anything.
"""

import ast
import json
import os
import sys


def main():
    if sys.argv[1] == "-c":
        print(os.environ.get("FAKE_TTNN_VERSION", "0.81.1"))
        return
    mode = os.environ["FAKE_TTNN_MODE"]
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        if mode == "die":
            os._exit(139)
        if mode == "exit":
            print(json.dumps({"exit": "this script calls ttnn.fake, which ttnn 0.81.1 has not"}), flush=True)
            continue
        script = open(job["script"]).read()
        values = {ln.split(" = ", 1)[0]: ast.literal_eval(ln.split(" = ", 1)[1]) for ln in script.splitlines()
                  if ln.startswith(("MESH_SHAPE = ", "STEPS = "))}
        report = {"format": "meshspec.report/1", "scenario": "hunt", "path": None, "profile": "ttnn 0.81.1 (a fake)",
                  "mesh": values["MESH_SHAPE"], "steps_run": 0, "steps_total": len(values["STEPS"]), "tensors": [], "findings": [],
                  "error": {"step": 0, "op": values["STEPS"][0], "message": "fake refusal", "source": "ttnn"}}
        with open(job["out"], "w") as f:
            json.dump(report, f)
        print(json.dumps({"ran": True}), flush=True)


main()
