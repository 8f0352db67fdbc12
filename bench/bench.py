#!/usr/bin/env python3
"""Benchmarks for btfc, each next to its reference in the same run."""
import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(cmd):
    """One run: (wall s, user+sys s, max RSS MiB, stdout).  Wall from a
    monotonic clock around GNU time (its %e has 10 ms steps, a tenth of a
    0.1 s run), CPU and RSS from GNU time."""
    with tempfile.NamedTemporaryFile("r") as tf:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-o", tf.name, "-f", "%e %U %S %M"] + cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"bench: {' '.join(cmd)} failed: {p.stderr.strip()[-300:]}")
        _, u, s, m = tf.read().split()[-4:]
        return wall, float(u) + float(s), int(m) / 1024, p.stdout


def timed(cmd, runs):
    """Run cmd `runs` times; return (median wall s, median user+sys s, max RSS MiB, stdout)."""
    return side_by_side([cmd], runs)[0]


def side_by_side(cmds, runs):
    """Run the commands in turn, `runs` rounds, so that a slow stretch of a
    shared machine hits all of them alike rather than one tool's block of
    runs; per command (median wall s, median user+sys s, max RSS MiB, stdout)."""
    n = len(cmds)
    walls, cpus, rss, outs = [[] for _ in cmds], [[] for _ in cmds], [[] for _ in cmds], [""] * n
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            w, c, r, outs[i] = run_once(cmd)
            walls[i].append(w)
            cpus[i].append(c)
            rss[i].append(r)
    return [(statistics.median(walls[i]), statistics.median(cpus[i]), max(rss[i]), outs[i])
            for i in range(n)]


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


def libbpf_oracle(a):
    """The test tool that runs the system libbpf's btf__dedup, built if missing."""
    oracle = os.path.join(a.build, "libbpf-oracle")
    if not os.path.exists(oracle):
        subprocess.run(["make", "-s", f"O={a.build}", oracle], check=True)
    return oracle


def bench_dedup(a):
    """btfc dedup vs libbpf 1.1.2 btf__dedup on two big blobs (whole processes)."""
    oracle = libbpf_oracle(a)
    v = os.path.join(a.corpus, "vmlinux.btf")
    tmp = tempfile.mkdtemp(prefix="btfc-bench-dedup.")
    x8 = os.path.join(tmp, "x8.btf")
    allm = os.path.join(tmp, "allmods.btf")
    lst = os.path.join(tmp, "mods.txt")
    with open(lst, "w") as f:
        for root, _, files in sorted(os.walk(os.path.join(a.corpus, "btf"))):
            for n in sorted(files):
                if n.endswith(".ko.btf"):
                    f.write(os.path.join(root, n) + "\n")
    subprocess.run([a.btfc, "dedup", "--no-dedup"] + [v] * 8 + ["-o", x8], check=True)
    subprocess.run([a.btfc, "dedup", "--no-dedup", "--flatten", "--base", v, "@" + lst,
                    "-o", allm], check=True)
    out = os.path.join(tmp, "out.btf")
    for title, blob in [("vmlinux.btf x8", x8), ("vmlinux.btf + all 1,138 modules", allm)]:
        print(f"dedup, {title} ({os.path.getsize(blob) >> 20} MiB; medians of {a.runs})")
        runs = [
            ("libbpf 1.1.2 btf__dedup", [oracle, blob, out]),
            ("btfc dedup -j1", [a.btfc, "dedup", "-j1", blob, "-o", out]),
            ("btfc dedup -j2", [a.btfc, "dedup", "-j2", blob, "-o", out]),
        ]
        res = []
        for (name, _), (wall, cpu, rss, _) in zip(runs, side_by_side([c for _, c in runs], a.runs)):
            res.append((wall, rss))
            row(name, wall, cpu, rss)
        (lw, lr), (w1, r1), (w2, r2) = res
        print(f"  ratio libbpf/btfc -j1: {lw / w1:5.2f}x   (target >= 2)")
        print(f"  ratio libbpf/btfc -j2: {lw / w2:5.2f}x   (target >= 5, #38)")
        print(f"  peak RSS btfc/libbpf:  {max(r1, r2) / lr:5.2f}    (target <= 1)")
    # the encoder's call pattern: batch split dedup of every module's
    # pre-dedup BTF on vmlinux (one shared prepared base vs preparing the
    # base per module)
    kos = os.path.join(tmp, "kos.txt")
    nd = os.path.join(tmp, "nd")
    bo = os.path.join(tmp, "bo")
    os.mkdir(nd)
    os.mkdir(bo)
    with open(kos, "w") as f:
        for root, _, files in sorted(os.walk(os.path.join(a.corpus, "pkg"))):
            for n in sorted(files):
                if n.endswith(".ko"):
                    f.write(os.path.join(root, n) + "\n")
    subprocess.run([a.btfc, "encode", "--no-dedup", "--base", v, "--list", kos, "-o", nd],
                   check=True, stdout=subprocess.DEVNULL)
    ndl = os.path.join(tmp, "nd.txt")
    with open(ndl, "w") as f:
        for n in sorted(os.listdir(nd)):
            f.write(os.path.join(nd, n) + "\n")
    print(f"split dedup of the 1,138 modules' pre-dedup BTF on vmlinux, batch (medians of {a.runs})")
    res = {}
    for name, cmd in [
        ("btfc -j2, base prepared per module", [a.btfc, "dedup", "--keep-strings", "--base", v, "-j2",
                                               "--no-prepared-base", "--batch", bo, "@" + ndl]),
        ("btfc -j2, one shared prepared base", [a.btfc, "dedup", "--keep-strings", "--base", v, "-j2",
                                               "--batch", bo, "@" + ndl]),
    ]:
        wall, cpu, rss, _ = timed(cmd, a.runs)
        res[name] = (wall, cpu)
        row(name, wall, cpu, rss)
    (w0, c0), (w1, c1) = res.values()
    print(f"  ratio per-module/prepared: wall {w0 / w1:5.2f}x  cpu {c0 / c1:5.2f}x")
    shutil.rmtree(tmp)


