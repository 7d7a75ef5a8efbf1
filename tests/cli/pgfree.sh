#!/bin/sh
# pgfree.sh - issue 27: frees proven by the page allocator (sim/pgfree.h).
# A hand-made 6.18 trace (data/pgfree-6.18.trace) of kmalloc-64 objects
# (64 to a 4 KiB slab) and kmem:mm_page_free events, replayed under 6.18:
#   - two objects in page 0x300, which is freed before the direct map's
#     base is known: kept, and applied when it is (2);
#   - an object in page 0x600, the page freed before the base is known,
#     then another object allocated in it: the page was given out again,
#     so which of its pointers died cannot be told and both stay live;
#   - CPU 1 frees an object and then a page it is not in (pfn 0x777): no
#     vote for any base;
#   - three times on CPU 0 an object of a slab is freed and the slab's page
#     follows (pfns 0x100..0x102): three votes for 0xffff888000000000, the
#     third fixes the base (PGF_VOTES);
#   - four objects of page 0x200 never freed, then that page freed: the
#     four were freed by a path the trace does not show (4);
#   - an object in the second page of an order-1 block at pfn 0x400, then
#     the block freed (1);
#   - page 0x200's first address allocated again: a plain allocation (the
#     object there was freed above, so no alloc_of_live_ptr).
# Page frees 8, 5 before the base; 7 frees inferred; kmalloc-64 ends with
# 3 live objects. Without the page frees the seven stay live (9 in all) and the
# reuse of 0x200000 is an allocation of a live pointer. A malformed
# mm_page_free line is named. TAP output.  $1 slabsim binary
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
trace=$(abs_path "$(dirname "$0")/data/pgfree-6.18.trace")
mt=$(abs_path "$(dirname "$0")/data/pgfree-maple-6.18.trace")
ks=$(abs_path "$(dirname "$0")/data/keepslab.awk")
tap_scratch
tmp=$PWD
check() { tap_is "$@"; }
out=$("$bin" replay "$trace" --no-db --kernel 6.18 --format json 2>/dev/null)
check "exit" "$?" 0
got=$(printf '%s\n' "$out" | grep '"untraced_frees"')
check "inferred frees" "$got" \
  '  "untraced_frees": {"at_reuse": 0, "at_teardown": 0, "beyond_fork": 0, "at_page_free": 7, "at_full_slab": 0, "start_parked": 0, "beyond_tree_bound": 0, "page_frees": 8, "page_frees_before_base": 5, "caches": [{"name": "kmalloc-64", "at_reuse": 0, "at_teardown": 0, "beyond_fork": 0, "at_page_free": 7, "at_full_slab": 0, "start_parked": 0, "beyond_tree_bound": 0}]},'
got=$(printf '%s\n' "$out" | grep -o '"alloc_of_live_ptr": [0-9]*' | head -1)
check "no allocation of a live pointer" "$got" '"alloc_of_live_ptr": 0'
tab=$("$bin" replay "$trace" --no-db --kernel 6.18 2>/dev/null)
got=$(printf '%s\n' "$tab" | grep '^events:')
check "events line" "$got" "events: kmalloc 14 kfree 4 mm_page_free 8"
got=$(printf '%s\n' "$tab" | awk '$1 == "kmalloc-64" { print $4 }')
check "kmalloc-64 live objects" "$got" 3
grep -v mm_page_free "$trace" >"$tmp/no-pages.trace"
got=$("$bin" replay "$tmp/no-pages.trace" --no-db --kernel 6.18 2>/dev/null | awk '$1 == "kmalloc-64" { print $4 }')
check "without page frees: live objects" "$got" 9
got=$("$bin" replay "$tmp/no-pages.trace" --no-db --kernel 6.18 --format json 2>/dev/null |
	grep -o '"alloc_of_live_ptr": [0-9]*' | head -1)
check "without page frees: the reuse is of a live pointer" "$got" '"alloc_of_live_ptr": 1'
# A model slab placed at a page the kernel freed held no parked object
# (data/pgfree-maple-6.18.trace, 1 CPU): three votes fix the base; four
# maple_node objects of page 0x700 are allocated (the first refill: 32
# objects, slabs S1 and S2 of 16, the four from S2, which is bound to page
# 0x700) and freed (traced) into the main sheaf: 32 parked. The page free
# of 0x700 unparks S2's 16 (sheaves_unpark): 16 parked at the end, 32
# without that page free.
"$bin" replay "$mt" --kernel 6.18 --nr-cpus 1 --db "$tmp/m.db" -q >/dev/null 2>&1
check "maple_node: page free unparks its slab's objects" \
	"$(sqlite3 -batch -init /dev/null "$tmp/m.db" 'SELECT cache, parked_objs FROM cache_sheaves')" "maple_node|16"
