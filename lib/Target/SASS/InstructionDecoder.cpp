//===- InstructionDecoder.cpp - sm_90 SASS word decoder ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// Bit layout of a Hopper instruction word, as far as the FFMA interleave pass
// needs it. "Bit N" is bit N of the 128-bit word (bit 64 = bit 0 of `hi`).
// Sources, as labelled in shared/SASS.md: [NV] NVIDIA's SM90 encoding tables in
// nvdisasm, [SRC] CuAssembler / TuringAs / maxas, [EXP] ptxas 13.0 output.
//
//   field                          bits       source        SASS.md
//   opcode (13 bits)               91, 11..0  [NV]          §2, §4
//     base opcode (family)         8..0       [NV]          §4
//   guard predicate Pg             14..12     [NV]          §2 (7 = PT)
//   Pg negate (@!P)                15         [NV]          §2
//   Rd                             23..16     [NV][SRC]     §2 (255 = RZ)
//   Ra                             31..24     [NV][SRC]     §2
//   Rb (RRR forms)                 39..32     [NV][SRC]     §2
//   Rb.abs / Rb.neg (RRR)          62 / 63    [NV]          §2
//   32-bit immediate (*I* forms)   63..32     [NV]          §2
//   const bank / word offset       58..54 / 53..40 [NV]     §2
//   uniform register (*U* forms)   37..32     [NV]          §2 (63 = URZ)
//   Rc, or 2nd source of RRI/RRC/RRU  71..64  [NV][SRC]     §2
//   Ra.neg / Ra.abs                72 / 73    [NV]          §2
//   (reg in 71..64).abs / .neg     74 / 75    [NV]          §2
//   usched_info (stall+yield)      109..105   [NV][SRC]     §3
//     stall                        108..105
//     no-yield (active-low yield)  109
//   write barrier                  112..110   [NV][SRC]     §2 (7 = none)
//   read barrier                   115..113   [NV][SRC]     §2 (7 = none)
//   wait mask                      121..116   [NV][SRC]     §2
//   reuse a / b / c, or batch_t    122/123/124 [NV][SRC]    §3
//
// Reuse vs batch_t (§3): NVIDIA's opex tables store {bits 124..122, 109..105}
// as one field; bits 124..122 are reuse flags only while usched_info is one of
// the non-yielding `Wn` values 17..27. With a yielding usched (0..15) the same
// bits encode batch_t, which is why DeepGEMM's flip must clear reuse when it
// sets yield, and why a strict pass refuses words with reuse on a or c.
//
//===----------------------------------------------------------------------===//

#include "Target/SASS/InstructionDecoder.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace fgemm::sass;

namespace {

/// A field of the 128-bit word that lies entirely in `lo` or in `hi`.
struct BitRange {
  unsigned lsb;   ///< bit index in the 128-bit word
  unsigned width; ///< number of bits

