#!/usr/bin/env python3
"""Check decl_tag_kfuncs: every FUNC that .BTF_ids kfunc sets name gets exactly
one bpf_kfunc DECL_TAG, and nothing else does.  usage: kfunc_check.py ELF RAWDUMP"""
import subprocess,re,struct,sys
v=sys.argv[1]; raw=sys.argv[2]
secs=subprocess.run(['readelf','-SW',v],capture_output=True,text=True).stdout
for l in secs.splitlines():
    if '.BTF_ids' in l:
        f=l.split(']')[1].split(); addr=int(f[2],16); off=int(f[3],16); size=int(f[4],16)
data=open(v,'rb'); data.seek(off); sec=data.read(size)
syms=subprocess.run(['readelf','-sW',v],capture_output=True,text=True).stdout.splitlines()
ranges=[];funcs=[]
for l in syms:
    p=l.split()
    if len(p)<8 or not p[0].rstrip(':').isdigit(): continue
    name=p[7]; val=int(p[1],16); sz=int(p[2],0)
    if name.startswith('__BTF_ID__set8__'):
        o=val-addr
        flags=struct.unpack('<I',sec[o+4:o+8])[0]
        if flags&1: ranges.append((o,o+sz))
    elif name.startswith('__BTF_ID__func__'):
        funcs.append((val-addr,name))
kf=set()
for o,n in funcs:
    if any(a<=o<b for a,b in ranges):
        kf.add(re.sub(r'__\d+$','',n[16:]))
lines=open(raw).read().splitlines()
fn={}
for l in lines:
    m=re.match(r"\[(\d+)\] FUNC '([^']+)'",l)
    if m: fn[int(m.group(1))]=m.group(2)
tagged=set()
for l in lines:
    m=re.match(r"\[\d+\] DECL_TAG 'bpf_kfunc' type_id=(\d+)",l)
    if m: tagged.add(fn[int(m.group(1))])
have=kf & set(fn.values())
print('kfuncs',len(kf),'with FUNC',len(have),'tagged',len(tagged),'tagged-not-kfunc',len(tagged-kf),'untagged',len(have-tagged))
sys.exit(0 if tagged == have and kf else 1)
