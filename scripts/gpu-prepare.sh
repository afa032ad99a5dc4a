#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Prepares one GPU run (DESIGN.md section 6): compiles the dense kernel's
# configurations and SASS-policy variants here and gathers them with
# fgemm-bench into DIR (default .device/fgemm, ignored by git), which the
# device call carries; scripts/gpu-run.sh DIR runs everything there.
#   DIR/all/            the runtime's set (fgemm-bench picks per shape)
#   DIR/cfg_<tag>/      one configuration each, to compare them
#   DIR/sass_<policy>/  the runtime's set after each SASS interleave policy
#   DIR/ksweep/         kernels specialized for one K each, over a K sweep
# FGEMM_GPU_SASS=0 skips the SASS-policy variants; FGEMM_SPECIALIZE=1 adds
# the benchmark shapes' specialized kernels to all/ (see the end).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FGEMM_BUILD_DIR:-$root/build}
out=${1:-$root/.device/fgemm}
kernel=$root/kernels/sm90_fp8_gemm_1d2d.mlir
rm -rf "$out"
mkdir -p "$out/bin" "$out/all" "$out/lib"
cp "$build/bin/fgemm-bench" "$root/scripts/gpu-run.sh" "$out/bin/"
cp "$build/lib/libfgemm.so" "$out/lib/"   # the C API, for scripts/gpu-python.sh

# The runtime's set (denseConfigurationSet in lib/Runtime/Gemm.h, the one
# list) comes from fgemm-precompile; each of its kernels is also measured
# alone (cfg_NAME) and after each SASS policy (sass_POLICY). The variants
# below are experiments measured beside it, in the runtime set's tile
# orders unless they say otherwise: 128-row plain grids in raster groups of
# 16 tile rows, 256-row grids in groups of 8 (the same 2048 rows of A).
raster_of() {
  case $1/$3 in 128/plain) echo 16 ;; 256/*) echo 8 ;; *) echo 0 ;; esac
}
# Clusters of 2 (A multicast), measured alone before they join the set.
clustered=("256 128 plain" "128 128 plain" "128 96 plain" "128 64 plain")
# Clusters of 2 sharing B (cluster along M), and other raster orders.
clustered_b=("256 128 plain" "128 192 plain" "128 128 plain" "128 64 plain")
rastered=("128 128 plain 8" "128 128 plain 0" "128 96 plain 0" "128 128 persistent 16"
          "256 128 plain 16" "256 128 plain 0" "256 128 persistent 0" "256 128 persistent 8")
# Wider 128-row tiles (DeepGEMM picks 128x192 for 4096x2112x7168).
wide=("128 160 plain")
# With promotion overlap (off by default), to measure what it brings.
overlap=("128 96 plain" "128 64 plain" "64 64 plain")
policies=(off deepgemm deepgemm-full every-n2 every-n4)
[[ ${FGEMM_GPU_SASS:-1} == 0 ]] && policies=()

compile() { # dir bm bn schedule [fgemmc flags...]
  local dir=$1 bm=$2 bn=$3 schedule=$4
  shift 4
  local flags=(--block-m="$bm" --block-n="$bn" --stages=0 --schedule="$schedule")
  [[ " $* " == *" --raster-group="* ]] ||
    flags+=(--raster-group="$(raster_of "$bm" "$bn" "$schedule")")
  local split=""
  [[ " $* " =~ " --k-split="([24])" " ]] && split=_ksplit${BASH_REMATCH[1]}
  mkdir -p "$dir"
  "$build/bin/fgemmc" "$kernel" "${flags[@]}" "$@" -o "$dir/bm${bm}_bn${bn}_${schedule}${split}.cubin"
}

"$build/bin/fgemm-precompile" "$kernel" --cache-dir "$out/.cache" --pack "$out/all" >/dev/null
# The M-grouped kernels (packed as contiguous_* / masked_*) join the same
# directory: the C API and the Python package load both kinds from it.
for layout in contiguous contiguous_psum contiguous_unpadded masked; do
  "$build/bin/fgemm-precompile" "$root/kernels/sm90_m_grouped_fp8_gemm_${layout}_1d2d.mlir" \
    --set "$layout" --cache-dir "$out/.cache" --pack "$out/all" >/dev/null
done
"$build/bin/fgemm-precompile" "$root/kernels/sm90_fp8_gemm_1d1d.mlir" --set dense_1d1d \
  --cache-dir "$out/.cache" --pack "$out/all" >/dev/null
# The other dense variants (packed as dense_bias_*, dense_per_tensor_*,
# dense_e5m2_e4m3_*, dense_e4m3_e5m2_*).
"$build/bin/fgemm-precompile" "$root/kernels/sm90_fp8_gemm_bias_1d2d.mlir" --set dense_bias \
  --cache-dir "$out/.cache" --pack "$out/all" >/dev/null
"$build/bin/fgemm-precompile" "$root/kernels/sm90_fp8_gemm_per_tensor.mlir" --set dense_per_tensor \
  --cache-dir "$out/.cache" --pack "$out/all" >/dev/null
for types in e5m2_e4m3 e4m3_e5m2; do
  "$build/bin/fgemm-precompile" "$root/kernels/sm90_fp8_gemm_${types}_1d2d.mlir" --set "dense_$types" \
    --cache-dir "$out/.cache" --pack "$out/all" >/dev/null
done
rm -rf "$out/.cache"
for meta in "$out"/all/bm*.meta; do
  stem=$(basename "$meta" .meta)
  mkdir -p "$out/cfg_$stem"
  cp "$out/all/$stem".{cubin,meta} "$out/cfg_$stem/"
  # block_m, block_n, schedule and raster group of the kernel, for fgemmc.
  config=$(grep '^# config:' "$meta")
  knob() { sed -E "s/.*[<, ]$1 = ([a-z0-9]+).*/\1/" <<<"$config"; }
  for policy in ${policies[@]+"${policies[@]}"}; do
    case $policy in
      every-n*) flags=(--sass-policy=every-n --sass-every-n="${policy#every-n}") ;;
      *) flags=(--sass-policy="$policy") ;;
    esac
    compile "$out/sass_$policy" "$(knob block_m)" "$(knob block_n)" "$(knob schedule)" \
      --raster-group="$(knob raster_group)" --cluster="$(knob cluster)" --multicast="$(knob multicast)" \
      --k-split="$(knob k_split)" --launch-raster="$(knob launch_raster)" \
      --prefetch-scales="$(knob prefetch_scales)" "${flags[@]}"
  done
