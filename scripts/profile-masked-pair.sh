#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# On the GPU machine: ncu of fgemm's and DeepGEMM's masked grouped kernels
# on the same inputs (scripts/profile_masked_pair.py), one launch each after
# every cache is flushed, at the GPU's own clocks:
#   scripts/profile-masked-pair.sh [--full] DIR N K ROWS [profile_masked_pair.py options]
#   carry: [DIR, ".device/deepgemm"]
# DIR is what scripts/gpu-prepare.sh gathers (DIR/all, DIR/lib). Default: the
# kernels' duration and their SMs' active cycles (min / avg / max over SMs)
# against the elapsed cycles, printed. --full: ncu --set full with source
# counters; $OUT gets details.txt and source.csv.gz (SASS, per instruction).
# DeepGEMM is built from .device/deepgemm (scripts/build-deepgemm.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
full=0
if [[ ${1:-} == --full ]]; then full=1; shift; fi
if (($# < 4)); then sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
dir=$(cd "$1" && pwd); shift
out=${OUT:-$PWD/profile-logs}
tmp=${COMPARE_TMP:-/tmp/fgemm-profile}
mkdir -p "$out" "$tmp"
timeout -k 5 "${BUILD_BUDGET:-300}" bash "$root/scripts/build-deepgemm.sh" \
  "${DEEPGEMM_SRC:-$root/.device/deepgemm}" "$tmp/deepgemm" >"$out/dg_build.log" 2>&1 ||
  { echo "DeepGEMM build failed: see dg_build.log" >&2; exit 1; }
export PYTHONPATH=$tmp/deepgemm:$root/python FGEMM_KERNEL_DIR=$dir/all FGEMM_LIBRARY=$dir/lib/libfgemm.so
export DG_JIT_CACHE_DIR=$tmp/dg-jit PYTHONUNBUFFERED=1 NVCC_PREPEND_FLAGS=-ccbin=/usr/bin/g++
[[ -d /usr/local/cuda ]] && export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
pair=("$root/scripts/profile_masked_pair.py" "$@")
# DeepGEMM's JIT compiles outside the profiler.
python3 "${pair[@]}" || exit 1
common=(--profile-from-start off --clock-control none --cache-control all)
if ((full)); then
  ncu "${common[@]}" --set full --import-source no -f -o "$tmp/pair" python3 "${pair[@]}" >"$out/ncu.log" 2>&1 ||
    { tail -5 "$out/ncu.log" >&2; exit 1; }
  ncu --import "$tmp/pair.ncu-rep" --page details >"$out/details.txt"
  ncu --import "$tmp/pair.ncu-rep" --page source --csv --print-source sass | gzip -c >"$out/source.csv.gz"
  grep -E "^  [a-z_ ].*\(|Duration|Elapsed Cycles|SM Active Cycles" "$out/details.txt"
else
  metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
  ncu "${common[@]}" --metrics "$metrics" python3 "${pair[@]}" 2>&1 | grep -E "\(|gpu__|sm__"
fi
