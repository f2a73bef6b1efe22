"""Where buffers go in a device's memory: ttnn 0.81.1's bank allocator, as observed in the mock
(tests/golden/ttnn_0_81_1_sharded.json ``allocator``; docs/semantics.md section 11).

Each buffer type keeps one block table for all its banks (lockstep): a buffer takes the same
offset in every bank, and its block is what one bank holds of it, ``ceil(pages / banks)``
aligned pages interleaved, a whole shard sharded. DRAM takes the first free block that fits,
from the lowest address; L1 the highest free block that fits, at its top. A free merges with the
free blocks beside it. Addresses are the allocator's base plus the offset, the same on every
device of the mesh.

>>> a = BankAllocator("DRAM", base=1048640, size=1 << 20, banks=12, top_down=False)
>>> a.allocate(4096), a.allocate(6144), a.allocate(2048)
(1048640, 1052736, 1058880)
>>> a.free(1052736); a.allocate(2048)
1052736
"""

from __future__ import annotations

import bisect
from typing import Optional

from ..errors import TTFatal
from .spec import Arch, BufferType, TensorSpec, round_up

#: (architecture, buffer type) -> (allocator base address, bytes per bank, banks): ttnn 0.81.1 in
#: the mock (tests/golden sharded ``systems``). L1 banks are the worker grid's cores, which depend
#: on the system; this count is a single chip's.
BANKS = {
    (Arch.WORMHOLE_B0, BufferType.DRAM): (1048640, 1072693184, 12),
    (Arch.WORMHOLE_B0, BufferType.L1): (105824, 1393312, 64),
    (Arch.BLACKHOLE, BufferType.DRAM): (1048704, 4277141376, 8),
    (Arch.BLACKHOLE, BufferType.L1): (111744, 1461120, 110),
}


class BankAllocator:
    """One buffer type's block table (offsets from ``base``), shared by all its banks.

    The table is kept as the blocks' offsets in order, their sizes and which are allocated, and
    the free offsets in order: an allocation looks only at the free blocks (a few, however many
    buffers are live: scanning every block doubled the bench's 10,000-tensor table view) and a free finds its
    neighbours by bisection.
    """

    def __init__(self, name: str, base: int, size: int, banks: int, top_down: bool, granule: int = 1) -> None:
        self.name, self.base, self.size, self.banks, self.top_down, self.granule = name, base, size, banks, top_down, granule
        self._offsets: list[int] = [0]
        """Every block's offset, in order; the blocks cover the bank."""
        self._sizes: dict[int, int] = {0: size}
        self._used: set[int] = set()
        self._free: list[int] = [0]
        """The free blocks' offsets, in order."""

    @property
    def blocks(self) -> list[list]:
        """``[offset, size, allocated]`` of every block, by offset."""
        return [[o, self._sizes[o], o in self._used] for o in self._offsets]

    def allocate(self, per_bank: int, banks: Optional[int] = None, total: Optional[int] = None) -> int:
        """The address of a new block of ``per_bank`` bytes; ttnn's out-of-memory error if none fits.
        ``banks``: how many banks the buffer spans (a sharded buffer's cores), ``total`` its size,
        for the message."""
        need = round_up(max(per_bank, 1), self.granule)
        order = reversed(self._free) if self.top_down else iter(self._free)
        offset = next((o for o in order if self._sizes[o] >= need), None)
        if offset is None:
            raise TTFatal(self._oom(need, banks or self.banks, total))
        size = self._sizes[offset]
        if self.top_down:  # the block's top: what is below stays free
            start = offset + size - need
            if start > offset:
                self._sizes[offset] = start - offset
                self._sizes[start] = need
                bisect.insort(self._offsets, start)
            else:
                _remove(self._free, offset)
        else:  # the block's bottom: what is above stays free
            start = offset
            _remove(self._free, offset)
            if need < size:
                self._sizes[offset] = need
                self._sizes[offset + need] = size - need
                bisect.insort(self._offsets, offset + need)
                bisect.insort(self._free, offset + need)
        self._used.add(start)
        return self.base + start

    def free(self, address: int) -> None:
        offset = address - self.base
        self._used.remove(offset)
        bisect.insort(self._free, offset)
        i = bisect.bisect_left(self._offsets, offset)
        if i + 1 < len(self._offsets) and self._offsets[i + 1] not in self._used:  # merge with the free block after
            after = self._offsets.pop(i + 1)
            self._sizes[offset] += self._sizes.pop(after)
            _remove(self._free, after)
        if i > 0 and self._offsets[i - 1] not in self._used:  # then with the one before
            before = self._offsets[i - 1]
            self._sizes[before] += self._sizes.pop(offset)
            del self._offsets[i]
            _remove(self._free, offset)

    def _oom(self, need: int, banks: int, total: Optional[int] = None) -> str:
        allocated = sum(self._sizes[o] for o in self._used)
        largest = max((self._sizes[o] for o in self._free), default=0)
        size = total if total is not None else need * banks
        return (f"Out of Memory: Not enough space to allocate {size} B {self.name} buffer across {banks} banks, where each "
                f"bank needs to store {need} B, but bank size is {self.size} B (allocated: {allocated} B, free: "
                f"{self.size - allocated} B, largest free block: {largest} B).")


def _remove(ordered: list[int], value: int) -> None:
    del ordered[bisect.bisect_left(ordered, value)]


def per_bank_bytes(spec: TensorSpec, banks: int) -> int:
    """What one bank holds of a buffer of ``spec``: a whole shard (sharded), else an equal share
    of the pages, rounded up."""
    if spec.shard is not None:
        return spec.bank_bytes
    return -(-spec.num_pages // banks) * spec.aligned_page_size


class Allocators:
    """A mesh's allocators, one per buffer type (buffers take the same address on every device)."""

    def __init__(self, arch: Arch, l1_banks: Optional[int] = None) -> None:
        self.arch, self.l1_banks = arch, l1_banks
        self.by_type: dict[BufferType, BankAllocator] = {}
        """Made on a buffer type's first allocation (a run that never touches L1 made its table for
        nothing: 4,000 instructions a run)."""

    def bank(self, memory: BufferType) -> BankAllocator:
        """The table of ``memory``'s banks (made on first use)."""
        a = self.by_type.get(memory)
        if a is None:
            base, size, banks = BANKS[(self.arch, memory)]
            if memory is BufferType.L1 and self.l1_banks is not None:
                banks = self.l1_banks
            # a block is rounded up: L1 to 32 B on Wormhole, 64 B on Blackhole (observed: a 16 B shard
            # takes 32 on a T3K, 96 B take 128 on a P150); DRAM blocks are whole aligned pages
            granule = (64 if self.arch is Arch.BLACKHOLE else 32) if memory is BufferType.L1 else 1
            a = self.by_type[memory] = BankAllocator(memory.name, base, size, banks, top_down=memory is BufferType.L1, granule=granule)
        return a

    def allocate(self, spec: TensorSpec) -> int:
        a = self.bank(spec.memory)
        banks = spec.shard.num_cores if spec.shard is not None else a.banks
        return a.allocate(per_bank_bytes(spec, a.banks), banks, spec.num_pages * spec.aligned_page_size)

    def free(self, spec: TensorSpec, address: int) -> None:
        self.bank(spec.memory).free(address)