  constexpr uint64_t mask() const {
    return width == 64 ? ~uint64_t(0) : ((uint64_t(1) << width) - 1);
  }
  constexpr uint64_t get(const SassWord &w) const {
    return lsb >= 64 ? (w.hi >> (lsb - 64)) & mask() : (w.lo >> lsb) & mask();
  }
  /// The field's bits as a mask on `hi` (only for fields in `hi`).
  constexpr uint64_t hiMask() const { return mask() << (lsb - 64); }
};

constexpr bool fitsOneHalf(BitRange r) {
  return r.width >= 1 &&
         (r.lsb + r.width <= 64 || (r.lsb >= 64 && r.lsb + r.width <= 128));
}

// Fields (see the table at the top of the file).
constexpr BitRange kOpcodeLow{0, 12};
constexpr BitRange kBaseOpcode{0, 9};
constexpr BitRange kOpcodeHigh{91, 1};
constexpr BitRange kPredicate{12, 3};
constexpr BitRange kPredicateNeg{15, 1};
constexpr BitRange kRd{16, 8};
constexpr BitRange kRa{24, 8};
constexpr BitRange kRb{32, 8};
constexpr BitRange kRbAbs{62, 1};
constexpr BitRange kRbNeg{63, 1};
constexpr BitRange kImm32{32, 32};
constexpr BitRange kConstOffset{40, 14};
constexpr BitRange kConstBank{54, 5};
constexpr BitRange kUniformReg{32, 6};
constexpr BitRange kReg64{64, 8};
constexpr BitRange kRaNeg{72, 1};
constexpr BitRange kRaAbs{73, 1};
constexpr BitRange kReg64Abs{74, 1};
constexpr BitRange kReg64Neg{75, 1};
constexpr BitRange kUsched{105, 5};
constexpr BitRange kStall{105, 4};
constexpr BitRange kNoYield{109, 1};
constexpr BitRange kWriteBarrier{110, 3};
constexpr BitRange kReadBarrier{113, 3};
constexpr BitRange kWaitMask{116, 6};
constexpr BitRange kReuseField{122, 3};
constexpr BitRange kReuseA{122, 1};
constexpr BitRange kReuseB{123, 1};
constexpr BitRange kReuseC{124, 1};

static_assert(fitsOneHalf(kConstBank) && fitsOneHalf(kImm32) &&
                  fitsOneHalf(kWaitMask) && fitsOneHalf(kReuseField),
              "a field straddles lo/hi");

/// usched_info values: 0..15 = WAITn_END_GROUP, 17..27 = Wn (SASS.md §3).
constexpr uint8_t kFirstNoYieldUsched = 17;
constexpr uint8_t kLastNoYieldUsched = 27;

// Base opcodes, bits 8..0 (SASS.md §4).
constexpr uint16_t kBaseFfma = 0x023;
constexpr uint16_t kBaseFadd = 0x021;
constexpr uint16_t kBaseFmul = 0x020;
// Full 12-bit opcodes of the control-flow classes (bits 11..0, bit 91 = 0).
constexpr uint16_t kOpExit = 0x94d;
constexpr uint16_t kOpBra = 0x947;
constexpr uint16_t kOpNop = 0x918;

/// Operand-form selector = bits 11..9 plus bit 91 (SASS.md §4): the 13-bit
/// opcode with the base opcode masked out.
constexpr uint16_t formSelector(uint16_t opcode13) {
  return opcode13 & ~0x1ffu;
}

Operand regAt(const SassWord &w, BitRange reg, BitRange neg, BitRange abs) {
  Operand op;
  op.kind = OperandKind::Reg;
  op.reg = reg.get(w);
  op.neg = neg.get(w);
  op.abs = abs.get(w);
  return op;
}
Operand plainReg(const SassWord &w, BitRange reg) {
  Operand op;
  op.kind = OperandKind::Reg;
  op.reg = reg.get(w);
  return op;
}
Operand imm32(const SassWord &w) {
  Operand op;
  op.kind = OperandKind::Imm;
  op.value = kImm32.get(w);
  return op;
}
/// `c[bank][byte]`; the encoded offset counts 32-bit words.
Operand constBank(const SassWord &w) {
  Operand op;
  op.kind = OperandKind::Const;
  op.bank = kConstBank.get(w);
  op.value = uint32_t(kConstOffset.get(w)) * 4;
  return op;
}
Operand uniformReg(const SassWord &w) {
  Operand op;
  op.kind = OperandKind::UniformReg;
  op.reg = kUniformReg.get(w);
  op.neg = kRbNeg.get(w);
  op.abs = kRbAbs.get(w);
  return op;
}

Operand srcA(const SassWord &w) { return regAt(w, kRa, kRaNeg, kRaAbs); }
Operand srcRRR(const SassWord &w) { return regAt(w, kRb, kRbNeg, kRbAbs); }
Operand src64(const SassWord &w) {
  return regAt(w, kReg64, kReg64Neg, kReg64Abs);
}

/// FFMA forms (SASS.md §4 table): which slot holds what.
void decodeFfma(DecodedInstruction &d) {
  const SassWord &w = d.word;
  d.ra = srcA(w);
  switch (formSelector(d.opcode)) {
  case 0x0200: // RRR: Rb in 39..32, Rc in 71..64
    d.form = OperandForm::RRR;
    d.rb = srcRRR(w);
    d.rc = src64(w);
    return;
  case 0x0400: // RRI: the second register moves to 71..64
    d.form = OperandForm::RRI;
    d.rb = src64(w);
    d.rc = imm32(w);
    return;
  case 0x0600:
    d.form = OperandForm::RRC;
    d.rb = src64(w);
    d.rc = constBank(w);
    return;
  case 0x0800: // RIR (FFMA32I)
    d.form = OperandForm::RIR;
    d.rb = imm32(w);
    d.rc = src64(w);
    return;
  case 0x0a00:
    d.form = OperandForm::RCR;
    d.rb = constBank(w);
    d.rc = src64(w);
    return;
  case 0x1c00:
    d.form = OperandForm::RUR;
    d.rb = uniformReg(w);
    d.rc = src64(w);
    return;
  case 0x1e00:
    d.form = OperandForm::RRU;
    d.rb = src64(w);
    d.rc = uniformReg(w);
    return;
  case 0x1600: // bindless constant c[URx][...] in slot c
    d.form = OperandForm::RRCx;
    d.rb = src64(w);
    d.rc.kind = OperandKind::Const;
    return;
  case 0x1a00:
    d.form = OperandForm::RCxR;
    d.rb.kind = OperandKind::Const;
    d.rc = src64(w);
    return;
  default:
    d.form = OperandForm::Unknown;
    return;
  }
}

/// FADD: two sources a and "c" (NVIDIA's name, reuse bit 124).
void decodeFadd(DecodedInstruction &d) {
  const SassWord &w = d.word;
  d.ra = srcA(w);
  switch (formSelector(d.opcode)) {
  case 0x0200:
    d.form = OperandForm::RR;
    d.rc = srcRRR(w);
    return;
  case 0x0400:
    d.form = OperandForm::RI;
    d.rc = imm32(w);
    return;
  case 0x0600:
    d.form = OperandForm::RC;
    d.rc = constBank(w);
    return;
  case 0x1e00:
    d.form = OperandForm::RU;
    d.rc = uniformReg(w);
    return;
  default:
    d.form = OperandForm::Unknown;
    return;
  }
}

/// FMUL: two sources a and b.
void decodeFmul(DecodedInstruction &d) {
  const SassWord &w = d.word;
  d.ra = srcA(w);
  switch (formSelector(d.opcode)) {
  case 0x0200:
    d.form = OperandForm::RR;
    d.rb = srcRRR(w);
    return;
  case 0x0800:
    d.form = OperandForm::RI;
    d.rb = imm32(w);
    return;
  case 0x0a00:
    d.form = OperandForm::RC;
    d.rb = constBank(w);
    return;
  case 0x1c00:
    d.form = OperandForm::RU;
    d.rb = uniformReg(w);
    return;
  default:
    d.form = OperandForm::Unknown;
    return;
  }
}

/// Reuse bits that exist for a class and form, as a mask over bits 124..122
/// (bit 0 = a, 1 = b, 2 = c), from the opex table each NVIDIA encoding class
/// uses (SASS.md §3). For "other" classes the tables are not decoded here, so
/// all three are reported as stored.
constexpr uint8_t kReuseMaskA = 1, kReuseMaskB = 2, kReuseMaskC = 4;
uint8_t reuseBitsFor(OpClass opClass, OperandForm form) {
  switch (opClass) {
  case OpClass::EXIT:
  case OpClass::BRA:
  case OpClass::NOP:
    return 0; // opex_0 / opex_1: bits 124..122 are always batch_t
  case OpClass::Other:
    return kReuseMaskA | kReuseMaskB | kReuseMaskC;
  case OpClass::FFMA:
  case OpClass::FADD:
  case OpClass::FMUL:
    break;
  }
  switch (form) {
  case OperandForm::RRR: // opex_4
    return kReuseMaskA | kReuseMaskB | kReuseMaskC;
  case OperandForm::RRI: // opex_5: b is the register in bits 71..64
  case OperandForm::RRC:
  case OperandForm::RRU:
  case OperandForm::RRCx:
    return kReuseMaskA | kReuseMaskB;
  case OperandForm::RIR: // opex_3: bit 123 unused
  case OperandForm::RCR:
  case OperandForm::RUR:
  case OperandForm::RCxR:
    return kReuseMaskA | kReuseMaskC;
  case OperandForm::RR: // FADD opex_3 (a, c); FMUL opex_5 (a, b)
    return opClass == OpClass::FADD ? kReuseMaskA | kReuseMaskC
                                    : kReuseMaskA | kReuseMaskB;
  case OperandForm::RI: // opex_2
  case OperandForm::RC:
  case OperandForm::RU:
    return kReuseMaskA;
  case OperandForm::None:
  case OperandForm::Unknown:
    break;
  }
  return kReuseMaskA | kReuseMaskB | kReuseMaskC;
}

ControlInfo decodeControl(const SassWord &w, uint8_t reuseBits) {
  ControlInfo c;
  c.usched = kUsched.get(w);
  c.stall = kStall.get(w);
  c.yield = kNoYield.get(w) == 0;
  c.writeBarrier = kWriteBarrier.get(w);
  c.readBarrier = kReadBarrier.get(w);
  c.waitMask = kWaitMask.get(w);
  c.rawReuseField = kReuseField.get(w);
  bool reuseMeaning = reuseBits != 0 && c.usched >= kFirstNoYieldUsched &&
                      c.usched <= kLastNoYieldUsched;
  if (reuseMeaning) {
    c.reuseA = (reuseBits & kReuseMaskA) && kReuseA.get(w);
    c.reuseB = (reuseBits & kReuseMaskB) && kReuseB.get(w);
    c.reuseC = (reuseBits & kReuseMaskC) && kReuseC.get(w);
  } else {
    c.batch = c.rawReuseField;
  }
  return c;
}

} // namespace

