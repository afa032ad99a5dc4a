#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# fgemm against DeepGEMM on the 18 dense DeepSeek-V3 shapes (or, with --decode,
# M = 1, 4, 8, 16, 32 x their six N, K; COMPARE_SHAPES='M,N,K;...' replaces
# either list), in one GPU call:
# both (and cuBLASLt's blockwise FP8 GEMM through torch._scaled_mm, where
# torch has it for sm_90) timed the same way, kernel only, with
#   ncu --cache-control all --clock-control none --metrics gpu__time_duration.sum
# (L2 flushed and invalidated before each profiled launch); per shape the
# median of the profiled launches.
#
#   scripts/compare-deepgemm.sh [--quick|--decode] [--no-cublas] [--budget S] [--recipe 1d2d|1d1d]
#                               [FGEMM_DIR [DEEPGEMM_SRC]]
#
# --recipe 1d1d compares the FP32 GEMM D = C + A B^T (1x128 scales on A and
# B) accumulated in place: fgemm-bench --recipe 1d1d --c-in-place against
# DeepGEMM's fp8_gemm_nt(..., c=d, recipe=(1, 1, 128)); no cuBLASLt column.
#
# FGEMM_DIR (default .device/fgemm) is what scripts/gpu-prepare.sh gathers
# (bin/fgemm-bench, all/); DEEPGEMM_SRC (default .device/deepgemm) is
# DeepGEMM's tree with third-party/cutlass/include and third-party/fmt/include
# at the commits it pins (never committed: .device/ is ignored). Device call:
#   run: bash scripts/compare-deepgemm.sh   carry: [".device/fgemm", ".device/deepgemm"]
#
# Phases (each timed; the whole run keeps inside --budget seconds, default
# 540, and always ends with the report):
#   1. DeepGEMM build (python3 setup.py build, as develop.sh) in the
#      background, under CC=/usr/bin/gcc CXX=/usr/bin/g++;
#      meanwhile fgemm-bench under ncu (--no-check --iters 3: 7 launches a
#      shape), then fgemm-bench alone (CUDA-event times, for reference);
#   2. warm: DeepGEMM's JIT for every shape in up to 6 processes (cache in
#      DG_JIT_CACHE_DIR, reused below), D checked against FP32, cuBLASLt
#      checked and its kernel names read with the torch profiler;
#   3. one python process under ncu per library: per shape 7 calls, each after
#      a marker kernel (torch.cuda._sleep) that separates the calls;
#   4. report: $OUT/compare.json (one object per shape), $OUT/compare-summary.json
#      (geometric means, notes), $OUT/compare.md; the table printed last.
# Logs: $OUT/compare.log, $OUT/logs.tgz (everything else). If DeepGEMM does not
# build or import, the fgemm (and cuBLASLt) columns are still measured.
set -uo pipefail

usage() { sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0 decode=0 cublas=1 budget=${COMPARE_BUDGET:-540} recipe=1d2d
positional=()
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --decode) decode=1 ;;
    --no-cublas) cublas=0 ;;
    --budget) budget=$2; shift ;;
    --budget=*) budget=${1#--budget=} ;;
    --recipe) recipe=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    *) positional+=("$1") ;;
  esac
  shift
done
# The phases after the first keep up to 200 s for themselves (cap below).
if ! [[ $budget =~ ^[0-9]+$ ]] || ((budget < 220)); then
  echo "--budget is at least 220 s (the later phases keep up to 200 s), got '$budget'" >&2
  exit 2
fi
case $recipe in
  1d2d) recipe_flags=() dg_kernel=sm90_fp8_gemm_1d2d ;;
  1d1d) recipe_flags=(--recipe 1d1d --c-in-place) dg_kernel=sm90_fp8_gemm_1d1d cublas=0 ;;
  *) echo "--recipe is 1d2d or 1d1d, got '$recipe'" >&2; exit 2 ;;
esac
export COMPARE_RECIPE=$recipe   # read by compare_deepgemm.py
fgdir=${positional[0]:-$root/.device/fgemm}
dgsrc=${positional[1]:-$root/.device/deepgemm}
iters=${FGEMM_ITERS:-3}   # fgemm-bench --iters; it launches 1 + 3 warm-up + iters
reps=${COMPARE_REPS:-$((4 + iters))}  # DeepGEMM / cuBLASLt calls a shape: as many
jobs=${COMPARE_JOBS:-6}
out=${OUT:-$PWD/compare-logs}
work=$out/work
tmp=${COMPARE_TMP:-/tmp/fgemm-compare}
dgdir=$tmp/deepgemm
rm -rf "$work"
mkdir -p "$work" "$tmp"
: >"$work/notes.txt"
exec > >(tee -a "$out/compare.log") 2>&1
tee_pid=$!

