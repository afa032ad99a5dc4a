#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A light kernel pack for the M-grouped comparisons (scripts/compare-grouped.sh,
# scripts/ab-kernels.sh --grouped): one dense 1D2D kernel (a context loads
# one), every grouped set of the runtime, and the issue's and DeepGEMM's
# current grouped test shapes compiled for their N and K (as the JIT would);
# fgemm-bench and libfgemm.so beside them. Seconds to build, ~6 MB.
#   scripts/grouped-pack.sh OUT [BUILD]
# BUILD (default build/) is the build whose compiler makes the kernels: an
# older checkout's build gives the other side of an A/B. Device call:
#   run: bash scripts/compare-grouped.sh OUT   carry: ["OUT", ".device/deepgemm"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/grouped-pack.sh OUT [BUILD]}
build=$(cd "${2:-$root/build}" && pwd)
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/all"
cp "$build/bin/fgemm-bench" "$out/bin/"
cp "$root/build/lib/libfgemm.so" "$out/lib/"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
precompile() {
  "$build/bin/fgemm-precompile" --cache-dir "$cache" --pack "$out/all" "$@" >/dev/null
}
grouped() { echo "$root/kernels/sm90_m_grouped_fp8_gemm_$1_1d2d.mlir"; }
precompile --config 128x128 "$root/kernels/sm90_fp8_gemm_1d2d.mlir"
for layout in contiguous contiguous_psum contiguous_unpadded masked; do
  precompile --set "$layout" "$(grouped "$layout")"
done
# The issue's rows (DESIGN.md section 5), then DeepGEMM's tests/generators.py
# lists: every group count with every N, K.
contiguous="4,8192,4096,7168;4,8192,7168,2048;8,4096,4096,7168;8,4096,7168,2048"
masked="1,1024,4096,7168;1,1024,7168,2048;2,512,4096,7168;2,512,7168,2048;4,256,4096,7168;4,256,7168,2048"
deepgemm_nk="6144,7168 7168,3072 4096,4096 4096,2048"
for gm in 4,8192 8,4096; do
  for nk in $deepgemm_nk; do contiguous+=";$gm,$nk"; done
done
for gm in 32,192 6,1024 32,20 6,20; do
  for nk in $deepgemm_nk; do masked+=";$gm,$nk"; done
done
precompile --set contiguous --shapes "$contiguous" "$(grouped contiguous)"
precompile --set contiguous_psum --shapes "$contiguous" "$(grouped contiguous_psum)"
precompile --set masked --shapes "$masked" "$(grouped masked)"
echo "$(ls "$out/all" | grep -c '\.cubin$') kernels in $out/all ($(du -sh "$out" | cut -f1))"
