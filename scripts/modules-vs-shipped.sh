# Sourced by the check-kernel scripts: compare_modules DIR C compares
# each module's DIR/NAME.ko.btf (a batch encode's output) with the BTF
# Debian ships for it under C/btf, split on C/vmlinux.btf, names the ones
# that differ, prints the counts and sets eq, ne (graph) and same (bytes).
# shellcheck shell=bash
compare_modules() {
	local dir=$1 c=$2 m rel
	eq=0; ne=0; same=0
	while read -r m; do
		rel=${m#*/lib/modules/*/}
		if "$BTFC" diff -q "$dir/$(basename "$m").btf" "$c/btf/$rel.btf" \
			--base-a "$c/vmlinux.btf" --base-b "$c/vmlinux.btf" >/dev/null 2>&1; then eq=$((eq+1))
		else ne=$((ne+1)); echo "     differs: $rel"; fi
		cmp -s "$dir/$(basename "$m").btf" "$c/btf/$rel.btf" && same=$((same+1))
	done < "$c/modules.txt"
	echo "     modules: $eq EQUAL, $ne DIFFERENT; $same byte-identical"
}
