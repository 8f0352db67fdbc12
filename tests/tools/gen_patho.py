#!/usr/bin/env python3
"""Pathological-but-valid (or deliberately inconsistent) ELF files with
hand-made DWARF 4, for tests/t_reliability.sh.

  gen_patho.py deep N OUT       structs nested N deep (DW_TAG_structure_type
                                inside DW_TAG_structure_type), each with a member
  gen_patho.py wide N OUT       one struct with N int members
  gen_patho.py wideenum N OUT   one enum with N enumerators
  gen_patho.py longchain N OUT  pointer -> pointer -> ... N long, ending at int
  gen_patho.py hugestr N OUT    valid DWARF, but .debug_str's header claims N
                                bytes in a ~1 KB file
  gen_patho.py hugezlib N OUT   .debug_info SHF_COMPRESSED (zlib) claiming N
                                uncompressed bytes
  gen_patho.py manyunits N OUT  N compile units (each one int)

Broken DWARF the encoder must degrade (with a -v note) or refuse in one
line, never encode into BTF the kernel refuses (tests/t_producers.sh):

  gen_patho.py oddfloat N OUT   a float base type of N bytes
  gen_patho.py voidarray N OUT  an array of N elements with no element type
  gen_patho.py oddenum N OUT    an enum of N bytes
  gen_patho.py nonamefwd N OUT  a struct declaration without a name
  gen_patho.py badname N OUT    a struct named "bad name<N>" (a C unit)
  gen_patho.py badnamecxx N OUT the same in a C++ unit
  gen_patho.py voidmember N OUT a struct member without a type

The files are ET_REL x86-64 objects with no relocations and a small
symbol table.
"""
import struct
import sys
import zlib

DW_TAG_compile_unit, DW_TAG_base_type, DW_TAG_structure_type = 0x11, 0x24, 0x13
DW_TAG_member, DW_TAG_pointer_type, DW_TAG_enumeration_type = 0x0d, 0x0f, 0x04
DW_TAG_enumerator, DW_TAG_variable = 0x28, 0x34
DW_AT_name, DW_AT_byte_size, DW_AT_encoding, DW_AT_type = 0x03, 0x0b, 0x3e, 0x49
DW_AT_data_member_location, DW_AT_language, DW_AT_producer = 0x38, 0x13, 0x25
DW_AT_const_value = 0x1c
DW_TAG_array_type, DW_TAG_subrange_type = 0x01, 0x21
DW_AT_upper_bound, DW_AT_declaration, DW_FORM_flag_present = 0x2f, 0x3c, 0x19
DW_FORM_string, DW_FORM_data1, DW_FORM_data2, DW_FORM_data4 = 0x08, 0x0b, 0x05, 0x06
DW_FORM_ref4, DW_FORM_strp = 0x13, 0x0e


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def abbrevs():
    tab = [
        (1, DW_TAG_compile_unit, 1, [(DW_AT_name, DW_FORM_string), (DW_AT_language, DW_FORM_data2),
                                     (DW_AT_producer, DW_FORM_string)]),
        (2, DW_TAG_base_type, 0, [(DW_AT_name, DW_FORM_string), (DW_AT_encoding, DW_FORM_data1),
                                  (DW_AT_byte_size, DW_FORM_data1)]),
        (3, DW_TAG_structure_type, 1, [(DW_AT_name, DW_FORM_string), (DW_AT_byte_size, DW_FORM_data4)]),
        (4, DW_TAG_member, 0, [(DW_AT_name, DW_FORM_string), (DW_AT_type, DW_FORM_ref4),
                               (DW_AT_data_member_location, DW_FORM_data4)]),
        (5, DW_TAG_pointer_type, 0, [(DW_AT_byte_size, DW_FORM_data1), (DW_AT_type, DW_FORM_ref4)]),
        (6, DW_TAG_enumeration_type, 1, [(DW_AT_name, DW_FORM_string), (DW_AT_byte_size, DW_FORM_data1),
                                         (DW_AT_type, DW_FORM_ref4)]),
        (7, DW_TAG_enumerator, 0, [(DW_AT_name, DW_FORM_string), (DW_AT_const_value, DW_FORM_data4)]),
        (8, DW_TAG_variable, 0, [(DW_AT_name, DW_FORM_strp), (DW_AT_type, DW_FORM_ref4)]),
        (9, DW_TAG_structure_type, 0, [(DW_AT_name, DW_FORM_string), (DW_AT_byte_size, DW_FORM_data4)]),
        (10, DW_TAG_array_type, 1, [(DW_AT_name, DW_FORM_string)]),
        (11, DW_TAG_subrange_type, 0, [(DW_AT_upper_bound, DW_FORM_data4)]),
        (12, DW_TAG_structure_type, 0, [(DW_AT_declaration, DW_FORM_flag_present)]),
        (13, DW_TAG_member, 0, [(DW_AT_name, DW_FORM_string), (DW_AT_data_member_location, DW_FORM_data4)]),
        (14, DW_TAG_variable, 0, [(DW_AT_name, DW_FORM_string), (DW_AT_type, DW_FORM_ref4)]),
    ]
    out = bytearray()
    for code, tag, ch, attrs in tab:
        out += uleb(code) + uleb(tag) + bytes([ch])
        for at, form in attrs:
            out += uleb(at) + uleb(form)
        out += b"\0\0"
    out += b"\0"
    return bytes(out)


def cstr(s):
    return s.encode() + b"\0"


