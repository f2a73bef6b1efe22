"""Does ttnn 0.81.1 refuse ``ttnn.linear(a, b, bias=...)`` whose bias rows do not broadcast to the
output's, before any kernel? The question behind the oracle's crash:linear:ValueError on
cases/linear-bias-not-broadcasting.yaml. Run in the ttnn mock, not by the suite:

    source ${TMPDIR:-/tmp}/ttnn-mock/env.sh && python tests/oracle/mock_linear_bias.py

Seen on 2026-12-06 (ttnn 0.81.1, mock 2x2 mesh), a (1, 1, 32, 32) by itself with each bias::

    (1, 1, 48, 32) RuntimeError ... Failed to generate binaries for bmm_large_block_zm_fused_bias_activation_metal2
    (1, 1, 1, 32) RuntimeError ... Failed to generate binaries for bmm_large_block_zm_fused_bias_activation_metal2
    (1, 1, 32, 32) RuntimeError ... Failed to generate binaries for bmm_large_block_zm_fused_bias_activation_metal2

So no host-side check refuses the (1, 1, 48, 32) bias: the op goes on to build its fused-bias
program, as with a bias that broadcasts (the mock cannot compile kernels, so what the device then
computes is not observed). meshspec's data mode fails there with numpy's ValueError instead.
"""

import numpy as np
import ttnn

md = ttnn.open_mesh_device(ttnn.MeshShape(2, 2))


def on_device(shape):
    return ttnn.to_device(ttnn.Tensor(np.zeros(shape, dtype=np.float32), ttnn.bfloat16, None, ttnn.TILE_LAYOUT), md)


a = on_device((1, 1, 32, 32))
for shape in [(1, 1, 48, 32), (1, 1, 1, 32), (1, 1, 32, 32)]:
    try:
        print(shape, "ok", ttnn.linear(a, a, bias=on_device(shape)).shape)
    except Exception as e:  # the kernel build, or a host-side check
        print(shape, type(e).__name__, " ".join(str(e).split())[:200])
