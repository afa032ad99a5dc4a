#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs what fgemm builds and tests with on a fresh Debian 12 machine that
# already has the CUDA 13 toolkit under /usr/local/cuda: LLVM/MLIR 22 (with
# lit and FileCheck), ninja, GoogleTest, clang-22 (fuzzers), and nvdisasm 13
# from PyPI. Idempotent: skips what is already there.
set -euo pipefail

packages=(cmake ninja-build g++ libgtest-dev llvm-22-dev libmlir-22-dev mlir-22-tools
          llvm-22-tools clang-22 libclang-rt-22-dev zlib1g-dev libzstd-dev python3-pip valgrind clang-format-22)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q "${missing[@]}"
fi

# nvdisasm 13 reads CUDA 13 cubins (the toolkit here may not ship it).
if ! "$(dirname "$0")/find-nvdisasm.sh" >/dev/null 2>&1; then
  python3 -m pip install -q "nvidia-cuda-nvdisasm>=13.0,<14" ||
    echo "setup: nvdisasm 13 unavailable; SASS cross-checks will be skipped" >&2
fi

if [[ ! -x /usr/local/cuda/bin/ptxas ]] && ! command -v ptxas >/dev/null; then
  echo "setup: ptxas (CUDA 13 toolkit) not found; cubin tests will be skipped" >&2
fi