char ControlInfo::patternChar() const {
  if (yield)
    return 'Y';
  unsigned n = unsigned(reuseA) + unsigned(reuseB) + unsigned(reuseC);
  if (n == 0)
    return '-';
  if (n > 1)
    return '+';
  return reuseA ? 'a' : reuseB ? 'b' : 'c';
}

bool DecodedInstruction::hasRegisterB() const {
  return opClass == OpClass::FFMA && rb.isReg();
}

DecodedInstruction fgemm::sass::decodeInstruction(SassWord word) {
  DecodedInstruction d;
  d.word = word;
  d.opcode = uint16_t(kOpcodeLow.get(word) | (kOpcodeHigh.get(word) << 12));
  d.predicate = kPredicate.get(word);
  d.predicateNegated = kPredicateNeg.get(word);

  uint16_t base = kBaseOpcode.get(word);
  if (base == kBaseFfma || base == kBaseFadd || base == kBaseFmul) {
    d.opClass = base == kBaseFfma   ? OpClass::FFMA
                : base == kBaseFadd ? OpClass::FADD
                                    : OpClass::FMUL;
    d.rd = plainReg(word, kRd);
    if (d.opClass == OpClass::FFMA)
      decodeFfma(d);
    else if (d.opClass == OpClass::FADD)
      decodeFadd(d);
    else
      decodeFmul(d);
  } else if (d.opcode == kOpExit) {
    d.opClass = OpClass::EXIT;
  } else if (d.opcode == kOpBra) {
    d.opClass = OpClass::BRA;
  } else if (d.opcode == kOpNop) {
    d.opClass = OpClass::NOP;
  }
  d.control = decodeControl(word, reuseBitsFor(d.opClass, d.form));
  return d;
}

