"""The whitelist every script ``meshspec export`` writes must keep to (issue 34: a scenario is data).

:func:`problems` walks a script's AST. Everything outside ``repro()`` is the script's own template:
each top-level statement must be one that the export of a fixed reference scenario has too (the
few that hold the scenario's data, ``MESH_SHAPE``, ``STEPS``, ``NAMES``, ``FABRIC``, ``NEEDS``, ``here`` and the name in
``report()``, must hold only literals). Inside ``repro()``, the steps, every node is checked:

- a call calls a known ttnn callable (meshspec/scenario/ttnn_api.py), one of the script's own helper
  functions, a tensor method export writes (``x.cpu()``), or ``np.zeros``/``ones``/``full``/``load``;
  never a local variable, a builtin, or an attribute chain off ``ttnn`` not in the recorded lists;
- an attribute off ``ttnn`` is a known function, constant or config class; off a local it is a
  tensor attribute or a method above; no name or attribute is a dunder;
- a subscript is of a local list (``parts[0]``) or of a tensor attribute (``a.shape[-1]``), never
  of a builtin or a module; ``**`` only of two small literals; text only as a file name under the
  script's own folders (``files / 'x'``, ``here / 'x.npy'``) or ``float('nan')``.
"""

from __future__ import annotations

import ast
import builtins
import functools
from pathlib import Path

from meshspec.scenario import ttnn_api
from meshspec.bridge.export import HELPERS, export
from meshspec.scenario.loader import parse

KNOWN_TTNN = ttnn_api.FUNCTIONS | ttnn_api.CONSTANTS | ttnn_api.CONFIG_CLASSES | ttnn_api.EXISTING
CALLABLE_TTNN = ttnn_api.FUNCTIONS | ttnn_api.CONFIG_CLASSES | ttnn_api.EXISTING
HELPER_CALLS = frozenset({n.name for n in ast.parse(HELPERS).body if isinstance(n, ast.FunctionDef)} | {"step", "locals", "float"})
NUMPY = frozenset({"np.zeros", "np.ones", "np.full", "np.load", "np.float32", "np.float64"})
METHODS = frozenset({"cpu", "to", "update_tensor_topology", "create_submesh", "create_submeshes", "reshape", "unpad", "pad_to_tile"})
ATTRIBUTES = frozenset({"shape", "padded_shape", "dtype", "layout", "shard_spec"})
# FABRIC (issue 37): the ttnn.FabricConfig name main() sets up for collectives, or None; NEEDS: the ttnn
# names main() checks the running version has (a version without one cannot run the script: issue 37)
DATA = ("MESH_SHAPE", "STEPS", "NAMES", "FABRIC", "NEEDS")
PARAMETERS = ("mesh_device", "files")

