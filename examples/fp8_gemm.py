# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A DeepGEMM user's dense FP8 GEMM, with fgemm in place of deep_gemm.

    pip install ./python
    FGEMM_KERNEL_DIR=build/kernels/sm90_fp8_gemm_1d2d python3 examples/fp8_gemm.py

(scripts/compile-kernels.sh writes that kernel directory.)"""

import torch

import fgemm as deep_gemm

m, n, k = 4096, 7168, 2048
x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
y = torch.randn((n, k), device="cuda", dtype=torch.bfloat16)

# 1x128 scales on A (per token), 128x128 scales on B (per block).
x_fp8 = deep_gemm.per_token_cast_to_fp8(x)
y_fp8 = deep_gemm.per_block_cast_to_fp8(y)
# The kernels read A's scales M-major and TMA-aligned; converting once
# up front saves a copy per call.
x_fp8 = (x_fp8[0], deep_gemm.get_mn_major_tma_aligned_tensor(x_fp8[1]))

out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
deep_gemm.fp8_gemm_nt(x_fp8, y_fp8, out)     # or gemm_fp8_fp8_bf16_nt(x_fp8, y_fp8, out)

ref = x.float() @ y.float().t()
print(f"calc_diff = {deep_gemm.calc_diff(out, ref):.2e} (DeepGEMM's tests accept < 1e-3)")
