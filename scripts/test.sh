#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The test job on a fresh machine: install dependencies, build, run every test
# (lit suites and GoogleTest through ctest). GPU tests skip without an sm_90 GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
ctest --test-dir "${FGEMM_BUILD_DIR:-$root/build}" --output-on-failure
