#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# On the GPU machine: the Python package through libfgemm_jit.so (no kernel
# directory), from the tarball scripts/jit-bundle.sh made; scripts/jit_check.py
# compiles on first use, checks each result and times the first and a
# repeated call; then the package's test suite runs through the JIT.
#   run: bash scripts/gpu-jit.sh   carry: [".device/jit"]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${1:-$root/.device/jit/jit-bundle.tar.xz}
prefix=$(mktemp -d)
tar -C "$prefix" -xJf "$bundle" || exit 1
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
missing=$(ldd "$prefix/lib/libfgemm_jit.so" | grep 'not found')
[[ -z $missing ]] || { echo "gpu-jit: unresolved libraries:"; echo "$missing"; exit 1; }
export PATH=/usr/local/cuda/bin:$PATH # the JIT runs ptxas
export PYTHONPATH=$root/python FGEMM_LIBRARY=$prefix/lib/libfgemm.so.1 \
  FGEMM_JIT_LIBRARY=$prefix/lib/libfgemm_jit.so FGEMM_KERNEL_DIR=/nonexistent \
  FGEMM_CACHE_DIR=$prefix/cache
python3 "$root/scripts/jit_check.py" "$prefix/cache"
status=$?
# Again with the specialized kernels compiled in the background (a fresh
# cache): the first calls run the generic kernels.
FGEMM_JIT_BACKGROUND=1 FGEMM_CACHE_DIR=$prefix/cache-background \
  python3 "$root/scripts/jit_check.py" "$prefix/cache-background" || status=1
# The package's suite with every kernel compiled on first use (specialized
# per N and K), the grouped layouts included.
if python3 -m pytest --version >/dev/null 2>&1; then
  python3 -m pytest -q "$root/python/tests" || status=1
else
  python3 -m unittest discover -s "$root/python/tests" || status=1
fi
echo "gpu-jit: $(find "$prefix/cache" -name '*.cubin' | wc -l) kernels compiled into the cache"
exit $status
