//===- CubinReader.cpp - validate a cubin and find its kernels --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Parses a cubin with llvm::object::ELF64LEObjectFile and checks, in order,
// everything the pass relies on, so that any input (truncated, corrupted, an
// x86 object, a cubin for another SM) ends in an llvm::Error, never a crash:
//
//   1. ELF identification: magic, ELFCLASS64, little-endian.
//   2. LLVM's own ELF header/section-table checks (ELFObjectFile::create,
//      ELFFile::sections, getSectionName, relas/rels are all bounds-checked).
//   3. e_machine == EM_CUDA (190).
//   4. The CUDA ELF ABI from e_ident (SASS.md §8.1): OSABI 0x33 / ABI
//      version 7 keeps the SM in e_flags bits 7..0; OSABI 0x41 / ABI version 8
//      (CUDA 13) in bits 15..8. sm_90 and sm_90a share the machine value 0x5a.
//   5. SM == 90: the decoder knows only Hopper's encoding.
//   6. Each `.text.<kernel>` section (PROGBITS with SHF_EXECINSTR, SASS.md
//      §8.2) lies inside the file and holds whole 16-byte words.
//
//===----------------------------------------------------------------------===//

#include "Target/SASS/Cubin.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace fgemm::sass;
using namespace llvm;

namespace {

// CUDA ELF ABI identification (SASS.md §8.1). LLVM 22's ELF.h has
// ELFOSABI_CUDA = 51 (0x33) but ELFOSABI_CUDA_V2 = 41 (decimal), while ptxas
// 13.0 writes 0x41 = 65 (checked with readelf and nvdisasm -json on ptxas
// 13.0.88 output), so the V2 value is spelled out here.
constexpr uint8_t kOsAbiCudaV1 = 0x33;
constexpr uint8_t kOsAbiCudaV2 = 0x41;
constexpr uint8_t kAbiVersionCudaV1 = ELF::ELFABIVERSION_CUDA_V1; // 7
constexpr uint8_t kAbiVersionCudaV2 = ELF::ELFABIVERSION_CUDA_V2; // 8

/// SM fields of e_flags: bits 7..0 for ABI v1, bits 15..8 for ABI v2.
constexpr uint32_t kSmMaskV1 = ELF::EF_CUDA_SM;         // 0xff
constexpr uint32_t kSmMaskV2 = ELF::EF_CUDA_SM_MASK;    // 0xff00
constexpr unsigned kSmShiftV2 = ELF::EF_CUDA_SM_OFFSET; // 8
constexpr unsigned kSupportedSm = 90;                   // EF_CUDA_SM90 = 0x5a

constexpr StringLiteral kTextPrefix = ".text.";

Error makeError(const Twine &bufferName, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           bufferName + ": " + message);
}

} // namespace

bool KernelCode::isRelocated(uint64_t wordIndex) const {
  return llvm::is_contained(relocatedWords, wordIndex);
}

Expected<Cubin> Cubin::create(ArrayRef<uint8_t> bytes, StringRef bufferName) {
  Cubin cubin;
  cubin.name = bufferName.str();
  cubin.data.assign(bytes.begin(), bytes.end());
  if (Error err = cubin.parse())
    return std::move(err);
  return std::move(cubin);
}

Expected<Cubin> Cubin::readFile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFileOrSTDIN(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path, "cannot read file: " + buffer.getError().message());
  ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
      (*buffer)->getBufferSize());
  return create(bytes, path);
}

