# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`pip install ./python` builds libfgemm.so (the MLIR-free runtime and its C
API; only CMake, a C++17 compiler and the CUDA headers are needed) and puts
it in the package. Compiled kernels are bundled from $FGEMM_BUNDLE_KERNELS
(a directory of NAME.cubin + NAME.meta, e.g. what scripts/compile-kernels.sh
or scripts/gpu-prepare.sh wrote) when that is set; otherwise point
$FGEMM_KERNEL_DIR at one at run time."""

import os
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        package = os.path.join(self.build_lib, "fgemm")
        os.makedirs(os.path.join(package, "_lib"), exist_ok=True)
        prebuilt = os.environ.get("FGEMM_LIBRARY")
        if prebuilt:
            library = prebuilt
        else:
            build = tempfile.mkdtemp(prefix="fgemm-build-")
            subprocess.check_call([
                "cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                "-DFGEMM_BUILD_COMPILER=OFF", "-DFGEMM_BUILD_TESTS=OFF"])
            subprocess.check_call(["cmake", "--build", build, "--target", "fgemm", "-j",
                                   str(os.cpu_count() or 2)])
            library = os.path.join(build, "lib", "libfgemm.so")
        shutil.copy2(library, os.path.join(package, "_lib", "libfgemm.so"))
        kernels = os.environ.get("FGEMM_BUNDLE_KERNELS")
        if kernels:
            shutil.copytree(kernels, os.path.join(package, "kernels"), dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithLibrary})
