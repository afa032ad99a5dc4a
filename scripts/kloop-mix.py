#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The instruction mix of a kernel's math K loop, per K block, from its SASS:
for comparing fgemm's loop with another build of it, or with DeepGEMM's same
tile (scripts/deepgemm-kernels.sh), here, without a GPU.

  scripts/kloop-mix.py [--list [--control]] [--waves N] CUBIN [CUBIN ...]

Each loop is a backward branch whose body holds wgmmas (QGMMA/HGMMA). Its K
blocks are counted by the wgmmas that start a fresh partial sum ("RZ, !UPT"),
divided by the waves (--waves, default 1: one per math warpgroup and block;
2 for block_m 256 on two warpgroups). Per loop: its address range, K blocks,
instructions per block, and the opcodes per block, most frequent first.
--list also prints the loop's instructions other than FFMA/FMUL, in order
(runs of FFMA/FMUL as one line), which is where two loops differ; with
--control each listed instruction is preceded by its control bits (from
nvdisasm -hex): S stall cycles, y the yield bit as encoded, W / R the
scoreboard it sets when its result is written / its operands are read
(- none), B the scoreboards it waits on first. Two loops of the same
instructions can differ there (what an instruction waits for).

The SASS comes from nvdisasm 13 (scripts/find-nvdisasm.sh: $FGEMM_NVDISASM,
PATH, or the PyPI wheel nvidia-cuda-nvdisasm). --self-test checks the parser
on a built-in sample (ctest runs it; no nvdisasm needed).
"""

import argparse
import collections
import io
import os
import re
import subprocess
import sys

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\.L_x_(\d+):")
# nvdisasm -hex: the instruction's second 64 bits on the line after it.
HIGH_WORD = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/\s*$")


def control(high):
    """The control bits of an sm_90 instruction's high 64-bit word (bits
    105-121 of the 128): stall, yield, write / read scoreboard, wait mask."""
    bits = high >> 41
    sb = lambda v: "-" if v == 7 else str(v)
    waits = "".join(str(i) for i in range(6) if bits >> (11 + i) & 1)
    return (f"S{bits & 0xF:02d} y{bits >> 4 & 1} W{sb(bits >> 5 & 7)} "
            f"R{sb(bits >> 8 & 7)} B[{waits:<3}]")


def parse(text):
    """[(address, instruction)], {label: address} and {address: control
    bits} (empty without nvdisasm -hex) of nvdisasm's output."""
    instructions, labels, controls, pending = [], {}, {}, []
    for line in text.splitlines():
        label = LABEL.match(line.strip())
        if label:
            pending.append(label.group(1))
            continue
        high = HIGH_WORD.match(line)
        if high and instructions:
            controls[instructions[-1][0]] = control(int(high.group(1), 16))
            continue
        m = LINE.search(line)
        if m:
            address = int(m.group(1), 16)
            for name in pending:
                labels[name] = address
            pending = []
            instructions.append((address, m.group(2)))
    return instructions, labels, controls


def target(instruction, labels):
    m = re.search(r"BRA\s+`\(\.L_x_(\d+)\)", instruction)
    if m:
        return labels.get(m.group(1))
    m = re.search(r"BRA\s+(0x[0-9a-f]+)", instruction)
    return int(m.group(1), 16) if m else None


def opcode(instruction):
    words = instruction.split()
    word = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    return word.split(".")[0]