REFERENCE = """meshspec: 1
name: reference
mesh: t3k
steps:
  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}
"""


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _key(node: ast.stmt, lines: list[str]):
    """What a top-level statement is, for comparing with the reference: its text, with the data
    statements and report()'s scenario name reduced to their kind."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        if node.targets[0].id in (*DATA, "here"):
            return ("data", node.targets[0].id)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return ("doc",)
    if isinstance(node, ast.FunctionDef) and node.name == "repro":
        return ("repro",)
    text = lines[node.lineno - 1 : node.end_lineno]
    if isinstance(node, ast.FunctionDef) and node.name == "report":  # its scenario name, a literal
        call = next(n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "report_json")
        name = call.args[0]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.lineno == name.end_lineno):
            return ("report", "name not a literal")
        i = name.lineno - node.lineno
        text = [*text[:i], text[i][: name.col_offset] + "NAME" + text[i][name.end_col_offset :], *text[i + 1 :]]
    return "\n".join(text)


@functools.lru_cache(maxsize=1)
def _reference() -> frozenset:
    text = export(parse(REFERENCE, Path("reference.yaml")))
    lines = text.splitlines()
    return frozenset(_key(n, lines) for n in ast.parse(text).body)


def problems(text: str) -> list[str]:
    """Every node of the script ``text`` outside the whitelist, one line each (empty: clean)."""
    tree = ast.parse(text)
    found: list[str] = []
    reference = _reference()
    lines = text.splitlines()
    repro = None
    for node in tree.body:
        key = _key(node, lines)
        if key == ("repro",):
            repro = node
        elif isinstance(key, tuple) and key[0] == "data":
            found += _data(node)
        elif key not in reference:
            found.append(f"line {node.lineno}: a top-level statement not in export's template: {ast.unparse(node)[:80]}")
    if repro is None:
        return found + ["no repro() function"]
    if [a.arg for a in repro.args.args] != list(PARAMETERS):
        found.append(f"repro's parameters are {[a.arg for a in repro.args.args]}")
    return found + _Steps(repro, _module_names(tree)).check()


def _module_names(tree: ast.Module) -> frozenset:
    """What the script binds at module level (its imports, helpers, data): no step reads them but
    through the calls and roots the whitelist names."""
    names = set()
    for top in tree.body:
        for node in ast.walk(top) if isinstance(top, (ast.Try, ast.If)) else [top]:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name != "repro":
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(names)


def _data(node: ast.Assign) -> list[str]:
    name = node.targets[0].id
    if name == "here":
        value = node.value
        while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div) and isinstance(value.right, ast.Constant) \
                and isinstance(value.right.value, str) and value.right.value not in ("..", ""):
            value = value.left
        return [] if ast.unparse(value) == "Path(__file__).resolve().parent" else [f"here = {ast.unparse(node.value)[:80]}"]
    try:
        ast.literal_eval(node.value)
    except ValueError:
        return [f"{name} holds more than literals: {ast.unparse(node.value)[:80]}"]
    return []


class _Steps:
    helpers = HELPER_CALLS
    numpy = NUMPY
    methods = METHODS

    def __init__(self, repro: ast.FunctionDef, module_names: frozenset) -> None:
        self.repro = repro
        # builtins._ is no builtin: the display hook binds it once a doctest or a REPL shows a value
        self.forbidden = (set(dir(builtins)) - {"_"} | module_names) - set(PARAMETERS)
        self.locals = set(PARAMETERS)
        self.found: list[str] = []
        for node in ast.walk(repro):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)

    def variable(self, name: str) -> bool:
        """Whether ``name`` may be a variable of the steps: a tensor's, a list's, a trace's (one the
        scenario never binds is a NameError, not a builtin), never a builtin, a module-level name of
        the script, or a dunder."""
        return name.isidentifier() and not _dunder(name) and name not in self.forbidden

    def bad(self, node: ast.AST, why: str) -> None:
        self.found.append(f"line {getattr(node, 'lineno', '?')}: {why}: {ast.unparse(node)[:100]}")

    def check(self) -> list[str]:
        for name in self.locals:
            if not self.variable(name):
                self.found.append(f"a local variable named {name!r}")
        for stmt in self.repro.body:
            self.statement(stmt)
        return self.found

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.call(stmt.value)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Subscript):
                if not (isinstance(target.value, ast.Name) and isinstance(target.slice, ast.Constant) and type(target.slice.value) is int):
                    self.bad(stmt, "an assignment to other than a variable or a list's item")
            elif not isinstance(target, ast.Name):
                self.bad(stmt, "an assignment to other than a variable")
            self.expr(stmt.value)
        elif isinstance(stmt, ast.Return) and ast.unparse(stmt) == "return locals()" and stmt is self.repro.body[-1]:
            pass
        else:
            self.bad(stmt, f"a {type(stmt).__name__} statement")

    def call(self, node: ast.Call) -> None:
        func = node.func
        dotted = _dotted(func)
        if isinstance(func, ast.Name):
            if func.id not in self.helpers:
                self.bad(node, f"a call of {func.id!r}, not of the script's own helpers")
            elif func.id == "float" and not (len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                                             and node.args[0].value in ("nan", "inf") and not node.keywords):
                self.bad(node, "float() of other than 'nan' or 'inf'")
            elif func.id == "locals":
                self.bad(node, "locals() other than in the last return")
        elif dotted is not None and dotted.split(".")[0] == "ttnn":
            if dotted not in CALLABLE_TTNN:
                self.bad(node, f"a call of {dotted}, not a known ttnn callable")
        elif dotted is not None and dotted.split(".")[0] == "np":
            if dotted not in self.numpy:
                self.bad(node, f"a call of {dotted}")
        elif isinstance(func, ast.Attribute) and func.attr in self.methods:
            self.expr(func.value)
        else:
            self.bad(node, "a call of an expression")
        if dotted == "float":
            return
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.starred(a)
            else:
                self.expr(a)
        for k in node.keywords:
            if k.arg is None or _dunder(k.arg):
                self.bad(node, "a ** or dunder keyword")
            self.expr(k.value)

    def starred(self, node: ast.Starred) -> None:
        if not (isinstance(node.value, ast.Name) and self.variable(node.value.id)):
            self.bad(node, "a starred argument of other than a local list")

    def expr(self, node: ast.expr) -> None:  # noqa: C901 - one branch per kind of node
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, bytes)):
                self.bad(node, "a text literal outside a file name")
            elif isinstance(node.value, int) and not isinstance(node.value, bool) and abs(node.value) > 2**64:
                self.bad(node, "an integer larger than 2**64")
        elif isinstance(node, ast.Name):
            if not self.variable(node.id):
                self.bad(node, f"the name {node.id!r}, not a variable of the steps")
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if _dunder(node.attr):
                self.bad(node, "a dunder attribute")
            elif dotted is not None and dotted.split(".")[0] == "ttnn":
                if dotted not in KNOWN_TTNN:
                    self.bad(node, f"{dotted}, not a known ttnn function, constant or class")
            elif dotted is not None and dotted.split(".")[0] == "np":
                if dotted not in self.numpy:
                    self.bad(node, f"{dotted}")
            elif node.attr in ATTRIBUTES:
                self.expr(node.value)
            else:
                self.bad(node, f"the attribute {node.attr!r}")
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.BinOp):
            self.binop(node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            self.expr(node.operand)
        elif isinstance(node, (ast.List, ast.Tuple)):
            for e in node.elts:
                self.starred(e) if isinstance(e, ast.Starred) else self.expr(e)
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is None:
                    self.bad(node, "a ** in a dict")
                else:
                    self.expr(k)
                self.expr(v)
        elif isinstance(node, ast.Subscript):
            value = node.value
            if isinstance(value, ast.Name):
                if not self.variable(value.id):
                    self.bad(node, f"a subscript of {value.id!r}, not of a variable of the steps")
            elif isinstance(value, ast.Attribute) and value.attr in ATTRIBUTES or isinstance(value, ast.Subscript):
                self.expr(value)
            else:
                self.bad(node, "a subscript of other than a local or a tensor attribute")
            self.expr(node.slice)
        elif isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.expr(part)
        else:
            self.bad(node, f"a {type(node).__name__} expression")

    def binop(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.Pow):
            if not (isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant)
                    and isinstance(node.right.value, int) and 0 <= node.right.value <= 64):
                self.bad(node, "a power of other than two small literals")
            else:
                self.expr(node.left)
            return
        if isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant) and isinstance(node.right.value, str):
            root = node.left
            while isinstance(root, ast.BinOp) and isinstance(root.op, ast.Div) and isinstance(root.right, ast.Constant):
                root = root.left
            name = node.right.value
            if not (isinstance(root, ast.Name) and root.id in ("files", "here")):
                self.bad(node, "a path outside the script's folders")
            elif root.id == "files" and ("/" in name or name.startswith(".")):
                self.bad(node, "a tensor file other than a plain name in the script's own folder")
            elif name.startswith("/") or ".." in name.split("/") or not name:
                self.bad(node, "a data file outside the scenario's folder")
            return
        if type(node.op) not in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod):
            self.bad(node, f"the operator {type(node.op).__name__}")
        if any(isinstance(side, (ast.List, ast.Tuple, ast.Dict, ast.Set)) for side in (node.left, node.right)):
            self.bad(node, "arithmetic on a list, tuple or dict (a list times 10**18 is a hang)")
        self.expr(node.left)
        self.expr(node.right)


# -- export --minimal: module-level steps between the mesh's opening and the printing loop -------

MINIMAL_IMPORTS = frozenset({"import numpy as np", "import ttnn", "import tempfile", "from pathlib import Path"})
MINIMAL_FILES = "files = Path(tempfile.mkdtemp(prefix='meshspec-'))"
MINIMAL_CLOSE = "ttnn.close_mesh_device(mesh_device)"
MINIMAL_FABRIC = {f"ttnn.set_fabric_config(ttnn.FabricConfig.{c})": c for c in ("FABRIC_1D", "FABRIC_1D_RING", "DISABLED")}
MINIMAL_NAMES = frozenset({"np", "ttnn", "tempfile", "Path", "files", "here", "name", "tensor", "part"})


class _MinimalSteps(_Steps):
    """The steps' rules, for the calls a minimal script makes instead of the full export's helpers:
    numpy data (``np.arange(n, dtype=np.float32).reshape(...)``, a seeded generator) and
    ``to_numpy``, no helper function at all."""

    helpers = frozenset({"float", "print"})
    numpy = NUMPY | {"np.arange", "np.random.default_rng"}
    methods = METHODS | {"to_numpy", "standard_normal", "astype"}


@functools.lru_cache(maxsize=1)
def _minimal_loop() -> str:
    """The printing loop's body in the minimal export of the reference scenario."""
    from meshspec.bridge.minimal import export_minimal

    tree = ast.parse(export_minimal(parse(REFERENCE, Path("reference.yaml"))))
    loop = next(n for n in tree.body if isinstance(n, ast.For))
    return "\n".join(ast.unparse(s) for s in loop.body)


