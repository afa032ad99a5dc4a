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
import time, torch, fgemm
m, n, k = 64, 2112, 7168
x = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
y = torch.randn((n, k), device="cuda", dtype=torch.bfloat16)
a, sfa = fgemm.per_token_cast_to_fp8(x)
b = fgemm.per_block_cast_to_fp8(y)
sfa = fgemm.get_mn_major_tma_aligned_tensor(sfa)
d = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
for _ in range(10):
    fgemm.fp8_gemm_nt((a, sfa), b, d)
torch.cuda.synchronize()
calls = 2000
t0 = time.perf_counter()
for _ in range(calls):
    fgemm.fp8_gemm_nt((a, sfa), b, d)
t1 = time.perf_counter()
torch.cuda.synchronize()
print(f"warm fp8_gemm_nt host time: {(t1 - t0) / calls * 1e6:.1f} us per call "
      f"({m}x{n}x{k}, aligned SFA, {calls} calls, queue not synchronized)")
PY
exit $status