def loops(instructions, labels, waves):
    """Backward branches whose bodies hold wgmmas, innermost first."""
    found = []
    for address, instruction in instructions:
        to = target(instruction, labels) if "BRA" in instruction else None
        if to is None or to >= address:
            continue
        body = [(a, i) for a, i in instructions if to <= a <= address]
        mmas = [i for _, i in body if opcode(i) in ("QGMMA", "HGMMA")]
        fresh = [i for i in mmas if "RZ, !UPT" in i]
        if not fresh:
            continue
        found.append({"begin": to, "end": address, "body": body,
                      "blocks": max(1, len(fresh) // waves)})
    # Out-of-line retry paths (a barrier wait's) branch back into a loop
    # from past its end; a tile loop holds the K loops: neither is one.
    def returns_into(c, loop):
        return loop["begin"] < c["begin"] <= loop["end"] < c["end"]

    def holds(c, loop):
        return c is not loop and c["begin"] <= loop["begin"] and loop["end"] <= c["end"]

    found = [c for c in found if not any(returns_into(c, loop) for loop in found)]
    found = [c for c in found if not any(holds(c, loop) for loop in found)]
    return sorted(found, key=lambda loop: loop["begin"])


def report(name, text, waves, listing, out=sys.stdout):
    instructions, labels, controls = parse(text)
    found = loops(instructions, labels, waves)
    print(f"== {name}: {len(instructions)} instructions, {len(found)} K loop(s)", file=out)
    for loop in found:
        blocks = loop["blocks"]
        counts = collections.Counter(opcode(i) for _, i in loop["body"])
        total = len(loop["body"])
        print(f"  loop 0x{loop['begin']:x}-0x{loop['end']:x}: {blocks} K block(s), "
              f"{total / blocks:.1f} instructions per block", file=out)
        print("    per block: " + ", ".join(f"{op} {n / blocks:g}"
                                           for op, n in counts.most_common()), file=out)
        if listing:
            run = 0
            for address, instruction in loop["body"]:
                if opcode(instruction) in ("FFMA", "FMUL"):
                    run += 1
                    continue
                if run:
                    print(f"      ... {run} FFMA/FMUL", file=out)
                    run = 0
                bits = controls.get(address)
                print(f"    {address:05x} " + (f"{bits}  " if bits else "") + instruction,
                      file=out)
            if run:
                print(f"      ... {run} FFMA/FMUL", file=out)


SAMPLE = """
        /*0100*/                   MOV R1, c[0x0][0x28] ;
.L_x_7:
        /*0110*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2 ;
.L_x_8:
        /*0120*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR8], RZ, !UPT ;
        /*0130*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR12], R24, gsb0 ;
        /*0140*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
        /*0150*/                   FFMA R100, R24, R3, R100 ;
        /*0160*/                   FFMA R101, R25, R3, R101 ;
        /*0170*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR8], RZ, !UPT ;
        /*0180*/                   FFMA R100, R24, R3, R100 ;
        /*0190*/               @P1 BRA `(.L_x_7) ;
        /*01a0*/                   EXIT ;
        /*01b0*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R2 ;
        /*01c0*/                   BRA `(.L_x_8) ;
"""


# nvdisasm -hex of two instructions of a K loop (an sm_90 cubin of fgemm's).
SAMPLE_HEX = """
        /*2d20*/                   LDS R73, [R72+0x30020] ;                   /* 0x0300200048497984 */
                                                                              /* 0x000ea20000000800 */
        /*2da0*/                   FMUL R7, R68.reuse, R7 ;                   /* 0x0000000744077220 */
                                                                              /* 0x042fe20000400000 */
"""


def self_test():
    instructions, _, controls = parse(SAMPLE_HEX)
    assert [a for a, _ in instructions] == [0x2D20, 0x2DA0], instructions
    assert controls == {0x2D20: "S01 y1 W2 R- B[   ]",
                        0x2DA0: "S01 y1 W- R- B[1  ]"}, controls
    instructions, labels, controls = parse(SAMPLE)
    assert not controls
    assert len(instructions) == 13, instructions
    assert labels == {"7": 0x110, "8": 0x120}, labels
    found = loops(instructions, labels, waves=1)
    assert len(found) == 1 and found[0]["begin"] == 0x110 and found[0]["end"] == 0x190, found
    assert found[0]["blocks"] == 2, found
    out = io.StringIO()
    report("sample", SAMPLE, 1, True, out)
    text = out.getvalue()
    assert "2 K block(s), 4.5 instructions per block" in text, text
    assert "FFMA 1.5" in text and "QGMMA 1.5" in text, text
    assert "... 2 FFMA/FMUL" in text, text
    print("kloop-mix self-test passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cubins", nargs="*")
    parser.add_argument("--waves", type=int, default=1)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--control", action="store_true")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    if not args.cubins:
        parser.error("no cubin given")
    here = os.path.dirname(os.path.abspath(__file__))
    found = subprocess.run([os.path.join(here, "find-nvdisasm.sh")], capture_output=True, text=True)
    if found.returncode != 0:
        sys.exit("kloop-mix: no nvdisasm 13 found: pip install 'nvidia-cuda-nvdisasm>=13.0,<14' "
                 "or set FGEMM_NVDISASM")
    for cubin in args.cubins:
        command = [found.stdout.strip(), "-c"] + (["-hex"] if args.control else []) + [cubin]
        sass = subprocess.run(command, capture_output=True, text=True)
        if sass.returncode != 0:
            sys.exit(f"kloop-mix: nvdisasm failed on {cubin}: {sass.stderr.strip()}")
        report(cubin, sass.stdout, args.waves, args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
