#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Cross-check `fgemm-sass dump` against NVIDIA's nvdisasm, instruction by instruction.

For every instruction of every kernel in the cubin it checks that the two tools agree on
  * the offset and both 64-bit halves of the word (nvdisasm -hex prints lo, then hi),
  * the opcode class (FFMA / FADD / FMUL / EXIT / BRA / NOP / OTHER, from the mnemonic),
  * the guard predicate (`@P0`, `@!P3`, none = PT),
  * for FFMA/FADD/FMUL: every operand (Rd and the sources by form: register names with
    -/|..| modifiers, uniform registers, c[bank][offset], immediates by value),
  * the reuse flags: nvdisasm's `.reuse` suffixes (mapped to operand slots a/b/c for the
    FP classes, counted for the others),
  * stall / yield / write barrier / read barrier / wait mask: nvdisasm does not print
    them on sm_90, so they are recomputed here from the hi word with the CuAssembler
    control-code layout (`CuControlCode.splitCode`, SASS.md §2), independently of the
    C++ decoder, and checked against NVIDIA's rule that `.reuse` needs a non-yielding
    instruction.

Prints one summary line `crosscheck: ... mismatches=0` (plus one line per mismatch) and
exits 1 if anything disagrees. Usage:
    crosscheck.py --nvdisasm PATH --fgemm-sass PATH [--dump-cubin OTHER] in.cubin
"""

import argparse
import re
import struct
import subprocess
import sys

FP_CLASSES = ("FFMA", "FADD", "FMUL")
# Source slots printed by nvdisasm after Rd, per class (FADD's second source is "c").
SLOTS = {"FFMA": ("ra", "rb", "rc"), "FADD": ("ra", "rc"), "FMUL": ("ra", "rb")}

INSN_RE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\* 0x([0-9a-f]{16}) \*/")
HI_RE = re.compile(r"^\s*/\* 0x([0-9a-f]{16}) \*/\s*$")
SECTION_RE = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+),")


def mnemonic_class(mnemonic):
    base = mnemonic.split(".")[0]
    for cls in FP_CLASSES:
        if base in (cls, cls + "32I"):
            return cls
    return base if base in ("EXIT", "BRA", "NOP") else "OTHER"


def parse_nvdisasm(text):
    """Returns {(kernel, offset): insn} with insn = dict(lo, hi, cls, pred, ops)."""
    insns = {}
    kernel = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = SECTION_RE.match(line)
        if m:
            kernel = m.group(1)
            continue
        m = INSN_RE.search(line)
        if not m or kernel is None:
            continue
        hi = HI_RE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not hi:
            raise SystemExit(f"crosscheck: no hi word after line {i + 1}: {line}")
        body = m.group(2).strip()
        pred = "PT"
        if body.startswith("@"):
            guard, body = body.split(None, 1)
            pred = guard[1:]
        parts = body.split(None, 1)
        mnemonic = parts[0]
        # Uniform-datapath instructions (USEL, UIADD3, ...) are guarded by a uniform
        # predicate UPn held in the same bits; the decoder names guards by number only.
        if mnemonic.startswith("U") and pred.lstrip("!").startswith("UP"):
            pred = pred.replace("UP", "P", 1)
        ops = [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []
        insns[(kernel, int(m.group(1), 16))] = {
            "lo": int(m.group(3), 16),
            "hi": int(hi.group(1), 16),
            "cls": mnemonic_class(mnemonic),
            "mnemonic": mnemonic,
            "pred": pred,
            "ops": ops,
        }
    return insns


def parse_dump(text):
    insns = {}
    kernel = None
    for line in text.splitlines():
        if line.startswith("kernel "):
            kernel = line.split()[1]
            continue
        fields = line.split()
        if kernel is None or len(fields) < 3 or not fields[0].startswith("0x"):
            continue
        rec = {"cls": fields[1]}
        for f in fields[2:]:
            if "=" in f:
                k, v = f.split("=", 1)
                rec[k] = v
        insns[(kernel, int(fields[0], 16))] = rec
    return insns


def control_from_hi(hi):
    """CuAssembler's layout: 17 control bits at hi bit 41 (bit 105 of the word)."""
    ctrl = (hi >> 41) & 0x1FFFF
    return {
        "stall": str(ctrl & 0xF),
        "yield": "1" if (ctrl >> 4) & 1 == 0 else "0",
        "wbar": str((ctrl >> 5) & 7),
        "rbar": str((ctrl >> 8) & 7),
        "wait": "0x%02x" % ((ctrl >> 11) & 0x3F),
    }


