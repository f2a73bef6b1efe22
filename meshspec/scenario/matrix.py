"""One scenario over several dtypes, layouts or meshes, as ``pytest.mark.parametrize`` runs one test
over several values: a scenario-level ``matrix`` whose combinations each run as one case::

    matrix:
      dtype: [bfloat16, float32]
      layout: [tile, row_major]
    mesh: t3k
    steps:
      - from_torch: {as: x, shape: [1, 1, 32, 32], dtype: $dtype, layout: $layout}
    expect:
      tensors: {x: {recorded: [[0, 0]]}}          # every case
      cases:                                      # the cases whose values match `when`, on top
        - when: {dtype: float32}
          tensors: {x: {dtype: float32}}

A value written ``$name`` (the whole value) stands for the variable's value in each case: any YAML
value (a word, a number, a shape, a mapping). Cases are the product of the lists, in order, the
last variable fastest (as stacked parametrize marks list them), each named by its values joined
with ``-`` as pytest names them: ``[bfloat16-tile]``. A case's expect block is the block's own with
the ``profiles`` and ``tensors`` entries of every ``cases`` item whose ``when`` matches put over it,
by name. At most :data:`MAX_CASES` cases, at most :data:`MAX_RUNS` runs under ``--profile all``,
and the cases' documents, their values filled in, hold at most the loader's value limit, counted
before any is built. A name longer than :data:`MAX_CASE_ID` is cut to a prefix and a hash.

Plain data in, plain data out: the loader validates each case as it validates any scenario.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import re
from typing import Any, Callable, Optional

from ..errors import ScenarioError, did_you_mean, listed
from ..text import one_line
from ..typed import where as _where

MATRIX = "matrix"
MAX_CASES = 64
"""Most combinations a matrix may make: each is a run per profile (``check`` runs every case)."""
MAX_RUNS = 1024
"""Most runs a matrix scenario asks for: its cases times every profile ``--profile all`` runs
(meshspec's and the scenario's own). 64 cases of 263 profiles asked for 16,832 runs."""
MAX_CASE_ID = 60
"""Longest case name kept whole: 5,000 variables named a case in 10,000 characters, in every
error and report line; a longer one is its first characters and a hash of the whole."""
VARIABLE = re.compile(r"[a-z_][a-z0-9_]{0,31}")
PLACEHOLDER = re.compile(r"\$(" + VARIABLE.pattern + r")")

Where = Callable[[tuple], tuple[int, int]]
"""A place in the document (keys and indices) -> its line and column."""


def case_id(values: dict[str, Any]) -> str:
    """``bfloat16-tile``, ``1x8``: the case's values as pytest names a parametrized case (a shape as
    its dims joined with x), on one line whatever the values hold (it is printed beside every
    result, in JUnit and in pytest ids).

    >>> case_id({"dtype": "bfloat16", "mesh": [1, 8], "fill": 0.5})
    'bfloat16-1x8-0.5'
    """
    def one(v: Any) -> str:
        if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return "x".join(map(str, v)) or "[]"
        if isinstance(v, (list, dict)):
            return re.sub(r"[^\w.,:\[\]{}-]+", "", str(v))
        return str(v).lower() if isinstance(v, bool) else str(v)

    return short_id(one_line("-".join(one(v) for v in values.values())))


def short_id(name: str) -> str:
    """``name`` if at most :data:`MAX_CASE_ID` characters, else its first 48, ``~`` and the first
    10 hex digits of its SHA-256: recognisable by its start, and two long names differ.

    >>> short_id("1-" * 40)
    '1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-~f0a1874228'
    """
    if len(name) <= MAX_CASE_ID:
        return name
    return f"{name[:48]}~{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def expand(data: dict, file: str, where: Where, max_values: int) -> list[tuple[str, dict, dict[str, int]]]:
    """Each case of ``data`` (a scenario with a ``matrix``), as (its id, its document, the index of
    each variable's value in the matrix): the
    placeholders replaced by the case's values, ``expect.cases`` merged and removed. Errors are one
    line at the place they are about. ``max_values``: most values (YAML nodes) the cases' documents
    may hold, each case and all together, counted before any is built (:func:`_check_size`): the
    loader's ``MAX_VALUES``, the limit its blocks expand to (the loader imports this module)."""
    matrix = data[MATRIX]

    def fail(loc: tuple, message: str) -> None:
        raise ScenarioError(f"{_where(loc)}: {message}", file, *where(loc))

    if not isinstance(matrix, dict) or not matrix:
        fail((MATRIX,), "a matrix is a mapping of variables to their values, like {dtype: [bfloat16, float32]}")
    count = 1
    for name, values in matrix.items():
        if not isinstance(name, str) or not VARIABLE.fullmatch(name):
            fail((MATRIX, name), f"{name!r} cannot name a matrix variable: lower-case letters, digits and _ (a step writes it $name)")
        if not isinstance(values, list) or not values:
            fail((MATRIX, name), f"the values of {name!r} are a non-empty list, like [bfloat16, float32], got {values!r}")
        count *= len(values)
    if count > MAX_CASES:
        sizes = " x ".join(listed([str(len(v)) for v in matrix.values()], 8).split(", "))
        fail((MATRIX,), f"{sizes} = {count:,} combinations; a matrix makes at most {MAX_CASES} cases (each runs under every "
                        "profile checked): fewer values, or split the scenario")
    used = _check_placeholders(data, list(matrix), fail)
    unused = [n for n in matrix if n not in used]
    if unused:
        fail((MATRIX, unused[0]), f"{unused[0]!r} is used nowhere: write ${unused[0]} where its value goes, or drop it")
    cases = _case_entries(data, matrix, fail)
    _check_runs(data, count, fail)
    _checkvalues_in(data, matrix, max_values, fail)
    out = []
    seen: dict[str, int] = {}
    for picks in itertools.product(*(range(len(v)) for v in matrix.values())):
        values = {n: matrix[n][i] for n, i in zip(matrix, picks)}
        name = case_id(values)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}{seen[name] - 1}"  # as pytest numbers repeated ids
        doc = {k: _substitute(v, values) for k, v in data.items() if k != MATRIX}
        if isinstance(doc.get("expect"), dict):
            doc["expect"] = _case_expect(data["expect"], cases, values)
        out.append((name, doc, dict(zip(matrix, picks))))
    return out


