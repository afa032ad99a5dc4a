#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Hand-edit a cubin for decoder, pass and error tests.

    cubin-edit.py in.cubin out.cubin EDIT...

EDIT is one of
    WHERE:lo=HEX | WHERE:lo|=HEX | WHERE:hi=HEX | WHERE:hi|=HEX
        set (or OR into) one half of an instruction word; lo = bytes 0..7, hi = bytes
        8..15, both little-endian (SASS.md §1). WHERE is a byte offset inside the only
        `.text.*` section (`0x2c0`) or `ffma:K`, the K-th FFMA word of that section
        (base opcode 0x023, SASS.md §4), so tests need not hard-code ptxas's layout.
    ehdr:osabi=HEX | ehdr:abiversion=HEX | ehdr:flags=HEX | ehdr:machine=HEX
        rewrite an ELF header field (e_ident[EI_OSABI], e_ident[EI_ABIVERSION],
        e_flags, e_machine).
    text:offset=HEX | text:size=HEX | text.NAME:offset=HEX | text.NAME:size=HEX
        rewrite sh_offset / sh_size of the only `.text.*` section header, or of
        `.text.NAME`.

Deliberately independent of the C++ reader under test; handles ELF64 LE only.
"""

import struct
import sys

SHDR_FORMAT = "<IIQQQQIIQQ"  # name type flags addr offset size link info align entsize
SHDR_OFFSET_FIELD = 4  # index in the unpacked tuple
SHDR_SIZE_FIELD = 5
SHDR_BYTE_POS = {"offset": 24, "size": 32}  # byte position inside an Elf64_Shdr
EHDR_FIELDS = {  # name: (byte offset, struct format)
    "osabi": (7, "<B"),
    "abiversion": (8, "<B"),
    "machine": (0x12, "<H"),
    "flags": (0x30, "<I"),
}
FFMA_BASE_OPCODE = 0x023
BASE_OPCODE_MASK = 0x1FF


def text_section_header(data, name=None):
    """Returns (file offset of the section header, sh_offset, sh_size) of the only
    `.text.*` section, or of `.text.<name>`."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from(SHDR_FORMAT, data, shoff + i * shentsize)
               for i in range(shnum)]
    strtab = headers[shstrndx][SHDR_OFFSET_FIELD]
    found = []
    for i, h in enumerate(headers):
        section = data[strtab + h[0]:data.index(b"\0", strtab + h[0])]
        if section == b".text." + name.encode() if name else section.startswith(b".text."):
            found.append((shoff + i * shentsize, h[SHDR_OFFSET_FIELD], h[SHDR_SIZE_FIELD]))
    if len(found) != 1:
        raise SystemExit(f"cubin-edit: expected one .text.* section, found {len(found)}")
    return found[0]


def word_offset(data, base, size, where):
    if not where.startswith("ffma:"):
        return int(where, 16)
    wanted = int(where[5:])
    count = 0
    for off in range(0, size, 16):
        lo, = struct.unpack_from("<Q", data, base + off)
        if lo & BASE_OPCODE_MASK == FFMA_BASE_OPCODE:
            if count == wanted:
                return off
            count += 1
    raise SystemExit(f"cubin-edit: only {count} FFMA words, no {where}")


def apply(data, edit):
    parts = edit.split(":")
    split_at = 2 if parts[0] == "ffma" else 1  # `ffma:K:...` names a word by FFMA index
    where, assignment = ":".join(parts[:split_at]), ":".join(parts[split_at:])
    key, op, value = (assignment.partition("|=") if "|=" in assignment
                      else assignment.partition("="))
    value = int(value, 16)
    if where == "ehdr":
        pos, fmt = EHDR_FIELDS[key]
        struct.pack_into(fmt, data, pos, value)
        return
    if where.startswith("text"):
        shdr_pos, _, _ = text_section_header(data, where[5:] or None)
        struct.pack_into("<Q", data, shdr_pos + SHDR_BYTE_POS[key], value)
        return
    shdr_pos, base, size = text_section_header(data)
    off = word_offset(data, base, size, where)
    if off % 16 or off >= size:
        raise SystemExit(f"cubin-edit: bad instruction offset {where}")
    pos = base + off + {"lo": 0, "hi": 8}[key]
    old, = struct.unpack_from("<Q", data, pos)
    struct.pack_into("<Q", data, pos, value | (old if op == "|=" else 0))


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    data = bytearray(open(sys.argv[1], "rb").read())
    for edit in sys.argv[3:]:
        apply(data, edit)
    open(sys.argv[2], "wb").write(data)


if __name__ == "__main__":
    main()
