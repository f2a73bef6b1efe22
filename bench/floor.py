"""The floor meshspec's data path is measured against: the seed's copy written by hand in numpy.

    python bench/floor.py DEVICES ROWS SIZE OUT.json

What ``meshspec run`` does for the bench scenario (bench/run.py, ``copy_scenario``), the way a
numpy user would write it with nothing to check but the result: an ``arange`` host tensor of
(1, ROWS, SIZE, SIZE) bfloat16 (made in chunks through float32), one (1, 1, SIZE, SIZE) buffer
per device of the mesh, shard i copied into device i's buffer, the ROWS written devices read back,
the copies concatenated on dim 1, compared with the host tensor, and a few lines of JSON written.
"""

import json
import sys

import ml_dtypes
import numpy as np


def main(devices: int, rows: int, size: int, out: str) -> None:
    bf16 = ml_dtypes.bfloat16
    n = rows * size * size
    host = np.empty(n, dtype=bf16)
    step = 1 << 22
    for i in range(0, n, step):
        host[i : i + step] = np.arange(i, min(i + step, n), dtype=np.float32)
    host = host.reshape(1, rows, size, size)
    buffers = [np.empty((1, 1, size, size), dtype=bf16) for _ in range(devices)]  # allocate on every device
    for i in range(rows):  # copy: shard i to device i
        buffers[i][...] = host[:, i : i + 1]
    readback = [buffers[i].copy() for i in range(rows)]  # cpu(): the written devices
    result = np.concatenate(readback, axis=1)  # to_torch with concat on dim 1
    equal = bool(np.array_equal(result.view(np.uint16), host.view(np.uint16)))
    with open(out, "w") as f:
        json.dump({"equal": equal, "shape": list(result.shape), "devices": devices}, f, indent=2)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
