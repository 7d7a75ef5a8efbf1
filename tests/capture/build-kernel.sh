#!/bin/sh
# build-kernel.sh - traces/capture/build-kernel without compiling a kernel:
# a fake source tree whose Makefile answers kernelversion, tinyconfig,
# olddefconfig (the last setting of a symbol wins; symbols listed in its
# DROP file are refused, as Kconfig refuses an option whose dependencies
# fail) and bzImage. Checks that 6.1 builds as before (tree name, allocator
# fragment, local version), that --version 6.12 and --config SWITCH=y|n make
# their own trees with the switches in .config, that SLUB_TINY swaps
# SLUB_DEBUG for EXPERT, and the refusals with their exit codes. TAP output.
#   $1 traces/capture (the folder of build-kernel)
set -u
. "$(dirname "$0")/../cli/tap.sh"
bk=$(abs_path "$1")/build-kernel
tap_scratch

# tools build-kernel looks for that a test machine may lack: stubs (never run)
mkdir bin
for t in gcc flex bison bc perl patch; do
	command -v "$t" >/dev/null || { printf '#!/bin/sh\nexit 0\n' >"bin/$t" && chmod +x "bin/$t"; }
done
PATH=$PWD/bin:$PATH
export PATH

# mk_src DIR VERSION: the fake source tree
mk_src() {
	mkdir -p "$1"
	cat >"$1/Makefile" <<EOF
kernelversion:
	@echo $2
tinyconfig:
	@mkdir -p \$(O) && printf 'CONFIG_SLUB=y\nCONFIG_SLUB_TINY=y\n' >\$(O)/.config
olddefconfig:
	@awk -f $PWD/olddef.awk -v drop="\$\$(cat $PWD/DROP 2>/dev/null)" \$(O)/.config >\$(O)/.config.new && mv \$(O)/.config.new \$(O)/.config
bzImage:
	@mkdir -p \$(O)/arch/x86/boot && echo image >\$(O)/arch/x86/boot/bzImage && echo 'ffffffff81000000 T _text' >\$(O)/System.map
EOF
}
# the last setting of each symbol, in first-seen order; DROP's symbols unset
cat >olddef.awk <<'EOF'
{
	s = ""
	if ($0 ~ /^CONFIG_[A-Z0-9_]*=/) { s = $0; sub(/=.*/, "", s) }
	else if ($0 ~ /^# CONFIG_[A-Z0-9_]* is not set$/) { s = $2 }
	if (s == "") next
	if (!(s in v)) order[n++] = s
	v[s] = $0
}
END {
	split(drop, d, " ")
	for (i in d) v[d[i]] = "# " d[i] " is not set"
	for (i = 0; i < n; i++) print v[order[i]]
}
EOF
mk_src src61 6.1.192
mk_src src612 6.12.118

# ---- 6.1 as before ---------------------------------------------------------
img=$("$bk" -a slub -s src61 -w w 2>err | tail -n 1)
tap_is "6.1 slub: exit 0" "$?" "0"
tap_is "6.1 slub: the tree's name" "$img" "$PWD/w/obj-6.1.192-slub/arch/x86/boot/bzImage"
tap_is "6.1 slub: the allocator lines as before" "$(cat w/obj-6.1.192-slub/slabsim-allocator.config)" \
	"$(printf '# written by build-kernel: allocator slub\nCONFIG_SLUB=y\nCONFIG_SLUB_DEBUG=y\nCONFIG_SYSFS=y\nCONFIG_LOCALVERSION="-slabsim-slub"\n# CONFIG_LOCALVERSION_AUTO is not set')"
tap_like "6.1 slub: its fragment" "$(cat err)" "tinyconfig + kernel-6.1.config + slub"
# the identity 6.1 trees had before: a sum of the settings, comments left out
want=$(grep -hv -e '^#' -e '^$' "$(dirname "$bk")/kernel-6.1.config" w/obj-6.1.192-slub/slabsim-allocator.config | sha256sum | cut -d' ' -f1)
tap_is "6.1 slub: the configuration's identity as before" "$(cat w/obj-6.1.192-slub/.slabsim-config-sum)" "$want"

# ---- 6.12 and its switches -------------------------------------------------
img=$("$bk" --version 6.12 -s src612 -w w 2>err | tail -n 1)
tap_is "6.12: exit 0, slub by default" "$?:$img" "0:$PWD/w/obj-6.12.118-slub/arch/x86/boot/bzImage"
tap_like "6.12: its fragment" "$(cat err)" "tinyconfig + kernel-6.12.config + slub"
tap_is "6.12: tinyconfig's SLUB_TINY switched off by the fragment" \
	"$(grep -c -x '# CONFIG_SLUB_TINY is not set' w/obj-6.12.118-slub/.config)" "1"
img=$("$bk" --version 6.12 --config RANDOM_KMALLOC_CACHES=y -s src612 -w w 2>err | tail -n 1)
tap_is "6.12 random: its own tree" "$?:$img" \
	"0:$PWD/w/obj-6.12.118-slub-random-kmalloc-caches/arch/x86/boot/bzImage"
o=w/obj-6.12.118-slub-random-kmalloc-caches
tap_is "6.12 random: in .config" "$(grep -c -x -e CONFIG_RANDOM_KMALLOC_CACHES=y -e CONFIG_SLUB_DEBUG=y -e 'CONFIG_LOCALVERSION="-slabsim-slub-random-kmalloc-caches"' $o/.config)" "3"
tap_is "6.12 random: System.map beside the tree" "$([ -s $o/System.map ] && echo yes)" "yes"
# what 6.12's Kconfig refuses under SLUB_TINY (mm/Kconfig: depends on !SLUB_TINY)
echo CONFIG_SLAB_FREELIST_RANDOM CONFIG_SLAB_FREELIST_HARDENED CONFIG_SLAB_BUCKETS CONFIG_SLUB_CPU_PARTIAL >DROP
"$bk" -V 6.12 -c SLUB_TINY=y -s src612 -w w >/dev/null 2>err
tap_is "6.12 SLUB_TINY: exit 0" "$?" "0"
o=w/obj-6.12.118-slub-slub-tiny
tap_is "6.12 SLUB_TINY: EXPERT, no SLUB_DEBUG" \
	"$(grep -c -x -e CONFIG_SLUB_TINY=y -e CONFIG_EXPERT=y $o/.config) $(grep -c '^CONFIG_SLUB_DEBUG=y' $o/.config)" "2 0"
tap_is "6.12 SLUB_TINY: no warning for the options that depend on !SLUB_TINY" \
	"$(grep -c 'did not survive' err)" "0"
"$bk" -V 6.12 -s src612 -w w3 >/dev/null 2>err
tap_is "6.12 without SLUB_TINY: each refused option a warning" "$(grep -c 'did not survive' err)" "4"
rm DROP
"$bk" -V 6.12 -c CONFIG_SLUB_CPU_PARTIAL=n -s src612 -w w >/dev/null 2>err
tap_is "6.12 a switch =n: its tree" "$?:$(ls -d w/obj-6.12.118-slub-noslub-cpu-partial)" "0:w/obj-6.12.118-slub-noslub-cpu-partial"
echo CONFIG_RANDOM_KMALLOC_CACHES >DROP
"$bk" -V 6.12 -c RANDOM_KMALLOC_CACHES=y -s src612 -w w2 >/dev/null 2>err
tap_is "a switch olddefconfig refuses: exit 3" "$?" "3"
tap_like "... named" "$(cat err)" "build-kernel: --config RANDOM_KMALLOC_CACHES=y did not survive olddefconfig (its dependencies?)"
rm DROP

# ---- refusals ----------------------------------------------------------------
"$bk" -V 6.12 -a slab -s src612 -w w >/dev/null 2>err
tap_is "6.12 slab: exit 1" "$?" "1"
tap_like "... why" "$(cat err)" "Linux 6.12 has SLUB only (SLOB went in 6.4, SLAB in 6.8), not 'slab'"
"$bk" -V 6.2 -s src612 -w w >/dev/null 2>err
tap_is "--version 6.2: exit 1" "$?:$(cat err)" "1:build-kernel: --version wants 6.1 or 6.12, not '6.2'"
"$bk" -V 6.12 -n -s src612 -w w >/dev/null 2>err
tap_is "6.12 -n: exit 1" "$?:$(cat err)" "1:build-kernel: --no-natural-align is a patch of 6.1 only"
"$bk" -V 6.12 -c slub_tiny=y -s src612 -w w >/dev/null 2>err
tap_is "--config lower case: exit 1" "$?:$(cat err)" \
	"1:build-kernel: --config wants a Kconfig name in capitals (such as SLUB_TINY) before =, not 'slub_tiny'"
"$bk" -V 6.12 -c SLUB_TINY=m -s src612 -w w >/dev/null 2>err
tap_is "--config =m: exit 1" "$?:$(cat err)" \
	"1:build-kernel: --config wants SWITCH=y or SWITCH=n (SWITCH a Kconfig name such as SLUB_TINY), not 'SLUB_TINY=m'"
tap_done
