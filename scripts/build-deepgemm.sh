#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds DeepGEMM's Python extension on the GPU machine, as its develop.sh
# does, from the sources scripts/compare-deepgemm.sh documents
# (.device/deepgemm: DeepGEMM with third-party/cutlass and fmt includes):
#   scripts/build-deepgemm.sh SRC DST    then PYTHONPATH=DST imports deep_gemm
# Used by scripts/compare-deepgemm.sh and scripts/compare-grouped.sh.
set -euo pipefail
dgsrc=$1 dgdir=$2
# DEEPGEMM_REUSE=1: keep a build this script finished in DGDIR before (two
# comparison scripts in one device call).
if [[ ${DEEPGEMM_REUSE:-0} == 1 && -f $dgdir/.fgemm-built ]]; then
  echo "reusing the DeepGEMM build in $dgdir"
  exit 0
fi
rm -rf "$dgdir"
cp -r "$dgsrc" "$dgdir"
cd "$dgdir"
# develop.sh: CUTLASS's include folders linked into deep_gemm/include (the
# JIT's -I), the extension built in place and linked into deep_gemm/.
ln -sfn "$dgdir/third-party/cutlass/include/cutlass" deep_gemm/include/cutlass
ln -sfn "$dgdir/third-party/cutlass/include/cute" deep_gemm/include/cute
# torch >= 2.12 wants C++20 for its headers; DeepGEMM's setup.py says C++17.
if python3 -c 'import sys, torch; v = torch.__version__.split("+")[0].split(".")
sys.exit(0 if (int(v[0]), int(v[1])) >= (2, 12) else 1)'; then
  sed -i "s/'-std=c++17'/'-std=c++20'/" setup.py
  echo "torch >= 2.12: the extension is built as C++20"
fi
# Newer wheel packages dropped wheel.bdist_wheel (setuptools has it).
if ! python3 -c 'import wheel.bdist_wheel' 2>/dev/null; then
  sed -i 's/^from wheel.bdist_wheel import bdist_wheel as _bdist_wheel$/from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel/' setup.py
  echo "no wheel.bdist_wheel: setup.py takes setuptools' bdist_wheel"
fi
cc=/usr/bin/gcc cxx=/usr/bin/g++
[[ -x $cxx ]] || { cc=gcc; cxx=g++; echo "no /usr/bin/g++: using $(command -v g++)"; }
CC=$cc CXX=$cxx DG_USE_LOCAL_VERSION=0 python3 setup.py build
so=$(find build -name '_C*.so' -type f | head -1)
[[ -n $so ]] || { echo "no _C*.so under build/"; exit 1; }
ln -sf "../$so" deep_gemm/
ldd "$so" | grep -E 'stdc|nvrtc|cudart|not found' || true
touch "$dgdir/.fgemm-built"
