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
