#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# DeepGEMM's dense SM90 kernel (sm90_fp8_gemm_1d2d_impl) for given tiles, compiled
# here with nvcc (its JIT's flags) into cubins that scripts/deepgemm_launch.cpp runs
# on the GPU machine: one kernel against fgemm's same tile, under the same ncu
# method, with no DeepGEMM build on the device. A like-for-like reference for
# profiling; the figures docs/PERF.md compares against come from DeepGEMM's own
# harness (scripts/compare-deepgemm.sh). Nothing generated here is committed.
#
#   scripts/deepgemm-kernels.sh DEEPGEMM_SRC OUT_DIR NAME:N:K:BM:BN:STAGES[:CLUSTER[:a|b]] ...
#
# e.g. scripts/deepgemm-kernels.sh .device/deepgemm .device/dg 64x64:4096:7168:64:64:13
# writes OUT_DIR/NAME.cubin and OUT_DIR/NAME.name (the mangled kernel name).
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
src=$1 out=$2
shift 2
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$out"
for spec in "$@"; do
  IFS=: read -r name n k bm bn stages cluster side <<< "$spec"
  cluster=${cluster:-1} side=${side:-a}
  math=$((bm == 64 ? 128 : 256))
  swizzle_d=$((bn * 2 < 128 ? bn * 2 : 128))
  # DeepGEMM's flag is cluster_n > 1: multicast on A only within a cluster.
  on_a=$([[ $cluster -gt 1 && $side == a ]] && echo true || echo false)
  cat > "$out/$name.cu" <<EOC
#include <deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh>
using namespace deep_gemm;
static void instantiate() {
  [[maybe_unused]] auto kernel = reinterpret_cast<void *>(&sm90_fp8_gemm_1d2d_impl<
      cute::UMMA::Major::K, 0, $n, $k, 1, $bm, $bn, 128, 128, 128, $swizzle_d, $stages,
      128, $math, $cluster, $on_a, 132, GemmType::Normal, cutlass::bfloat16_t,
      epilogue::transform::EpilogueIdentity>);
}
EOC
  "$nvcc" -std=c++20 --diag-suppress=39,161,174,177,186,940 \
    --ptxas-options=--register-usage-level=10 -I"$src/deep_gemm/include" \
    -I"$src/third-party/cutlass/include" --gpu-architecture=sm_90a \
    --compiler-options=-fPIC,-O3,-fconcepts,-Wno-deprecated-declarations,-Wno-abi -O3 \
    --expt-relaxed-constexpr --expt-extended-lambda -cubin -o "$out/$name.cubin" "$out/$name.cu"
  # The one kernel's mangled name, from the cubin's symbol table.
  # (awk reads to the end: grep -m1 would close the pipe under pipefail.)
  strings "$out/$name.cubin" | awk '/^_ZN9deep_gemm23sm90_fp8_gemm_1d2d_impl/ && !n++' > "$out/$name.name"
  rm "$out/$name.cu"
  echo "$out/$name.cubin ($(cat "$out/$name.name" | cut -c1-60)...)"
done
