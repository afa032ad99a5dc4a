#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs on the GPU machine over what scripts/gpu-prepare.sh gathered:
#   1. the 18 dense shapes of DESIGN.md section 5, checked and timed;
#   2. the edge-case sweep (M x N x K), checked, and the K and N sweeps of
#      kernels specialized for one N and K each (dense, M-grouped, the dense
#      variants), checked; then random shapes (fgemm-bench --shapes random:C,
#      seed $RANDOM_SEED, default 1) through the runtime's choice, every
#      recipe and grouped layout, also on few SMs, checked;
#   3. each configuration alone on six shapes, timed;
#   4. each SASS policy on six shapes, timed, with a checksum of D (a patched
#      cubin must give bit-identical output);
#   5. fgemm-bench --autotune on two shapes, then a run that reads the tuning
#      file it wrote (beside links to the kernels).
# Logs go to $OUT (or ./gpu-logs); the summary is printed last.
set -uo pipefail
dir=$(cd "${1:-.device/fgemm}" && pwd)
out=${OUT:-$PWD/gpu-logs}
mkdir -p "$out"
bench=$dir/bin/fgemm-bench
six="64,2112,7168;64,7168,16384;128,2112,7168;128,7168,16384;4096,2112,7168;4096,7168,16384"
nine="$six;128,24576,1536;4096,24576,1536;4096,32768,512"

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
"$bench" --list-devices | tee -a "$out/device.txt"
"$bench" --kernels "$dir/all" --shapes dense >"$out/dense.txt" 2>&1; dense=$?
"$bench" --kernels "$dir/all" --shapes sweep >"$out/sweep.txt" 2>&1; sweep=$?
# Kernels compiled for one N and K each (the JIT's), over the K sweep of
# ksweep/ and the N sweep of nsweep/ (their *.shapes).
specialized() { # dir [fgemm-bench flags...]
  local d=$1 rc=0 layout recipe
  shift
  "$bench" --kernels "$d" "$@" --shapes "$(cat "$d/dense.shapes")" || rc=1
  for layout in contiguous psum; do
    "$bench" --kernels "$d" "$@" --grouped "$layout" --shapes "$(cat "$d/grouped.shapes")" || rc=1
  done
  "$bench" --kernels "$d" "$@" --grouped masked --shapes "$(cat "$d/masked.shapes")" || rc=1
  for recipe in 1d1d bias per-tensor e5m2-a e5m2-b; do
    "$bench" --kernels "$d" "$@" --recipe "$recipe" --shapes "$(cat "$d/variants.shapes")" || rc=1
  done
  return $rc
}
specialized "$dir/ksweep" >"$out/ksweep.txt" 2>&1; ksweep=$?
# The N sweep also on 3 SMs: persistent CTAs then walk many tiles, partial
# last tiles among them.
nsweep=0
{ specialized "$dir/nsweep" || nsweep=1
  specialized "$dir/nsweep" --sms 3 || nsweep=1; } >"$out/nsweep.txt" 2>&1
# The FP32 1D1D kernels: D = C + A B^T, C apart from D and in place.
"$bench" --kernels "$dir/all" --recipe 1d1d --shapes dense >"$out/dense-1d1d.txt" 2>&1; dense1d1d=$?
{ "$bench" --kernels "$dir/all" --recipe 1d1d --shapes sweep
  "$bench" --kernels "$dir/all" --recipe 1d1d --c-in-place --shapes sweep; } >"$out/sweep-1d1d.txt" 2>&1
sweep1d1d=$?
# The bias, per-tensor and e5m2 variants (bf16 D), dense shapes and sweep.
{ "$bench" --kernels "$dir/all" --recipe bias --shapes dense
  "$bench" --kernels "$dir/all" --recipe bias --shapes sweep
  "$bench" --kernels "$dir/all" --recipe per-tensor --shapes dense
  "$bench" --kernels "$dir/all" --recipe per-tensor --shapes sweep
  for recipe in e5m2-a e5m2-b; do
    "$bench" --kernels "$dir/all" --recipe "$recipe" --shapes dense
    "$bench" --kernels "$dir/all" --recipe "$recipe" --shapes sweep
  done; } >"$out/variants.txt" 2>&1
