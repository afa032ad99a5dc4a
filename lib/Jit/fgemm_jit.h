/*===- fgemm_jit.h - kernels compiled on first use, from C -------*- C -*-===*\
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                   *|
|*                                                                            *|
|* libfgemm_jit.so: contexts of the C API (fgemm.h) whose kernels are        *|
|* compiled in process the first time a call needs them (DSL -> PTX ->       *|
|* cubin, ptxas as a subprocess) into the kernel cache, where other          *|
|* processes find them. It carries the compiler (MLIR, LLVM); libfgemm.so    *|
|* does not.                                                                  *|
\*===----------------------------------------------------------------------===*/

#ifndef FGEMM_JIT_FGEMM_JIT_H
#define FGEMM_JIT_FGEMM_JIT_H

#include "CApi/fgemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A context on `device` whose dense and M-grouped kernels are compiled on
 * first use into the kernel cache at `cache_dir` (NULL: $FGEMM_CACHE_DIR, else
 * $XDG_CACHE_HOME/fgemm, else ~/.cache/fgemm), each for the call's N and K
 * (fgemm_context_specialize; with $FGEMM_JIT_BACKGROUND=1 in the background,
 * the configuration's generic kernel running meanwhile). Compile errors
 * reach the caller through the GEMM call's status and fgemm_last_error(). */
FGEMM_EXPORT fgemm_status fgemm_jit_context_create(int device,
                                                   const char *cache_dir,
                                                   fgemm_context **out);

#ifdef __cplusplus
}
#endif

#endif /* FGEMM_JIT_FGEMM_JIT_H */
