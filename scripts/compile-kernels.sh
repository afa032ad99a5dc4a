#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Compiles every DSL kernel in kernels/ for each configuration the runtime
# chooses from, into OUT_DIR/<kernel>/<config>.{cubin,meta,ptx}, and dumps
# every stage of the default configuration into OUT_DIR/<kernel>/stages/.
# Usage: scripts/compile-kernels.sh [OUT_DIR]   (default build/kernels)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FGEMM_BUILD_DIR:-$root/build}
out=${1:-$build/kernels}
fgemmc=$build/bin/fgemmc

# block_m block_n schedule, each with the deepest pipeline that fits: 128-row
# tiles for large M, 64-row tiles for small M, narrow tiles to spread small
# problems over more SMs, persistent ones for short K. The runtime picks among
# them per shape (the same set scripts/gpu-prepare.sh measures).
configs=("128 128 plain" "128 128 persistent" "128 96 plain" "128 96 persistent" "128 64 plain"
         "64 128 plain" "64 64 plain" "64 32 plain" "64 16 plain")
# The 128-row plain grids run their tiles in raster groups of 16 tile rows
# (docs/PERF.md: 979 -> 819 us at 4096x7168x16384, L2 reuse of A and B).
raster_of() { [[ $1 == 128 && $3 == plain ]] && echo 16 || echo 0; }

for kernel in "$root"/kernels/*.mlir; do
  name=$(basename "$kernel" .mlir)
  mkdir -p "$out/$name"
  for config in "${configs[@]}"; do
    read -r bm bn schedule <<<"$config"
    tag="bm${bm}_bn${bn}_${schedule}"
    flags=(--block-m="$bm" --block-n="$bn" --stages=0 --schedule="$schedule"
           --raster-group="$(raster_of "$bm" "$bn" "$schedule")")
      "$fgemmc" "$kernel" "${flags[@]}" --emit=ptx -o "$out/$name/$tag.ptx"
    "$fgemmc" "$kernel" "${flags[@]}" -v -o "$out/$name/$tag.cubin" >"$out/$name/$tag.ptxas.log"
  done
  "$fgemmc" "$kernel" --dump-dir="$out/$name/stages" -o "$out/$name/stages/default.cubin"
done
echo "$out"
