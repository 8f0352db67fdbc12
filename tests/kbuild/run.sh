#!/usr/bin/env bash
# End-to-end check of btfc as the kernel's pahole: build a small Linux 6.12
# (Debian's linux-source-6.12) with `make PAHOLE=...`, boot it under QEMU
# (TCG) with a busybox initramfs that checks /sys/kernel/btf/vmlinux (and,
# when the claimed pahole is 1.26 or later, its bpf_kfunc decl tags), loads
# a module and checks /sys/kernel/btf/<module>, and prints PASS.
# BTFC_PAHOLE_VERSION=1.24 builds with btfc claiming pahole 1.24.
#
#   tests/kbuild/run.sh                 # PAHOLE = btfc, installed by `make install`
#   PAHOLE=pahole tests/kbuild/run.sh   # Debian's pahole 1.24: the reference
#
# Not part of `make test`: one build takes 12-18 min on 2 cores.  Runs as
# root (apt-get).  Everything goes under $KBUILD_DIR (default
# /var/tmp/btfc-kbuild): the unpacked source (kept), one build dir per
# PAHOLE (kept, so a re-run is incremental; CLEAN=1 starts over), the
# initramfs, logs.  Every pahole call goes through a timing shim; the
# summary prints the wall time of the whole build and the summed time of
# the BTF steps (vmlinux and each module).  JOBS (default 2) is make -j;
# the build runs under nice -n 19.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KB=${KBUILD_DIR:-/var/tmp/btfc-kbuild}
JOBS=${JOBS:-2}
KVER=6.12
MODULES="crc7 crc-itu-t"	# small lib modules; each must get a /sys/kernel/btf/<name>
mkdir -p "$KB"

log() { echo "kbuild: $*"; }
die() { echo "kbuild: FAIL: $*" >&2; exit 1; }

# 1. packages
need=()
for p in linux-source-$KVER qemu-system-x86 busybox-static flex bison bc cpio kmod libelf-dev \
	 libssl-dev make gcc xz-utils; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null
fi
TARBALL=$(ls /usr/src/linux-source-$KVER.tar.* 2>/dev/null | head -1)
[ -n "$TARBALL" ] || die "no /usr/src/linux-source-$KVER.tar.*"
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-$KVER)

# 2. which pahole
if [ -z "${PAHOLE:-}" ]; then
	log "building and installing btfc into $KB/prefix"
	make -C "$ROOT" -s >/dev/null
	make -C "$ROOT" -s install PREFIX="$KB/prefix" >/dev/null
	PAHOLE=$KB/prefix/libexec/btfc/pahole
	TAG=btfc-$("$PAHOLE" --numeric_version)
else
	PAHOLE=$(command -v "$PAHOLE") || die "PAHOLE=$PAHOLE not found"
	case "$("$PAHOLE" --version 2>/dev/null)" in
	v*) ;;
	*) die "$PAHOLE --version does not print vX.YY" ;;
	esac
	if [ "$(readlink -f "$PAHOLE")" = "$(readlink -f "$ROOT/build/btfc")" ] ||
	   "$PAHOLE" --help 2>/dev/null | grep -q "btfc's pahole"; then TAG=btfc-given
	else TAG=pahole-$("$PAHOLE" --numeric_version); fi
fi
log "PAHOLE=$PAHOLE ($("$PAHOLE" --version)), tag $TAG"

OUT=$KB/out-$TAG
[ "${CLEAN:-0}" = 1 ] && rm -rf "$OUT"
mkdir -p "$OUT"
TIMES=$OUT/pahole-times.log
: > "$TIMES"

# 3. timing shim: the kernel runs $(PAHOLE) for --version and for each BTF step.
SHIM=$OUT/pahole-timed
cat > "$SHIM" <<EOF
#!/bin/bash
s=\$(date +%s.%N)
"$PAHOLE" "\$@"; rc=\$?
e=\$(date +%s.%N)
case " \$* " in
*" -J "*|*--btf_encode*) echo "\$(echo "\$e - \$s" | bc) rc=\$rc \$*" >> "$TIMES" ;;
esac
exit \$rc
EOF
chmod +x "$SHIM"