def bench_btf(a):
    """Parse + kernel-mode validation of vmlinux.btf, next to bpftool reading it."""
    v = os.path.join(a.corpus, "vmlinux.btf")
    print(f"BTF parse + validate, {v} (medians of {a.runs})")
    res = {}
    for name, cmd in [
        ("bpftool btf dump format raw", ["sh", "-c", f"bpftool btf dump file {v} format raw > /dev/null"]),
        ("btfc dump (raw text)", ["sh", "-c", f"{a.btfc} dump {v} > /dev/null"]),
        ("btfc verify (parse + kernel rules)", [a.btfc, "verify", v]),
        ("btfc verify --strict", [a.btfc, "verify", "--strict", v]),
    ]:
        wall, cpu, rss, _ = timed(cmd, a.runs)
        res[name] = wall
        row(name, wall, cpu, rss)
    b, d, vv, _ = (res[k] for k in list(res))
    print(f"  ratio bpftool/btfc dump:   {b / max(d, 1e-3):5.2f}x")
    print(f"  ratio bpftool/btfc verify: {b / max(vv, 1e-3):5.2f}x")


def bench_encode(a):
    """vmlinux DWARF -> BTF: pahole 1.24 (the kernel's 6.12 flags) vs btfc, same run."""
    v = os.path.join(a.corpus, "vmlinux")
    tmp = tempfile.mkdtemp(prefix="btfc-bench-encode.")
    out = os.path.join(tmp, "out.btf")
    print(f"encode, {v} (medians of {a.runs})")
    runs = [
        ("pahole -J -j --btf_gen_floats", ["pahole", "-J", "-j", "--btf_gen_floats",
                                           "--lang_exclude=rust", "--btf_encode_detached=" + out, v]),
        # as users run it: --stats samples RSS every 2 ms on a thread of its
        # own (+15 ms CPU, +20 ms wall); the phases come from a run below
        ("btfc encode -j1", [a.btfc, "encode", "-j1", v, "-o", out]),
        ("btfc encode -j2", [a.btfc, "encode", "-j2", v, "-o", out]),
        ("btfc encode -j2 --compat 1.30", [a.btfc, "encode", "-j2", "--compat", "1.30", v, "-o", out]),
        ("btfc encode -j2 --compat 1.31", [a.btfc, "encode", "-j2", "--compat", "1.31", v, "-o", out]),
    ]
    res = {}
    for (name, _), (wall, cpu, rss, _) in zip(runs, side_by_side([c for _, c in runs], a.runs)):
        res[name] = (wall, cpu, rss)
        row(name, wall, cpu, rss)
    (_, c24, _), (_, c30, _), (_, c31, _) = (res[k] for k in list(res)[2:])
    print(f"  policy cost (cpu, -j2): 1.30 {c30 / c24:5.2f}x, 1.31 {c31 / c24:5.2f}x of 1.24's"
          "   (target <= 1.10)")
    for k in list(res)[3:]:
        del res[k]
    p = subprocess.run([a.btfc, "encode", "-j2", "--stats", v, "-o", out], capture_output=True,
                       text=True)
    print("  btfc phases (-j2): " + " ".join(l for l in p.stderr.splitlines() if "time:" in l))
    (pw, pc, pr), _, (w2, c2, r2) = (res[k] for k in list(res))
    print(f"  ratio pahole/btfc -j2 wall: {pw / w2:5.2f}x   (target >= 5, #38)")
    print(f"  ratio pahole/btfc -j2 cpu:  {pc / c2:5.2f}x   (target >= 5, #38)")
    print(f"  peak RSS btfc/pahole:       {r2 / pr:5.2f}    (target <= 0.5)")
    serial_floor(a, v, tmp, p.stderr, pw, c2)
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