Error Cubin::parse() {
  using namespace llvm::object;
  // 1. Identification, checked by hand for precise messages before LLVM's
  // generic "invalid file type" errors.
  if (data.size() < ELF::EI_NIDENT)
    return makeError(name, "truncated file (" + Twine(data.size()) +
                               " bytes): not an ELF file");
  if (std::memcmp(data.data(), ELF::ElfMagic, 4) != 0)
    return makeError(name, "not an ELF file (bad magic)");
  if (data[ELF::EI_CLASS] != ELF::ELFCLASS64)
    return makeError(name, "not a 64-bit ELF file (cubins are ELF64)");
  if (data[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return makeError(name, "not a little-endian ELF file");

  // 2. LLVM's ELF parser validates the header and the section header table.
  StringRef contents(reinterpret_cast<const char *>(data.data()), data.size());
  Expected<ELF64LEObjectFile> objOrErr =
      ELF64LEObjectFile::create(MemoryBufferRef(contents, name));
  if (!objOrErr)
    return makeError(name, "malformed ELF: " + toString(objOrErr.takeError()));
  const ELF64LEFile &elf = objOrErr->getELFFile();
  const ELF64LEFile::Elf_Ehdr &header = elf.getHeader();

  // 3. Machine.
  if (header.e_machine != ELF::EM_CUDA)
    return makeError(name, "not a CUDA ELF: e_machine is " +
                               Twine(unsigned(header.e_machine)) +
                               ", expected EM_CUDA (190)");

  // 4. ABI and SM.
  uint8_t osAbi = header.e_ident[ELF::EI_OSABI];
  uint8_t abiVersion = header.e_ident[ELF::EI_ABIVERSION];
  flags = header.e_flags;
  if (osAbi == kOsAbiCudaV1 && abiVersion == kAbiVersionCudaV1) {
    elfAbi = CudaElfAbi::V1;
    sm = flags & kSmMaskV1;
  } else if (osAbi == kOsAbiCudaV2 && abiVersion == kAbiVersionCudaV2) {
    elfAbi = CudaElfAbi::V2;
    sm = (flags & kSmMaskV2) >> kSmShiftV2;
  } else {
    return makeError(name, "unsupported CUDA ELF ABI: OSABI " +
                               Twine(utohexstr(osAbi, /*LowerCase=*/true)) +
                               "h, ABI version " + Twine(unsigned(abiVersion)) +
                               " (expected 33h/7 or 41h/8)");
  }

  // 5. The decoder knows only the sm_90 encoding.
  if (sm != kSupportedSm)
    return makeError(name, "cubin is for sm_" + Twine(sm) +
                               "; the SASS pass supports only sm_90/sm_90a");

  // 6. Kernels.
  Expected<ELF64LEFile::Elf_Shdr_Range> sectionsOrErr = elf.sections();
  if (!sectionsOrErr)
    return makeError(name, "malformed section table: " +
                               toString(sectionsOrErr.takeError()));
  ELF64LEFile::Elf_Shdr_Range sections = *sectionsOrErr;
  for (auto [index, section] : llvm::enumerate(sections)) {
    if (section.sh_type != ELF::SHT_PROGBITS ||
        !(section.sh_flags & ELF::SHF_EXECINSTR))
      continue;
    Expected<StringRef> sectionName = elf.getSectionName(section);
    if (!sectionName)
      return makeError(name, "section " + Twine(index) + ": bad name: " +
                                 toString(sectionName.takeError()));
    if (!sectionName->starts_with(kTextPrefix))
      continue;
    uint64_t offset = section.sh_offset, size = section.sh_size;
    if (offset > data.size() || size > data.size() - offset)
      return makeError(name, "section " + *sectionName + " (offset 0x" +
                                 utohexstr(offset) + ", size 0x" +
                                 utohexstr(size) + ") lies outside the file (" +
                                 Twine(data.size()) + " bytes)");
    if (size % kSassWordBytes != 0)
      return makeError(name, "section " + *sectionName + " has size 0x" +
                                 utohexstr(size) +
                                 ", not a whole number of 16-byte "
                                 "instructions");
    KernelCode kernel;
    kernel.name = sectionName->drop_front(kTextPrefix.size()).str();
    kernel.sectionName = sectionName->str();
    kernel.sectionIndex = index;
    kernel.fileOffset = offset;
    kernel.size = size;
    kernelList.push_back(std::move(kernel));
  }

  // Two code sections sharing bytes would let one kernel's patch land inside
  // another kernel's instruction (even in a `lo` half); ptxas never does it.
  std::vector<const KernelCode *> byOffset;
  for (const KernelCode &k : kernelList)
    byOffset.push_back(&k);
  llvm::sort(byOffset, [](const KernelCode *a, const KernelCode *b) {
    return a->fileOffset < b->fileOffset;
  });
  for (size_t i = 1; i < byOffset.size(); ++i) {
    const KernelCode &prev = *byOffset[i - 1], &next = *byOffset[i];
    if (prev.size != 0 && next.size != 0 &&
        next.fileOffset < prev.fileOffset + prev.size)
      return makeError(name, "sections " + prev.sectionName + " and " +
                                 next.sectionName + " overlap");
  }

  // Relocations against kernel code: remember the words they target.
  for (const ELF64LEFile::Elf_Shdr &section : sections) {
    if (section.sh_type != ELF::SHT_RELA && section.sh_type != ELF::SHT_REL)
      continue;
    auto kernel = llvm::find_if(kernelList, [&](const KernelCode &k) {
      return k.sectionIndex == section.sh_info;
    });
    if (kernel == kernelList.end())
      continue;
    auto addOffset = [&](uint64_t offset) {
      uint64_t wordIndex = offset / kSassWordBytes;
      if (wordIndex < kernel->numWords())
        kernel->relocatedWords.push_back(wordIndex);
    };
    if (section.sh_type == ELF::SHT_RELA) {
      auto relas = elf.relas(section);
      if (!relas)
        return makeError(name, "malformed relocation section for " +
                                   kernel->sectionName + ": " +
                                   toString(relas.takeError()));
      for (const auto &rela : *relas)
        addOffset(rela.r_offset);
    } else {
      auto rels = elf.rels(section);
      if (!rels)
        return makeError(name, "malformed relocation section for " +
                                   kernel->sectionName + ": " +
                                   toString(rels.takeError()));
      for (const auto &rel : *rels)
        addOffset(rel.r_offset);
    }
  }
  return Error::success();
}