grep -v 'pfn=0x700' "$mt" >"$tmp/m-nopf.trace"
"$bin" replay "$tmp/m-nopf.trace" --kernel 6.18 --nr-cpus 1 --db "$tmp/m2.db" -q >/dev/null 2>&1
check "maple_node: without that page free, 32 parked" \
	"$(sqlite3 -batch -init /dev/null "$tmp/m2.db" 'SELECT cache, parked_objs FROM cache_sheaves')" "maple_node|32"
# The same with a fourth base vote first, so that the base is known
# before the maple_node part and the page frees are told to the model
# (policy_ops.pages_traced): at the page free of 0x700, S2's 16 parked
# objects go back to it, and S2 is the CPU slab the refill took them from,
# every object now on the CPU's freelist. The kernel discarded that slab,
# and never discards its CPU slab, so S2 stood for another: it goes
# (slub.c discard_gone_empty), and the barn's refill after it cannot take
# its objects again. 1 slab left, S1, its 16 objects parked; 2 before.
awk 'NR == 11 {
	print
	print "            work-700     [000] ..... 3000.000019: kmalloc: call_site=do_work+0x10/0x100 ptr=ffff888000103000 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false"
	print "            work-700     [000] ..... 3000.000020: kfree: call_site=do_work+0x20/0x100 ptr=ffff888000103000"
	print "            work-700     [000] ..... 3000.000021: mm_page_free: page=ffffea0000000000 pfn=0x103 order=0"
	next
} { print }' "$mt" >"$tmp/m4.trace"
"$bin" replay "$tmp/m4.trace" --kernel 6.18 --nr-cpus 1 --db "$tmp/m4.db" -q >/dev/null 2>&1
check "maple_node: the CPU slab whose kernel slab's page was freed goes once its objects are back" \
	"$(sqlite3 -batch -init /dev/null "$tmp/m4.db" "SELECT cache, parked_objs FROM cache_sheaves; SELECT s.label, c.pages FROM sample_caches c JOIN samples s USING (run_id, seq) WHERE c.cache = 'maple_node' ORDER BY s.seq" | tr '\n' ' ')" \
	"maple_node|16 end|1 "
# A bound slab lives until its kernel slab's page is freed (slub.c
# empty_goes), once the base is known (data/keepslab.awk: 40 kernel slabs
# of maple_node, 16 objects each, allocated and freed; 1 CPU). The rules
# alone end with 31 pages. No page of the 40 freed: each held an object in
# use in the kernel, so all 40 model slabs stay. All 40 freed: every empty
# one goes, min_partial or not, from the node partial list and from the
# CPU's partial stack: what stays is the 320 objects parked in the sheaves,
# 16 to a slab, 20 pages. vm_area_struct (SLAB_TYPESAFE_BY_RCU, 21 to a
# slab: its pages are freed a grace period after the discard, sim/ahead.h)
# keeps a slab only when the replay sees no free of its page in the next
# 100 ms: none freed, the 40 and the CPU slab (41), also when the trace is
# read as it comes (--no-spill: the look-ahead reads it a second time,
# traces/peekread.h; without it the rules' figure, 36, as without page
# frees); the 40 pages freed right after, every emptied slab goes at once
# and what stays is the 320 parked objects, 21 to a slab (16).
pages() { # CACHE SIZE PER PF [grep -v PATTERN [OPTION]]
	awk -v cache="$1" -v size="$2" -v per="$3" -v np=40 -v pf="$4" -f "$ks" |
		grep -v "${5:-^#}" >"$tmp/ks.trace"
	"$bin" replay "$tmp/ks.trace" --no-db --kernel 6.18 --nr-cpus 1 ${6:-} 2>/dev/null |
		awk -v c="$1" '$1 == c { print $6 }'
}
check "kept slabs: maple_node, no page of them freed" "$(pages maple_node 256 16 0)" 40
check "kept slabs: maple_node, without page frees at all (the rules)" \
	"$(pages maple_node 256 16 0 mm_page_free)" 31