# 4. source
SRC=$KB/linux-source-$KVER
if [ ! -f "$SRC/Makefile" ]; then
	log "unpacking $TARBALL"
	rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp"
	tar -xf "$TARBALL" -C "$SRC.tmp"
	mv "$SRC.tmp"/linux-source-$KVER "$SRC" && rmdir "$SRC.tmp"
fi
KMAKE=(nice -n 19 make -C "$SRC" O="$OUT/build" ARCH=x86_64 PAHOLE="$SHIM" -j"$JOBS")

# 5. config: tinyconfig + what BTF, modules, the serial console, an
# initramfs and busybox need.
mkdir -p "$OUT/build"
if [ ! -f "$OUT/build/.config" ]; then
	"${KMAKE[@]}" tinyconfig > "$OUT/config.log" 2>&1
	"$SRC/scripts/config" --file "$OUT/build/.config" \
		-e 64BIT -e PRINTK -e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e BINFMT_ELF \
		-e BINFMT_SCRIPT -e BLK_DEV_INITRD -e RD_GZIP -e PROC_FS -e SYSFS -e DEVTMPFS \
		-e MODULES -e MODULE_UNLOAD -e MULTIUSER -e FUTEX -e BPF_SYSCALL \
		-e DEBUG_KERNEL -d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -e DEBUG_INFO_BTF \
		-e DEBUG_INFO_BTF_MODULES -m CRC7 -m CRC_ITU_T
	"${KMAKE[@]}" olddefconfig >> "$OUT/config.log" 2>&1
fi
for o in DEBUG_INFO_BTF=y DEBUG_INFO_BTF_MODULES=y DEBUG_INFO_DWARF5=y MODULES=y CRC7=m CRC_ITU_T=m \
	 SERIAL_8250_CONSOLE=y BLK_DEV_INITRD=y; do
	grep -qx "CONFIG_$o" "$OUT/build/.config" || die "CONFIG_$o did not stick (see $OUT/config.log)"
done
PV=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$OUT/build/.config")
log "CONFIG_PAHOLE_VERSION=$PV"
KFUNC_TAGS=0; [ "$PV" -ge 126 ] && KFUNC_TAGS=1	# the kernel asks for decl_tag_kfuncs

# 6. build (timed)
log "building bzImage + modules (make -j$JOBS, nice 19) in $OUT/build; log $OUT/build.log"
t0=$(date +%s.%N)
if ! "${KMAKE[@]}" bzImage modules > "$OUT/build.log" 2>&1; then
	tail -30 "$OUT/build.log"
	die "kernel build failed (see $OUT/build.log)"
fi
t1=$(date +%s.%N)
BUILD_S=$(echo "$t1 - $t0" | bc)
for m in $MODULES; do
	ko=$(find "$OUT/build" -name "$m.ko" | head -1)
	[ -n "$ko" ] || die "$m.ko not built"
	readelf -S "$ko" | grep ' \.BTF ' > /dev/null || die "$m.ko has no .BTF"
done
readelf -S "$OUT/build/vmlinux" | grep ' \.BTF ' > /dev/null || die "vmlinux has no .BTF"
objcopy -O binary --only-section=.BTF "$OUT/build/vmlinux" "$OUT/vmlinux.btf"
NKF=$("$ROOT/build/btfc" dump "$OUT/vmlinux.btf" | grep -c "DECL_TAG 'bpf_kfunc'" || true)
log "vmlinux .BTF: $NKF bpf_kfunc decl tags"
[ $KFUNC_TAGS = 0 ] || [ "$NKF" -gt 0 ] || die "pahole $PV: no bpf_kfunc decl tags in vmlinux's .BTF"

