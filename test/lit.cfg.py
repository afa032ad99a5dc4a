# -*- Python -*-
# lit configuration for fgemm: FileCheck tests of every layer, and GPU tests
# that run only where `fgemm-bench --list-devices` reports an sm_90 device.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "fgemm"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".ptx"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fgemm_obj_root, "test")
config.excludes = ["Inputs", "Runtime", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.environment["FILECHECK_OPTS"] = "--enable-var-scope --allow-unused-prefixes=false"
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.fgemm_tools_dir, append_path=True)
config.substitutions.append(("%fgemm_src_root", config.fgemm_src_root))
config.substitutions.append(("%python", shutil.which("python3") or "python3"))

# Tool features (CIRCT style): ptxas assembles cubins; nvdisasm 13 reads them.
ptxas = shutil.which("ptxas") or os.path.join(config.cuda_bin_dir, "ptxas")
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    llvm_config.with_environment("PATH", os.path.dirname(ptxas), append_path=True)

nvdisasm = os.environ.get("FGEMM_NVDISASM") or shutil.which("nvdisasm")
if not nvdisasm:
    try:
        out = subprocess.run(
            [os.path.join(config.fgemm_src_root, "scripts", "find-nvdisasm.sh")],
            capture_output=True, text=True, timeout=30)
        nvdisasm = out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        nvdisasm = None
if nvdisasm and os.path.exists(nvdisasm):
    config.available_features.add("nvdisasm")
    config.substitutions.append(("%nvdisasm", nvdisasm))
    config.environment["FGEMM_NVDISASM"] = nvdisasm

# valgrind checks the parser's error paths for use after free (fuzz-repros 02).
if shutil.which("valgrind"):
    config.available_features.add("valgrind")

# GPU features: FGEMM_TEST_GPU_ARCH overrides detection (e.g. "none" or "sm_90a").
arch = os.environ.get("FGEMM_TEST_GPU_ARCH")
if arch is None:
    bench = os.path.join(config.fgemm_tools_dir, "fgemm-bench")
    try:
        out = subprocess.run([bench, "--list-devices"], capture_output=True, text=True,
                             timeout=60)
        arch = "sm_90a" if "sm_90" in out.stdout else "none"
    except (OSError, subprocess.SubprocessError):
        arch = "none"
if arch.startswith("sm_90"):
    config.available_features.update(["cuda-device", "sm_90a"])
