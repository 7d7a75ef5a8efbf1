#!/bin/sh
# align-policies.sh - the alignment policies of the 2019 debate (issue 20) on
# a worked example, for every allocator: tests/cli/data/align-abc.trace (6.1
# format, 2 CPUs) makes three kmalloc(512), A by xfs_buf_alloc, B by
# bio_alloc, C by other_fn, and frees nothing; align-abc.sites lists A's
# caller as `natural` and B's as 512, so both need 512 bytes and C is
# unlisted. Every expected figure is worked out by hand from
# shared/reference/kernel-slab-rules.md in the comment above its check: end
# slab pages, the run's align_violations (power-of-two kmallocs off their
# size), the listed callers' violations, and from align_cost the slot growth
# (bytes_alloc - that of kmalloc(512) under align=none), the left red zone's
# shift and SLOB's alignment fragments. Then the sites file's errors, the
# sites-file and align-pay queries, and the sweep key. TAP output.
#   $1 slabsim binary, $2 tests/cli/data
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2")
tap_scratch
trace=$data/align-abc.trace sites=$data/align-abc.sites

# run NAME ARGS...: replay (with --check) into a fresh run.db; then
# fig prints "pages|align_violations|listed_violations|growth,shift,fragments".
run() {
	r_name=$1
	shift
	rm -f run.db
	"$bin" replay "$trace" --align-sites "$sites" --db run.db --check -q "$@" 2> err
	tap_is "$r_name: replay exits 0, nothing on stderr" "$? $(cat err)" "0 "
}
fig() {
	sqlite3 run.db "SELECT final_slab_pages, align_violations,
		(SELECT count FROM counts WHERE tbl = 'align' AND kind = 'listed_violations'),
		(SELECT sum(bytes_alloc - bytes_alloc_none) || ',' || sum(redzone_shift_bytes)
		 || ',' || sum(fragment_bytes) FROM align_cost) FROM runs"
}
check() { # check NAME WANT ARGS...
	c_name=$1 c_want=$2
	shift 2
	run "$c_name" "$@"
	tap_is "$c_name: pages|violations|listed|growth,shift,fragments" "$(fig)" "$c_want"
}

# ---- SLUB, no debug (6.1, 2 CPUs: min_objects 4 * (fls(2) + 1) = 12) -------
# kmalloc-512: slot 512; get_order(12 * 512) = 1, 8192 % 512 = 0: order 1,
# 16 objects. Objects at the slab base (8 KiB-aligned) + i * 512: every one
# 512-aligned, under none as under natural (SLUB's kmalloc-N without debug
# is naturally aligned anyway). One slab holds A, B, C: 2 pages.
check "slub none" "2|0|0|0,0,0" --allocator slub --align none
check "slub natural" "2|0|0|0,0,0" --allocator slub --align natural
# own-caches: kmem_cache_create("xfs_buf_alloc+0x10/0x100:512:a512", 512,
# align 512): calculate_alignment(0, 512, 512) = 512, ALIGN(512, 512) = 512,
# the same geometry as kmalloc-512 (order 1, 16 objects); one for A, one for
# B (never merged), kmalloc-512 for C: 3 slabs of 2 pages = 6. Slots equal
# none's: growth 0.
check "slub own-caches" "6|0|0|0,0,0" --allocator slub --align own-caches
# merged: B's cache finds A's (find_mergeable: no ctor, usersize 0, flags
# alike, size' = ALIGN(ALIGN(512, 8), 512) = 512 <= 512, 512 % 512 = 0,
# 512 - 512 < 8): an alias; A and B share one slab: 2 + 2 = 4 pages.
check "slub merged" "4|0|0|0,0,0" --allocator slub --align merged
# kmalloc-aligned-caches: one kmalloc-a512-512 (kmalloc flags, usersize
# 512: never a merge target) for A and B, kmalloc-512 for C: 4 pages.
check "slub kmalloc-aligned-caches" "4|0|0|0,0,0" --allocator slub \
	--align kmalloc-aligned-caches
# overalloc: A and B are kmalloc(512 + 512 - 8 = 1016) -> kmalloc-1k: slot
# 1024, get_order(12 * 1024) = 2, 16384 % 1024 = 0: order 2 (4 pages); its
# objects are 1024-aligned, so the aligned part is the object (shift 0).
# C in kmalloc-512: 4 + 2 = 6 pages. Growth (1024 - 512) * 2 = 1024, which
# the waste counts as size-class rounding (object 1024, request 512).
check "slub kmalloc-aligned-overalloc" "6|0|0|1024,0,0" --allocator slub \
	--align kmalloc-aligned-overalloc
