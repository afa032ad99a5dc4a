# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ctypes binding of libfgemm.so (lib/CApi/fgemm.h): no torch C++ extension,
so nothing to rebuild per torch version."""

import ctypes
import os
import threading

API_VERSION = 11  # FGEMM_API_VERSION this binding was written for

SUCCESS = 0
ERROR_INVALID_ARGUMENT = 1
ERROR_RUNTIME = 2


class FgemmError(RuntimeError):
    """The runtime failed: kernels missing or unusable, or the CUDA driver."""


def _candidates():
    env = os.environ.get("FGEMM_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "_lib", "libfgemm.so")
    # A source checkout: python/fgemm -> build/lib.
    yield os.path.join(here, "..", "..", "build", "lib", "libfgemm.so")


_lib = None
_lib_lock = threading.Lock()


def library():
    """libfgemm.so, loaded once ($FGEMM_LIBRARY, the package's _lib/, or the
    checkout's build/lib/)."""
    global _lib
    lib = _lib  # set once, never reset: no lock needed to read it
    if lib is not None:
        return lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            path = os.path.normpath(path)
            if not os.path.exists(path):
                tried.append(path + " (missing)")
                continue
            lib = ctypes.CDLL(path)
            _declare(lib)
            version = lib.fgemm_api_version()
            if version != API_VERSION:
                raise FgemmError(
                    f"{path} implements fgemm C API version {version}, this "
                    f"package needs {API_VERSION}: rebuild or reinstall fgemm")
            _lib = lib
            return lib
        raise FgemmError("libfgemm.so not found; tried: " + ", ".join(tried) +
                         " (set FGEMM_LIBRARY, or build with scripts/build.sh)")


def _declare(lib):
    c = ctypes
    lib.fgemm_api_version.restype = c.c_int
    lib.fgemm_api_version.argtypes = []
    lib.fgemm_last_error.restype = c.c_char_p
    lib.fgemm_last_error.argtypes = []
    lib.fgemm_context_create.restype = c.c_int
    lib.fgemm_context_create.argtypes = [c.c_int, c.c_char_p, c.POINTER(c.c_void_p)]
    lib.fgemm_context_destroy.restype = None
    lib.fgemm_context_destroy.argtypes = [c.c_void_p]
    lib.fgemm_context_set_num_sms.restype = c.c_int
    lib.fgemm_context_set_num_sms.argtypes = [c.c_void_p, c.c_int]
    lib.fgemm_context_num_sms.restype = c.c_int
    lib.fgemm_context_num_sms.argtypes = [c.c_void_p]
    lib.fgemm_context_num_kernels.restype = c.c_int
    lib.fgemm_context_num_kernels.argtypes = [c.c_void_p]
    lib.fgemm_gemm_fp8_nt.restype = c.c_int
    lib.fgemm_gemm_fp8_nt.argtypes = [c.c_void_p] * 6 + [c.c_int64] * 3 + [c.c_void_p]
    lib.fgemm_gemm_fp8_nt_fp32.restype = c.c_int
    lib.fgemm_gemm_fp8_nt_fp32.argtypes = [c.c_void_p] * 7 + [c.c_int64] * 3 + [c.c_void_p]
    lib.fgemm_gemm_fp8_nt_variant.restype = c.c_int
    lib.fgemm_gemm_fp8_nt_variant.argtypes = \
        [c.c_void_p, c.c_char_p] + [c.c_void_p] * 6 + [c.c_int64] * 3 + [c.c_void_p]
    lib.fgemm_context_num_grouped_kernels.restype = c.c_int
    lib.fgemm_context_num_grouped_kernels.argtypes = [c.c_void_p]
    lib.fgemm_m_grouped_gemm_fp8_nt_contiguous.restype = c.c_int
    lib.fgemm_m_grouped_gemm_fp8_nt_contiguous.argtypes = \
        [c.c_void_p] * 7 + [c.c_int64] * 4 + [c.c_void_p]
    lib.fgemm_m_grouped_gemm_fp8_nt_masked.restype = c.c_int
    lib.fgemm_m_grouped_gemm_fp8_nt_masked.argtypes = \
        [c.c_void_p] * 7 + [c.c_int64] * 5 + [c.c_void_p]
    lib.fgemm_m_grouped_gemm_fp8_nt_contiguous_psum.restype = c.c_int
    lib.fgemm_m_grouped_gemm_fp8_nt_contiguous_psum.argtypes = \
        [c.c_void_p] * 7 + [c.c_int64] * 4 + [c.c_void_p]
    lib.fgemm_m_grouped_gemm_fp8_nt_contiguous_unpadded.restype = c.c_int
    lib.fgemm_m_grouped_gemm_fp8_nt_contiguous_unpadded.argtypes = \
        [c.c_void_p] * 7 + [c.c_int64] * 4 + [c.c_void_p]
    lib.fgemm_m_grouped_validate_group_ends.restype = c.c_int
    lib.fgemm_m_grouped_validate_group_ends.argtypes = [c.c_void_p, c.c_void_p] + [c.c_int64] * 3
    lib.fgemm_m_grouped_validate_m_indices.restype = c.c_int
    lib.fgemm_m_grouped_validate_m_indices.argtypes = [c.c_void_p, c.c_void_p, c.c_int64, c.c_int64]
    lib.fgemm_scales_to_mn_major.restype = c.c_int
    lib.fgemm_scales_to_mn_major.argtypes = \
        [c.c_void_p, c.c_void_p] + [c.c_int64] * 6 + [c.c_void_p, c.c_void_p]


def check(status):
    """Raises the exception a C status code stands for."""
    if status == SUCCESS:
        return
    message = library().fgemm_last_error().decode("utf-8", "replace")
    if status == ERROR_INVALID_ARGUMENT:
        raise ValueError(message)
    raise FgemmError(message)


_jit = None


def jit_library():
    """libfgemm_jit.so (kernels compiled on first use; it carries the
    compiler), or None: $FGEMM_JIT_LIBRARY, the package's _lib/, or the
    checkout's build/lib/."""
    global _jit
    if _jit is not None:
        return _jit
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("FGEMM_JIT_LIBRARY")
    candidates = [env] if env else [
        os.path.join(here, "_lib", "libfgemm_jit.so"),
        os.path.join(here, "..", "..", "build", "lib", "libfgemm_jit.so")]
    library()  # first: libfgemm_jit.so uses this libfgemm.so's contexts
    for path in candidates:
        path = os.path.normpath(path)
        if os.path.exists(path):
            jit = ctypes.CDLL(path)
            jit.fgemm_jit_context_create.restype = ctypes.c_int
            jit.fgemm_jit_context_create.argtypes = [
                ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
            _jit = jit
            return jit
    return None


def kernel_dir():
    """Where the compiled kernels are: $FGEMM_KERNEL_DIR, else the package's
    kernels/ (filled at install time). Without one, libfgemm_jit.so compiles
    them on first use."""
    env = os.environ.get("FGEMM_KERNEL_DIR")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")


class Context:
    """One device's loaded kernels (fgemm_context; from `directory`, default
    kernel_dir()), kept for the life of the
    process (destroying it at interpreter exit could race CUDA's own
    teardown). Calls are serialized: the C handle is not for two threads at
    once."""

    def __init__(self, device, directory=None):
        lib = library()
        handle = ctypes.c_void_p()
        directory = directory or kernel_dir()
        if os.path.isdir(directory):
            check(lib.fgemm_context_create(device, directory.encode(), ctypes.byref(handle)))
        elif jit_library() is not None:
            # Compile on first use into the kernel cache ($FGEMM_CACHE_DIR).
            check(jit_library().fgemm_jit_context_create(device, None, ctypes.byref(handle)))
        else:
            raise FgemmError(
                f"no compiled kernels at '{directory}' and no libfgemm_jit.so: set "
                "FGEMM_KERNEL_DIR to a directory of NAME.cubin + NAME.meta "
                "(fgemm-precompile --pack DIR writes one), or build with the "
                "compiler for kernels compiled on first use")
        self.handle = handle
        self.device = device
        self.lock = threading.Lock()
        self.num_sms = 0  # the cap last applied; 0 = all

    def set_num_sms(self, num_sms):
        if num_sms != self.num_sms:
            check(library().fgemm_context_set_num_sms(self.handle, num_sms))
            self.num_sms = num_sms


_contexts = {}
_contexts_lock = threading.Lock()


def context(device):
    """The Context of CUDA device `device`, created on first use."""
    with _contexts_lock:
        ctx = _contexts.get(device)
        if ctx is None:
            ctx = Context(device)
            _contexts[device] = ctx
        return ctx
