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
    """One buffer type's block table (offsets from ``base``), shared by all its banks."""

    def __init__(self, name: str, base: int, size: int, banks: int, top_down: bool, granule: int = 1) -> None:
        self.name, self.base, self.size, self.banks, self.top_down, self.granule = name, base, size, banks, top_down, granule
        self.blocks: list[list] = [[0, size, False]]
        """``[offset, size, allocated]``, sorted by offset, covering the bank."""

    def allocate(self, per_bank: int, banks: Optional[int] = None, total: Optional[int] = None) -> int:
        """The address of a new block of ``per_bank`` bytes; ttnn's out-of-memory error if none fits.
        ``banks``: how many banks the buffer spans (a sharded buffer's cores), ``total`` its size,
        for the message."""
        need = round_up(max(per_bank, 1), self.granule)
        free = [i for i, b in enumerate(self.blocks) if not b[2] and b[1] >= need]
        if not free:
            raise TTFatal(self._oom(need, banks or self.banks, total))
        i = free[-1] if self.top_down else free[0]
        offset, size, _ = self.blocks[i]
        start = offset + size - need if self.top_down else offset
        parts = [[offset, start - offset, False], [start, need, True], [start + need, offset + size - start - need, False]]
        self.blocks[i : i + 1] = [p for p in parts if p[1] > 0]
        return self.base + start

    def free(self, address: int) -> None:
        offset = address - self.base
        i = next(i for i, b in enumerate(self.blocks) if b[0] == offset and b[2])
        self.blocks[i][2] = False
        for j in (i + 1, i):  # merge with the free block after, then before
            if 0 < j < len(self.blocks) and not self.blocks[j - 1][2] and not self.blocks[j][2]:
                self.blocks[j - 1][1] += self.blocks[j][1]
                del self.blocks[j]

    def _oom(self, need: int, banks: int, total: Optional[int] = None) -> str:
        allocated = sum(b[1] for b in self.blocks if b[2])
        largest = max((b[1] for b in self.blocks if not b[2]), default=0)
        size = total if total is not None else need * banks
        return (f"Out of Memory: Not enough space to allocate {size} B {self.name} buffer across {banks} banks, where each "
                f"bank needs to store {need} B, but bank size is {self.size} B (allocated: {allocated} B, free: "
                f"{self.size - allocated} B, largest free block: {largest} B).")


def per_bank_bytes(spec: TensorSpec, banks: int) -> int:
    """What one bank holds of a buffer of ``spec``: a whole shard (sharded), else an equal share
    of the pages, rounded up."""
    if spec.shard is not None:
        return spec.bank_bytes
    return -(-spec.num_pages // banks) * spec.aligned_page_size


class Allocators:
    """A mesh's allocators, one per buffer type (buffers take the same address on every device)."""

    def __init__(self, arch: Arch, l1_banks: Optional[int] = None) -> None:
        self.by_type: dict[BufferType, BankAllocator] = {}
        for memory in (BufferType.DRAM, BufferType.L1):
            base, size, banks = BANKS[(arch, memory)]
            if memory is BufferType.L1 and l1_banks is not None:
                banks = l1_banks
            # a block is rounded up: L1 to 32 B on Wormhole, 64 B on Blackhole (observed: a 16 B shard
            # takes 32 on a T3K, 96 B take 128 on a P150); DRAM blocks are whole aligned pages
            granule = (64 if arch is Arch.BLACKHOLE else 32) if memory is BufferType.L1 else 1
            self.by_type[memory] = BankAllocator(memory.name, base, size, banks, top_down=memory is BufferType.L1, granule=granule)

    def allocate(self, spec: TensorSpec) -> int:
        a = self.by_type[spec.memory]
        banks = spec.shard.num_cores if spec.shard is not None else a.banks
        return a.allocate(per_bank_bytes(spec, a.banks), banks, spec.num_pages * spec.aligned_page_size)

    def free(self, spec: TensorSpec, address: int) -> None:
        self.by_type[spec.memory].free(address)