tap_is "slub overalloc: rounding waste 2 * (1024 - 512)" \
	"$(sqlite3 run.db "SELECT waste_rounding FROM caches WHERE cache = 'kmalloc-1k'")" 1024

# ---- SLUB, slub_debug=FZPU (6.1: track 32 bytes, U adds 64, +4 orig_size on
# kmalloc caches) ----------------------------------------------------------
# kmalloc-512 under none (align 8): 512 + 8 (Z word) = 520 = inuse; P moves
# the free pointer out: 528; U +64 = 592; orig_size +4 = 596; Z padding +8
# = 604; red_left_pad ALIGN(8, 8) = 8: 612 -> ALIGN 8 = 616. get_order(12 *
# 616) = 1, 8192 % 616 = 184 <= 512: order 1, 13 objects. Objects at base +
# 8 + i * 616: 8, 624, 1240 mod 512 = 8, 112, 216: all three misaligned, A
# and B are listed.
check "slub FZPU none" "2|3|2|0,0,0" --slub-debug FZPU --align none
# natural (reference 8): kmalloc-512 1536, order 3 (21 objects): 8 pages;
# slot growth (1536 - 616) * 3 = 2760, of it the left red zone's 512 - 8 =
# 504 per object: 1512.
check "slub FZPU natural" "8|0|0|2760,1512,0" --slub-debug FZPU --align natural
# own-caches: 520, 528, 592 (no orig_size: not a kmalloc cache), 600, red
# left pad ALIGN(8, 512) = 512: 1112 -> ALIGN 512 = 1536; get_order(12 *
# 1536) = 3, 32768 % 1536 = 512 <= 2048: order 3 (8 pages), 21 objects at
# base + 512 + i * 1536: aligned. A 8 + B 8 + kmalloc-512 2 = 18 pages; C
# misaligned (1 violation, unlisted); growth (1536 - 616) * 2 = 1840, shift
# 504 * 2 = 1008.
check "slub FZPU own-caches" "18|1|0|1840,1008,0" --slub-debug FZPU --align own-caches
# merged: Z, P and U are SLAB_NEVER_MERGE: no alias, as own-caches.
check "slub FZPU merged" "18|1|0|1840,1008,0" --slub-debug FZPU --align merged
# kmalloc-aligned-caches: one cache for A and B (596 with orig_size, 604,
# 1116 -> 1536, the same order 3): 8 + 2 = 10 pages.
check "slub FZPU kmalloc-aligned-caches" "10|1|0|1840,1008,0" --slub-debug FZPU \
	--align kmalloc-aligned-caches
# overalloc: kmalloc-1k under none: 1024 + 8 = 1032, 1040, 1104, 1108, 1116,
# + 8 = 1124 -> 1128; get_order(12 * 1128) = 2, 16384 % 1128 = 592 <= 1024:
# order 2, 14 objects at base + 8 + i * 1128; the aligned parts at 512 and
# 1536 (shifts 504 and 400, inside the 1016 bytes). 4 + 2 = 6 pages; growth
# (1128 - 616) * 2 = 1024, no red zone shift (8 both).
check "slub FZPU kmalloc-aligned-overalloc" "6|1|0|1024,0,0" --slub-debug FZPU \
	--align kmalloc-aligned-overalloc

# ---- SLAB (reference 7.2: kmalloc-512 has 8 objects per page, colour 0) -----
# Objects at page + i * 512 under none too: 1 page, no violation.
check "slab none" "1|0|0|0,0,0" --allocator slab --align none
check "slab natural" "1|0|0|0,0,0" --allocator slab --align natural
# own-caches: object 512, align 512 (no HWCACHE_ALIGN: the type's flags
# only): OBJFREELIST, 8 per page, left 0: A 1 + B 1 + C's kmalloc-512 1.
check "slab own-caches" "3|0|0|0,0,0" --allocator slab --align own-caches
# merged: SLAB's extra rule (s->align 512 a multiple of 512) holds: B is an
# alias of A's cache: 2 pages.
check "slab merged" "2|0|0|0,0,0" --allocator slab --align merged
check "slab kmalloc-aligned-caches" "2|0|0|0,0,0" --allocator slab \
	--align kmalloc-aligned-caches
