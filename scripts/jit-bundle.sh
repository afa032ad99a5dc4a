#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Packs libfgemm_jit.so, its libfgemm.so.1 and the shared libraries they
# need beyond a CUDA machine's own (Debian's libLLVM.so.22.1, libz3 and
# friends) into one xz tarball of lib/ (about 50 MB), so the JIT runs on a
# GPU machine without LLVM (issue 11). The tarball is not committed.
#   scripts/jit-bundle.sh [OUT.tar.xz]    default .device/jit/jit-bundle.tar.xz
# On the GPU machine: scripts/gpu-jit.sh OUT.tar.xz (glibc >= 2.36: Debian
# 12's libLLVM needs it; Ubuntu 24.04 has 2.39).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FGEMM_BUILD_DIR:-$root/build}
out=${1:-$root/.device/jit/jit-bundle.tar.xz}
jit=$build/lib/libfgemm_jit.so
[[ -f $jit ]] || { echo "jit-bundle: $jit not built (scripts/build.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib" "$(dirname "$out")"
cp "$jit" "$build/lib/libfgemm.so.1" "$work/lib/"
strip --strip-unneeded "$work/lib/libfgemm_jit.so"
# Everything ldd resolves outside glibc, libstdc++ and libgcc (the GPU
# machine's own are newer or equal).
ldd "$jit" | awk '$3 ~ /^\// {print $1, $3}' |
  while read -r name path; do
    case $name in
      libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libz.so*|libzstd.so*|liblzma.so*|libfgemm.so*) ;;
      *) cp -L "$path" "$work/lib/$name" ;;
    esac
  done
tar -C "$work" -cJf "$out" lib
echo "jit-bundle: $out ($(du -h "$out" | cut -f1)): $(ls "$work/lib" | tr '\n' ' ')"