def minimal_problems(text: str) -> list[str]:
    """Every node of a ``meshspec export --minimal`` script outside the whitelist (empty: clean).

    The template's statements are the imports above, the temporary folder, ``here`` (a path under
    the script's folder), the fabric set before the mesh opens, the mesh's opening
    (``ttnn.open_mesh_device(ttnn.MeshShape(ints))``), the printing loop (the reference's body, over
    a dict of text literals to step variables) and the mesh's closing, last but the fabric's reset. Every other statement is a step, checked by the rules of
    ``repro()``'s steps in a full export."""
    tree = ast.parse(text)
    found: list[str] = []
    steps: list[ast.stmt] = []
    seen: list[str] = []
    for node in tree.body:
        source = ast.unparse(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if source not in MINIMAL_IMPORTS:
                found.append(f"line {node.lineno}: an import not in the template: {source[:80]}")
        elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) in ("files", "here", "mesh_device"):
            target = ast.unparse(node.targets[0])
            seen.append(target)
            if target == "files" and source != MINIMAL_FILES:
                found.append(f"line {node.lineno}: files = {ast.unparse(node.value)[:80]}")
            elif target == "here":
                found += _data(node)
            elif target == "mesh_device":
                found += _minimal_open(node)
        elif isinstance(node, ast.For):
            seen.append("for")
            found += _minimal_for(node, steps)
        elif source in MINIMAL_FABRIC:  # set before the mesh opens, reset last
            reset = MINIMAL_FABRIC[source] == "DISABLED"
            seen.append("fabric reset" if reset else "fabric")
            if (node is not tree.body[-1]) if reset else ("mesh_device" in seen):
                found.append(f"line {node.lineno}: the fabric set elsewhere than before the mesh opens or last: {source}")
        elif source == MINIMAL_CLOSE:
            seen.append("close")
            rest = tree.body[tree.body.index(node) + 1:]
            if [ast.unparse(n) for n in rest] not in ([], ["ttnn.set_fabric_config(ttnn.FabricConfig.DISABLED)"]):
                found.append(f"line {node.lineno}: the mesh is closed before the end")
        elif "for" in seen:
            found.append(f"line {node.lineno}: a statement after the printing loop: {source[:80]}")
        else:
            steps.append(node)
    for name in ("mesh_device", "for", "close"):
        if seen.count(name) != 1:
            found.append(f"{name!r} is in the script {seen.count(name)} times, not once")
    if len(seen) != len(set(seen)):
        found.append(f"a template statement twice: {seen}")
    fake = ast.FunctionDef(name="repro", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                           body=steps or [ast.Pass()], decorator_list=[])
    names = _module_names(ast.Module(body=[n for n in tree.body if n not in steps], type_ignores=[])) | MINIMAL_NAMES
    return found + _MinimalSteps(fake, names).check() if steps else found