def serial_floor(a, v, tmp, stats, pahole_wall, cpu):
    """What no second core shortens: the steps that run on one thread (the
    read, dedup's final pass...; --stats' "serial"), and the wall time it
    projects on N cores (serial + the rest of the -j2 CPU time / N), next
    to the 5x wall budget (#38) and libbpf's dedup of the same merged BTF
    (pahole's dedup step) for scale."""
    ph = dict((k, float(x)) for k, x in re.findall(r"(\w+) ([\d.]+) s", stats))
    m = re.search(r"^serial: ([\d.]+) s", stats, re.M)
    serial = float(m.group(1)) if m else 0.0
    print(f"  serial at -j2: {serial:.3f} s (target <= 0.25); the 5x wall budget is pahole/5 = "
          f"{pahole_wall / 5:.3f} s")
    print("  projected wall (serial + rest of the -j2 CPU / N): " +
          ", ".join(f"{n} cores {serial + max(cpu - serial, 0) / n:.3f} s" for n in (2, 16, 64)))
    oracle = libbpf_oracle(a)
    nd, out = os.path.join(tmp, "merged.btf"), os.path.join(tmp, "libbpf.btf")
    subprocess.run([a.btfc, "encode", "--no-dedup", v, "-o", nd], check=True)
    secs = []
    for _ in range(a.runs):
        p = subprocess.run([oracle, "-t", nd, out], capture_output=True, text=True, check=True)
        secs.append(float(re.search(r"dedup-seconds ([\d.]+)", p.stderr).group(1)))
    print(f"  dedup of the merged BTF ({os.path.getsize(nd) >> 20} MiB): libbpf 1.1.2 btf__dedup "
          f"{statistics.median(secs):.3f} s, btfc -j2 {ph.get('dedup', 0.0):.3f} s")