def split_operand(op):
    """'-|R5|.reuse' -> ('-|R5|', True)."""
    reuse = ".reuse" in op
    return op.replace(".reuse", ""), reuse


def imm_matches(text, hexbits):
    bits = int(hexbits.split(":")[1], 16)
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    try:
        expected = float(text)
    except ValueError:  # INF, QNAN, hex forms: accept only an exact hex spelling
        return text.lower() in (hexbits.split(":")[1].lower(), "0x%x" % bits)
    if expected == value:
        return True
    return abs(expected - value) <= 1e-6 * max(abs(value), 1e-30)


def operand_matches(text, dumped):
    if dumped is None:
        return False
    if dumped.startswith("imm:"):
        return imm_matches(text, dumped)
    if text.startswith("c[") and dumped.startswith("c["):
        norm = lambda s: re.sub(r"0x0*([0-9a-f])", r"0x\1", s.lower())  # noqa: E731
        return norm(text) == norm(dumped)
    return text == dumped


def check(nv, dump):
    errors = []
    counts = {}
    if set(nv) != set(dump):
        only_nv = sorted(set(nv) - set(dump))[:5]
        only_dump = sorted(set(dump) - set(nv))[:5]
        errors.append(f"instruction sets differ: only nvdisasm {only_nv}, only dump {only_dump}")
    for key in sorted(set(nv) & set(dump)):
        a, b = nv[key], dump[key]
        where = f"{key[0]}+{key[1]:#06x} ({a['mnemonic']} {', '.join(a['ops'])})"

        def expect(what, want, got):
            if want != got:
                errors.append(f"{where}: {what}: nvdisasm {want!r}, dump {got!r}")

        counts[a["cls"]] = counts.get(a["cls"], 0) + 1
        expect("lo", "0x%016x" % a["lo"], b.get("lo"))
        expect("hi", "0x%016x" % a["hi"], b.get("hi"))
        expect("class", a["cls"], b["cls"])
        expect("predicate", a["pred"], b.get("pred"))
        ctrl = control_from_hi(a["hi"])
        for field, value in ctrl.items():
            expect(field, value, b.get(field))
        reuse_dump = b.get("reuse", "---")
        ops = [split_operand(o) for o in a["ops"]]
        if any(r for _, r in ops) and ctrl["yield"] == "1":
            errors.append(f"{where}: .reuse on a yielding instruction")
        if a["cls"] in FP_CLASSES and a["cls"] == b["cls"]:
            slots = ("rd",) + SLOTS[a["cls"]]
            if len(ops) != len(slots):
                errors.append(f"{where}: {len(ops)} operands, expected {len(slots)}")
                continue
            want_reuse = {"a": False, "b": False, "c": False}
            for slot, (text, reuse) in zip(slots, ops):
                if not operand_matches(text, b.get(slot)):
                    errors.append(f"{where}: operand {slot}: nvdisasm {text!r}, dump {b.get(slot)!r}")
                if reuse:
                    want_reuse[slot[-1]] = True
            want = "".join(k if want_reuse[k] else "-" for k in "abc")
            expect("reuse", want, reuse_dump)
        else:
            expect("reuse count", sum(r for _, r in ops), 3 - reuse_dump.count("-"))
    return errors, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nvdisasm", required=True)
    parser.add_argument("--fgemm-sass", required=True)
    parser.add_argument("--dump-cubin", help="dump this cubin instead (self-test of the checker)")
    parser.add_argument("cubin")
    args = parser.parse_args()
    nv_text = subprocess.run([args.nvdisasm, "-hex", "-c", args.cubin], check=True,
                             capture_output=True, text=True).stdout
    dump_text = subprocess.run([args.fgemm_sass, "dump", args.dump_cubin or args.cubin], check=True,
                               capture_output=True, text=True).stdout
    nv, dump = parse_nvdisasm(nv_text), parse_dump(dump_text)
    errors, counts = check(nv, dump)
    for e in errors[:50]:
        print("mismatch:", e)
    summary = " ".join(f"{k}={counts.get(k, 0)}" for k in
                       ("FFMA", "FADD", "FMUL", "EXIT", "BRA", "NOP", "OTHER"))
    kernels = len({k for k, _ in nv})
    print(f"crosscheck: kernels={kernels} instructions={len(nv)} {summary} mismatches={len(errors)}")
    return 1 if errors or not nv else 0


if __name__ == "__main__":
    sys.exit(main())
