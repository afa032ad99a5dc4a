//===- InstructionDecoder.h - sm_90 SASS word decoder -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Decodes one 128-bit Hopper (sm_90/sm_90a) SASS instruction word into the
// named fields the FFMA interleave pass needs: the opcode class (FFMA, FADD,
// FMUL, EXIT, BRA, NOP, everything else "other"), the operand form, the guard
// predicate, the register operands with their negate/abs modifiers, and the
// scheduling control fields (stall, yield, barriers, wait mask, reuse, batch).
//
// The decoder is total: every 128-bit value decodes to something (unknown
// opcodes are OpClass::Other), so it can run on arbitrary bytes.
//
// The bit layout and its sources are in InstructionDecoder.cpp and in
// shared/SASS.md §2-§4.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_TARGET_SASS_INSTRUCTIONDECODER_H
#define FGEMM_TARGET_SASS_INSTRUCTIONDECODER_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace fgemm::sass {

/// One instruction word. `lo` = bytes 0..7 of the word read as a little-endian
/// u64 (bits 0..63), `hi` = bytes 8..15 (bits 64..127); this is also the order
/// in which nvdisasm/cuobjdump print them (SASS.md §1).
struct SassWord {
  uint64_t lo = 0;
  uint64_t hi = 0;
  friend bool operator==(const SassWord &a, const SassWord &b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
  friend bool operator!=(const SassWord &a, const SassWord &b) {
    return !(a == b);
  }
};

/// Size of one instruction word in bytes (sm_70 and later have no separate
/// control words; SASS.md §1).
inline constexpr unsigned kSassWordBytes = 16;

/// Instruction families the pass distinguishes (SASS.md §4).
enum class OpClass : uint8_t { FFMA, FADD, FMUL, EXIT, BRA, NOP, Other };

/// Which slot holds a register, an immediate, a constant-bank operand or a
/// uniform register, named after NVIDIA's encoding classes (`ffma__RRR_RRR`
/// etc.): one letter per source operand a, b, c (FADD/FMUL have two sources).
enum class OperandForm : uint8_t {
  None, ///< EXIT, BRA, NOP, other classes: no form decoded.
  RRR,
  RRI,
  RRC,
  RIR,
  RCR,
  RUR,
  RRU,
  RRCx, ///< bindless constant ("c[UR]") in the last slot
  RCxR, ///< bindless constant in the middle slot
  RR,   ///< FADD/FMUL all-register form
  RI,
  RC,
  RU,
  Unknown, ///< a FFMA/FADD/FMUL opcode with an unknown form
};

/// What a source slot holds.
enum class OperandKind : uint8_t { None, Reg, Imm, Const, UniformReg };

/// One operand slot as decoded. For Reg/UniformReg `reg` is the register
/// number (255 = RZ, 63 = URZ); for Imm `value` holds the 32 immediate bits;
/// for Const `bank` and `value` (byte offset).
struct Operand {
  OperandKind kind = OperandKind::None;
  uint8_t reg = 0;
  uint8_t bank = 0;
  uint32_t value = 0;
  bool neg = false;
  bool abs = false;

  bool isReg() const { return kind == OperandKind::Reg; }
};

/// Register number of RZ in the 8-bit register fields.
inline constexpr uint8_t kRegisterZero = 255;
/// Register number of URZ in the 6-bit uniform-register fields.
inline constexpr uint8_t kUniformRegisterZero = 63;
/// Predicate number of PT in the 3-bit predicate field.
inline constexpr uint8_t kPredicateTrue = 7;

/// Scheduling control fields (SASS.md §2-§3). `usched` is NVIDIA's 5-bit
/// usched_info (bits 109..105): 0..15 = WAITn_END_GROUP (yield, stall n),
/// 17..27 = Wn (no yield, stall n-16).
struct ControlInfo {
  uint8_t usched = 0;
  uint8_t stall = 0;        ///< bits 108..105
  bool yield = false;       ///< bit 109 == 0 ("end group")
  uint8_t writeBarrier = 7; ///< bits 112..110, 7 = none
  uint8_t readBarrier = 7;  ///< bits 115..113, 7 = none
  uint8_t waitMask = 0;     ///< bits 121..116, bit i = wait on scoreboard i
  /// Bits 124..122 read as reuse flags. They are reuse only for a yield-free
  /// instruction (usched 17..27), and only the bits that the class/form's
  /// opex table defines (e.g. FFMA RIR has no reuse b); otherwise they are
  /// `batch_t` (then `batch` holds them) or unused, and these are false.
  bool reuseA = false;
  bool reuseB = false;
  bool reuseC = false;
  uint8_t batch = 0;         ///< batch_t when bits 124..122 are not reuse flags
  uint8_t rawReuseField = 0; ///< bits 124..122 as stored

  /// Bit 123 as stored, whatever it means; DeepGEMM's `hi & (1 << 59)`.
  bool rawReuseBBit() const { return (rawReuseField >> 1) & 1; }

  /// One character used by the pattern strings of the pass: 'Y' yields, 'b'
  /// reuses only b, 'a' only a, 'c' only c, '+' several, '-' none.
  char patternChar() const;
};

/// A decoded instruction word.
struct DecodedInstruction {
  SassWord word;
  OpClass opClass = OpClass::Other;
  uint16_t opcode = 0; ///< 13-bit opcode: bit 91 then bits 11..0
  OperandForm form = OperandForm::None;
  uint8_t predicate = kPredicateTrue; ///< bits 14..12
  bool predicateNegated = false;      ///< bit 15
  /// Register operands; for FFMA a/b/c are its three sources, for FADD a/c
  /// (NVIDIA calls FADD's second source "c"), for FMUL a/b. Unused slots have
  /// kind None. `rd` is meaningful only for the FP classes.
  Operand rd, ra, rb, rc;
  ControlInfo control;

  bool isFfma() const { return opClass == OpClass::FFMA; }
  /// True for forms of FFMA that keep a register in operand slot b, the
  /// precondition of a valid reuse-b -> yield flip (SASS.md §5.5).
  bool hasRegisterB() const;
};

/// Decodes one word. Never fails.
DecodedInstruction decodeInstruction(SassWord word);

/// Returns a new `hi` equal to `hi` with the yield and reuse-b bits exchanged
/// in DeepGEMM's way (reuse b cleared, bit 109 flipped to "yield"); the caller
/// checks validity first with `canFlipReuseBToYield`.
uint64_t flipReuseBToYield(uint64_t hi);

/// True if flipping reuse-b into a yield leaves a valid encoding: an FFMA with
/// a b register, no yield, reuse on b, and no reuse on a or c (SASS.md §5.5).
bool canFlipReuseBToYield(const DecodedInstruction &inst);

/// XOR mask of all bits the interleave pass may change in `hi`; anything else
/// changing in a patched file is a bug.
uint64_t interleaveHiMask();

llvm::StringRef opClassName(OpClass c);
llvm::StringRef operandFormName(OperandForm f);

/// Prints an operand like nvdisasm would name it ("R5", "-|R5|", "UR6",
/// "c[0x0][0x210]", "imm:0x3fc00000", "RZ").
void printOperand(llvm::raw_ostream &os, const Operand &op);

/// Prints a one-line `key=value` description of the instruction (the format
/// of `fgemm-sass dump`, parsed by test/Target/SASS/Inputs/crosscheck.py).
void printInstruction(llvm::raw_ostream &os, const DecodedInstruction &inst);

} // namespace fgemm::sass

#endif // FGEMM_TARGET_SASS_INSTRUCTIONDECODER_H
