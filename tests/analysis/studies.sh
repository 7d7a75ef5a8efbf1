#!/bin/sh
# studies.sh - the studies of README "Studies" (analysis/study.c): their
# sweep specs parse and expand to the runs they say, the switch axes
# (slab_nomerge, slub_tiny, random_kmalloc, slab_buckets) give each run its
# own key and refuse bad values; each study's table (its named query) holds
# the values the database holds, recomputed here with sqlite3 and awk; and
# `report --study` draws the figure from the table. TAP.
#   $1 slabsim binary, $2 the source tree
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") src=$(abs_path "$2")
tap_scratch
LC_ALL=C
export LC_ALL
q() { sqlite3 -batch -init /dev/null "$1" "$2"; }
csv() { "$bin" query "$2" --db "$1" --format csv | sed 1d | tr ',' '|'; }
cd "$src" || exit 1
W=$OLDPWD

# ---- the specs parse and expand ----
for s in 1-align-2024:48 2-sheaves:6 3-sheaf-capacity:40 4-random-kmalloc:4 5-isolation:8 6-slob-tiny:12; do
	f=analysis/sweeps/study-${s%:*}.sweep
	"$bin" sweep "$f" --db "$W/dry.db" --dry-run -q > "$W/out" 2> "$W/err"
	tap_is "$f: dry run exits 0 with ${s#*:} runs, each its own key" \
		"$? $(grep -c todo "$W/out") $(cut -f5 "$W/out" | sort -u | wc -l)" "0 ${s#*:} ${s#*:}"
done
"$bin" sweep analysis/sweeps/study-5-isolation.sweep --db "$W/dry.db" --dry-run -q > "$W/out" 2> "$W/err"
tap_is "isolation: the labels name the switches" \
	"$(grep -c 'slab_nomerge=on slab_buckets=on' "$W/out") $(grep -c 'slab_nomerge=off slab_buckets=off' "$W/out")" "2 2"
cd "$W" || exit 1
printf 'trace = t.trace\nslab_nomerge = off, maybe\n' > bad.sweep
"$bin" sweep bad.sweep --db bad.db --dry-run -q > out 2> err
tap_is "slab_nomerge = maybe: exit 2, file, line and what was expected" \
	"$? $(grep -c "bad.sweep:2: slab_nomerge: expected on or off, got 'maybe'" err)" "2 1"
printf 'trace = t.trace\nslub_tiny = on\nslub_tiny = on\n' > bad.sweep
"$bin" sweep bad.sweep --db bad.db --dry-run -q > out 2> err
tap_is "slub_tiny listed twice: exit 2" \
	"$? $(grep -c "bad.sweep:3: slub_tiny: expected each value once, got 'on' again" err)" "2 1"