variants=$?
# Random shapes through the runtime's choice (any valid shape must pass).
seed=${RANDOM_SEED:-1}
random=0
{ "$bench" --kernels "$dir/all" --shapes random:200 --seed "$seed" || random=1
  "$bench" --kernels "$dir/all" --shapes random:50 --seed "$((seed + 1))" --sms 5 || random=1
  for recipe in 1d1d bias per-tensor e5m2-a e5m2-b; do
    "$bench" --kernels "$dir/all" --recipe "$recipe" --shapes random:30 --seed "$seed" || random=1
  done
  for layout in contiguous psum unpadded masked; do
    "$bench" --kernels "$dir/all" --grouped "$layout" --shapes random:30 --seed "$seed" || random=1
  done
  "$bench" --kernels "$dir/all" --grouped masked --shapes random:30 --seed "$seed" --sms 3 || random=1
} >"$out/random.txt" 2>&1
: >"$out/configs.txt"
for cfg in "$dir"/cfg_*; do
  echo "== $(basename "$cfg")" >>"$out/configs.txt"
  "$bench" --kernels "$cfg" --shapes "$nine" --no-check --iters 20 >>"$out/configs.txt" 2>&1
done
: >"$out/sass.txt"
for policy in $(ls -d "$dir"/sass_* 2>/dev/null); do
  echo "== $(basename "$policy")" >>"$out/sass.txt"
  "$bench" --kernels "$policy" --shapes "$six" --checksum --iters 30 >>"$out/sass.txt" 2>&1
done

# Autotune: every kernel that accepts each shape, checked and timed; the
# runtime then takes the tuning file's choices.
tuned=$(mktemp -d)
ln -s "$dir"/all/* "$tuned"/
tuneShapes="128,4096,7168;4096,2112,7168"
"$bench" --kernels "$tuned" --shapes "$tuneShapes" --iters 10 \
  --autotune "$tuned/fgemm-tuning.txt" >"$out/autotune.txt" 2>&1; autotune=$?
{ cat "$tuned/fgemm-tuning.txt"
  "$bench" --kernels "$tuned" --shapes "$tuneShapes"; } >>"$out/autotune.txt" 2>&1 || autotune=1
rm -rf "$tuned"

# The commands of test/Integration/GPU/runtime-errors.test (the GPU machine has
# no lit/FileCheck): bad shapes are refused, an empty problem launches nothing.
{
  "$bench" --kernels "$dir/all" --shapes "64,100,128"; echo "exit $?"
  "$bench" --kernels "$dir/all" --shapes "64,128,100"; echo "exit $?"
  "$bench" --kernels "$dir/all" --shapes "0,128,128"; echo "exit $?"
} >"$out/errors.txt" 2>&1

echo "== errors"; cat "$out/errors.txt"
echo "== dense (exit $dense)"; cat "$out/dense.txt"
echo "== sweep (exit $sweep)"; grep -E "FAIL|passed" "$out/sweep.txt"
echo "== K sweep of specialized kernels (exit $ksweep)"; grep -E "FAIL|passed|error" "$out/ksweep.txt"
echo "== N sweep of specialized kernels (exit $nsweep)"; grep -E "FAIL|passed|error" "$out/nsweep.txt"
echo "== dense 1d1d (exit $dense1d1d)"; cat "$out/dense-1d1d.txt"
echo "== sweep 1d1d (exit $sweep1d1d)"; grep -E "FAIL|passed" "$out/sweep-1d1d.txt"
echo "== bias, per-tensor, e5m2 (exit $variants)"; grep -E "FAIL|passed|^ +[0-9]" "$out/variants.txt"
echo "== random shapes, seed $seed (exit $random)"; grep -E "FAIL|passed|error" "$out/random.txt"
echo "== configs"; grep -E "^==|^ +[0-9]" "$out/configs.txt"
echo "== sass"; grep -E "^==|^ +[0-9]|checksum" "$out/sass.txt"
echo "== autotune (exit $autotune)"; grep -E "^autotune|^dense|passed|FAIL|error" "$out/autotune.txt"