uint64_t fgemm::sass::interleaveHiMask() {
  return kReuseB.hiMask() | kNoYield.hiMask();
}

uint64_t fgemm::sass::flipReuseBToYield(uint64_t hi) {
  // DeepGEMM's `hi ^= 0x0800200000000000`: clear reuse b (bit 123) and turn
  // the Wn usched into WAITn_END_GROUP with the same stall (bit 109).
  return hi ^ interleaveHiMask();
}

bool fgemm::sass::canFlipReuseBToYield(const DecodedInstruction &inst) {
  const ControlInfo &c = inst.control;
  return inst.isFfma() && inst.hasRegisterB() && !c.yield && c.reuseB &&
         !c.reuseA && !c.reuseC;
}

llvm::StringRef fgemm::sass::opClassName(OpClass c) {
  switch (c) {
  case OpClass::FFMA:
    return "FFMA";
  case OpClass::FADD:
    return "FADD";
  case OpClass::FMUL:
    return "FMUL";
  case OpClass::EXIT:
    return "EXIT";
  case OpClass::BRA:
    return "BRA";
  case OpClass::NOP:
    return "NOP";
  case OpClass::Other:
    return "OTHER";
  }
  return "OTHER";
}

llvm::StringRef fgemm::sass::operandFormName(OperandForm f) {
  switch (f) {
  case OperandForm::None:
    return "-";
  case OperandForm::RRR:
    return "RRR";
  case OperandForm::RRI:
    return "RRI";
  case OperandForm::RRC:
    return "RRC";
  case OperandForm::RIR:
    return "RIR";
  case OperandForm::RCR:
    return "RCR";
  case OperandForm::RUR:
    return "RUR";
  case OperandForm::RRU:
    return "RRU";
  case OperandForm::RRCx:
    return "RRCx";
  case OperandForm::RCxR:
    return "RCxR";
  case OperandForm::RR:
    return "RR";
  case OperandForm::RI:
    return "RI";
  case OperandForm::RC:
    return "RC";
  case OperandForm::RU:
    return "RU";
  case OperandForm::Unknown:
    return "unknown";
  }
  return "unknown";
}