def bench_modules(a):
    """All modules as kbuild does (one process per module, 2 at a time) and in batch."""
    mods = os.path.join(a.corpus, "modules.txt")
    vbtf = os.path.join(a.corpus, "vmlinux.btf")
    n = sum(1 for _ in open(mods))
    # outputs on tmpfs for both tools: on ext4, creating files soon after
    # many were deleted (an earlier bench's cleanup) scans inode tables
    # for recently deleted inodes, 0.5-0.8 s of a 3 s batch run here
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    tmp = tempfile.mkdtemp(prefix="btfc-bench-mods.", dir=shm)
    print(f"modules: {n} modules on {vbtf} (pahole once: it takes minutes; btfc medians of "
          f"{a.runs}, interleaved; outputs in {tmp})")
    def per_mod(cmd, before=""):  # one process per module, two at a time, like make -j2
        return ["sh", "-c", f"{before}xargs -P2 -I{{}} sh -c '{cmd}' < {mods}"]
    res = {}
    name = "pahole per module, 2 in parallel"
    wall, cpu, rss, _ = timed(per_mod(f"pahole -J --btf_gen_floats --lang_exclude=rust --btf_base {vbtf} "
                                      f"--btf_encode_detached={tmp}/$(basename {{}}).p {{}}"), 1)
    res[name] = wall
    row(name, wall, cpu, rss)
    ours = [
        # an empty base cache of its own each run: the first module builds
        # it, as in a kernel build after vmlinux changed
        ("btfc per module, 2 in parallel",
         per_mod(f"BTFC_CACHE_DIR={tmp}/cache {a.btfc} encode -j1 --base {vbtf} "
                 f"-o {tmp}/$(basename {{}}).b {{}}", before=f"rm -rf {tmp}/cache; ")),
        ("btfc batch -j2", [a.btfc, "encode", "-j2", "--base", vbtf, "--list", mods, "-o", tmp]),
    ]
    for (name, _), (wall, cpu, rss, _) in zip(ours, side_by_side([c for _, c in ours], a.runs)):
        res[name] = wall
        row(name, wall, cpu, rss)
    p, s1, b = (res[k] for k in list(res))
    print(f"  ratio pahole/btfc per module: {p / s1:5.2f}x   (target >= 6, #38)")
    print(f"  ratio pahole/btfc batch -j2:  {p / b:5.2f}x   (target >= 20)")
    shutil.rmtree(tmp)


GIANTS = ("drivers/gpu/drm/amd/amdgpu/amdgpu.ko", "drivers/gpu/drm/nouveau/nouveau.ko",
          "drivers/gpu/drm/i915/i915.ko")


def graph_equal(a, ours, shipped, base=None):
    """btfc diff -q: the same type graph (split on base when given)."""
    cmd = [a.btfc, "diff", "-q", ours, shipped]
    if base:
        cmd += ["--base-a", base, "--base-b", base]
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def bench_generic(a):
    """Debian's generic kernel (issue #41): its largest modules and vmlinux
    beside pahole 1.24 (the kernel's flags; modules without -j, as the
    module build runs it, which is also pahole's smaller peak), and all its
    modules in one batch.  pahole over the whole batch (one process per
    module, two at a time, as make -j2 runs it) takes a quarter of an hour:
    only with BENCH_PAHOLE_BATCH=1."""
    g = a.generic
    if not g:
        print("generic: skipped, no generic corpus (BTFC_CORPUS_GENERIC, default "
              "/var/tmp/btfc-corpus-generic; KVER=6.12.117+deb12-amd64 "
              "scripts/fetch-debian-kernel.sh DIR fetches it)")
        return
    vbtf = os.path.join(g, "vmlinux.btf")
    mods = os.path.join(g, "modules.txt")
    paths = [l.strip() for l in open(mods) if l.strip()]
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    tmp = tempfile.mkdtemp(prefix="btfc-bench-generic.", dir=shm)
    out, pout = os.path.join(tmp, "b.btf"), os.path.join(tmp, "p.btf")
    print(f"generic kernel {g} (medians of {a.runs}; peak RSS the largest run's)")

    def versus(f, pahole_cmd, btfc_cmd, btfc_name, shipped, base=None):
        """pahole and btfc on f side by side; the ratios; btfc's output against shipped."""
        runs = [(pahole_cmd[0], pahole_cmd[1]), (btfc_name, btfc_cmd)]
        print(f"  {os.path.basename(f)} ({os.path.getsize(f) >> 20} MiB)")
        res = []
        for (name, _), (wall, cpu, rss, _) in zip(runs, side_by_side([c for _, c in runs], a.runs)):
            res.append((wall, rss))
            row(name, wall, cpu, rss)
        (pw, pr), (bw, br) = res
        eq = "EQUAL" if graph_equal(a, out, shipped, base) else "DIFFERENT"
        print(f"  ratio pahole/btfc wall: {pw / bw:5.2f}x   peak RSS btfc/pahole: {br / pr:5.2f}"
              f"    (target <= 0.5); graph vs shipped BTF: {eq}")

    for rel in GIANTS:
        m = next((p for p in paths if p.endswith("/" + rel)), None)
        if not m:
            print(f"  {rel}: not in the corpus")
            continue
        shipped = os.path.join(g, "btf", m.split("/lib/modules/", 1)[1].split("/", 1)[1] + ".btf")
        versus(m, ("pahole -J --btf_base", ["pahole", "-J", "--btf_gen_floats", "--lang_exclude=rust",
                                            "--btf_base", vbtf, "--btf_encode_detached=" + pout, m]),
               [a.btfc, "encode", "-j2", "--base", vbtf, m, "-o", out], "btfc encode -j2 --base",
               shipped, vbtf)
    v = os.path.join(g, "vmlinux")
    versus(v, ("pahole -J -j --btf_gen_floats", ["pahole", "-J", "-j", "--btf_gen_floats",
                                                 "--lang_exclude=rust", "--btf_encode_detached=" + pout, v]),
           [a.btfc, "encode", "-j2", v, "-o", out], "btfc encode -j2", vbtf)
    bdir = os.path.join(tmp, "batch")
    os.mkdir(bdir)
    wall, cpu, rss, _ = timed([a.btfc, "encode", "-j2", "--base", vbtf, "--list", mods, "-o", bdir],
                              a.runs)
    print(f"  all {len(paths)} modules in one batch")
    row("btfc batch -j2", wall, cpu, rss)
    print(f"  peak RSS {rss:.0f} MiB   (target <= 600)")
    if os.environ.get("BENCH_PAHOLE_BATCH") == "1":
        pdir = os.path.join(tmp, "pahole")
        os.mkdir(pdir)
        cmd = (f"xargs -P2 -I{{}} sh -c 'pahole -J --btf_gen_floats --lang_exclude=rust "
               f"--btf_base {vbtf} --btf_encode_detached={pdir}/$(basename {{}}).p {{}}' < {mods}")
        pw, pc, pr, _ = timed(["sh", "-c", cmd], 1)
        row("pahole per module, 2 in parallel", pw, pc, pr)
        print(f"  ratio pahole/btfc batch -j2: {pw / wall:5.2f}x")
    else:
        print("  pahole over all modules: skipped (a quarter of an hour; BENCH_PAHOLE_BATCH=1 runs it)")
    shutil.rmtree(tmp)