start=$(date +%s)
ts() { printf '[%s +%3ds]' "$(date +%H:%M:%S)" $(($(date +%s) - start)); }
say() { echo "$(ts) $*"; }
note() { echo "$*" >>"$work/notes.txt"; say "NOTE: $*"; }
left() { echo $((start + budget - $(date +%s))); }
# cap WANT [RESERVE]: a phase's time limit, leaving RESERVE s (the report's) of the budget.
cap() { local want=$1 l; l=$(($(left) - ${2:-30})); ((l < want)) && want=$l; ((want < 1)) && want=1; echo "$want"; }
py() { python3 "$root/scripts/compare_deepgemm.py" "$@"; }

if ((quick && decode)); then
  echo "--quick and --decode choose different shape lists: give one" >&2; exit 2
fi
shape_flag=()
((quick)) && shape_flag=(--quick)
((decode)) && shape_flag=(--decode)
shapes=$(py shapes "${shape_flag[@]}") || { echo "compare_deepgemm.py failed" >&2; exit 2; }
nshapes=$(tr ';' '\n' <<<"$shapes" | grep -c .)
say "compare-deepgemm: $nshapes shapes, budget ${budget}s, fgemm $fgdir, DeepGEMM $dgsrc, out $out"

finished=0
finish() {
  ((finished)) && return
  finished=1
  say "== report"
  py report --shapes "$shapes" --workdir "$work" --out "$out" --reps "$reps" \
    --fgemm-launches $((4 + iters)) --notes "$work/notes.txt"
  tar czf "$out/logs.tgz" -C "$out" work 2>/dev/null && rm -rf "$work"
  say "done: $out/compare.json, $out/compare-summary.json, $out/compare.md, $out/compare.log, $out/logs.tgz"
}
trap 'note "stopped by a signal"; finish; exit 1' TERM INT

# ---- environment ----------------------------------------------------------
ncu=$(command -v ncu)
for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [[ -z $ncu && -x $c ]] && ncu=$c
done
[[ -z ${CUDA_HOME:-} && -d /usr/local/cuda ]] && export CUDA_HOME=/usr/local/cuda
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
  echo "ncu: ${ncu:-none} $([[ -n $ncu ]] && "$ncu" --version | tail -1)"
  echo "nvcc: $("${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*')"
  python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
  echo "g++: $(command -v g++) $(g++ --version 2>/dev/null | head -1); /usr/bin/g++: $(/usr/bin/g++ --version 2>/dev/null | head -1)"
  python3 -c 'import sysconfig as s; print("python CC:", s.get_config_var("CC"), "| LDSHARED:", s.get_config_var("LDSHARED"))'
  cat "$dgsrc/SOURCES.txt" 2>/dev/null
} >"$work/env.txt" 2>&1
cat "$work/env.txt"
ncu_args=(--csv --cache-control all --clock-control none --metrics gpu__time_duration.sum)
if [[ -z $ncu ]]; then
  note "ncu not found: no kernel timings"
elif "$ncu" --help 2>&1 | grep -q -- --print-units; then
  ncu_args+=(--print-units base)   # nanoseconds, not '1.04 ms'
fi
bench=$fgdir/bin/fgemm-bench
[[ -x $bench && -d $fgdir/all ]] || note "no $bench or $fgdir/all (scripts/gpu-prepare.sh makes them): no fgemm column"

# ---- 1. DeepGEMM build (background) ----------------------------------------
dg_build_pid=
if [[ -f $dgsrc/setup.py ]]; then
  say "== DeepGEMM build (background, log work/dg_build.log)"
  dg_build_start=$(date +%s)
  timeout -k 5 "$(cap 330 150)" bash "$root/scripts/build-deepgemm.sh" "$dgsrc" "$dgdir" >"$work/dg_build.log" 2>&1 &
  dg_build_pid=$!
else
  note "no DeepGEMM sources at $dgsrc: no DeepGEMM column"
fi