void fgemm::sass::printOperand(llvm::raw_ostream &os, const Operand &op) {
  switch (op.kind) {
  case OperandKind::None:
    os << "none";
    return;
  case OperandKind::Imm:
    os << "imm:" << llvm::format_hex(op.value, 10);
    return;
  case OperandKind::Const:
    os << "c[" << llvm::format_hex(op.bank, 3) << "]["
       << llvm::format_hex(op.value, 3) << "]";
    return;
  case OperandKind::Reg:
  case OperandKind::UniformReg:
    break;
  }
  if (op.neg)
    os << '-';
  if (op.abs)
    os << '|';
  if (op.kind == OperandKind::Reg) {
    if (op.reg == kRegisterZero)
      os << "RZ";
    else
      os << 'R' << unsigned(op.reg);
  } else {
    if (op.reg == kUniformRegisterZero)
      os << "URZ";
    else
      os << "UR" << unsigned(op.reg);
  }
  if (op.abs)
    os << '|';
}

void fgemm::sass::printInstruction(llvm::raw_ostream &os,
                                   const DecodedInstruction &inst) {
  os << llvm::left_justify(opClassName(inst.opClass), 5)
     << " op=" << llvm::format_hex(inst.opcode, 6)
     << " form=" << operandFormName(inst.form) << " pred=";
  if (inst.predicateNegated)
    os << '!';
  if (inst.predicate == kPredicateTrue)
    os << "PT";
  else
    os << 'P' << unsigned(inst.predicate);
  auto printSlot = [&](llvm::StringRef name, const Operand &op) {
    if (op.kind == OperandKind::None)
      return;
    os << ' ' << name << '=';
    printOperand(os, op);
  };
  if (inst.opClass == OpClass::FFMA || inst.opClass == OpClass::FADD ||
      inst.opClass == OpClass::FMUL)
    printSlot("rd", inst.rd);
  printSlot("ra", inst.ra);
  printSlot("rb", inst.rb);
  printSlot("rc", inst.rc);
  const ControlInfo &c = inst.control;
  os << " stall=" << unsigned(c.stall) << " yield=" << (c.yield ? 1 : 0)
     << " wbar=" << unsigned(c.writeBarrier)
     << " rbar=" << unsigned(c.readBarrier)
     << " wait=" << llvm::format_hex(c.waitMask, 4)
     << " reuse=" << (c.reuseA ? 'a' : '-') << (c.reuseB ? 'b' : '-')
     << (c.reuseC ? 'c' : '-') << " batch=" << unsigned(c.batch)
     << " lo=" << llvm::format_hex(inst.word.lo, 18)
     << " hi=" << llvm::format_hex(inst.word.hi, 18);
}
