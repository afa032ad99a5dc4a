//===- KernelCache.h - the on-disk cache of compiled kernels ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Compiled kernels (cubin + kernel description) stored under a key that
// digests everything they depend on (DSL source, configuration, compiler and
// ptxas versions, target). Safe with many threads and processes on one key:
//   - one compiles, the others wait: an exclusive flock on KEY.lock is held
//     from the second lookup to the publication;
//   - publication is atomic: files are written and fsync'ed in a private
//     temporary directory that is then renamed to KEY/;
//   - every entry carries a manifest with the SHA-256 and size of each file,
//     checked on every lookup: a truncated or tampered entry is moved aside
//     and rebuilt, never loaded.
// No MLIR here: the build step is a callback (the JIT's compile, or a test's).
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_KERNELCACHE_H
#define FGEMM_RUNTIME_KERNELCACHE_H

#include "Runtime/Status.h"

#include <functional>
#include <optional>
#include <string>

namespace fgemm {

/// A compiled kernel's files, in memory.
struct KernelFiles {
  std::string cubin;
  std::string meta;
};

/// A valid cache entry.
struct CachedKernel {
  std::string base;   ///< BASE.cubin and BASE.meta (Kernel::loadFiles)
  bool built = false; ///< this call compiled it
};

class KernelCache {
public:
  /// $FGEMM_CACHE_DIR, else $XDG_CACHE_HOME/fgemm, else $HOME/.cache/fgemm.
  static std::string defaultDirectory();

  explicit KernelCache(std::string directory)
      : directory(std::move(directory)) {}

  /// The entry of `key` (lowercase hex, 16 to 128 digits); runs `build` under
  /// the key's lock when the entry is missing or fails its check.
  Expected<CachedKernel>
  getOrBuild(const std::string &key,
             const std::function<Expected<KernelFiles>()> &build) const;

  /// The valid entry of `key` if there is one; an entry that fails its check
  /// is an error (and stays where it is).
  Expected<std::optional<CachedKernel>> lookup(const std::string &key) const;

  const std::string &path() const { return directory; }

private:
  std::string directory;
};

} // namespace fgemm

#endif // FGEMM_RUNTIME_KERNELCACHE_H