def _minimal_open(node: ast.Assign) -> list[str]:
    value = node.value
    ok = (isinstance(value, ast.Call) and ast.unparse(value.func) == "ttnn.open_mesh_device" and len(value.args) == 1
          and not value.keywords and isinstance(value.args[0], ast.Call) and ast.unparse(value.args[0].func) == "ttnn.MeshShape"
          and not value.args[0].keywords
          and all(isinstance(a, ast.Constant) and type(a.value) is int and 0 < a.value <= 1024 for a in value.args[0].args))
    return [] if ok else [f"line {node.lineno}: the mesh opened otherwise than with a shape of integers: {ast.unparse(value)[:80]}"]


def _minimal_for(node: ast.For, steps: list[ast.stmt]) -> list[str]:
    """The printing loop: ``for name, tensor in {'a': a, ...}.items():`` and the reference's body."""
    found = []
    stored = {n.id for s in steps for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    it = node.iter
    if not (ast.unparse(node.target) == "(name, tensor)" and isinstance(it, ast.Call) and not it.args and not it.keywords
            and isinstance(it.func, ast.Attribute) and it.func.attr == "items" and isinstance(it.func.value, ast.Dict)):
        return [f"line {node.lineno}: a loop other than the printing one: {ast.unparse(node)[:80]}"]
    for key, value in zip(it.func.value.keys, it.func.value.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            found.append(f"line {node.lineno}: a printed name that is not a text literal")
        if not (isinstance(value, ast.Name) and value.id in stored):
            found.append(f"line {node.lineno}: a printed tensor that is not a step's variable: {ast.unparse(value)[:80]}")
    if node.orelse or "\n".join(ast.unparse(s) for s in node.body) != _minimal_loop():
        found.append(f"line {node.lineno}: the printing loop's body is not the template's")
    return found