printf 'trace = t.trace\nrandom_kmalloc_caches = on\n' > bad.sweep
"$bin" sweep bad.sweep --db bad.db --dry-run -q > out 2> err
tap_is "an unknown switch names the keys, random_kmalloc among them" \
	"$? $(grep -c "bad.sweep:2: unknown key 'random_kmalloc_caches' (expected .*random_kmalloc, slab_buckets" err)" "2 1"
printf 'trace = t.trace\nsheaf_capacity = kernel, 0\n' > bad.sweep
"$bin" sweep bad.sweep --db bad.db --dry-run -q > out 2> err
tap_is "sheaf_capacity = 0: exit 2, file, line and what was expected" \
	"$? $(grep -c "bad.sweep:2: sheaf_capacity: expected kernel or a whole number from 1 to 1024, got '0'" err)" "2 1"
printf 'trace = t.trace\nbarn_limit = 2, kernel, 2\n' > bad.sweep
"$bin" sweep bad.sweep --db bad.db --dry-run -q > out 2> err
tap_is "barn_limit 2 listed twice: exit 2" \
	"$? $(grep -c "bad.sweep:2: barn_limit: expected each value once, got '2' again" err)" "2 1"
# ---- study 3's axes on a hand-made trace, worked by hand ----
# One cache of 64-byte objects (hand_cache), 1 CPU: 65 allocations, then
# the 65 objects freed. 7.0 (mm/slub.c of the 7.0 tree, docs/models.md):
# alloc_from_pcs finds main empty; __pcs_replace_empty_main refills a new
# sheaf to capacity C (refill_sheaf) and keeps the empty main as the spare;
# later refills take that empty spare. 65 allocations refill C x ceil(65/C)
# objects and leave the rest parked. free_to_pcs fills main;
# __pcs_replace_full_main swaps in the empty spare, then, with both full,
# barn_replace_full_sheaf finds no empty sheaf (-ENOMEM) and
# __pcs_install_empty_sheaf puts main to the barn's full list, until
# barn->nr_full >= MAX_FULL_SHEAVES (10; barn_limit), when the full spare is
# flushed to its slabs (sheaf_flush_unused) and becomes main. Parked at the
# end = every refilled object less the flushed ones:
#   C = 60 (calculate_sheaf_capacity: s->size 64 < 256 -> 60; a 32-byte
#   header + 60 x 8 = 512, kmalloc-512: 60): 2 refills = 120, no barn;
#   C = 8: 9 refills = 72; frees: 1 fills main, 8 the swapped spare, then
#   7 groups of 8 each after a barn put (nr_full 7 < 10): 72. barn_limit 2:
#   2 puts, then 5 flushes of 8: 72 - 40 = 32;
#   C = 16: 80 (3 barn puts; barn_limit 2: 1 flush, 64); C = 32: 96 (1 put);
#   C = 64: 128 (main and spare). 6.1: no sheaves, no sample_sheaves rows.
awk 'BEGIN {
	print "# tracer: nop"; print "#"; print "# entries-in-buffer/entries-written: 130/130   #P:1"; print "#"
	for (i = 0; i < 65; i++)
		printf "            hand-1     [000] ..... 100.%06d: kmem_cache_alloc: call_site=hand_alloc+0x10/0x40 ptr=%x name=hand_cache bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false\n", i + 1, 268435456 + i * 64
	for (i = 0; i < 65; i++)
		printf "            hand-1     [000] ..... 100.%06d: kmem_cache_free: call_site=hand_free+0x10/0x40 ptr=%x name=hand_cache\n", 100 + i, 268435456 + i * 64
}' > hand.trace
printf 'trace = hand.trace\nkernel = 6.1, 7.0\nnr_cpus = 1\nsheaf_capacity = kernel, 8, 16, 32, 64\nbarn_limit = kernel, 2\nsample_every = auto\n' > hand.sweep
"$bin" sweep hand.sweep --db hand.db -j 2 -q > out 2> err
# a sheaves what-if on a run without sheaves (6.1, SLUB_TINY, slub_debug,
# SLOB) is the `kernel` run again: dropped. 6.1: 1 run; 6.18 and 7.0 with
# slub_tiny off: 2 x 3 x 2 (debug off) + 2 x 1 (debug Z: kernel only);
# slub_tiny on: 2 x 1; SLOB: 3 kernels x 1
printf 'trace = hand.trace\nallocator = slub, slob\nkernel = 6.1, 6.18, 7.0\nslub_tiny = off, on\nslub_debug = -, Z\nsheaf_capacity = kernel, 8, 64\nbarn_limit = kernel, 2\n' > dd.sweep
"$bin" sweep dd.sweep --db dd.db --dry-run -q > out 2> err
tap_is "sheaves what-ifs only where there are sheaves: 25 runs, each its own key" \
	"$? $(grep -c todo out) $(cut -f5 out | sort -u | wc -l)" "0 25 25"
tap_is "... their labels name the what-ifs" \
	"$(grep -c 'kernel=7.0 .*slub_tiny=off sheaf_capacity=64 barn_limit=2' out) $(grep -c 'kernel=6.1 .*sheaf_capacity=8' out)" "1 0"
