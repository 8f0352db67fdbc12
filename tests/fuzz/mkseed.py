#!/usr/bin/env python3
"""Seed helpers for tests/fuzz/run.sh (no dependencies beyond python3).

  mkseed.py dwarf ELF OUT   debug sections of ELF (ELF32/64, either byte
                            order, uncompressed) in fuzz_dwarf's container
                            format: flags byte, then per section u32 LE
                            length + bytes, in struct dw_sections order.
  mkseed.py section ELF NAME OUT   the raw bytes of one section.
"""
import struct
import sys

ORDER = [".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
         ".debug_str_offsets", ".debug_addr", ".debug_rnglists", ".debug_loclists",
         ".debug_loc", ".debug_ranges", ".debug_types"]


def sections(path):
    b = open(path, "rb").read()
    if b[:4] != b"\x7fELF":
        raise SystemExit(f"{path}: not ELF")
    is64 = b[4] == 2
    end = "<" if b[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", b, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", b, 0x3a)
    else:
        shoff, = struct.unpack_from(end + "I", b, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", b, 0x2e)
    hdrs = []
    for i in range(shnum):
        o = shoff + i * shentsize
        if is64:
            name, typ, flags, addr, off, size = struct.unpack_from(end + "IIQQQQ", b, o)
        else:
            name, typ, flags, addr, off, size = struct.unpack_from(end + "IIIIII", b, o)
        hdrs.append((name, typ, flags, off, size))
    stro = hdrs[shstrndx][3]
    out = {}
    for name, typ, flags, off, size in hdrs:
        n = b[stro + name:b.index(b"\0", stro + name)].decode()
        out[n] = (b[off:off + size] if typ != 8 else b"", flags, b[5] == 2)
    return out


def main():
    if sys.argv[1] == "dwarf":
        s = sections(sys.argv[2])
        big = any(v[2] for v in s.values())
        data = bytearray([1 if big else 0])
        for n in ORDER:
            v = s.get(n, (b"", 0, False))
            if v[1] & 0x800:  # SHF_COMPRESSED: not usable raw
                v = (b"", 0, False)
            data += struct.pack("<I", len(v[0])) + v[0]
        open(sys.argv[3], "wb").write(data)
    elif sys.argv[1] == "section":
        s = sections(sys.argv[2])
        if sys.argv[3] not in s:
            raise SystemExit(f"{sys.argv[2]}: no {sys.argv[3]}")
        open(sys.argv[4], "wb").write(s[sys.argv[3]][0])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