check "kept slabs: maple_node, their 40 pages freed" "$(pages maple_node 256 16 1)" 20
"$bin" replay "$tmp/ks.trace" --kernel 6.18 --nr-cpus 1 --db "$tmp/ks.db" -q >/dev/null 2>&1
check "kept slabs: maple_node, their 40 pages freed: 320 parked" \
	"$(sqlite3 -batch -init /dev/null "$tmp/ks.db" 'SELECT cache, parked_objs FROM cache_sheaves')" \
	"maple_node|320"
check "kept slabs: vm_area_struct, no page freed" "$(pages vm_area_struct 192 21 0)" 41
check "kept slabs: vm_area_struct, no page freed, read as it comes (--no-spill)" \
	"$(pages vm_area_struct 192 21 0 '^#' --no-spill)" 41
check "kept slabs: vm_area_struct, without page frees at all (the rules)" \
	"$(pages vm_area_struct 192 21 0 mm_page_free)" 36
check "kept slabs: vm_area_struct, their 40 pages freed at once" "$(pages vm_area_struct 192 21 1)" 16
# The pages freed 15 ms after the frees (a grace period): the kernel
# discarded each slab at its last free, wherever it was, so at the marker
# between the two the emptied slabs are gone, from the CPU's partial stack
# and the node partial list under min_partial too (policies/slub.c
# rcu_gone): 22 = the 17 slabs holding the 320 parked objects, the CPU
# slab, 4 on the partial stack. By the rules alone, 36 were left there.
awk -v cache=vm_area_struct -v size=192 -v per=21 -v np=40 -v pf=1 -v gap=15 -f "$ks" >"$tmp/ks.trace"
rm -f "$tmp/ks.db"
"$bin" replay "$tmp/ks.trace" --kernel 6.18 --nr-cpus 1 --db "$tmp/ks.db" -q >/dev/null 2>&1
check "kept slabs: vm_area_struct, pages freed a grace period on: at the last free, and at the end" \
	"$(sqlite3 -batch -init /dev/null "$tmp/ks.db" "SELECT s.label, c.pages FROM sample_caches c JOIN samples s USING (run_id, seq) WHERE c.cache = 'vm_area_struct' AND s.label IS NOT NULL ORDER BY s.seq" | tr '\n' ' ')" \
	"freed|22 end|16 "
# The pages freed 300 ms after the frees, beyond the look-ahead window
# (100 ms): at the frees no page free is in sight, so every emptied slab
# is kept (41, as with none freed, at 'freed' and still 50 ms before the
# page frees), until its page free comes within AHEAD_DISCARD_NS (13 ms,
# sim/ahead.h): 5 ms before, the kernel had discarded them (its page free
# follows a grace period on), so they go (slub_page_free_ahead): 21, the
# CPU slab, 4 on its partial stack and the 16 holding the 320 parked
# objects (the 15-ms case above discarded each slab at its last free, so
# the later frees met other lists: 17 held them there). sample_caches
# keeps a cache's row only when it changed: each label reads the last
# row at or before it.
awk -v cache=vm_area_struct -v size=192 -v per=21 -v np=40 -v pf=1 -v gap=300 -v marks=50,5 -f "$ks" >"$tmp/ks.trace"
rm -f "$tmp/ks.db"
"$bin" replay "$tmp/ks.trace" --kernel 6.18 --nr-cpus 1 --db "$tmp/ks.db" -q >/dev/null 2>&1
check "kept slabs: vm_area_struct, pages freed 300 ms on: kept until the page frees are 13 ms away" \
	"$(sqlite3 -batch -init /dev/null "$tmp/ks.db" "SELECT s.label, (SELECT c.pages FROM sample_caches c WHERE c.run_id = s.run_id AND c.cache = 'vm_area_struct' AND c.seq <= s.seq ORDER BY c.seq DESC LIMIT 1) FROM samples s WHERE s.label IS NOT NULL ORDER BY s.seq" | tr '\n' ' ')" \
	"freed|41 before50|41 before5|21 end|16 "
head -3 "$trace" >"$tmp/bad.trace"
printf '            work-700     [000] ..... 2000.000040: mm_page_free: page=ffffea0000000000 order=0\n' >>"$tmp/bad.trace"
err=$("$bin" replay "$tmp/bad.trace" --no-db --strict 2>&1 >/dev/null)
check "malformed page free: exit 2" "$?" 2
tap_like "malformed page free: file, line, what" "$err" \
	"bad.trace:4: expected 'pfn=0x<hex> order=<n>' in mm_page_free event, got no pfn field"
tap_done