# an axis that lists no `kernel`, on runs without sheaves: its first value
# stands for the `kernel` run, the others are that run again (fuzz_sweep:
# `barn_limit = 72` under kernel 6.1 planned no run at all)
printf 'trace = hand.trace\nkernel = 6.1\nbarn_limit = 72, 80\nsheaf_capacity = 8\n' > nok.sweep
"$bin" sweep nok.sweep --db nok.db --dry-run -q > out 2> err
tap_is "no kernel value, no sheaves (6.1): one run, labelled as the kernel's rule" \
	"$? $(grep -c todo out) $(grep -c 'sheaf_capacity=kernel barn_limit=kernel' out)" "0 1 1"
printf 'trace = hand.trace\nkernel = 7.0\nsheaf_capacity = 16\nbarn_limit = 3\n' > one.sweep
"$bin" sweep one.sweep --db one.db -q > out 2> err
tap_like "the run's key holds sheaf_capacity and barn_limit (config_json)" \
	"$(q one.db "SELECT config_json FROM runs")" '"sheaf_capacity":16,"barn_limit":3'

tap_is "hand-made trace: 11 runs (6.1 once)" "$? $(q hand.db "SELECT count(*) FROM runs WHERE status = 'done'")" "0 11"
tap_is "parked at the end per capacity and barn limit = worked by hand" \
	"$(q hand.db "SELECT r.kernel || ' ' || coalesce(json_extract(r.config_json, '$.sheaf_capacity'), 'kernel') || ' ' ||
		coalesce(json_extract(r.config_json, '$.barn_limit'), 'kernel') || ' ' || c.sheaf_capacity || ' ' || c.parked_objs || ' ' ||
		(SELECT s.parked_objs FROM sample_sheaves s WHERE s.run_id = r.run_id ORDER BY s.seq DESC LIMIT 1)
		FROM runs r JOIN cache_sheaves c USING (run_id) WHERE c.cache = 'hand_cache' ORDER BY 1")" \
	"7.0 16 2 16 64 64
7.0 16 kernel 16 80 80
7.0 32 2 32 96 96
7.0 32 kernel 32 96 96
7.0 64 2 64 128 128
7.0 64 kernel 64 128 128
7.0 8 2 8 32 32
7.0 8 kernel 8 72 72
7.0 kernel 2 60 120 120
7.0 kernel kernel 60 120 120"
tap_is "... and none under 6.1 (no sheaves: no rows)" \
	"$(q hand.db "SELECT count(*) FROM sample_sheaves s JOIN runs r USING (run_id) WHERE r.kernel = '6.1';
		SELECT count(*) FROM cache_sheaves c JOIN runs r USING (run_id) WHERE r.kernel = '6.1'")" "0
0"
csv hand.db study-sheaf-capacity | awk -F'|' '$4 == "kernel" { print $3 "=" $10 }' > got
tap_is "study-sheaf-capacity (its order): the capacity axis raises parked objects monotonically" \
	"$(tr '\n' ' ' < got)" "kernel=120 8=72 16=80 32=96 64=128 "

# ---- the sweeps of studies 4-6, and study 1 on the boot excerpt ----

B=$src/traces/samples/linux-6.1-boot-excerpt.trace
sed "s|^trace = .*|trace = $B|; /^label = /d" "$src/analysis/sweeps/study-1-align-2024.sweep" |
	awk '!/^trace =/ || !seen++' > s1.sweep
"$bin" sweep s1.sweep --db s1.db -j 2 -q > out 2> err
tap_is "study 1 on the boot excerpt: 24 runs" "$? $(q s1.db "SELECT count(*) FROM runs WHERE status = 'done'")" "0 24"
sed '/^trace = traces\/samples\/linux-6.1-qemu/,/^label = linux-6.1/d' \
	"$src/analysis/sweeps/study-3-sheaf-capacity.sweep" > "$W/s3.sweep"
(cd "$src" && "$bin" sweep "$W/s3.sweep" --db "$W/s3.db" -j 2 -q) > out 2> err
tap_is "study 3 on this machine's 6.18 trace: 20 runs" "$? $(q s3.db "SELECT count(*) FROM runs WHERE status = 'done'")" "0 20"
for n in 2-sheaves 4-random-kmalloc 5-isolation 6-slob-tiny; do
	(cd "$src" && "$bin" sweep analysis/sweeps/study-$n.sweep --db "$W/s$n.db" -j 2 -q) > out 2> err
	tap_is "study $n: sweep exits 0" "$? $(cat err)" "0 "
