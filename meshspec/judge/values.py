"""What a tensor holds, as values a user can state in ``expect`` and check from a saved report
(docs/semantics.md section 7): its shape, dtype, SHA-256 and first values, and the SHA-256 of the
slices an expectation names.

Which values: a host tensor's one buffer (a composed ``to_torch`` result, a ``get_device_tensors``
part); a mapped host tensor's whole source (the tensor that was sent); a device tensor on one
device (a part) as a reader reads it. A tensor of several shards has no single value: compose it.

The SHA-256 is of the values' bytes in C order in the tensor's host dtype (bfloat16 as its two
bytes, little-endian): from torch, ``hashlib.sha256(t.contiguous().view(torch.int16).numpy().tobytes())``
for a bfloat16 tensor, ``...numpy().tobytes()`` of the tensor itself otherwise.
"""

from __future__ import annotations

import hashlib
from typing import Optional

import numpy as np

from ..frozen import Frozen
from ..sim.mapping import parse_slice
from ..sim.tensor import HostTensor, Tensor
from ..sim.values import ShapeOnly

FIRST = 16
"""How many leading values a report carries."""


def values_of(t: Tensor) -> Optional[np.ndarray]:
    """The one array a tensor holds, if it has one (None in metadata mode or for several shards)."""
    if isinstance(t, HostTensor):
        if t.source_values is not None:
            return t.source_values
        if len(t.shards) == 1:
            v = next(iter(t.shards.values())).values
            return None if isinstance(v, ShapeOnly) else v
        return None
    if t.freed_step is not None or len(t.devices) != 1 or not t.record.recorded:
        return None
    c = t.record.recorded[0]
    spec = t.record.specs.get(c)
    return t.buffer.read(c, spec) if spec is not None else None


CHUNK_BYTES = 64 << 20
"""A non-contiguous array (a slice) is hashed through copies of at most about this many bytes."""


