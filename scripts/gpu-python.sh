#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# On the GPU machine: the Python package's tests with the GPU cases running,
# over what scripts/gpu-prepare.sh gathered (DIR/all: kernels, DIR/lib:
# libfgemm.so), then the host time of a warm fp8_gemm_nt call.
#   run: bash scripts/gpu-python.sh   carry: [".device/fgemm"]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "${1:-$root/.device/fgemm}" && pwd)
export PYTHONPATH=$root/python FGEMM_KERNEL_DIR=$dir/all FGEMM_LIBRARY=$dir/lib/libfgemm.so
if python3 -m pytest --version >/dev/null 2>&1; then
  python3 -m pytest -v "$root/python/tests"
else
  python3 -m unittest discover -v -s "$root/python/tests"
fi
status=$?
python3 - <<'PY'
import statistics, time, torch, fgemm
# Host time of a warm call: short batches after a sync, so that no call waits
# for the GPU (a long loop of ~11-us kernels measures the kernels).
m, n, k = 64, 2112, 7168
x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
y = torch.randn((n, k), device="cuda", dtype=torch.bfloat16)
a, sfa_rows = fgemm.per_token_cast_to_fp8(x)
sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa_rows)
big_rows = torch.rand((4096, 56), device="cuda")
b = fgemm.per_block_cast_to_fp8(y)
bt, sfbt = fgemm.per_token_cast_to_fp8(y)
sfbt = fgemm.get_mn_major_tma_aligned_tensor(sfbt)
d16 = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
d32 = torch.zeros((m, n), device="cuda")
calls = {"BF16 fp8_gemm_nt": lambda: fgemm.fp8_gemm_nt((a, sfa), b, d16),
         "FP32 fp8_gemm_nt(c=d)": lambda: fgemm.fp8_gemm_nt((a, sfa), (bt, sfbt), d32, c=d32),
         "BF16 fp8_gemm_nt, row-major SFA": lambda: fgemm.fp8_gemm_nt((a, sfa_rows), b, d16),
         "get_mn_major_tma_aligned_tensor of [4096, 56]":
             lambda: fgemm.get_mn_major_tma_aligned_tensor(big_rows)}
for name, call in calls.items():
    for _ in range(10):
        call()
    per = []
    for _ in range(50):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(16):
            call()
        per.append((time.perf_counter() - t0) / 16 * 1e6)
    torch.cuda.synchronize()
    print(f"warm {name} host time: {statistics.median(per):.1f} us per call "
          f"({m}x{n}x{k}, median of 50 batches of 16 calls after a sync)")
PY
exit $status