done
tap_is "isolation: slab_nomerge in config_json (the resume key)" \
	"$(q s5-isolation.db "SELECT count(*) FROM runs WHERE json_extract(config_json, '$.slab_nomerge')")" 4

# study 2: pages, change over 6.1, parked objects from sample_sheaves
db=s2-sheaves.db
q $db "SELECT r.trace_label, r.kernel, r.final_slab_pages, r.peak_slab_pages,
	(SELECT count(*) FROM cache_sheaves c WHERE c.run_id = r.run_id),
	coalesce((SELECT s.parked_objs FROM sample_sheaves s WHERE s.run_id = r.run_id ORDER BY s.seq DESC LIMIT 1), 0),
	coalesce((SELECT max(s.parked_objs) FROM sample_sheaves s WHERE s.run_id = r.run_id), 0) FROM runs r" |
	awk -F'|' '{ k[NR] = $0; t[NR] = $1; f[NR] = $3; p[NR] = $4; if ($2 == "6.1") { bf[$1] = $3; bp[$1] = $4 } }
	END { for (i = 1; i <= NR; i++) { split(k[i], a, "|"); print a[1] "|" a[2] "|" a[3] "|" a[4] "|" f[i] - bf[t[i]] "|" p[i] - bp[t[i]] "|" a[5] "|" a[6] "|" a[7] } }' | sort > want
csv $db study-sheaves | awk -F'|' -v OFS='|' '{ print $1, $2, $3, $4, $5, $6, $8, $9, $10 }' | sort > got
tap_is "study-sheaves = the runs' pages, change over 6.1, parked objects (sqlite3, awk)" "$(cat got)" "$(cat want)"
tap_is "... the same trace parks objects under 6.18 and 7.0, none under 6.1" \
	"$(awk -F'|' '$1 == "linux-6.18-record-small" { print $2 ":" ($8 > 0) }' got | sort -t: -k1,1n | tr '\n' ' ')" "6.1:0 6.18:1 7.0:1 "
tap_is "... 6.18's sheaves on this machine's trace: maple_node and vm_area_struct, 32 each" \
	"$(q $db "SELECT group_concat(c.cache || ':' || c.sheaf_capacity, ' ') FROM (SELECT c.* FROM cache_sheaves c
		JOIN runs r USING (run_id) WHERE r.kernel = '6.18' AND r.trace_label = 'linux-6.18-record-small' ORDER BY c.cache) c")" \
	"maple_node:32 vm_area_struct:32"
tap_is "... bases: recorded under the trace's own kernel, 7.0 a what-if" \
	"$(csv $db study-sheaves | awk -F'|' '{ print $1 " " $2 " " $12 }' | grep -c -e '6.1-qemu-2cpu 6.1 recorded' -e 'small 6.18 recorded' -e 'small 7.0 what-if (no 7.0 kernel captured)')" 3

# study 3: the change over the kernel's rule, from the runs
q s3.db "SELECT r.kernel, coalesce(json_extract(r.config_json, '$.sheaf_capacity'), 'kernel'),
	coalesce(json_extract(r.config_json, '$.barn_limit'), 'kernel'), r.peak_slab_pages FROM runs r" |
	awk -F'|' '{ k[NR] = $1 "|" $2 "|" $3; kr[NR] = $1; p[NR] = $4; if ($2 == "kernel" && $3 == "kernel") b[$1] = $4 }
	END { for (i = 1; i <= NR; i++) print k[i] "|" p[i] "|" p[i] - b[kr[i]] }' | sort > want
csv s3.db study-sheaf-capacity | awk -F'|' -v OFS='|' '{ print $2, $3, $4, $6, $8 }' | sort > got
tap_is "study-sheaf-capacity = the runs' peak pages and their change over the kernel's rule" "$(cat got)" "$(cat want)"
tap_is "... 6.18 with sheaf_capacity 32 is the kernel's rule again (0 pages)" \
	"$(awk -F'|' '$1 == "6.18" && $2 == "32" { print $3 ":" $5 }' got | tr '\n' ' ')" "2:-5 kernel:0 "