# 7. initramfs: busybox, the modules, an init that checks BTF in sysfs.
IR=$OUT/initramfs
rm -rf "$IR" && mkdir -p "$IR"
cp /bin/busybox "$IR/busybox"
{
	echo "dir /dev 755 0 0"
	echo "nod /dev/console 600 0 0 c 5 1"
	echo "dir /bin 755 0 0"
	echo "dir /proc 755 0 0"
	echo "dir /sys 755 0 0"
	echo "dir /mod 755 0 0"
	echo "file /bin/busybox $IR/busybox 755 0 0"
	for a in sh mount insmod ls cat echo reboot sleep grep sed; do echo "slink /bin/$a busybox 777 0 0"; done
	for m in $MODULES; do echo "file /mod/$m.ko $(find "$OUT/build" -name "$m.ko" | head -1) 644 0 0"; done
	echo "file /init $IR/init 755 0 0"
} > "$IR/list"
cat > "$IR/init" <<EOF
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
ok=1
if [ -e /sys/kernel/btf/vmlinux ]; then echo "kbuild-check: vmlinux BTF present"
else echo "kbuild-check: no /sys/kernel/btf/vmlinux"; ok=0; fi
if [ $KFUNC_TAGS = 1 ]; then
	if grep -q bpf_kfunc /sys/kernel/btf/vmlinux; then echo "kbuild-check: bpf_kfunc tags in /sys/kernel/btf/vmlinux"
	else echo "kbuild-check: no bpf_kfunc tag in /sys/kernel/btf/vmlinux"; ok=0; fi
fi
for m in $MODULES; do
	n=\$(echo \$m | sed 's/-/_/g')
	if insmod /mod/\$m.ko; then echo "kbuild-check: insmod \$m ok"
	else echo "kbuild-check: insmod \$m failed"; ok=0; fi
	if [ -e /sys/kernel/btf/\$n ]; then echo "kbuild-check: /sys/kernel/btf/\$n present"
	else echo "kbuild-check: no /sys/kernel/btf/\$n"; ok=0; fi
done
[ \$ok = 1 ] && echo "kbuild-check: PASS" || echo "kbuild-check: FAILED"
reboot -f
EOF
GEN=$OUT/build/usr/gen_init_cpio
[ -x "$GEN" ] || { GEN=$OUT/gen_init_cpio; gcc -O2 -o "$GEN" "$SRC/usr/gen_init_cpio.c"; }
"$GEN" "$IR/list" | gzip -9 > "$OUT/initramfs.cpio.gz"

# 8. boot
log "booting under qemu (TCG); console log $OUT/boot.log"
timeout 600 qemu-system-x86_64 -accel tcg -m 256M -smp 1 -nographic -no-reboot \
	-kernel "$OUT/build/arch/x86/boot/bzImage" -initrd "$OUT/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4" > "$OUT/boot.log" 2>&1 || true
grep -ao 'kbuild-check: [^[:cntrl:]]*' "$OUT/boot.log" || true

# 9. summary
btf_vmlinux=$(awk '$0 ~ /vmlinux/ && $0 !~ /--btf_base/ {s += $1} END {printf "%.2f", s}' "$TIMES")
btf_mods=$(awk '$0 ~ /--btf_base/ {s += $1; n++} END {printf "%.2f s over %d modules", s, n}' "$TIMES")
bad=$(grep -vc ' rc=0 ' "$TIMES" || true)
result=FAIL
grep -q 'kbuild-check: PASS' "$OUT/boot.log" && [ "$bad" = 0 ] && result=PASS
summary="$result: linux-source-$KVER $SRCVER, PAHOLE $TAG ($("$PAHOLE" --version)), make -j$JOBS: build $(printf '%.0f' "$BUILD_S") s; BTF steps: vmlinux $btf_vmlinux s, modules $btf_mods; $NKF bpf_kfunc tags"
echo "$summary" | tee "$OUT/summary.txt"
[ $result = PASS ]