done
# The grouped kernels' configurations, one directory each
# (cfg_contiguous_* / cfg_masked_*), for scripts/compare-grouped.sh --configs.
grouped_configs=("128 192 plain 16" "128 128 plain 16" "128 96 plain 16" "128 64 plain 16" "64 128 plain 0"
                 "64 64 plain 0" "128 192 persistent 0" "128 128 persistent 0" "128 128 persistent 16"
                 "128 96 persistent 0" "64 128 persistent 0")
# Masked only: persistent 64-row grids of every width (few rows per group in
# a large capacity, as in decoding).
masked_configs=("64 192 persistent 0" "64 160 persistent 0" "64 96 persistent 0" "64 64 persistent 0")
for layout in contiguous masked; do
  configs=("${grouped_configs[@]}")
  [[ $layout == masked ]] && configs+=("${masked_configs[@]}")
  for config in "${configs[@]}"; do
    read -r bm bn schedule group <<<"$config"
    name=${layout}_bm${bm}_bn${bn}_${schedule}_r${group}
    mkdir -p "$out/cfg_$name"
    # A configuration ptxas cannot fit in registers is left out, with a note.
    "$build/bin/fgemmc" "$root/kernels/sm90_m_grouped_fp8_gemm_${layout}_1d2d.mlir" --block-m="$bm" \
      --block-n="$bn" --stages=0 --schedule="$schedule" --raster-group="$group" -o "$out/cfg_$name/k.cubin" \
      2>/dev/null || { echo "gpu-prepare: $name does not compile (left out)" >&2; rm -rf "$out/cfg_$name"; }
  done
  mkdir -p "$out/cfg_${layout}_bm128_bn128_plain_r16_cluster2"
  "$build/bin/fgemmc" "$root/kernels/sm90_m_grouped_fp8_gemm_${layout}_1d2d.mlir" --block-m=128 \
    --block-n=128 --stages=0 --raster-group=16 --cluster=2 -o "$out/cfg_${layout}_bm128_bn128_plain_r16_cluster2/k.cubin"
  # The persistent pairs sharing B of the runtime's sets (masked: every width it
  # may take), for the per-kernel tables a refit of the choice needs.
  widths="192"
  [[ $layout == masked ]] && widths="192 160 128 96"
  for bn in $widths; do
    name=${layout}_bm128_bn${bn}_persistent_pairs
    mkdir -p "$out/cfg_$name"
    "$build/bin/fgemmc" "$root/kernels/sm90_m_grouped_fp8_gemm_${layout}_1d2d.mlir" --block-m=128 \
      --block-n="$bn" --stages=0 --schedule=persistent --raster-group=8 --launch-raster --cluster=2 \
      --multicast=b -o "$out/cfg_$name/k.cubin"
  done