def placeholders(data: dict) -> list[tuple[tuple, str]]:
    """(place, variable) of every ``$name`` the cases fill in."""
    return [(loc, text[1:]) for loc, text in _walk(data, (), _not_substituted) if PLACEHOLDER.fullmatch(text)]


def _walk(value: Any, loc: tuple, skip: Callable[[tuple], bool]):
    """(loc, text) of every placeholder-looking string in ``value``, outside the places ``skip`` says."""
    if skip(loc):
        return
    if isinstance(value, str):
        if value.startswith("$"):
            yield loc, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, loc + (k,), skip)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, loc + (i,), skip)


def _not_substituted(loc: tuple) -> bool:
    """The matrix itself and a case's ``when`` hold values, not placeholders."""
    return loc[:1] == (MATRIX,) or (loc[:2] == ("expect", "cases") and len(loc) >= 4 and loc[3] == "when")


def _check_placeholders(data: dict, names: list[str], fail) -> set[str]:
    """Every ``$name`` names a variable of the matrix; returns those used."""
    used: set[str] = set()
    for loc, text in _walk(data, (), _not_substituted):
        m = PLACEHOLDER.fullmatch(text)
        if m is None or m.group(1) not in names:
            name = m.group(1) if m is not None else text[1:]
            fail(loc, f"{text!r} names no matrix variable{did_you_mean(name, names)}; the matrix has {listed(names)}")
        used.add(m.group(1))  # type: ignore[union-attr]
    return used