class Unit:
    """A DWARF 4 unit body (DIEs) with offsets relative to the unit start."""

    def __init__(self):
        self.b = bytearray()

    def off(self):
        return 11 + len(self.b)          # header is 11 bytes (32-bit DWARF 4)

    def die(self, code, *vals):
        self.b += uleb(code)
        for v in vals:
            self.b += v

    def cu(self, lang=0x0c):
        self.die(1, cstr("patho.c"), struct.pack("<H", lang), cstr("gen_patho.py"))

    def int_type(self):
        o = self.off()
        self.die(2, cstr("int"), bytes([5]), bytes([4]))
        return o

    def bytes(self):
        body = struct.pack("<HIB", 4, 0, 8) + self.b
        return struct.pack("<I", len(body)) + body


def ref4(o):
    return struct.pack("<I", o)


def data4(v):
    return struct.pack("<I", v & 0xffffffff)


def gen(kind, n):
    info = bytearray()
    strs = b"\0var\0"
    u = Unit()
    u.cu(0x21 if kind == "badnamecxx" else 0x0c)    # DW_LANG_C_plus_plus_14 or C99
    i = u.int_type()
    if kind == "deep":
        for k in range(n):
            u.die(3, cstr(f"s{k}"), data4(4))
            u.die(4, cstr("m"), ref4(i), data4(0))
        u.b += b"\0" * n
    elif kind == "wide":
        u.die(3, cstr("wide"), data4(4 * n))
        for k in range(n):
            u.die(4, cstr(f"m{k}"), ref4(i), data4(4 * k))
        u.b += b"\0"
    elif kind == "wideenum":
        u.die(6, cstr("wide_enum"), bytes([4]), ref4(i))
        for k in range(n):
            u.die(7, cstr(f"E{k}"), data4(k))
        u.b += b"\0"
    elif kind == "longchain":
        prev = i
        for k in range(n):
            o = u.off()
            u.die(5, bytes([8]), ref4(prev))
            prev = o
        u.die(8, ref4(1), ref4(prev))
    elif kind == "oddfloat":
        o = u.off()
        u.die(2, cstr("odd_float"), bytes([4]), bytes([n & 0xff]))   # DW_ATE_float
        u.die(14, cstr("of"), ref4(o))
    elif kind == "voidarray":
        o = u.off()
        u.die(10, cstr("void_array"))
        u.die(11, data4(n - 1))
        u.b += b"\0"
        u.die(14, cstr("va"), ref4(o))
    elif kind == "oddenum":
        u.die(6, cstr("odd_enum"), bytes([n & 0xff]), ref4(i))
        u.die(7, cstr("ODD_A"), data4(1))
        u.b += b"\0"
    elif kind == "nonamefwd":
        o = u.off()
        u.die(12)
        p = u.off()
        u.die(5, bytes([8]), ref4(o))
        u.die(14, cstr("np"), ref4(p))
    elif kind in ("badname", "badnamecxx"):
        u.die(3, cstr(f"bad name<{n}>"), data4(4))
        u.die(4, cstr("m.x"), ref4(i), data4(0))
        u.b += b"\0"
    elif kind == "voidmember":
        u.die(3, cstr("holey"), data4(8))
        u.die(13, cstr("m"), data4(0))
        u.b += b"\0"
    elif kind in ("hugestr", "hugezlib"):
        u.die(8, ref4(1), ref4(i))
    elif kind == "manyunits":
        u.b += b"\0"
        info += u.bytes()
        for k in range(n - 1):
            v = Unit()
            v.cu()
            v.int_type()
            v.b += b"\0"
            info += v.bytes()
        return elf(bytes(info), abbrevs(), strs, kind, n)
    else:
        raise SystemExit(__doc__)
    u.b += b"\0"
    info += u.bytes()
    return elf(bytes(info), abbrevs(), strs, kind, n)


def elf(info, abbrev, strs, kind, n):
    SHF_COMPRESSED = 0x800
    info_flags = 0
    if kind == "hugezlib":
        info = struct.pack("<IIQQ", 1, 0, n, 1) + zlib.compress(info)
        info_flags = SHF_COMPRESSED
    symtab = b"\0" * 24 + struct.pack("<IBBHQQ", 1, 0x11, 0, 0xfff1, 0, 4)  # "var", GLOBAL OBJECT ABS
    strtab = b"\0var\0"
    secs = [  # name, type, flags, data, link, info, entsize, claimed size
        (".debug_abbrev", 1, 0, abbrev, 0, 0, 0, None),
        (".debug_info", 1, info_flags, info, 0, 0, 0, None),
        (".debug_str", 1, 0x30, strs, 0, 0, 1, n if kind == "hugestr" else None),
        (".symtab", 2, 0, symtab, 5, 1, 24, None),
        (".strtab", 3, 0, strtab, 0, 0, 0, None),
        (".shstrtab", 3, 0, b"", 0, 0, 0, None),
    ]
    shstr = bytearray(b"\0")
    names = []
    for s in secs:
        names.append(len(shstr))
        shstr += cstr(s[0])
    secs[-1] = secs[-1][:3] + (bytes(shstr),) + secs[-1][4:]
    out = bytearray(64)
    offs = []
    for s in secs:
        while len(out) % 8:
            out.append(0)
        offs.append(len(out))
        out += s[3]
    while len(out) % 8:
        out.append(0)
    shoff = len(out)
    out += b"\0" * 64
    for k, s in enumerate(secs):
        size = s[7] if s[7] is not None else len(s[3])
        out += struct.pack("<IIQQQQIIQQ", names[k], s[1], s[2], 0, offs[k], size, s[4], s[5],
                           8 if s[1] == 2 else 1, s[6])
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    hdr = ident + struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
                              len(secs) + 1, len(secs))
    out[0:64] = hdr
    return bytes(out)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    open(sys.argv[3], "wb").write(gen(sys.argv[1], int(sys.argv[2])))


if __name__ == "__main__":
    main()