done
for config in "${clustered[@]}"; do
  read -r bm bn schedule <<<"$config"
  compile "$out/cfg_bm${bm}_bn${bn}_${schedule}_cluster2" "$bm" "$bn" "$schedule" --cluster=2
done
for config in "${clustered_b[@]}"; do
  read -r bm bn schedule <<<"$config"
  compile "$out/cfg_bm${bm}_bn${bn}_${schedule}_cluster2b" "$bm" "$bn" "$schedule" --cluster=2 --multicast=b
done
for config in "${rastered[@]}"; do
  read -r bm bn schedule group <<<"$config"
  compile "$out/cfg_bm${bm}_bn${bn}_${schedule}_raster$group" "$bm" "$bn" "$schedule" --raster-group="$group"
done
for config in "${wide[@]}"; do
  read -r bm bn schedule <<<"$config"
  compile "$out/cfg_bm${bm}_bn${bn}_${schedule}" "$bm" "$bn" "$schedule"
done
for config in "${overlap[@]}"; do
  read -r bm bn schedule <<<"$config"
  compile "$out/cfg_bm${bm}_bn${bn}_${schedule}_overlap" "$bm" "$bn" "$schedule" --overlap-promotion=true
done
# ksweep/ and nsweep/: kernels compiled for one N and K each (what the JIT
# makes for a call), with DIR/*.shapes for scripts/gpu-run.sh to check them
# on the dense, contiguous, psum and masked layouts and the dense variants.
# ksweep/: K over 1-17 K blocks, 24, 55 and 56 blocks and two K that end in
# a partial block: every unrolled main loop / remainder split of the K loop
# (the kernels fold K into their trip counts; ptxas 13.0 once miscompiled
# the masked 128x192 kernels at K = 512 and 1024 only). nsweep/: N from one
# WGMMA column block to just past the benchmark's N, most of them ending in
# a partial tile, at an odd K-block count (the kernels fold N into the tile
# count and the last tile's bounds).
specialized_sweep() { # dir dense-shapes grouped-shapes masked-shapes variant-shapes
  local dir=$1 set layout shapes
  mkdir -p "$dir"
  echo "$2" >"$dir/dense.shapes"
  echo "$3" >"$dir/grouped.shapes"
  echo "$4" >"$dir/masked.shapes"
  echo "$5" >"$dir/variants.shapes"
  "$build/bin/fgemm-precompile" "$kernel" --shapes "$2" --cache-dir "$out/.cache" \
    --pack "$dir" >/dev/null
  for layout in contiguous contiguous_psum masked; do
    shapes=$3
    [[ $layout == masked ]] && shapes=$4
    "$build/bin/fgemm-precompile" "$root/kernels/sm90_m_grouped_fp8_gemm_${layout}_1d2d.mlir" \
      --set "$layout" --shapes "$shapes" --cache-dir "$out/.cache" --pack "$dir" >/dev/null
  done
  # The other dense variants (same K loop and tiles; their epilogues differ).
  for set in 1d1d:dense_1d1d bias_1d2d:dense_bias per_tensor:dense_per_tensor \
             e5m2_e4m3_1d2d:dense_e5m2_e4m3 e4m3_e5m2_1d2d:dense_e4m3_e5m2; do
    "$build/bin/fgemm-precompile" "$root/kernels/sm90_fp8_gemm_${set%%:*}.mlir" --set "${set#*:}" \
      --shapes "$5" --cache-dir "$out/.cache" --pack "$dir" >/dev/null
  done
  rm -rf "$out/.cache"
}
ks="128 256 384 512 640 768 896 1008 1024 1152 1280 1408 1536 1664 1792 1920 2048 2176 3008 3072 7040 7168"
dense="" grouped="" masked="" variants=""
for k in $ks; do
  dense+="4096,4096,$k;128,4096,$k;64,7168,$k;"
  grouped+="2,4096,4096,$k;" masked+="2,1024,4096,$k;"
