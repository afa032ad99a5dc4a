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

# block_m block_n stages (0 = the deepest pipeline that fits): 128-row tiles for
# large M, 64-row tiles for small M; narrow tiles spread small problems over
# more SMs. The runtime picks among them per shape.
configs=("128 128 0" "128 64 0" "64 128 0" "64 64 0" "64 32 0" "64 16 0")

for kernel in "$root"/kernels/*.mlir; do
  name=$(basename "$kernel" .mlir)
  mkdir -p "$out/$name"
  for config in "${configs[@]}"; do
    read -r bm bn st <<<"$config"
    tag="bm${bm}_bn${bn}"
    flags=(--block-m="$bm" --block-n="$bn" --stages="$st")
    "$fgemmc" "$kernel" "${flags[@]}" --emit=ptx -o "$out/$name/$tag.ptx"
    "$fgemmc" "$kernel" "${flags[@]}" -v -o "$out/$name/$tag.cubin" >"$out/$name/$tag.ptxas.log"
  done
  "$fgemmc" "$kernel" --dump-dir="$out/$name/stages" -o "$out/$name/stages/default.cubin"
done
echo "$out"