# ---- 1b. fgemm under ncu (while DeepGEMM compiles) -------------------------
if [[ -n $ncu && -x $bench ]]; then
  say "== fgemm under ncu ($nshapes shapes, --iters $iters)"
  timeout -k 10 "$(cap 200 200)" "$ncu" "${ncu_args[@]}" -k regex:sm90_fp8_gemm --log-file "$work/fgemm_ncu.csv" \
    "$bench" --kernels "$fgdir/all" --shapes "$shapes" --no-check --iters "$iters" ${recipe_flags[@]+"${recipe_flags[@]}"} >"$work/fgemm_ncu.stdout" 2>&1
  rc=$?
  n=$(py count "$work/fgemm_ncu.csv" "$work/fgemm_ncu.stdout" --name sm90_fp8_gemm)
  want=$((nshapes * (4 + iters)))
  say "fgemm ncu: exit $rc, $n kernels profiled (want $want)"
  if [[ $n != "$want" ]]; then
    note "fgemm: one ncu run gave $n launches, not $want: one run per shape instead"
    rm -f "$work/fgemm_ncu.csv"
    i=0
    for s in ${shapes//;/ }; do
      t=$(cap 40 200)
      ((t < 10)) && { note "fgemm: no time left for shape $s"; break; }
      timeout -k 5 "$t" "$ncu" "${ncu_args[@]}" -k regex:sm90_fp8_gemm --log-file "$work/fgemm_ncu_$i.csv" \
        "$bench" --kernels "$fgdir/all" --shapes "$s" --no-check --iters "$iters" ${recipe_flags[@]+"${recipe_flags[@]}"} >"$work/fgemm_ncu_$i.stdout" 2>&1
      i=$((i + 1))
    done
    say "fgemm ncu per shape: done"
  fi
fi
if [[ -x $bench ]]; then
  say "== fgemm-bench alone (CUDA events, --iters 30)"
  timeout -k 5 "$(cap 60 200)" "$bench" --kernels "$fgdir/all" --shapes "$shapes" --no-check --iters 30 ${recipe_flags[@]+"${recipe_flags[@]}"} \
    >"$work/fgemm_events.txt" 2>&1 || note "fgemm-bench (events) exit $?"
fi

# ---- DeepGEMM: build result, import -----------------------------------------
dg_ok=0
if [[ -n $dg_build_pid ]]; then
  say "== waiting for the DeepGEMM build"
  wait "$dg_build_pid"
  rc=$?
  say "DeepGEMM build: exit $rc after $(($(date +%s) - dg_build_start))s"
  if ((rc == 0)); then
    export PYTHONPATH=$dgdir${PYTHONPATH:+:$PYTHONPATH}
    export DG_JIT_CACHE_DIR=$tmp/dg-jit-cache PYTHONUNBUFFERED=1
    # The JIT's nvcc takes the host compiler the extension was built with.
    ccbin=${COMPARE_NVCC_CCBIN-/usr/bin/g++}
    [[ -n $ccbin && -x $ccbin ]] && export NVCC_PREPEND_FLAGS="-ccbin=$ccbin${NVCC_PREPEND_FLAGS:+ $NVCC_PREPEND_FLAGS}"
    if timeout -k 5 "$(cap 90)" python3 -c 'import deep_gemm; print("deep_gemm", deep_gemm.__version__, deep_gemm.__file__)' \
        >"$work/dg_import.log" 2>&1; then
      dg_ok=1
      tail -1 "$work/dg_import.log"
    else
      note "DeepGEMM built but does not import: $(tail -3 "$work/dg_import.log" | tr '\n' ' ')"
    fi
  else
    note "DeepGEMM build failed (exit $rc): $(grep -iE 'error|fatal' "$work/dg_build.log" | head -3 | tr '\n' ' ')"
    tail -20 "$work/dg_build.log"
  fi
fi

# ---- 2. warm: JIT, checks, cuBLASLt kernel names ----------------------------
if ((dg_ok || cublas)); then
  t=$(cap 180 150)
  if ((t >= 20)); then
    say "== warm: DeepGEMM JIT + checks, cuBLASLt checks ($jobs processes, limit ${t}s)"
    warm_args=(--shapes "$shapes" --workdir "$work" --jobs "$jobs" --timeout $((t - 10)))
    ((dg_ok)) || warm_args+=(--no-deepgemm)
    ((cublas)) || warm_args+=(--no-cublas)
    timeout -k 10 "$t" python3 "$root/scripts/compare_deepgemm.py" warm "${warm_args[@]}" || note "warm: exit $?"
  else
    note "no time left for the warm phase"
  fi
fi
warm=$work/warm.json

# ---- 3. DeepGEMM and cuBLASLt under ncu -------------------------------------
profile_lib() { # lib regex limit
  local lib=$1 regex=$2 want=$3 s t
  s=$(py ok-shapes --lib "$lib" --shapes "$shapes" --warm "$warm")
  if [[ -z $s ]]; then note "$lib: no shape ran in the warm phase: not profiled"; return; fi
  t=$(cap "$want")
  if ((t < 20)); then note "$lib: no time left to profile"; return; fi
  say "== $lib under ncu ($(tr ';' '\n' <<<"$s" | grep -c .) shapes x $reps calls, limit ${t}s)"
  timeout -k 10 "$t" "$ncu" "${ncu_args[@]}" -k "regex:$regex" --log-file "$work/${lib}_ncu.csv" \
    python3 "$root/scripts/compare_deepgemm.py" profile --lib "$lib" --shapes "$s" --reps "$reps" --warm "$warm" \
    >"$work/${lib}_ncu.stdout" 2>&1
  say "$lib ncu: exit $?, $(py count "$work/${lib}_ncu.csv" "$work/${lib}_ncu.stdout") kernels profiled"
}
if [[ -n $ncu ]]; then
  # DeepGEMM's kernel: deep_gemm::sm90_fp8_gemm_1d2d_impl<...> (1d1d: ..._1d1d_impl); the marker: spin_kernel.
  ((dg_ok)) && profile_lib deepgemm ".*($dg_kernel|spin_kernel).*" 200
  if ((cublas)); then
    profile_lib cublas "$(py regex --warm "$warm")" 160
  fi
fi

finish
exec >&- 2>&-
wait "$tee_pid" 2>/dev/null  # the log's last lines are out before the call returns
