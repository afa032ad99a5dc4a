//===- CubinWriter.cpp - patch cubin words, write, compare ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Word access on a validated Cubin, the atomic writer, and the comparison used
// by `fgemm-sass compare` to prove that a patched file differs from its input
// only where the pass said it would.
//
// Why in-place patching is enough: the pass only flips control bits of
// existing instructions, so the `.text` section keeps its size and every
// instruction its offset. The bytes of `.text.<kernel>` are shared by the
// section and its PT_LOAD segment, there is no checksum in a cubin, and no
// EIATTR depends on control bits (SASS.md §8.4).
//
//===----------------------------------------------------------------------===//

#include "Target/SASS/Cubin.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>

using namespace fgemm::sass;
using namespace llvm;

namespace {

/// Offsets of the two halves inside a 16-byte word (SASS.md §1).
constexpr unsigned kLoByteOffset = 0;
constexpr unsigned kHiByteOffset = 8;

uint64_t wordFileOffset(const KernelCode &kernel, uint64_t index) {
  assert(index < kernel.numWords() && "word index out of range");
  return kernel.fileOffset + index * kSassWordBytes;
}

} // namespace

SassWord Cubin::word(const KernelCode &kernel, uint64_t index) const {
  const uint8_t *p = data.data() + wordFileOffset(kernel, index);
  SassWord w;
  w.lo = support::endian::read64le(p + kLoByteOffset);
  w.hi = support::endian::read64le(p + kHiByteOffset);
  return w;
}

std::vector<SassWord> Cubin::words(const KernelCode &kernel) const {
  std::vector<SassWord> result;
  result.reserve(kernel.numWords());
  for (uint64_t i = 0, e = kernel.numWords(); i != e; ++i)
    result.push_back(word(kernel, i));
  return result;
}

void Cubin::setHi(const KernelCode &kernel, uint64_t index, uint64_t hi) {
  uint8_t *p = data.data() + wordFileOffset(kernel, index);
  support::endian::write64le(p + kHiByteOffset, hi);
}

Error Cubin::writeFile(StringRef path) const {
  // writeToOutput writes a temporary file next to `path` and renames it over
  // `path` only when the callback succeeds, so readers (a JIT cache, a
  // concurrently running benchmark) never see a half-written cubin.
  return writeToOutput(path, [&](raw_ostream &os) -> Error {
    os.write(reinterpret_cast<const char *>(data.data()), data.size());
    return Error::success();
  });
}

const KernelCode *Cubin::findKernelAt(uint64_t offset,
                                      uint64_t &wordIndex) const {
  for (const KernelCode &kernel : kernelList) {
    if (offset >= kernel.fileOffset &&
        offset - kernel.fileOffset < kernel.size) {
      wordIndex = (offset - kernel.fileOffset) / kSassWordBytes;
      return &kernel;
    }
  }
  return nullptr;
}

Expected<CubinDifference> fgemm::sass::compareCubins(const Cubin &before,
                                                     const Cubin &after) {
  ArrayRef<uint8_t> a = before.bytes(), b = after.bytes();
  if (a.size() != b.size())
    return createStringError(inconvertibleErrorCode(),
                             "files differ in size (" + Twine(a.size()) +
                                 " vs " + Twine(b.size()) +
                                 " bytes); not a patched copy");
  ArrayRef<KernelCode> ka = before.kernels(), kb = after.kernels();
  bool sameLayout = ka.size() == kb.size();
  for (size_t i = 0; sameLayout && i < ka.size(); ++i)
    sameLayout = ka[i].name == kb[i].name &&
                 ka[i].fileOffset == kb[i].fileOffset &&
                 ka[i].size == kb[i].size;
  if (!sameLayout)
    return createStringError(inconvertibleErrorCode(),
                             "kernel sections differ in name, offset or size; "
                             "not a patched copy");

  CubinDifference diff;
  for (uint64_t offset = 0; offset < a.size(); ++offset) {
    if (a[offset] == b[offset])
      continue;
    uint64_t wordIndex = 0;
    const KernelCode *kernel = before.findKernelAt(offset, wordIndex);
    if (!kernel) {
      ++diff.bytesOutsideCode;
      continue;
    }
    WordDifference d;
    d.kernel = kernel->name;
    d.offsetInSection = wordIndex * kSassWordBytes;
    d.before = before.word(*kernel, wordIndex);
    d.after = after.word(*kernel, wordIndex);
    diff.words.push_back(std::move(d));
    // Continue after this word: its other differing bytes are covered.
    offset = kernel->fileOffset + (wordIndex + 1) * kSassWordBytes - 1;
  }
  return diff;
}
