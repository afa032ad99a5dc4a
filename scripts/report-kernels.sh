#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Prints what fgemmc produced for each compiled kernel: ptxas's registers,
# shared memory and spills, the PTX instructions that matter, and (with
# nvdisasm 13) the SASS: QGMMA, TMA, FFMA, and local-memory traffic.
# Usage: scripts/report-kernels.sh [KERNEL_DIR]   (default build/kernels)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${FGEMM_BUILD_DIR:-$root/build}/kernels}
nvdisasm=$("$root/scripts/find-nvdisasm.sh" 2>/dev/null || true)

count() { grep -c -E "$1" "$2" || true; }

printf '%-40s %5s %8s %7s | %5s %4s %5s %4s %5s | %5s %5s %5s %7s\n' \
  kernel/config regs smem spills wgmma tma mbarw setmx ffma QGMMA UTMA FFMA LDL/STL
for meta in "$dir"/*/*.meta; do
  base=${meta%.meta}
  name=$(basename "$(dirname "$meta")")/$(basename "$base")
  log=$base.ptxas.log ptx=$base.ptx cubin=$base.cubin
  regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$log" | head -1)
  spills=$(sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p' "$log" | head -1)
  smem=$(sed -n 's/^smem_bytes=//p' "$meta")
  sass=(- - - -)
  if [[ -n "$nvdisasm" ]]; then
    tmp=$(mktemp)
    "$nvdisasm" -c "$cubin" >"$tmp"
    sass=("$(count 'QGMMA' "$tmp")" "$(count 'UTMALDG|UTMASTG' "$tmp")" "$(count '\bFFMA\b' "$tmp")"
          "$(count '\b(LDL|STL)\b' "$tmp")")
    rm -f "$tmp"
  fi
  printf '%-40s %5s %8s %7s | %5s %4s %5s %4s %5s | %5s %5s %5s %7s\n' "$name" "$regs" "$smem" \
    "${spills:-?}" "$(count 'wgmma.mma_async' "$ptx")" "$(count 'cp.async.bulk.tensor' "$ptx")" \
    "$(count 'mbarrier.try_wait' "$ptx")" "$(count 'setmaxnreg' "$ptx")" "$(count 'fma.rn.f32' "$ptx")" \
    "${sass[@]}"
done
[[ -n "$nvdisasm" ]] || echo "(nvdisasm 13 not found: SASS columns skipped; run scripts/setup.sh)"
