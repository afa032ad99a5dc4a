//===- Cubin.h - sm_90 cubin reader and in-place patcher --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// A cubin held in memory as a private copy of its bytes, parsed with LLVM's
// Object library (ELF64LEObjectFile). It validates that the file is a CUDA
// ELF for sm_90/sm_90a (either CUDA ELF ABI), finds each kernel's
// `.text.<kernel>` section, and lets a pass read and rewrite instruction
// words in place. Only the `hi` half of existing words can be changed: no
// instruction moves, so no other section, symbol or EIATTR needs an update
// (SASS.md §8.4). The result is written atomically (temporary file + rename).
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TARGET_SASS_CUBIN_H
#define FGEMM_TARGET_SASS_CUBIN_H

#include "Target/SASS/InstructionDecoder.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace fgemm::sass {

/// The two CUDA ELF ABIs (SASS.md §8.1).
enum class CudaElfAbi : uint8_t {
  V1, ///< OSABI 0x33, ABI version 7: ptxas <= 12.x; SM in e_flags bits 7..0
  V2, ///< OSABI 0x41, ABI version 8: ptxas 13; SM in e_flags bits 15..8
};

/// One kernel's code: the `.text.<name>` section.
struct KernelCode {
  std::string name;        ///< section name without the `.text.` prefix
  std::string sectionName; ///< full section name
  unsigned sectionIndex = 0;
  uint64_t fileOffset = 0; ///< sh_offset, validated to lie in the file
  uint64_t size = 0;       ///< sh_size, a multiple of kSassWordBytes
  /// Word indices that are relocation targets (`.rela.text.<name>`); the
  /// pass leaves them alone because the linker/loader may rewrite them.
  llvm::SmallVector<uint64_t, 0> relocatedWords;

  uint64_t numWords() const { return size / kSassWordBytes; }
  bool isRelocated(uint64_t wordIndex) const;
};

class Cubin {
public:
  /// Parses `bytes` (copied). `bufferName` names the input in errors.
  static llvm::Expected<Cubin> create(llvm::ArrayRef<uint8_t> bytes,
                                      llvm::StringRef bufferName);
  /// Reads and parses a file ("-" = stdin).
  static llvm::Expected<Cubin> readFile(llvm::StringRef path);

  llvm::StringRef bufferName() const { return name; }
  CudaElfAbi abi() const { return elfAbi; }
  /// The SM number from e_flags, e.g. 90.
  unsigned smVersion() const { return sm; }
  uint32_t elfFlags() const { return flags; }
  llvm::ArrayRef<KernelCode> kernels() const { return kernelList; }
  llvm::ArrayRef<uint8_t> bytes() const { return data; }

  /// Reads word `index` of `kernel` (index < kernel.numWords()).
  SassWord word(const KernelCode &kernel, uint64_t index) const;
  /// All words of `kernel` in address order.
  std::vector<SassWord> words(const KernelCode &kernel) const;
  /// Replaces the `hi` half of word `index` of `kernel`.
  void setHi(const KernelCode &kernel, uint64_t index, uint64_t hi);

  /// Writes the (patched) bytes to `path` atomically; "-" = stdout.
  llvm::Error writeFile(llvm::StringRef path) const;

  /// Locates file offset `offset` in the code: the kernel and word it falls
  /// in, or nullptr if it lies outside every `.text.*` section.
  const KernelCode *findKernelAt(uint64_t offset, uint64_t &wordIndex) const;

private:
  Cubin() = default;
  llvm::Error parse();

  std::string name;
  std::vector<uint8_t> data;
  CudaElfAbi elfAbi = CudaElfAbi::V2;
  unsigned sm = 0;
  uint32_t flags = 0;
  std::vector<KernelCode> kernelList;
};

/// Result of comparing a cubin with a patched copy of it (`fgemm-sass
/// compare`): every differing instruction word, classified.
struct WordDifference {
  std::string kernel;
  uint64_t offsetInSection = 0;
  SassWord before, after;
};
struct CubinDifference {
  std::vector<WordDifference> words;
  /// Differing bytes that are not inside any kernel's code.
  uint64_t bytesOutsideCode = 0;
};

/// Compares two parses of the same cubin layout; fails if the files differ in
/// size or kernel layout (the pass never changes either).
llvm::Expected<CubinDifference> compareCubins(const Cubin &before,
                                              const Cubin &after);

} // namespace fgemm::sass

#endif // FGEMM_TARGET_SASS_CUBIN_H