# study 1: per allocator, kernel, debug: none/natural/pow2-divisor pages
q s1.db "SELECT allocator, kernel, CASE WHEN slub_debug IN ('-', '') OR slub_debug IS NULL THEN 'off' ELSE slub_debug END,
	align, final_slab_pages, peak_slab_pages FROM runs" |
	awk -F'|' '{ k = $1 "|" $2 "|" $3; f[k, $4] = $5; p[k, $4] = $6; K[k] = 1 }
	END { for (k in K) printf "%s|%d|%d|%d|%d|%d|%d|%d|%d\n", k, f[k, "none"], p[k, "none"], f[k, "natural"],
		p[k, "natural"], f[k, "pow2-divisor"], p[k, "pow2-divisor"], p[k, "pow2-divisor"] - p[k, "natural"],
		f[k, "pow2-divisor"] - f[k, "natural"] }' | sort > want
csv s1.db study-align-2024 | awk -F'|' -v OFS='|' '{ print $2, $3, $4, $5, $6, $7, $8, $9, $10, $13, $15 }' | sort > got
tap_is "study-align-2024 = the runs' pages and their differences (awk)" "$(cat got)" "$(cat want)"
tap_is "... 8 rows (SLUB 2 kernels x 3 debug, SLOB 2)" "$(wc -l < got)" 8

# study 1, where: the root caches whose peak pages differ, pow2-divisor - natural
q s1.db "SELECT r.allocator, r.kernel, CASE WHEN r.slub_debug IN ('-', '') OR r.slub_debug IS NULL THEN 'off' ELSE r.slub_debug END,
	r.align, c.cache, c.peak_pages FROM caches c JOIN runs r USING (run_id)
	WHERE c.alias_of IS NULL AND r.align IN ('natural', 'pow2-divisor')" |
	awk -F'|' '{ k = $1 "|" $2 "|" $3 "|" $5; if ($4 == "natural") n[k] = $6; else p[k] = $6; K[k] = 1 }
	END { for (k in K) if (p[k] + 0 != n[k] + 0) printf "%s|%d|%d|%d\n", k, n[k], p[k], p[k] - n[k] }' | sort > want
csv s1.db study-align-2024-where | awk -F'|' -v OFS='|' '$5 == "cache" { print $2, $3, $4, $7, $8, $9, $10 }' | sort > got
tap_is "study-align-2024-where: the caches = peak pages pow2-divisor - natural (awk)" "$(cat got)" "$(cat want)"
tap_is "... and the widening moves some cache under FZPU" "$(grep -c '|FZPU|' got | awk '{ print ($1 > 0) }')" 1
# ... and the 5 call sites whose bytes grow most, from align_cost
q s1.db "SELECT r.allocator, r.kernel, CASE WHEN r.slub_debug IN ('-', '') OR r.slub_debug IS NULL THEN 'off' ELSE r.slub_debug END,
	r.align, a.call_site, sum(a.bytes_alloc) FROM align_cost a JOIN runs r USING (run_id)
	WHERE r.align IN ('natural', 'pow2-divisor') GROUP BY r.run_id, a.call_site" |
	awk -F'|' '{ k = $1 "|" $2 "|" $3 "|" $5; if ($4 == "natural") n[k] = $6; else { p[k] = $6; K[k] = 1 } }
	END { for (k in K) if (p[k] != n[k] + 0) printf "%s|%d|%d|%d\n", k, n[k], p[k], p[k] - n[k] }' |
	sort -t'|' -k1,3 -k7,7nr -k4,4 | awk -F'|' '{ g = $1 "|" $2 "|" $3; if (++r[g] <= 5) print }' | sort > want
csv s1.db study-align-2024-where | awk -F'|' -v OFS='|' '$5 == "call site (bytes)" { print $2, $3, $4, $7, $8, $9, $10 }' | sort > got
tap_is "study-align-2024-where: the top 5 call sites = align_cost summed (awk)" "$(cat got)" "$(cat want)"
tap_is "... some under Z" "$(grep -c '|Z|' got | awk '{ print ($1 > 0) }')" 1

