"""Host values (meshspec/sim/values.py): generated data is what ``torch.arange(n).to(dtype)`` gives."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from meshspec.sim.spec import DataType
from meshspec.sim import values as values_module
from meshspec.sim.values import arange, differences, generate, host_dtype, to_dtype

PLAIN = [d for d in DataType if not d.is_block_float]


@pytest.mark.parametrize("dtype", PLAIN, ids=str)
@pytest.mark.parametrize("n", [1, 2, 7, 257, 300, 65537, 70001, (1 << 16) * 3 + 5])
def test_arange_is_the_float64_conversion_bit_for_bit(dtype, n):
    # the reference: a float64 arange through to_dtype (wraps integers, rounds floats)
    want = to_dtype(np.arange(n, dtype=np.float64), dtype)
    got = arange(n, dtype)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [1, 255, 256, 257, 28672, 65535, 65536])
def test_a_short_bfloat16_arange_is_a_fresh_copy_of_the_conversion(n):
    """Up to 65,536 values, arange copies the start of one conversion made once: the same bits as
    converting its own float64 arange, in an array of its own that the caller may write."""
    want = to_dtype(np.arange(n, dtype=np.float64), DataType.BFLOAT16)
    got = arange(n, DataType.BFLOAT16)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert got.flags.writeable and got.flags.owndata
    got[:] = 0
    assert arange(n, DataType.BFLOAT16).tobytes() == want.tobytes()  # the next one is unharmed


def test_bfloat16_arange_above_two_to_the_24_rounds_through_float32():
    # 2**24 + 2**16 + 1 lies just above the midpoint of bfloat16's 2**24 and 2**24 + 2**17; float32
    # first rounds it to 2**24 + 2**16 (a tie, even mantissa), which bfloat16 then rounds to even:
    # 2**24. torch's int64 -> bfloat16 goes through float32 the same way (docstring of arange).
    n = (1 << 24) + (1 << 16) + 2
    values = arange(n, DataType.BFLOAT16)
    assert float(values[n - 1]) == 2.0**24
    want = to_dtype(np.arange(n, dtype=np.float64), DataType.BFLOAT16)
    assert values.tobytes() == want.tobytes()


def test_uint8_wraps_and_uint16_wraps():
    assert arange(260, DataType.UINT8)[254:].tolist() == [254, 255, 0, 1, 2, 3]
    assert arange(65538, DataType.UINT16)[-3:].tolist() == [65535, 0, 1]


def test_generate_shapes_and_block_floats():
    out = generate("arange", (2, 3, 32), DataType.BFLOAT8_B)
    assert out.shape == (2, 3, 32) and out.dtype == np.float32
    assert generate("arange", (0, 4), DataType.INT32).shape == (0, 4)


def test_random_is_the_same_stream_in_any_chunking(monkeypatch):
    # reused buffers must not change the values: the same seed, the same numbers as one big draw
    import meshspec.sim.values as values

    monkeypatch.setattr(values, "CHUNK", 1000)
    chunked = generate("random", (5, 1001), DataType.FLOAT32, 7)
    whole = np.random.default_rng(7).standard_normal(5 * 1001, dtype=np.float32).reshape(5, 1001)
    assert chunked.tobytes() == whole.tobytes()



@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 3000),
    flips=st.lists(st.integers(0, 2999), max_size=12),
    dtype=st.sampled_from([DataType.FLOAT32, DataType.BFLOAT16, DataType.UINT8, DataType.INT32]),
    chunk=st.sampled_from([7, 1 << 22]),
)
def test_differences_counts_what_the_plain_rule_counts(n, flips, dtype, chunk):
    """``differences`` (a chunked not_equal of the bits into one reused buffer, then count_nonzero)
    counts the elements whose bits differ and finds the first, whether chunks split the array or not."""
    a = (np.arange(n) % 251).astype(host_dtype(dtype))
    b = a.copy()
    bits = b.view(f"u{b.dtype.itemsize}")
    for i in flips:
        if i < n:
            bits[i] ^= 1  # one bit: the next float (or -0.0 against 0.0) is a difference
    want = [i for i in range(n) if a.view(bits.dtype)[i] != bits[i]]
    old, values_module.CHUNK = values_module.CHUNK, chunk
    try:
        got = differences(a, b)
    finally:
        values_module.CHUNK = old
    assert got == (len(want), want[0] if want else None)


def test_differences_with_a_tolerance_compares_each_array_at_its_own_precision():
    # bfloat16 1.0 against float32 1.0039: 0.0039 apart, more than the tolerance 0.003; rounding
    # the float32 to bfloat16 first (1.0) would hide it
    import ml_dtypes

    a = np.array([1.0], dtype=ml_dtypes.bfloat16)
    b = np.array([1.0039], dtype=np.float32)
    assert differences(a, b, np.array([0.003])) == (1, 0)
