#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The main job on a fresh machine: install dependencies, build, compile every
# kernel in kernels/ to PTX and cubin, and show what came out.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
dir=$("$root/scripts/compile-kernels.sh" | tail -1)
echo
echo "Compiled kernels are in $dir (every stage of the default config in <kernel>/stages/)."
"$root/scripts/report-kernels.sh" "$dir"
