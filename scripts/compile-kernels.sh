#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Compiles every DSL kernel in kernels/ for each configuration the runtime
# chooses from, into OUT_DIR/<kernel>/<config>.{cubin,meta,ptx,ptxas.log}
# (a kernel directory the runtime, the C API and Python load), and dumps
# every stage of the default configuration into OUT_DIR/<kernel>/stages/.
# Usage: scripts/compile-kernels.sh [OUT_DIR]   (default build/kernels)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FGEMM_BUILD_DIR:-$root/build}
out=${1:-$build/kernels}
fgemmc=$build/bin/fgemmc

for kernel in "$root"/kernels/*.mlir; do
  name=$(basename "$kernel" .mlir)
  unset stage_tag stage_flags
  mkdir -p "$out/$name"
  # The runtime's configuration set (denseConfigurationSet in
  # lib/Runtime/Gemm.h: 256- and 128-row tiles for large M, 64-row ones for
  # small M, narrow ones to spread small problems over more SMs, persistent
  # ones for short K), each with the deepest pipeline that fits.
  # Grouped kernels have their own sets (groupedConfigurationSet in
  # lib/Runtime/GroupedGemm.h), named by the tile space the kernel declares.
  set=dense
  grep -q 'tile_space grouped_contiguous(' "$kernel" && set=contiguous
  grep -q 'tile_space grouped_contiguous_psum' "$kernel" && set=contiguous_psum
  grep -q 'tile_space grouped_contiguous_unpadded' "$kernel" && set=contiguous_unpadded
  grep -q 'tile_space grouped_masked' "$kernel" && set=masked
  # A dense kernel that names its variant (dense_1d1d, dense_bias,
  # dense_per_tensor) has that variant's set.
  variant=$(sed -nE 's/.*variant = "(dense_[a-z0-9_]+)".*/\1/p' "$kernel")
  [[ -n $variant ]] && set=$variant
  "$build/bin/fgemm-precompile" "$kernel" --set "$set" --cache-dir "$out/.cache" --pack "$out/$name" >/dev/null
  rm -rf "$out/.cache"
  # Each one's PTX and ptxas report, by fgemmc with the same knobs.
  for meta in "$out/$name"/*.meta; do
    tag=$(basename "$meta" .meta)
    config=$(grep '^# config:' "$meta")
    knob() { sed -E "s/.*[<, ]$1 = ([a-z0-9_]+).*/\1/" <<<"$config"; }
    flags=(--block-m="$(knob block_m)" --block-n="$(knob block_n)" --stages=0
           --schedule="$(knob schedule)" --raster-group="$(knob raster_group)"
           --cluster="$(knob cluster)" --multicast="$(knob multicast)"
           --k-split="$(knob k_split)" --launch-raster="$(knob launch_raster)"
           --prefetch-scales="$(knob prefetch_scales)")
    "$fgemmc" "$kernel" "${flags[@]}" --emit=ptx -o "$out/$name/$tag.ptx"
    "$fgemmc" "$kernel" "${flags[@]}" -v -o "$out/$name/$tag.check.cubin" >"$out/$name/$tag.ptxas.log"
    [[ -v stage_tag ]] || { stage_tag=$tag; stage_flags=("${flags[@]}"); }
    cmp -s "$out/$name/$tag.check.cubin" "$out/$name/$tag.cubin" ||
      { echo "compile-kernels: fgemmc and fgemm-precompile disagree on $tag" >&2; exit 1; }
    rm -f "$out/$name/$tag.check.cubin" "$out/$name/$tag.check.meta"
  done
  # Every stage of the set's first configuration (fgemmc's defaults are not
  # valid for every kernel: the unpadded layout is persistent only).
  "$fgemmc" "$kernel" "${stage_flags[@]}" --dump-dir="$out/$name/stages" -o "$out/$name/stages/$stage_tag.cubin"
done
echo "$out"
