#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# One GPU call that measures a change to the kernels, on what
# scripts/gpu-prepare.sh gathered (DIR, default .device/fgemm):
#   1. fgemm vs DeepGEMM (and cuBLASLt) on the 18 dense shapes, kernel-only
#      under ncu (scripts/compare-deepgemm.sh; DeepGEMM sources in
#      .device/deepgemm);
#   2. the runtime's set checked on the dense shapes and the edge sweep;
#   3. each configuration named in CHECK_CFGS checked alone on the sweep (a
#      directory holding one configuration forces the runtime to use it);
#   4. each 128- and 256-row cfg_* directory timed alone on the large shapes
#      (timing only);
#   5. compute-sanitizer memcheck and racecheck on SANITIZE_CFG.
# Device call: run: bash scripts/gpu-measure.sh   carry: [".device/fgemm", ".device/deepgemm"]
# $OUT gets compare-deepgemm.sh's files plus measure.txt (2-5).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "${1:-$root/.device/fgemm}" && pwd)
out=${OUT:-$PWD/gpu-logs}
mkdir -p "$out"
bench=$dir/bin/fgemm-bench
log=$out/measure.txt
large="4096,2112,7168;4096,7168,16384;4096,4096,7168;4096,24576,1536;4096,32768,512;4096,7168,2048;128,7168,16384"
check_cfgs=${CHECK_CFGS:-"cfg_bm256_bn128_plain cfg_bm256_bn128_persistent_cluster2 cfg_bm128_bn192_plain cfg_bm128_bn192_persistent_cluster2b cfg_bm256_bn128_plain_cluster2"}
sanitize_cfg=${SANITIZE_CFG:-cfg_bm256_bn128_persistent_cluster2}

bash "$root/scripts/compare-deepgemm.sh" --budget "${COMPARE_BUDGET:-300}" "$dir" "$root/.device/deepgemm" >/dev/null 2>&1
{
  echo "== dense (runtime's choice, checked)"
  "$bench" --kernels "$dir/all" --shapes dense
  echo "== sweep (runtime's choice)"
  "$bench" --kernels "$dir/all" --shapes sweep | grep -E "FAIL|passed"
  for cfg in $check_cfgs; do
    echo "== sweep $cfg"
    "$bench" --kernels "$dir/$cfg" --shapes sweep | grep -E "FAIL|passed"
  done
  echo "== configurations alone (timing only, median of 20)"
  for cfg in "$dir"/cfg_bm128_* "$dir"/cfg_bm256_*; do
    [[ $cfg == *overlap* ]] && continue
    echo "-- $(basename "$cfg")"
    "$bench" --kernels "$cfg" --shapes "$large" --no-check --iters 20 | grep -E "^ +[0-9]"
  done
  for tool in memcheck racecheck; do
    echo "== $sanitize_cfg $tool"
    compute-sanitizer --tool "$tool" "$bench" --kernels "$dir/$sanitize_cfg" \
      --shapes "129,576,384;300,2112,256" --no-time 2>&1 | grep -E "ERROR SUMMARY|passed|FAIL|Error"
  done
} >"$log" 2>&1
cat "$out/compare.md" 2>/dev/null | grep -E "^\|.*[0-9]|geomean"
cat "$log"
