#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Prints the path of an nvdisasm that reads CUDA 13 cubins (ELF ABI v2), or
# exits 1. Order: $FGEMM_NVDISASM, nvdisasm on PATH, the PyPI wheel
# `nvidia-cuda-nvdisasm` (installs under site-packages/nvidia/cu13/bin).
# Install the wheel with: pip install "nvidia-cuda-nvdisasm>=13.0,<14"
# (13.0 itself is not on PyPI; the oldest 13.x there is 13.2.51).
set -euo pipefail

usable() {
  # nvdisasm 11.x/12.x refuses CUDA 13 cubins (SASS.md §8.1): require 13 or later.
  local ver
  ver=$("$1" --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9]*\)\..*/\1/p' | head -1)
  [[ -n "$ver" && "$ver" -ge 13 ]]
}

for cand in "${FGEMM_NVDISASM:-}" "$(command -v nvdisasm 2>/dev/null || true)" \
            /usr/local/cuda/bin/nvdisasm; do
  if [[ -n "$cand" && -x "$cand" ]] && usable "$cand"; then
    echo "$cand"
    exit 0
  fi
done

python=$(command -v python3 || command -v python || true)
if [[ -n "$python" ]]; then
  while IFS= read -r cand; do
    if [[ -x "$cand" ]] && usable "$cand"; then
      echo "$cand"
      exit 0
    fi
  done < <("$python" - <<'PY' 2>/dev/null
import glob, os, site, sys
roots = list(site.getsitepackages()) + [site.getusersitepackages()] + sys.path
seen = set()
for root in roots:
    for path in sorted(glob.glob(os.path.join(root, "nvidia", "*", "bin", "nvdisasm"))):
        if path not in seen:
            seen.add(path)
            print(path)
PY
)
fi
echo "find-nvdisasm: no nvdisasm >= 13 found (pip install 'nvidia-cuda-nvdisasm>=13.0,<14')" >&2
exit 1