done
for k in 128 512 1024 1152 2048 2176 7168; do variants+="4096,4096,$k;128,4096,$k;"; done
specialized_sweep "$out/ksweep" "${dense%;}" "${grouped%;}" "${masked%;}" "${variants%;}"
ns="8 16 24 56 120 136 200 264 392 1000 2056 2120 4104 7176"
dense="" grouped="" masked="" variants=""
for n in $ns; do
  dense+="4096,$n,1152;128,$n,1152;64,$n,1152;"
  grouped+="2,4096,$n,1152;" masked+="2,1024,$n,1152;"
done
for n in 24 200 2120 7176; do variants+="4096,$n,1152;128,$n,1152;"; done
specialized_sweep "$out/nsweep" "${dense%;}" "${grouped%;}" "${masked%;}" "${variants%;}"

# FGEMM_SPECIALIZE=1: all/ also holds the benchmark shapes' kernels
# compiled for their N and K (DESIGN.md section 5; fgemm-precompile --shapes),
# what fgemm's JIT makes on first use and what DeepGEMM's JIT makes too: the
# runtime prefers them where N and K match.
if [[ ${FGEMM_SPECIALIZE:-0} == 1 ]]; then
  dense_shapes="64,2112,7168;64,24576,1536;64,32768,512;64,7168,16384;64,4096,7168;64,7168,2048"
  dense_shapes+=";128,2112,7168;128,24576,1536;128,32768,512;128,7168,16384;128,4096,7168;128,7168,2048"
  dense_shapes+=";4096,2112,7168;4096,24576,1536;4096,32768,512;4096,7168,16384;4096,4096,7168;4096,7168,2048"
  "$build/bin/fgemm-precompile" "$kernel" --shapes "$dense_shapes" --cache-dir "$out/.cache" \
    --pack "$out/all" >/dev/null
  declare -A grouped_shapes
  grouped_shapes=(["contiguous"]="4,8192,4096,7168;4,8192,7168,2048;8,4096,4096,7168;8,4096,7168,2048"
                  ["masked"]="1,1024,4096,7168;1,1024,7168,2048;2,512,4096,7168;2,512,7168,2048;4,256,4096,7168;4,256,7168,2048")
  for layout in contiguous contiguous_psum masked; do
    "$build/bin/fgemm-precompile" "$root/kernels/sm90_m_grouped_fp8_gemm_${layout}_1d2d.mlir" \
      --set "$layout" --shapes "${grouped_shapes[${layout%_psum}]}" --cache-dir "$out/.cache" \
      --pack "$out/all" >/dev/null
  done
  rm -rf "$out/.cache"
fi
du -sh "$out"