def bench_layout(a):
    """Each sample is LOOP back-to-back runs (one run is a few tens of ms, below
    GNU time's 10 ms resolution); times are per run."""
    v = os.path.join(a.corpus, "vmlinux.btf")
    loop = 10
    print(f"layout, {v} (medians of {a.runs} samples of {loop} runs each, per run)")
    res = {}
    for name, cmd in [
        ("pahole -F btf task_struct", ["pahole", "-F", "btf", "-C", "task_struct", v]),
        ("btfc layout task_struct", [a.btfc, "layout", "task_struct", v]),
        ("pahole -F btf (all structs)", ["pahole", "-F", "btf", v]),
        ("btfc layout (all structs)", [a.btfc, "layout", v]),
    ]:
        lines = subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout.count(b"\n")
        q = " ".join(shlex.quote(c) for c in cmd)
        wall, cpu, rss, _ = timed(["sh", "-c", f"for i in $(seq {loop}); do {q} >/dev/null; done"],
                                  a.runs)
        res[name] = (wall / loop, cpu / loop)
        row(name, wall / loop, cpu / loop, rss, f"{lines} lines")
    names = list(res)
    for i in (0, 2):
        p, b = res[names[i]], res[names[i + 1]]
        print(f"  ratio pahole/btfc {names[i + 1][12:]:<18} wall {p[0] / max(b[0], 1e-3):5.2f}x  "
              f"cpu {p[1] / max(b[1], 1e-3):5.2f}x   (target >= 1, all structs >= 2)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--btfc", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--generic", default="", help="the generic kernel's corpus (bench_generic)")
    ap.add_argument("only", nargs="*", help="benchmarks to run (default: all)")
    a = ap.parse_args()
    benches = {"dwarf": bench_dwarf, "btf": bench_btf, "encode": bench_encode, "modules": bench_modules,
               "generic": bench_generic, "dedup": bench_dedup, "layout": bench_layout}
    for name in a.only or benches:
        benches[name](a)


if __name__ == "__main__":
    main()
