#!/usr/bin/env python3
"""Compare two pahole-style layout texts type by type.

usage: layout_blocks.py [--lines] [--list] [--show N] [--known FILE [--check C]]
                        REFERENCE OURS

A block is one type's text: it starts at a line in column 0 that is not a
closing brace (`struct foo {`, `union bar {`, `typedef ...`), and runs up to
the next such line.  Texts made of `=== NAME` sections (pahole run once per
name) are split at those lines instead, keyed by NAME; with --lines every
line is a block, keyed by its first tab-separated field (pahole --sizes).
Other blocks are keyed by their first line and how many times that line was
seen before, so the two texts may print the same types in any order.
Trailing blank lines of a block are ignored.

Prints "identical/total" (total = blocks of REFERENCE), then the keys of
the blocks that differ, are missing from OURS or are only in OURS.
--known FILE: lines "NAME CHECK reason" (tests/layout-known-diffs*.txt)
name the types whose blocks are expected to differ (--check: only the
lines of that CHECK); they are counted apart, and listed with --list.
Exit 0 when every difference is a known one.
"""
import argparse
import difflib
import re
import sys


def blocks(text, lines_mode):
    out = {}
    order = []
    seen = {}

    def add(key, body):
        while body and body[-1] == '':
            body.pop()
        out[key] = '\n'.join(body)
        order.append(key)

    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if lines_mode:
        for ln in lines:
            name = ln.split('\t', 1)[0]
            n = seen.get(name, 0)
            seen[name] = n + 1
            add((name, n), [ln])
        return out, order
    sections = any(ln.startswith('=== ') for ln in lines[:1])
    cur, key = [], None
    for ln in lines:
        if sections:
            start = ln.startswith('=== ')
        else:
            start = ln != '' and not ln[0].isspace() and not ln.startswith('}')
        if start:
            if key is not None:
                add(key, cur)
            if sections:
                key, cur = ln[4:], []
            else:
                n = seen.get(ln, 0)
                seen[ln] = n + 1
                key, cur = (ln, n), [ln]
        else:
            if key is None:
                key, cur = ('<before first type>', 0), []
            cur.append(ln)
    if key is not None:
        add(key, cur)
    return out, order


def type_name(key):
    """struct foo { -> foo; sections are keyed by name already."""
    if isinstance(key, str):
        return key
    first = key[0]
    m = re.match(r'(?:typedef\s+)?(?:struct|union|enum)\s+([A-Za-z_0-9]+)', first)
    if m:
        return m.group(1)
    return first.split('\t', 1)[0]


def load_known(path, check):
    """NAME CHECK reason lines ('#' comments); only those of CHECK if given."""
    names = {}
    if not path:
        return names
    for ln in open(path):
        ln = ln.strip()
        if not ln or ln.startswith('#'):
            continue
        f = ln.split(None, 2)
        if len(f) >= 2 and (check is None or f[1] == check):
            names[f[0]] = f[2] if len(f) > 2 else ''
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('reference')
    ap.add_argument('ours')
    ap.add_argument('--lines', action='store_true', help='one block per line (--sizes)')
    ap.add_argument('--list', action='store_true', help='list the keys of differing blocks')
    ap.add_argument('--show', type=int, default=0, help='print a diff of the first N differing blocks')
    ap.add_argument('--known', help='known differences file')
    ap.add_argument('--check', help='only known entries of this CHECK column (text, sizes, expand, reorg...)')
    ap.add_argument('--label', default='')
    a = ap.parse_args()

    ref, ref_order = blocks(open(a.reference, errors='replace').read(), a.lines)
    ours, _ = blocks(open(a.ours, errors='replace').read(), a.lines)
    known = load_known(a.known, a.check)

    same = 0
    differ, missing, known_hit = [], [], []
    for k in ref_order:
        if k not in ours:
            (known_hit if type_name(k) in known else missing).append(k)
        elif ours[k] == ref[k]:
            same += 1
        elif type_name(k) in known:
            known_hit.append(k)
        else:
            differ.append(k)
    extra = [k for k in ours if k not in ref]
    total = len(ref_order)
    pct = 100.0 * same / total if total else 100.0
    print(f'{a.label}{same}/{total} identical ({pct:.2f}%), {len(known_hit)} known differences, '
          f'{len(differ)} other differences, {len(missing)} missing, {len(extra)} extra')
    if a.list:
        for k in known_hit:
            print(f'  known:   {type_name(k)}: {known[type_name(k)]}')
        for k in differ:
            print(f'  differs: {type_name(k)}')
        for k in missing:
            print(f'  missing: {type_name(k)}')
        for k in extra:
            print(f'  extra:   {type_name(k)}')
    for k in differ[:a.show]:
        sys.stdout.writelines(difflib.unified_diff(
            (ref[k] + '\n').splitlines(True), (ours[k] + '\n').splitlines(True),
            f'reference {type_name(k)}', f'ours {type_name(k)}', n=2))
    return 0 if not differ and not missing and not extra else 1


if __name__ == '__main__':
    sys.exit(main())
