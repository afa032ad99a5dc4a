#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# fgemm against DeepGEMM on the M-grouped shapes, in one GPU call
# (scripts/compare_grouped.py says how both are checked and timed):
#   run: bash scripts/compare-grouped.sh   carry: [".device/fgemm", ".device/deepgemm"]
# DIR (default .device/fgemm) is what scripts/gpu-prepare.sh gathers; DeepGEMM
# is built from .device/deepgemm (scripts/build-deepgemm.sh), then its JIT
# warmed for every row in parallel processes, then one process measures.
# GROUPED_CONFIGS=1 also times every cfg_contiguous_* / cfg_masked_* kernel
# alone. $OUT gets grouped.md, grouped.json and the logs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "${1:-$root/.device/fgemm}" && pwd)
dgsrc=${2:-$root/.device/deepgemm}
out=${OUT:-$PWD/grouped-logs}
tmp=${COMPARE_TMP:-/tmp/fgemm-grouped}
mkdir -p "$out" "$tmp"
start=$(date +%s)
say() { echo "[+$(($(date +%s) - start))s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
say "DeepGEMM build"
timeout -k 5 "${BUILD_BUDGET:-300}" bash "$root/scripts/build-deepgemm.sh" "$dgsrc" "$tmp/deepgemm" \
  >"$out/dg_build.log" 2>&1 || say "DeepGEMM build failed (exit $?): fgemm only; see dg_build.log"
export PYTHONPATH=$tmp/deepgemm:$root/python FGEMM_KERNEL_DIR=$dir/all FGEMM_LIBRARY=$dir/lib/libfgemm.so
export DG_JIT_CACHE_DIR=$tmp/dg-jit PYTHONUNBUFFERED=1 NVCC_PREPEND_FLAGS=-ccbin=/usr/bin/g++
[[ -d /usr/local/cuda ]] && export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
rows=$(python3 -c "import sys; sys.path.insert(0, '$root/scripts'); import compare_grouped as c; print(len(c.CONTIGUOUS) + (1 if '${GROUPED_CAPACITY:-}' else 2) * len(c.MASKED))")
say "warming DeepGEMM's JIT: $rows rows, 6 at a time"
seq 0 $((rows - 1)) | xargs -P 6 -I{} timeout -k 5 "${WARM_BUDGET:-240}" \
  python3 "$root/scripts/compare_grouped.py" --only {} >"$out/warm.log" 2>&1
say "measuring"
configs=()
if [[ -n ${GROUPED_CONFIGS:-} ]]; then
  # A context needs a dense kernel beside the grouped one: one is copied in.
  dense=$(ls "$dir"/all/bm*.meta | head -1)
  for c in "$dir"/cfg_contiguous_* "$dir"/cfg_masked_*; do
    [[ -f $c/k.cubin ]] || continue
    d=$tmp/configs/$(basename "$c")
    mkdir -p "$d" && cp "$c"/k.* "$d"/ && cp "${dense%.meta}".{cubin,meta} "$d"/
    configs+=("$d")
  done
fi
python3 "$root/scripts/compare_grouped.py" --out "$out" ${configs[@]+--configs "${configs[@]}"} 2>"$out/compare_grouped.log"
say "done"
