"""The simulated device side: one mesh buffer holds the same-sized buffer on every device.

This is the ground truth the runtime's records are judged against: which pages of each device's
buffer were written since allocation, by which step, with what shard. Never-written memory
reads back as the poison pattern ``A5 FF`` repeated (a NaN in bfloat16 and float32, 0xFFA5 in
uint16) so a stale read is recognisable, never a plausible zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .mesh import Coord, Shape
from .spec import TensorSpec

POISON = np.array([0xA5, 0xFF], dtype=np.uint8)


def poison(nbytes: int) -> np.ndarray:
    """``nbytes`` of the poison pattern."""
    return np.resize(POISON, nbytes)


@dataclass(frozen=True)
class Write:
    """What one step wrote to one device: the ground truth for that device."""

    step: int
    """Index of the step that wrote."""
    source: str
    """Name of the host tensor the bytes came from."""
    spec: TensorSpec
    """Spec of the shard written (shape, dtype, layout of the bytes)."""
    offset: Shape
    """Global offset of the shard in the source tensor."""
    values: np.ndarray = field(repr=False, compare=False)
    """The logical values written (kept to judge readback)."""


@dataclass
class MeshBuffer:
    """A buffer of ``spec.allocated_bytes`` on every device of a mesh (``MeshBuffer``).

    ``written[coord]`` is a bitmap of written pages; ``last_write[coord]`` the latest write.
    """

    id: int
    spec: TensorSpec
    """The spec the buffer was allocated with; fixes its page size and page count."""
    mesh_shape: Shape
    step: int
    """Step that allocated it."""
    memory: dict[Coord, np.ndarray] = field(default_factory=dict, repr=False)
    written: dict[Coord, np.ndarray] = field(default_factory=dict, repr=False)
    last_write: dict[Coord, Write] = field(default_factory=dict, repr=False)

    def _device(self, coord: Coord) -> np.ndarray:
        mem = self.memory.get(coord)
        if mem is None:
            mem = self.memory[coord] = poison(self.spec.allocated_bytes)
        return mem

    def _page_view(self, coord: Coord) -> np.ndarray:
        return self._device(coord).reshape(self.spec.num_pages, self.spec.aligned_page_size)

    def write(self, coord: Coord, pages: np.ndarray, write: Write) -> None:
        """Write ``pages`` (``(n, page_size)`` uint8) from page 0 of ``coord``'s buffer."""
        n, size = pages.shape
        view = self._page_view(coord)
        view[:n, :size] = pages
        bitmap = self.written.setdefault(coord, np.zeros(self.spec.num_pages, dtype=bool))
        bitmap[:n] = True
        self.last_write[coord] = write

    def read(self, coord: Coord, spec: TensorSpec) -> np.ndarray:
        """``spec.num_pages`` pages of ``coord``'s buffer as ``(n, page_size)`` bytes."""
        view = self._page_view(coord)
        return view[: spec.num_pages, : spec.page_size]

    def written_pages(self, coord: Coord) -> int:
        bitmap = self.written.get(coord)
        return int(bitmap.sum()) if bitmap is not None else 0

    def written_bytes(self, coord: Coord) -> int:
        """Bytes of data written to ``coord`` since allocation (pages x page size)."""
        return self.written_pages(coord) * self.spec.page_size