# study 4: per size, kmalloc-SIZE pages (one set) and kmalloc-SIZE with its copies
db=s4-random-kmalloc.db
q $db "SELECT r.trace_label, json_extract(r.config_json, '$.random_kmalloc') IS NOT NULL, c.cache, c.pages
	FROM caches c JOIN runs r USING (run_id) WHERE c.alias_of IS NULL
	AND (c.cache GLOB 'kmalloc-[0-9]*' OR c.cache GLOB 'kmalloc-rnd-[0-9][0-9]-*')" |
	awk -F'|' '{ s = $3; sub(/^kmalloc-(rnd-[0-9][0-9]-)?/, "", s); k = $1 "|" s; o[k] += ($2 == 0) * $4; r[k] += ($2 == 1) * $4; K[k] = 1 }
	END { for (k in K) if (o[k] || r[k]) printf "%s|%d|%d|%d\n", k, o[k], r[k], r[k] - o[k] }' | sort > want
csv $db study-random-kmalloc | awk -F'|' -v OFS='|' '$3 != "all" { print $1, $3, $4, $5, $7 }' | sort > got
tap_is "study-random-kmalloc: per size = caches summed (awk)" "$(cat got)" "$(cat want)"
q $db "SELECT trace_label, json_extract(config_json, '$.random_kmalloc') IS NOT NULL, final_slab_pages, peak_slab_pages FROM runs" |
	awk -F'|' '{ f[$1, $2] = $3; p[$1, $2] = $4; T[$1] = 1 }
	END { for (t in T) printf "%s|%d|%d|%d|%d|%d\n", t, f[t, 0], f[t, 1], f[t, 1] - f[t, 0], p[t, 0], p[t, 1] }' | sort > want
csv $db study-random-kmalloc | awk -F'|' -v OFS='|' '$3 == "all" { print $1, $4, $5, $7, $8, $9 }' | sort > got
tap_is "study-random-kmalloc: 'all' = the runs' pages" "$(cat got)" "$(cat want)"
tap_is "... and the 16 sets hold more than one on both traces" "$(awk -F'|' '$4 > 0' got | wc -l)" 2

# study 5: pages and the peak's change over both off
db=s5-isolation.db
q $db "SELECT trace_label, CASE WHEN json_extract(config_json, '$.slab_buckets') THEN 'on' ELSE 'off' END,
	CASE WHEN json_extract(config_json, '$.slab_nomerge') THEN 'on' ELSE 'off' END, final_slab_pages, peak_slab_pages FROM runs" |
	awk -F'|' '{ k[NR] = $0; if ($2 == "off" && $3 == "off") b[$1] = $5; t[NR] = $1; p[NR] = $5 }
	END { for (i = 1; i <= NR; i++) print k[i] "|" p[i] - b[t[i]] }' | sort > want
csv $db study-isolation | awk -F'|' -v OFS='|' '{ print $1, $3, $4, $5, $6, $9 }' | sort > got
tap_is "study-isolation = the runs' pages, change over both off (awk)" "$(cat got)" "$(cat want)"
tap_is "... kmem_buckets cost pages on this machine's 6.18 trace" \
	"$(awk -F'|' '$1 == "linux-6.18-record-small" && $2 == "on" && $6 > 0' got | wc -l)" 2

# study 6: peak pages against SLOB under 6.1
db=s6-slob-tiny.db
q $db "SELECT trace_label, allocator || CASE WHEN json_extract(config_json, '$.slub_tiny') THEN ' SLUB_TINY' ELSE '' END,
	kernel, final_slab_pages, peak_slab_pages FROM runs" |
	awk -F'|' '{ k[NR] = $0; t[NR] = $1; p[NR] = $5; if ($2 == "slob" && $3 == "6.1") b[$1] = $5 }
	END { for (i = 1; i <= NR; i++) print k[i] "|" p[i] - b[t[i]] }' | sort > want
csv $db study-slob-tiny | awk -F'|' -v OFS='|' '{ print $1, $2, $3, $4, $5, $6 }' | sort > got
tap_is "study-slob-tiny = the runs' pages, change over SLOB 6.1 (awk)" "$(cat got)" "$(cat want)"