def _substitute(value: Any, values: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("$") and value[1:] in values:
        return copy.deepcopy(values[value[1:]])
    if isinstance(value, dict):
        return {k: _substitute(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, values) for v in value]
    return value


def _case_entries(data: dict, matrix: dict, fail) -> list[dict]:
    """The ``expect.cases`` items, each checked: a mapping with ``when`` (variables of the matrix and
    values they take) and ``profiles`` and/or ``tensors``."""
    expect = data.get("expect")
    if not isinstance(expect, dict) or "cases" not in expect:
        return []
    items = expect["cases"]
    if not isinstance(items, list):
        fail(("expect", "cases"), "cases is a list of {when: {VARIABLE: VALUE}, profiles: ..., tensors: ...}")
    for i, item in enumerate(items):
        loc = ("expect", "cases", i)
        if not isinstance(item, dict) or not isinstance(item.get("when"), dict) or not item["when"]:
            fail(loc, "a case is {when: {VARIABLE: VALUE, ...}, profiles: ..., tensors: ...}: when says which cases it is for")
        extra = [k for k in item if k not in ("when", "profiles", "tensors")]
        if extra:
            fail(loc + (extra[0],), f"unknown key {extra[0]!r} in a case; valid keys: when, profiles, tensors")
        for name, value in item["when"].items():
            if name not in matrix:
                fail(loc + ("when", name), f"{name!r} is no matrix variable{did_you_mean(str(name), list(matrix))}; the matrix has "
                                           f"{listed(matrix)}")
            if value not in matrix[name]:
                fail(loc + ("when", name), f"{value!r} is none of {name}'s values ({listed(map(str, matrix[name]))}): the case "
                                           "would match no combination")
    return items


def _check_runs(data: dict, cases: int, fail) -> None:
    """Refuse a matrix whose cases times every profile ``--profile all`` runs (meshspec's and the
    scenario's own, bounded by the loader's MAX_PROFILES) exceed :data:`MAX_RUNS`."""
    from ..sim.profiles import PROFILES

    own = len(data["profiles"]) if isinstance(data.get("profiles"), dict) else 0
    own += 1 if isinstance(data.get("profile"), dict) else 0  # profile: {...} defines 'custom'
    runs = cases * (len(PROFILES) + own)
    if runs > MAX_RUNS:
        fail((MATRIX,), f"{cases:,} cases x {len(PROFILES) + own:,} profiles (meshspec's {len(PROFILES)} and {own:,} of the "
                        f"scenario's own) = {runs:,} runs under --profile all; a scenario asks for at most {MAX_RUNS:,} runs: "
                        "fewer values, or fewer profiles of its own")


def values_in(value: Any) -> int:
    """How many values (YAML nodes) ``value`` holds, itself included, keys counted (the loader's
    limits count them so too)."""
    count, stack = 0, [value]
    while stack:
        v = stack.pop()
        count += 1
        if isinstance(v, dict):
            count += len(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return count


def _checkvalues_in(data: dict, matrix: dict, limit: int, fail) -> None:
    """Refuse a matrix whose cases' documents, their ``$name`` filled in, hold more than ``limit``
    values: a case, at the value in the matrix that makes it largest, or all the cases together,
    at the matrix. Counted on the document as written (what it holds besides the matrix, and how
    many times each variable is written), so nothing is built to count it: a 190,000-item value
    written in 1,000 steps took 120 s and 1.8 GB to build before its first case was refused."""
    uses: dict[str, int] = {}
    for _, name in placeholders(data):
        uses[name] = uses.get(name, 0) + 1
    base = 1 + sum(1 + values_in(v) for k, v in data.items() if k != MATRIX)
    extra = {n: [uses.get(n, 0) * (values_in(v) - 1) for v in values] for n, values in matrix.items()}  # a $name is 1 already
    total = 0
    for picks in itertools.product(*(range(len(v)) for v in matrix.values())):
        added = {n: extra[n][i] for n, i in zip(matrix, picks)}
        size = base + sum(added.values())
        if size > limit:
            n = max(added, key=added.__getitem__)
            i = picks[list(matrix).index(n)]
            name = case_id({m: matrix[m][j] for m, j in zip(matrix, picks)})
            fail((MATRIX, n, i), f"case [{name}] holds {size:,} values, its $names filled in (${n} is {values_in(matrix[n][i]):,} "
                                 f"values, written {uses.get(n, 0):,} times); a scenario holds at most {limit:,}: a smaller "
                                 "value, or write it in fewer places")
        total += size
        if total > limit:
            fail((MATRIX,), f"its cases hold {total:,} values or more together, their $names filled in (each case a scenario "
                            f"of {base:,} values or more); a matrix's cases hold at most {limit:,} in all: fewer values, a "
                            "smaller scenario, or split it")


def _case_expect(expect: dict, cases: list[dict], values: dict[str, Any]) -> dict:
    """The block for the case ``values``: its own entries, with each matching case's ``profiles``
    and ``tensors`` put over them by name."""
    out = _substitute({k: v for k, v in expect.items() if k != "cases"}, values)
    for item in cases:
        if all(values[k] == v for k, v in item["when"].items()):
            for key in ("profiles", "tensors"):
                if isinstance(item.get(key), dict):
                    merged = {**(out.get(key) if isinstance(out.get(key), dict) else {}), **_substitute(item[key], values)}
                    out[key] = {name: e for name, e in merged.items() if e is not None}  # null: not expected in these cases
    return out


def matrix_of(data: Any) -> Optional[dict]:
    """The raw ``matrix`` of a document, if it has one."""
    return data.get(MATRIX) if isinstance(data, dict) and MATRIX in data else None