def sha256(values: np.ndarray) -> str:
    """The SHA-256 of ``values``' bytes in C order, read in place (a copy of a 4 GiB composed
    tensor cost 4 GiB of peak memory in the bench).

    >>> sha256(np.arange(4, dtype=np.int32)[::2]) == hashlib.sha256(np.array([0, 2], dtype=np.int32).tobytes()).hexdigest()
    True
    """
    h = hashlib.sha256()
    if values.flags.c_contiguous:
        h.update(values.reshape(-1).view(np.uint8))
        return h.hexdigest()
    if values.ndim == 0 or values.shape[0] == 0:
        h.update(np.ascontiguousarray(values).tobytes())
        return h.hexdigest()
    row = max(values[0].size * values.itemsize, 1)
    step = max(CHUNK_BYTES // row, 1)
    for i in range(0, values.shape[0], step):
        h.update(np.ascontiguousarray(values[i : i + step]).reshape(-1).view(np.uint8))
    return h.hexdigest()


EARLY_BYTES = 16 << 20
"""A source this large is hashed in a thread of its own as soon as it exists (:meth:`Digests.start`)."""


class Digests:
    """The SHA-256 of each array hashed for one report, by identity, so that an array known to hold
    another's bytes (``alias``: id -> that array; a composition equal to its source bit for bit) is
    not hashed again. Each array hashed is held with its digest, so its identity is not reused by
    another while the report is made; an array read afresh for the report (a device tensor's) is
    hashed with ``keep=False``: not held, not remembered.

    A large source can be hashed early, in a thread, while the run goes on: ``hashlib`` lets go of
    the GIL while it hashes a large buffer and numpy while it copies one, so on two cores the 0.24
    GiB source of the bench's Galaxy case (150 ms to hash) costs the user almost no wall time.
    """

    def __init__(self, alias: Optional[dict[int, np.ndarray]] = None) -> None:
        self.alias = alias or {}
        self.done: dict[int, tuple[np.ndarray, str]] = {}
        """id -> (the array, its digest)."""
        self._early: dict[int, tuple[threading.Thread, list[str], np.ndarray]] = {}
        """id -> (the thread hashing it, where its digest goes, the array: alive, so the id is its own)."""

    def start(self, values: np.ndarray) -> None:
        """Begin hashing ``values`` in a thread; the caller must not change them afterwards (a host
        tensor's values never change). :meth:`of` waits for the digest."""
        key = id(values)
        if key in self.done or key in self._early:
            return
        import threading  # here: only a large source is hashed early

        out: list[str] = []

        def run() -> None:
            try:
                out.append(sha256(values))
            except Exception:  # out of memory copying a slice: of() hashes again and raises there, not a thread's traceback
                pass

        thread = threading.Thread(target=run, name="meshspec-sha256", daemon=True)
        thread.start()
        self._early[key] = (thread, out, values)

    def of(self, values: np.ndarray, keep: bool = True) -> str:
        values = self.alias.get(id(values), values)
        key = id(values)
        early = self._early.pop(key, None)
        if early is not None:
            early[0].join()
            if early[1]:  # else the thread failed (out of memory copying a slice): hashed here, raising here
                self.done[key] = (values, early[1][0])
        if key in self.done:
            return self.done[key][1]
        digest = sha256(values)
        if keep:
            self.done[key] = (values, digest)
        return digest


def summary(t: Tensor, slices: tuple[str, ...] = (), digests: Optional[Digests] = None) -> Optional[dict]:
    """The report's ``values`` of a tensor: shape, dtype, sha256, first values, named slices' sha256."""
    v = values_of(t)
    if v is None:
        return None
    flat = v.reshape(-1)
    first = [_number(x) for x in flat[:FIRST]]
    digest = (digests or Digests()).of(v, keep=isinstance(t, HostTensor))  # a device tensor's values are a fresh read
    out = {"shape": list(v.shape), "dtype": str(v.dtype), "sha256": digest, "first": first}
    if slices:
        found = {}
        for text in slices:
            try:
                part = v[parse_slice(text, v.shape)]
            except (ValueError, IndexError):
                continue  # the loader checked the text; a rank or an index the tensor lacks shows as a missing slice
            found[text] = {"shape": list(part.shape), "sha256": sha256(part)}
        out["slices"] = found
    return out


def _number(x) -> float | int | str:
    x = x.item()
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return str(x)
    return x


# -- comparisons an expectation asks for (equals, pcc, allclose) ---------------------------------
class Compare(Frozen):
    """One comparison of a tensor's values with another's (or a slice of it) that an expect block
    asks for; its :attr:`key` names its result in the report (``values.compared``)."""

    kind: str
    """``equals``, ``pcc`` or ``allclose``."""
    other: str
    slice: Optional[str] = None
    rtol: float = 0.0
    atol: float = 0.0
    equal_nan: bool = False

    @property
    def key(self) -> str:
        """``pcc ref``, ``equals src[..., 0:64]``, ``allclose ref rtol=0.01 atol=0.001``: what the
        result depends on (a PCC's threshold is the expectation's, not the result's)."""
        what = f"{self.kind} {self.other}{self.slice or ''}"
        if self.kind == "allclose":
            what += f" rtol={self.rtol!r} atol={self.atol!r}" + (" equal_nan" if self.equal_nan else "")
        return what


def pcc(calculated: np.ndarray, golden: np.ndarray) -> float:
    """The correlation tt-metal's ``comp_pcc(golden, calculated)`` reports, by its own rules
    (models/common/utility_functions.py @ a19b16aa; docs/semantics.md section 21): both all NaN is
    1.0; one all NaN is 0.0; one all zero and the other not is 0.0; otherwise NaN and infinities
    count as 0, equal tensors are 1.0, and a correlation numpy cannot form (a constant tensor: no
    variance) is 1.0 as well; else the Pearson correlation of the flattened values.

    >>> pcc(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 6.0]))
    1.0
    >>> pcc(np.array([3.0, 3.0, 3.0]), np.array([1.0, 2.0, 3.0]))  # constant: comp_pcc passes it
    1.0
    >>> pcc(np.zeros(3), np.array([1.0, 2.0, 3.0])), pcc(np.full(2, np.nan), np.full(2, np.nan))
    (0.0, 1.0)
    >>> round(pcc(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 2.0, 4.0, 3.0])), 4)
    0.8
    """
    a = np.asarray(calculated, dtype=np.float64).reshape(-1)
    b = np.asarray(golden, dtype=np.float64).reshape(-1)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if nan_a.all() and nan_b.all():
        return 1.0
    if nan_a.all() or nan_b.all():
        return 0.0
    if bool(np.any(a != 0)) != bool(np.any(b != 0)):  # torch's .bool(): NaN is true, as every non-zero
        return 0.0
    a = np.where(np.isfinite(a), a, 0.0)
    b = np.where(np.isfinite(b), b, 0.0)
    if np.array_equal(a, b):
        return 1.0
    da, db = a - a.mean(), b - b.mean()
    va, vb = float(np.dot(da, da)), float(np.dot(db, db))
    if va == 0.0 or vb == 0.0:
        # np.ma.corrcoef masks the entries it divides by a zero variance; comp_pcc takes the least
        # unmasked entry, the other tensor's own 1.0 on the diagonal, or passes a fully masked one
        return 1.0
    return max(-1.0, min(1.0, float(np.dot(da, db)) / float(np.sqrt(va * vb))))


def compare(calculated: np.ndarray, golden: np.ndarray, request: Compare) -> dict:
    """Where ``calculated`` and ``golden`` (same shape) differ, as ``request`` counts a difference:
    ``equals`` any two values not equal (NaN equal to nothing, as ``torch.equal``: a tensor holding
    NaN equals no tensor, itself included; ``nan`` counts the elements NaN on both sides), ``allclose`` beyond ``atol +
    rtol * |golden|`` (torch.allclose: equal infinities are close, NaN only with ``equal_nan``),
    ``pcc`` any two values not the same; with the correlation for ``pcc``. The worst element is
    the one furthest past what is allowed, by its index in the tensor.

    >>> r = compare(np.array([[1.0, 2.0], [3.0, 9.0]]), np.array([[1.0, 2.0], [3.0, 4.0]]), Compare("allclose", "g", rtol=0.1, atol=0.0))
    >>> r["failing"], r["worst"]["index"], r["worst"]["actual"], r["worst"]["golden"], r["worst"]["allowed"]
    (1, [1, 1], 9.0, 4.0, 0.4)
    """
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, 0 * inf: NaN where they stand, counted below
        return _compare(np.asarray(calculated, dtype=np.float64), np.asarray(golden, dtype=np.float64), request)


def _compare(a: np.ndarray, b: np.ndarray, request: Compare) -> dict:
    diff = np.abs(a - b)
    both_nan = np.isnan(a) & np.isnan(b)
    same = (a == b) if request.kind == "equals" else (a == b) | both_nan  # torch.equal: NaN != NaN
    if request.kind == "allclose":
        allowed = request.atol + request.rtol * np.abs(b)
        ok = (a == b) | (diff <= allowed)
        if request.equal_nan:
            ok |= np.isnan(a) & np.isnan(b)
        past = np.where(ok, -np.inf, np.where(np.isnan(diff), np.inf, diff - allowed))
    else:
        allowed = None
        ok = same
        past = np.where(ok, -np.inf, np.where(np.isnan(diff), np.inf, diff))
    out: dict = {"elements": int(a.size), "failing": int(a.size - np.count_nonzero(ok))}
    if request.kind == "pcc":
        out["pcc"] = pcc(a, b)
    if request.kind == "equals" and out["failing"]:
        nan = int(np.count_nonzero(both_nan))
        if nan:
            out["nan"] = nan
    if out["failing"]:
        flat = int(np.argmax(past.reshape(-1)))
        index = [int(i) for i in np.unravel_index(flat, a.shape)] if a.ndim else []
        worst = {"index": index, "actual": _number(a.reshape(-1)[flat]), "golden": _number(b.reshape(-1)[flat]),
                 "diff": _number(diff.reshape(-1)[flat])}
        if allowed is not None:
            worst["allowed"] = _number(np.asarray(allowed).reshape(-1)[flat])
        out["worst"] = worst
    return out


def _holds_nan(values: np.ndarray) -> bool:
    """Whether ``values`` holds a NaN (integers never do)."""
    return (values.dtype.kind in "fc" or values.dtype.name == "bfloat16") and bool(np.isnan(values).any())


def holder(t: Tensor, index: list[int]) -> Optional[list[int]]:
    """The device whose data holds the element at ``index`` of ``t``'s values: the device a
    composed (to_torch) result's block came from, a single-device tensor's device; None when
    the values are no device's (a from_torch source)."""
    if isinstance(t, HostTensor):
        if len(t.shards) != 1:
            return None
        shard = next(iter(t.shards.values()))
        if shard.composed_from is None or shard.placed is None:
            return None
        composed, _ = shard.composed_from
        for c, start in shard.placed.items():
            size = composed.shards[c].spec.shape if c in composed.shards else None
            if size is not None and all(s <= i < s + n for i, s, n in zip(index, start, size)):
                return list(c)
        return None
    if t.freed_step is None and len(t.record.recorded) == 1:
        return list(t.record.recorded[0])
    return None


def compared(t: Tensor, mine: np.ndarray, digest: str, requests: tuple[Compare, ...], tensors: dict) -> dict:
    """Per request (by :attr:`Compare.key`), the comparison of ``t``'s values ``mine`` (whose
    SHA-256 is ``digest``) with the other tensor's: its shape when that differs, nothing for an
    ``equals`` of the same bytes, else :func:`compare` with the device holding the worst element.
    A request whose other tensor holds no single array is left out (the check says so from the
    report); one whose slice does not fit the other's shape gives that shape as ``unfit``."""
    out: dict = {}
    for r in requests:
        other = tensors.get(r.other)
        ref = values_of(other) if other is not None else None
        if ref is None:
            continue
        if r.slice is not None:
            try:
                ref = ref[parse_slice(r.slice, ref.shape)]
            except (ValueError, IndexError):
                out[r.key] = {"unfit": list(ref.shape)}  # the loader checked the text; the tensor lacks the rank or index
                continue
        if tuple(ref.shape) != tuple(mine.shape):
            out[r.key] = {"shape": list(ref.shape)}
            continue
        if r.kind == "equals" and ref.dtype == mine.dtype and sha256(ref) == digest and not _holds_nan(mine):
            continue  # the same bytes and no NaN (torch.equal's NaN equals nothing): what the sha256 check says already
        result = compare(mine, ref, r)
        if "worst" in result:
            result["worst"]["device"] = holder(t, result["worst"]["index"])
        out[r.key] = result
    return out