# ---- report --study ----
"$bin" report --db s4-random-kmalloc.db --study random-kmalloc --out r4 > out 2> err
tap_is "report --study random-kmalloc exits 0, a PNG" \
	"$? $(cat err)$(file r4/study-random-kmalloc.png | grep -c 'PNG image data')" "0 1"
awk '!/^#/ && NF && !/"all / { print $2 + 0 }' r4/study-random-kmalloc.dat | sort -n > got
csv s4-random-kmalloc.db study-random-kmalloc | awk -F'|' '$3 != "all" { print $7 + 0 }' | sort -n > want
tap_is "study-random-kmalloc.dat: a bar per size = the table's extra pages" "$(cat got)" "$(cat want)"
tap_is "index.html has the section, its question, table, figure and validation" \
	"$(grep -o -e 'id="study-random-kmalloc"' -e '<b>Asked:</b>' -e '<b>Validated and what-if:</b>' \
		-e 'slabsim query study-random-kmalloc' -e 'data:image/png' r4/index.html | sort -u | wc -l)" 5
# the table's rows name their trace (its size rows and 'all'),
# plus its two runs in the Runs table
tap_is "the study table's rows name their trace (two traces)" \
	"$(grep -o '<tr><td>linux-6.18-record-small</td>' r4/index.html | wc -l) $(grep -o '<tr><td>linux-6.1-qemu-2cpu</td>' r4/index.html | wc -l)" \
	"$(($(csv s4-random-kmalloc.db study-random-kmalloc | grep -c '^linux-6.18-record-small|') + 2)) $(($(csv s4-random-kmalloc.db study-random-kmalloc | grep -c '^linux-6.1-qemu-2cpu|') + 2))"
"$bin" report --db s2-sheaves.db --study sheaves --out r2 > out 2> err
tap_is "report --study sheaves exits 0, a PNG" \
	"$? $(cat err)$(file r2/study-sheaves.png | grep -c 'PNG image data')" "0 1"
# .dat: x value series whatif "label"; a bar per kernel and series
tap_is "study-sheaves.dat: what-ifs hatched (1), the traces under their own kernels solid (0)" \
	"$(awk '!/^#/ && NF { print "whatif=" $4 "/" $6 }' r2/study-sheaves.dat | sort | uniq -c | awk '{ print $1 "x" $2 }' | tr '\n' ' ')" \
	'2xwhatif=0/6.1" 2xwhatif=0/6.18" 2xwhatif=1/6.1" 2xwhatif=1/6.18" 4xwhatif=1/7.0" '
tap_is "... the gnuplot script hatches (fs pattern) and keys the hatching" \
	"$(grep -c "fs pattern 4 border notitle" r2/study-sheaves.gp) $(grep -c "keyentry .*hatched: what-if" r2/study-sheaves.gp)" "8 4"
awk '!/^#/ && NF && $3 == 1 { print $2 + 0 }' r2/study-sheaves.dat | sort -n > got
csv s2-sheaves.db study-sheaves | awk -F'|' '{ print $11 + 0 }' | sort -n > want
tap_is "... the parked bars = the table's parked_end_pages" "$(cat got)" "$(cat want)"
"$bin" report --db s5-isolation.db --study isolation --study slob-tiny --out r1 > out 2> err
tap_is "two studies on one page (study 6 has no runs there: not drawn)" \
	"$? $(grep -c '<section id=' r1/index.html) $(grep -c 'Not drawn: the table has no rows' r1/index.html)" "0 2 1"
"$bin" report --db s1.db --study nope --out r0 > out 2> err
tap_is "report --study nope: exit 1 (usage), the studies named" \
	"$? $(grep -c "expected one of align-2024, sheaves, sheaf-capacity, random-kmalloc, isolation, slob-tiny, got 'nope'" err)" "1 1"
"$bin" plot --db s1.db --study align-2024 --out r0 > out 2> err
tap_is "plot --study: exit 1 (usage)" "$? $(grep -c 'study is an option of report' err)" "1 1"
tap_done
