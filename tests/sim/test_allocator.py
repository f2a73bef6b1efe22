"""The bank allocator's block table (meshspec/sim/allocator.py; docs/semantics.md section 11):
its indexed table against the plain rule it implements, a list of blocks scanned in order (first
fit from the bottom for DRAM, the highest fitting block at its top for L1, a free merging with
the free blocks beside it). The rule itself is checked against ttnn 0.81.1 by the golden allocator
sequences in tests/test_golden_sharded.py."""

from hypothesis import given, settings
from hypothesis import strategies as st

from meshspec.errors import TTFatal
from meshspec.sim.allocator import BankAllocator

SIZE = 4096


class ScanModel:
    """The rule, block by block: ``[offset, size, allocated]`` in address order."""

    def __init__(self, top_down: bool) -> None:
        self.top_down = top_down
        self.blocks = [[0, SIZE, False]]

    def allocate(self, need: int):
        free = [i for i, b in enumerate(self.blocks) if not b[2] and b[1] >= need]
        if not free:
            return None
        i = free[-1] if self.top_down else free[0]
        offset, size, _ = self.blocks[i]
        start = offset + size - need if self.top_down else offset
        parts = [[offset, start - offset, False], [start, need, True], [start + need, offset + size - start - need, False]]
        self.blocks[i : i + 1] = [p for p in parts if p[1] > 0]
        return start

    def free(self, offset: int) -> None:
        i = next(i for i, b in enumerate(self.blocks) if b[0] == offset and b[2])
        self.blocks[i][2] = False
        for j in (i + 1, i):
            if 0 < j < len(self.blocks) and not self.blocks[j - 1][2] and not self.blocks[j][2]:
                self.blocks[j - 1][1] += self.blocks[j][1]
                del self.blocks[j]


# an operation: ("a", size) allocates; ("f", k) frees the k-th live buffer (modulo how many live)
OPS = st.lists(st.one_of(st.tuples(st.just("a"), st.integers(1, 1500)), st.tuples(st.just("f"), st.integers(0, 50))), max_size=60)


@settings(max_examples=300)
@given(top_down=st.booleans(), ops=OPS)
def test_the_indexed_table_follows_the_scan_rule(top_down, ops):
    model, real = ScanModel(top_down), BankAllocator("DRAM", base=1000, size=SIZE, banks=12, top_down=top_down)
    live: list[int] = []
    for op, n in ops:
        if op == "a":
            want = model.allocate(n)
            if want is None:
                try:
                    real.allocate(n)
                except TTFatal as err:
                    assert "Out of Memory" in str(err)
                else:
                    raise AssertionError(f"allocated {n} B where the rule has no block")
            else:
                assert real.allocate(n) == 1000 + want
                live.append(want)
        elif live:
            offset = live.pop(n % len(live))
            model.free(offset)
            real.free(1000 + offset)
        assert real.blocks == model.blocks


def test_ten_thousand_live_buffers_take_consecutive_blocks():
    a = BankAllocator("DRAM", base=0, size=1 << 30, banks=12, top_down=False)
    addresses = [a.allocate(2048) for _ in range(10_000)]
    assert addresses == [2048 * i for i in range(10_000)]
    for address in addresses[::2]:
        a.free(address)
    assert a.allocate(2048) == 0 and a.allocate(4096) == 2048 * 10_000  # a hole is reused only where it fits
    assert len(a.blocks) == 10_002  # 10,000 buffers or holes, the 4096 B one and the free rest
