#!/usr/bin/env python3
"""Benchmarks for btfc, each next to its reference in the same run."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile


def timed(cmd, runs):
    """Run cmd `runs` times; return (median wall s, median user+sys s, max RSS MiB, stdout)."""
    walls, cpus, rss, out = [], [], [], ""
    for _ in range(runs):
        with tempfile.NamedTemporaryFile("r") as tf:
            p = subprocess.run(["/usr/bin/time", "-o", tf.name, "-f", "%e %U %S %M"] + cmd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                sys.exit(f"bench: {' '.join(cmd)} failed: {p.stderr.strip()[-300:]}")
            e, u, s, m = tf.read().split()[-4:]
            walls.append(float(e))
            cpus.append(float(u) + float(s))
            rss.append(int(m) / 1024)
            out = p.stdout
    return statistics.median(walls), statistics.median(cpus), max(rss), out


def row(name, wall, cpu, rss, extra=""):
    print(f"  {name:<34} {wall:7.3f} s wall {cpu:7.3f} s cpu {rss:7.0f} MiB  {extra}")


def bench_dwarf(a):
    v = os.path.join(a.corpus, "vmlinux")
    print(f"DWARF read, {v} (medians of {a.runs})")
    libdw = os.path.join(a.build, "bench-libdw")
    res = {}
    for name, cmd in [
        ("skip-only walk (floor), 1 thread", [a.btfc, "dwarf", "--stats", "--skip-only", "-j1", v]),
        ("btfc full decode, 1 thread", [a.btfc, "dwarf", "--stats", "-j1", v]),
        ("btfc full decode, 2 threads", [a.btfc, "dwarf", "--stats", "-j2", v]),
        ("libdw child/sibling + getattrs", [libdw, v]),
    ]:
        wall, cpu, rss, out = timed(cmd, a.runs)
        m = re.search(r"^dies: (\d+)", out, re.M)
        dies = int(m.group(1)) if m else 0
        res[name] = wall
        row(name, wall, cpu, rss, f"{dies} DIEs, {dies / wall / 1e6:6.1f} M DIEs/s")
    s, d1, d2, ld = (res[k] for k in list(res))
    print(f"  ratio full/skip-only (1 thread): {d1 / s:5.2f}x   (target <= 3)")
    print(f"  ratio libdw/full (1 thread):     {ld / d1:5.2f}x   (target >= 3)")
    print(f"  ratio 1 thread/2 threads:        {d1 / d2:5.2f}x   (target >= 1.7)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--btfc", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("only", nargs="*", help="benchmarks to run (default: all)")
    a = ap.parse_args()
    benches = {"dwarf": bench_dwarf}
    for name in a.only or benches:
        benches[name](a)


if __name__ == "__main__":
    main()
