"""Fuzz family for ``meshspec export`` (issue 34, section 1 and the export items of section 4).

``opaque``: a scenario whose tensors have hostile names (``.``, ``-``, dunders, the names of ttnn's
namespaces, of builtins and of the script's own helpers) and an opaque step whose code is built from
hostile pieces (calls of what ttnn imports, a tensor named like a namespace, ``sys.copyright``,
huge powers, text, lambdas, ``1.e-5``), then mutated. The scenario is loaded (a refusal is one
line), exported, and the script's AST checked with tests/script_whitelist.py; a line the script
runs calls exactly the step's declared call. The ``--minimal`` script is checked the same way.

``file-names``: random tensor file names (separators, dots, ``%``, non-ASCII, very long) map to
distinct plain names inside the script's folder, as the simulation keeps them apart.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import yaml

from meshspec.bridge.export import export
from meshspec.sim.ops.exporting import in_files as _in_files
from meshspec.bridge.minimal import export_minimal
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse
from script_whitelist import minimal_problems, problems

NAMES = ("a", "b", "x", "ttnn.experimental", "ttnn.add", "ttnn.run", "ttnn.sys", "ttnn", "_-dict-_", "__class__", "__dict__",
         "__builtins__", "e-5", "e", "os", "sys", "exec", "eval", "np", "host_tensor", "files", "here", "mesh_device", "_",
         "a.shape", "a.b-c", "dict", "list", "step", "locals", "float", "t.__globals__", "parts", "x-1", "E-10")
CALLS = ("ttnn.add", "ttnn.experimental.all_gather_async", "ttnn.to_layout", "ttnn.os", "ttnn.os.system", "ttnn.ModuleType",
         "ttnn.experimental.pop", "ttnn.experimental.insert", "ttnn.run", "ttnn.sys.exit", "exec", "ttnn.dump_tensor",
         "ttnn.add.__call__", "ttnn.json.loads")
PIECES = ("10**10**10", "2**64", "2**65", "10**400", "9" * 25, "1.e-5", "1e308*10", "-0.5", "True", "None", "'/tmp/owned'",
          "b'x'", "ttnn.sys.copyright", "ttnn.sys.copyright[ttnn.is_sharded({u})]", "ttnn.bfloat16", "ttnn.Topology.Linear",
          "ttnn.MemoryConfig(ttnn.TensorMemoryLayout.INTERLEAVED)", "ttnn.TILE_LAYOUT", "{u}.shape[-1] // 32", "{u}.__dict__",
          "{u}._-dict-_", "{u}.shape.__class__", "lambda: 0", "[0] * 10**18", "[{u}, {u}]", "({u},)", "{{1: {u}}}", "*{u}",
          "**{u}", "{u}[0]", "__import__('os')", "().__class__.__base__", "{u} if {u} else {u}", "[i for i in {u}]",
          "f'{{{u}}}'", "ttnn.experimental.pop({u})", "{u}.pop(0)", "ttnn.CoreCoord(1, 2)", "ttnn.CoreCoord(x=2**70)",
          "float('nan')", "{u}.padded_shape[1:3]", "-{u}.shape[0]")
NOISE = (".", "-", "_", "__", "(", ")", "[", "]", ",", "=", "*", ";", "\n", "\r", "\u2028", "\x85", "#", "'", "\\", ":", " ")
TOPOLOGY = {"distribution_shape": [2, 4], "placements": ["R", "R"],
            "coords": [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}


VALID = ("2**10", "1.e-5", "-3", "True", "None", "ttnn.bfloat16", "ttnn.Topology.Linear", "ttnn.TILE_LAYOUT",
         "ttnn.MemoryConfig(ttnn.TensorMemoryLayout.INTERLEAVED, ttnn.BufferType.L1)", "{u}.shape[-1] // 32 + 1",
         "[{u}, ({u}, 2)]", "{{1: {u}.dtype}}", "{u}.padded_shape[1:3]", "ttnn.CoreCoord(1, 2)")


def _code(rng: random.Random, call: str, uses: list[str]) -> str:
    plain = [u for u in uses if u.isidentifier()]
    if plain and rng.random() < 0.3:  # a line that may well be run: the generated line is checked too
        args = [rng.choice(plain)] + [rng.choice(VALID).format(u=rng.choice(plain)) for _ in range(rng.randrange(0, 4))]
        return f"out = {call}({', '.join(args)})"
    args = [rng.choice(uses)] + [rng.choice(PIECES).format(u=rng.choice(uses)) for _ in range(rng.randrange(0, 4))]
    if rng.random() < 0.4:
        key = rng.choice(("dim", "memory_config", "topology", "__class__", "_x", "num_links"))
        args.append(f"{key}={rng.choice(PIECES).format(u=rng.choice(uses))}")
    func = call if rng.random() < 0.8 else rng.choice([*CALLS, *uses])
    code = f"{rng.choice(('out = ', '', 'a, b = ', 'x.y = '))}{func}({', '.join(args)})"
    for _ in range(rng.choice((0, 0, 0, 1, 2))):
        i = rng.randrange(len(code) + 1)
        code = code[:i] + rng.choice(NOISE) + code[i:]
    return code


def opaque(rng: random.Random, scratch: Path) -> str:
    uses = rng.sample(NAMES, rng.randrange(1, 4))
    call = rng.choice(CALLS)
    steps = [{"allocate_tensor_on_device": {"as": "t0", "shape": [1, 1, 32, 32]}}]
    for u in uses:
        if u.endswith("experimental") or u == "parts":
            steps.append({"get_device_tensors": {"tensor": "t0", "as": u}})
        else:
            steps.append({"allocate_tensor_on_device": {"as": u, "shape": [1, 1, 32, 32]}})
    code = _code(rng, call, uses)
    steps.append({"opaque": {"as": "out", "call": call, "uses": uses, "shape": [1, 1, 32, 32], "code": code, "topology": TOPOLOGY}})
    text = yaml.safe_dump({"meshspec": 1, "name": "fuzz", "mesh": "t3k", "steps": steps}, sort_keys=False, allow_unicode=True)
    (scratch / "opaque.yaml").write_text(text, encoding="utf-8")
    try:
        scenario = parse(text, scratch / "opaque.yaml")
    except ScenarioError as err:
        assert "\n" not in str(err).strip(), f"a refusal in more than one line: {err}"
        return "refused"
    script = export(scenario)
    found = problems(script)
    assert found == [], f"{code!r} (call {call}, uses {uses}): {found}"
    found = minimal_problems(export_minimal(scenario))
    assert found == [], f"--minimal: {code!r} (call {call}, uses {uses}): {found}"
    reasons = [line for line in script.splitlines() if "the scenario's code for this step is not run here" in line]
    if reasons:
        assert len(reasons) == 1, reasons
        return "not-run"
    repro = next(n for n in ast.parse(script).body if isinstance(n, ast.FunctionDef) and n.name == "repro")
    last = [s for s in repro.body if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "out"][-1]
    assert isinstance(last.value, ast.Call) and ast.unparse(last.value.func) == call, ast.unparse(last)
    return "run"


def file_names(rng: random.Random, scratch: Path) -> str:
    alphabet = "ab/._-%é\udcff\\ :\x00" if rng.random() < 0.1 else "ab/._-%é "
    names = {"".join(rng.choice(alphabet) for _ in range(rng.choice((1, 2, 5, 40, 200)))) for _ in range(20)}
    mapped = {}
    for name in names:
        m = _in_files(name)
        assert "/" not in m and "\x00" not in m and not m.startswith(".") and m not in ("", ".", ".."), (name, m)
        assert len(m.encode("utf-8", "surrogatepass")) <= 200, (name, m)
        assert mapped.setdefault(m, name) == name, f"{name!r} and {mapped[m]!r} both map to {m!r}"
    return "distinct"


FAMILIES = {"opaque": opaque, "file-names": file_names}
