#!/usr/bin/env python3
"""Compare `btfc dwarf FILE` with `llvm-dwarfdump --debug-info [--debug-types] FILE`.

For every DIE (by section and offset) the tag must agree, and so must the
attributes btfc's encoder depends on: name, byte_size, bit_size,
data_bit_offset, data_member_location (constant form), upper_bound, count,
type/sibling references, const_value and low_pc (in ET_REL files up to
the address btfc lays each section at).  Prints a summary line
"dies N, attrs compared M, mismatches K" and exits 1 on any mismatch.
"""
import re
import subprocess
import sys

KEYS = {"DW_AT_name", "DW_AT_byte_size", "DW_AT_bit_size", "DW_AT_data_bit_offset",
        "DW_AT_data_member_location", "DW_AT_upper_bound", "DW_AT_count", "DW_AT_type",
        "DW_AT_sibling", "DW_AT_const_value", "DW_AT_linkage_name", "DW_AT_low_pc"}
DIE_RE = re.compile(r"^0x([0-9a-f]+):\s+(DW_TAG_\w+|NULL)")
ATTR_RE = re.compile(r"^\s+(DW_AT_\w+)(?: \[[^\]]*\])?\s+\((.*)\)\s*$")


def value(v):
    v = v.strip()
    if v.startswith('"'):
        return v[1:v.rfind('"')] if v.rfind('"') > 0 else v[1:]
    m = re.match(r"^(-?0x[0-9a-f]+|-?\d+)\b", v)
    if m:
        return int(m.group(1), 0)
    if v in ("true", "false"):
        return v == "true"
    return None


def parse(text, btfc):
    dies = {}
    section = ".debug_info"
    cur = None
    for line in text.splitlines():
        if line.startswith(".debug_types") or "debug_types" in line and "contents" in line:
            section = ".debug_types"
        elif line.startswith(".debug_info") and not btfc:
            section = ".debug_info"
        if btfc and line.startswith(".debug_"):
            section = line.split()[0]
        m = DIE_RE.match(line)
        if m:
            if m.group(2) == "NULL":
                cur = None
                continue
            cur = {"tag": m.group(2)}
            dies[(section, int(m.group(1), 16))] = cur
            continue
        m = ATTR_RE.match(line)
        if m and cur is not None and m.group(1) in KEYS:
            raw = m.group(2)
            if btfc and raw.startswith("sig "):
                continue
            if not btfc and m.group(1) == "DW_AT_type" and raw.startswith("0x") and \
                    len(raw.split()[0]) > 12:
                continue  # a signature
            if m.group(1) == "DW_AT_data_member_location" and raw.startswith("DW_OP"):
                continue
            if not btfc and m.group(1) == "DW_AT_const_value" and "<" in raw:
                continue
            if btfc and m.group(1) == "DW_AT_const_value" and raw.startswith("<"):
                continue
            cur[m.group(1)] = value(raw)
    return dies


def rel_section_bases(path):
    """For an ET_REL file, the addresses btfc gives its allocated sections
    (libdwfl's layout: in section order, each aligned, from 0; see
    belf_section_addr), where llvm-dwarfdump takes every section at 0.
    None for other files."""
    hdr = subprocess.run(["readelf", "-hW", path], capture_output=True, text=True).stdout
    if not re.search(r"Type:\s+REL\b", hdr):
        return None
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    row = re.compile(r"^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)\s+([A-Za-z]*)\s+(\d+)\s+(\d+)\s+(\d+)\s*$")
    bases, nxt = {0}, 0
    for line in out.splitlines():
        m = row.match(line)
        if not m or int(m.group(1)) == 0 or "A" not in m.group(8):
            continue
        al = max(int(m.group(11)), 1)
        nxt = (nxt + al - 1) // al * al
        bases.add(nxt)
        nxt += int(m.group(6), 16)
    return bases


def main():
    btfc, path = sys.argv[1], sys.argv[2]
    bases = rel_section_bases(path)
    ours = subprocess.run([btfc, "dwarf", path], capture_output=True, text=True)
    if ours.returncode != 0:
        print("btfc failed:", ours.stderr.strip())
        return 1
    theirs = subprocess.run(["llvm-dwarfdump", "--debug-info", "--debug-types", path],
                            capture_output=True, text=True)
    a, b = parse(ours.stdout, True), parse(theirs.stdout, False)
    bad = 0
    compared = 0
    for key in sorted(set(a) | set(b)):
        da, db = a.get(key), b.get(key)
        if da is None or db is None:
            bad += 1
            if bad < 10:
                print(f"DIE {key}: only in {'llvm-dwarfdump' if da is None else 'btfc'}")
            continue
        for k in set(da) | set(db):
            va, vb = da.get(k), db.get(k)
            if va is None and k != "tag" and vb is None:
                continue
            compared += 1
            if isinstance(va, int) and isinstance(vb, int) and k != "tag":
                va &= (1 << 64) - 1
                vb &= (1 << 64) - 1
            if k == "DW_AT_low_pc" and bases is not None and isinstance(va, int) and \
                    isinstance(vb, int) and (va - vb) in bases:
                continue  # the same section offset; btfc adds the section's address
            if va != vb:
                bad += 1
                if bad < 10:
                    print(f"DIE {key} {k}: btfc {va!r} llvm-dwarfdump {vb!r}")
    print(f"dies {len(a)}, attrs compared {compared}, mismatches {bad}")
    return 1 if bad or not a else 0


if __name__ == "__main__":
    sys.exit(main())
