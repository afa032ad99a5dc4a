//===- Sha256.h - SHA-256 for cache keys and file checks ---------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// FIPS 180-4 SHA-256, for the kernel cache: keys (a digest of everything a
// compiled kernel depends on) and integrity checks of cached files. The
// runtime links no LLVM, so it carries its own.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_SHA256_H
#define FGEMM_RUNTIME_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fgemm {

class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  /// The digest; the object must not be updated afterwards.
  std::array<uint8_t, 32> finish();
  /// finish() as 64 lowercase hex digits.
  std::string finishHex();

private:
  void compress(const uint8_t *block);
  uint32_t state[8];
  uint8_t buffer[64];
  size_t buffered = 0;
  uint64_t totalBytes = 0;
};

/// SHA-256 of `text` as 64 hex digits.
std::string sha256Hex(std::string_view text);

} // namespace fgemm

#endif // FGEMM_RUNTIME_SHA256_H
