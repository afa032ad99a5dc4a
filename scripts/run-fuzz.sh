#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the libFuzzer target over the SASS reader + decoder + interleave pass
# (tools/fgemm-sass/fuzz) with clang-22 and runs it for a bounded time.
#
#   scripts/run-fuzz.sh [SECONDS]        default 60 (or $FGEMM_FUZZ_SECONDS)
#
# Environment: FGEMM_FUZZ_BUILD_DIR (default build-fuzz), FGEMM_FUZZ_JOBS
# (build parallelism, default 2), FGEMM_FUZZ_SOURCE (CMake source dir, default
# the repo; any top level that adds tools/fgemm-sass works), CC/CXX (default
# clang-22/clang++-22), MLIR_DIR (default /usr/lib/llvm-22/lib/cmake/mlir).
# Seeds: cubins that ptxas (if present) builds from test/Target/SASS/Inputs,
# plus truncated copies. Crashes/contract violations leave a reproducer in
# $BUILD/fuzz-artifacts/ and make the script fail.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-${FGEMM_FUZZ_SECONDS:-60}}
build=${FGEMM_FUZZ_BUILD_DIR:-$repo/build-fuzz}
source_dir=${FGEMM_FUZZ_SOURCE:-$repo}
jobs=${FGEMM_FUZZ_JOBS:-2}
cc=${CC:-clang-22}
cxx=${CXX:-clang++-22}

if ! command -v "$cxx" >/dev/null; then
  echo "run-fuzz: $cxx not found (apt-get install clang-22 libclang-rt-22-dev)" >&2
  exit 1
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$source_dir" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DMLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}" \
  -DFGEMM_BUILD_FUZZERS=ON -DFGEMM_BUILD_TESTS=OFF >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" --target fgemm-sass-fuzz -j "$jobs"

fuzzer=$(find "$build" -type f -name fgemm-sass-fuzz -perm -u+x | head -1)
[[ -x "$fuzzer" ]] || { echo "run-fuzz: fgemm-sass-fuzz was not built" >&2; exit 1; }

corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$corpus" "$artifacts"
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [[ -x "$ptxas" ]]; then
  for ptx in "$repo"/test/Target/SASS/Inputs/*.ptx; do
    name=$(basename "$ptx" .ptx)
    arch=sm_90a
    grep -q '^\.target sm_80' "$ptx" && arch=sm_80
    "$ptxas" -arch="$arch" "$ptx" -o "$corpus/$name.cubin" 2>/dev/null || continue
    head -c 1000 "$corpus/$name.cubin" >"$corpus/$name.head1000"
  done
else
  echo "run-fuzz: no ptxas; starting from an empty corpus" >&2
fi

echo "run-fuzz: $fuzzer for ${seconds}s, corpus $corpus"
# -rss_limit_mb guards against a reader that allocates per claimed size.
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus"