# overalloc: kmalloc(1016) -> kmalloc-1k, 4 per page: A and B in 1 page, C
# in kmalloc-512's: 2 pages; growth (1024 - 512) * 2.
check "slab kmalloc-aligned-overalloc" "2|0|0|1024,0,0" --allocator slab \
	--align kmalloc-aligned-overalloc

# ---- SLOB (reference 5, 7.3: 2-byte units; kmalloc(512) is a 520-byte
# block on the medium list, 256 <= 520 < 1024) -------------------------------
# none: blocks at 0, 520, 1040, objects at 8, 528, 1048: all misaligned; A
# and B listed. 1 page.
check "slob none" "1|3|2|0,0,0" --allocator slob --align none
# natural: start + 8 a multiple of 512: A at 504 (fragment [0, 504)), B in
# [1024, 4096) at 1528 (fragment [1024, 1528)), C likewise at 2552 (the two
# 252-unit fragments are below 260 units): 3 * 504 = 1512 bytes of
# fragments, 1 page. Slots as under none: growth 0.
check "slob natural" "1|0|0|0,0,1512" --allocator slob --align natural
# own-caches: SLOB caches have no header: A's cache block 0..511 (512-
# aligned), B's 512..1023; C plain (8-aligned) at 1024, object 1032
# (unlisted, misaligned). Growth (512 - 520) * 2 = -16: the header saved.
check "slob own-caches" "1|1|0|-16,0,0" --allocator slob --align own-caches
# merged: SLOB has no merging: as own-caches.
check "slob merged" "1|1|0|-16,0,0" --allocator slob --align merged
# kmalloc-aligned-caches: SLOB has no kmalloc caches; its __do_kmalloc_node
# takes the alignment: A at 504, B at 1528 as under natural (1008 bytes of
# fragments); C plain: the fragments are too small, block 2048, object 2056
# (misaligned).
check "slob kmalloc-aligned-caches" "1|1|0|0,0,1008" --allocator slob \
	--align kmalloc-aligned-caches
# overalloc: kmalloc(1016) is a 1024-byte block: the large list (1024 is not
# below SLOB_BREAK2). A at 0 (object 8, aligned part 512), B at 1024 (object
# 1032, aligned part 1536); C's 520 bytes go to the medium list: a second
# page, object at 8. Growth (1024 - 520) * 2 = 1008.
check "slob kmalloc-aligned-overalloc" "2|1|0|1008,0,0" --allocator slob \
	--align kmalloc-aligned-overalloc

# ---- the summary says it ---------------------------------------------------
"$bin" replay "$trace" --align-sites "$sites" --align own-caches --no-db > out 2> err
tap_like "summary: the listed callers and their violations" "$(cat out)" \
	"listed callers ($sites, 2 patterns): 2 call sites, 2 kmallocs, 0 not aligned as listed (every one aligned)"
"$bin" replay "$trace" --align-sites "$sites" --align own-caches --no-db --format json > out
tap_like "JSON: align_sites" "$(cat out)" \
	"\"patterns\": 2, \"listed_sites\": 2, \"listed_allocs\": 2, \"listed_violations\": 0}"
# own-caches without a sites file is a usage error
"$bin" replay "$trace" --align own-caches --no-db > out 2> err
tap_is "own-caches without --align-sites: exit 1" "$? $(cat err)" \
	"1 slabsim: align own-caches serves the callers of a sites file: name one (--align-sites FILE)"

# ---- the sites file's errors: file:line, exit 2 ----------------------------
bad_sites() { # bad_sites NAME CONTENT WANT
	printf '%s' "$2" > bad.sites
	"$bin" replay "$trace" --align-sites bad.sites --no-db > out 2> err
	tap_is "sites file: $1" "$? $(cat err)" "2 slabsim: bad.sites:$3"
}
bad_sites "bad alignment" "a* natural
b* 48
" "2: expected an alignment after 'b*' (natural, or a power of two from 8 to 4096), got '48'"
bad_sites "missing alignment" "# c
xfs_*
" "2: expected 'PATTERN ALIGN' (ALIGN: natural, or a power of two from 8 to 4096), got 'xfs_*' alone"
bad_sites "extra field" "a* 8 9" "1: expected the end of the line after 'a* 8', got '9'"
bad_sites "above a page" "a* 8192" \
	"1: expected an alignment after 'a*' (natural, or a power of two from 8 to 4096), got '8192'"
