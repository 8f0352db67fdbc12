#!/usr/bin/env python3
"""layout_compile_check.py BTFC FILE TYPE...: `btfc layout --compile` the types,
add _Static_asserts for every size and (non-bitfield) member offset from
`btfc layout --format json`, and compile the result with gcc."""
import json, os, subprocess, sys, tempfile
btfc,f=sys.argv[1],sys.argv[2]; types=sys.argv[3:]
hdr=subprocess.run([btfc,'layout','--compile']+types+[f],capture_output=True,text=True).stdout
js=subprocess.run([btfc,'layout','--format','json']+types+[f],capture_output=True,text=True).stdout
out=[hdr,'#include <stddef.h>']
for o in json.loads(js):
    kw=o['kind']
    out.append(f'_Static_assert(sizeof({kw} {o["name"]}) == {o["size"]}, "size {o["name"]}");')
    for m in o['members']:
        if m['name'] and 'bitfield_size' not in m:
            out.append(f'_Static_assert(offsetof({kw} {o["name"]}, {m["name"]}) == {m["offset"]}, "off {o["name"]}.{m["name"]}");')
fd, path = tempfile.mkstemp(suffix='.c')
with os.fdopen(fd, 'w') as fh:
    fh.write('\n'.join(out) + '\n')
r = subprocess.run(['gcc', '-c', '-o', '/dev/null', '-w', path], capture_output=True, text=True)
os.unlink(path)
print(r.stderr[:3000]); sys.exit(r.returncode)