bad_sites "no pattern" "# only a comment
" " no call-site pattern: expected lines 'PATTERN ALIGN'"
printf 'a* 8\nb*\000 16\n' > bad.sites
"$bin" replay "$trace" --align-sites bad.sites --no-db > out 2> err
tap_is "sites file: a NUL byte" "$? $(cat err)" \
	"2 slabsim: bad.sites:2: NUL byte: expected text lines 'PATTERN ALIGN'"
awk 'BEGIN { s = ""; for (i = 0; i < 4100; i++) s = s "x"; print "a* 8"; print s " 8" }' > bad.sites
"$bin" replay "$trace" --align-sites bad.sites --no-db > out 2> err
tap_is "sites file: a line over 4096 bytes" "$? $(cat err)" \
	"2 slabsim: bad.sites:2: line longer than 4096 bytes"
# CRLF line ends and a character class: the same callers as align-abc.sites
printf '# crlf\r\n[x]fs_buf_* natural\r\nbio_?lloc+* 512\r\n' > crlf.sites
"$bin" replay "$trace" --align-sites crlf.sites --align own-caches --no-db > out 2> err
tap_like "sites file: CRLF and globs [x] ?" "$(cat out)" \
	"2 patterns): 2 call sites, 2 kmallocs, 0 not aligned as listed"
"$bin" replay "$trace" --align-sites nosuch.sites --no-db > out 2> err
tap_is "sites file: missing file, exit 3" "$?" 3

# ---- queries ---------------------------------------------------------------
rm -f q.db
"$bin" replay "$trace" --allocator slob --align none --db q.db -q
"$bin" replay "$trace" --allocator slob --align natural --db q.db -q
# sites-file: the three callers were misaligned under none (SLOB), one
# pattern per function, most misaligned first (one each: by name)
"$bin" query sites-file --db q.db --format text -o gen.sites
tap_is "query sites-file: a sites file of the misaligned callers" "$(grep -v '^#' gen.sites)" \
	"bio_alloc+* natural # 1 in 1 run
other_fn+* natural # 1 in 1 run
xfs_buf_alloc+* natural # 1 in 1 run"
"$bin" replay "$trace" --allocator slob --align kmalloc-aligned-caches --align-sites gen.sites \
	--no-db > out
tap_like "the generated file replays: all three listed, none misaligned" "$(cat out)" \
	"3 call sites, 3 kmallocs, 0 not aligned as listed"
# align-pay: under natural each caller pays its 504-byte fragment
tap_is "query align-pay: who pays for natural alignment under SLOB" \
	"$("$bin" query align-pay --db q.db --format csv | awk -F, 'NR > 1 && $4 == "natural" {print $6, $9, $12}')" \
	"bio_alloc+0x20/0x80 504 504
other_fn+0x8/0x40 504 504
xfs_buf_alloc+0x10/0x100 504 504"

# align-pay-caches: SLOB's kmallocs are all in its kmalloc pseudo-cache
tap_is "query align-pay-caches: 3 call sites, 1512 bytes of fragments" \
	"$("$bin" query align-pay-caches --db q.db --format csv | awk -F, 'NR > 1 && $4 == "natural" {print $6, $7, $9, $12}')" \
	"kmalloc 3 1512 1512"

# ---- sweep: align-sites = FILE --------------------------------------------
cat > s.sweep <<SW
trace = $trace
kernel = 6.1
nr_cpus = 2
allocator = slub, slob
align = none, own-caches, kmalloc-aligned-overalloc
align-sites = $sites
SW
"$bin" sweep s.sweep --db sw.db -q -j 1 2> err
tap_is "sweep with align-sites: exits 0" "$? $(cat err)" "0 "
tap_is "sweep: the runs' pages as the replays' (slub 2 6 6, slob 1 1 2)" \
	"$(sqlite3 sw.db "SELECT group_concat(allocator || ' ' || align || ' ' || final_slab_pages, '; ')
		FROM (SELECT * FROM runs ORDER BY allocator DESC, align)")" \
	"slub kmalloc-aligned-overalloc 6; slub none 2; slub own-caches 6; slob kmalloc-aligned-overalloc 2; slob none 1; slob own-caches 1"
printf 'trace = %s\nalign = merged\n' "$trace" > s2.sweep
"$bin" sweep s2.sweep --db sw2.db -q 2> err
tap_is "sweep: a site policy without align-sites is refused, exit 2" "$? $(cat err)" \
	"2 slabsim: s2.sweep:2: align merged serves the callers of a sites file: expected an 'align-sites = FILE' line, got none by the end of the file"
tap_done
