#!/bin/sh
# metrics.sh - the figures of docs/metrics.md through the CLI. Expected values
# come from hand arithmetic (written next to each check) or from awk scripts
# that re-derive them from the input independently of slabsim
# (perf-kmem.awk: perf kmem stat's rules; slabinfo-totals.awk: slabinfo -T's
# arithmetic on the simulated /proc/slabinfo and sysfs attributes). TAP.
#   $1 slabsim binary, $2 tests/cli/data, $3 the bundled 6.1 trace
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2") boot=$(abs_path "$3")
here=$(abs_path "$(dirname "$0")")
tap_scratch

# ---- perf kmem stat on a hand-made trace (data/perf-hand.trace) ----
# Allocation events (all CPUs on node 0):
#   a1 foo  cpu0 req 100 alloc 128 node -1
#   a2 foo  cpu0 req  60 alloc  64 node -1
#   a3 bar  cpu1 req 192 alloc 192 node -1
#   a1 foo  cpu0 req  30 alloc  32 node 1   (kmalloc_node: cross-node)
#   a4 qux  cpu1 req   8 alloc   8 node 0   (node 0 = the CPU's node)
# requested 100+60+192+30+8 = 390; allocated 128+64+192+32+8 = 424;
# wasted 424-390 = 34; fragmentation 100 - 100*390/424 = 8.018868 %.
# Frees: a1 on cpu1 (allocated on cpu0: ping-pong, freed += 128); a1 on cpu0
# after its re-allocation on cpu0 (freed += 32); a1 again on cpu1 (already
# freed: perf still adds its last bytes_alloc 32, and its CPU was reset to
# -1, so ping-pong again); a3 on cpu1 (freed += 192); 0xdead (unknown,
# ignored). freed = 128+32+32+192 = 384; net 424-384 = 40; ping-pong 2 (foo).
# Per call site: foo hit 3 req 190 alloc 224 (224/3 = 74, 190/3 = 63),
# frag 100 - 100*190/224 = 15.179 %; bar 1/192/192 0 %; qux 1/8/8 0 %.
# Per pointer: a1 hit 2 req 130 alloc 160 ping-pong 2, frag 18.750 %; a2
# 60/64 6.250 %; a3 192/192; a4 8/8.
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --db h.db --caller --alloc \
	> perf.out 2> err
tap_is "perf-hand: replay exits 0, nothing on stderr" "$? $(cat err)" "0 "
tap_is "perf-hand: SUMMARY as perf kmem stat prints it" "$(sed -n '/^SUMMARY/,/^Cross/p' perf.out)" \
"SUMMARY (SLAB allocator)
========================
Total bytes requested: 390
Total bytes allocated: 424
Total bytes freed:     384
Net total bytes allocated: 40
Total bytes wasted on internal fragmentation: 34
Internal fragmentation: 8.018868%
Cross CPU allocations: 1/5"
tap_is "perf-hand: --caller rows (default sort frag,hit,bytes)" \
	"$(grep -E '^ (foo|bar|qux)' perf.out)" \
" foo+0x10/0x20                      |       224/74    |       190/63    |        3 |         2 | 15.179%
 bar+0x5/0x30                       |       192/192   |       192/192   |        1 |         0 |  0.000%
 qux+0x1/0x8                        |         8/8     |         8/8     |        1 |         0 |  0.000%"
tap_is "perf-hand: --alloc rows (frag: a1 18.75 %, a2 6.25 %; then bytes 192 > 8)" \
	"$(grep -E '^ 0x' perf.out)" \
" 0xa1                               |       160/80    |       130/65    |        2 |         2 | 18.750%
 0xa2                               |        64/64    |        60/60    |        1 |         0 |  6.250%
 0xa3                               |       192/192   |       192/192   |        1 |         0 |  0.000%
 0xa4                               |         8/8     |         8/8     |        1 |         0 |  0.000%"
tap_is "perf-hand: perf_callers in the database" \
	"$(sqlite3 h.db "SELECT call_site, hit, bytes_req, bytes_alloc, pingpong FROM perf_callers ORDER BY call_site")" \
"bar+0x5/0x30|1|192|192|0
foo+0x10/0x20|3|190|224|2
qux+0x1/0x8|1|8|8|0"
tap_is "perf-hand: perf_ptrs in the database (--alloc)" \
	"$(sqlite3 h.db "SELECT printf('%x', ptr), call_site, hit, bytes_req, bytes_alloc, pingpong FROM perf_ptrs ORDER BY ptr")" \
"a1|foo+0x10/0x20|2|130|160|2
a2|foo+0x10/0x20|1|60|64|0
a3|bar+0x5/0x30|1|192|192|0
a4|qux+0x1/0x8|1|8|8|0"
tap_is "perf-hand: run_metrics perf columns" \
	"$(sqlite3 h.db "SELECT perf_allocs, perf_frees, perf_bytes_req, perf_bytes_alloc, perf_bytes_freed, printf('%.6f', perf_frag_pct), perf_cross_node, perf_pingpong FROM run_metrics")" \
	"5|4|390|424|384|8.018868|1|2"
# -s bytes: alloc 224 > 192 > 8. -s pingpong,callsite: foo (2), then the two
# with 0 by call site, descending as perf does (qux > bar).
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --no-db --caller -s pingpong,callsite > s.out
tap_is "perf-hand: -s pingpong,callsite sorts descending" \
	"$(grep -oE '^ (foo|bar|qux)' s.out | tr -d ' ' | tr '\n' ' ')" "foo qux bar "
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --no-db --caller --sort bytes -l 1 > l.out
tap_is "perf-hand: -l 1 prints one row and perf's '...' line" \
	"$(grep -cE '^ (foo|bar|qux)' l.out) $(grep -c '^ \.\.\. ' l.out) $(grep -oE '^ (foo|bar|qux)' l.out)" \
	"1 1  foo"
"$bin" replay "$data/perf-hand.trace" --no-db --caller -s frag,nope > /dev/null 2> err
tap_is "perf-hand: an unknown sort key is a usage error" "$? $(grep -c "got 'nope'" err)" "1 1"

# Without --alloc the per-pointer record lives from an allocation to its
# free (memory bounded by the live set). The second free of a1 (cpu1, after
# its free on cpu0) then finds no record: perf counts it (freed += 32,
# ping-pong +1), the live record cannot. By hand: freed 128+32+192 = 352,
# frees 3 (a1, a1, a3), ping-pong 1 (a1's first free), unmatched 2 (a1's
# second free and 0xdead). With --alloc: perf's figures, 1 unmatched (0xdead).
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --no-db --format json > hb.json
tap_is "perf-hand, live record: frees freed ping-pong unmatched by hand" \
	"$(sed -n 's/.*"perf_kmem": {"allocs": [0-9]*, "frees": \([0-9]*\),.*"bytes_freed": \([0-9]*\),.*"pingpong": \([0-9]*\), "unmatched_frees": \([0-9]*\), "ptr_record": "\([a-z ]*\)".*/\1 \2 \3 \4 \5/p' hb.json)" \
	"3 352 1 2 live pointers"
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --no-db --format json --alloc > ha.json
tap_is "perf-hand, --alloc: perf's frees freed ping-pong, 1 unmatched" \
	"$(sed -n 's/.*"perf_kmem": {"allocs": [0-9]*, "frees": \([0-9]*\),.*"bytes_freed": \([0-9]*\),.*"pingpong": \([0-9]*\), "unmatched_frees": \([0-9]*\), "ptr_record": "\([a-z ]*\)".*/\1 \2 \3 \4 \5/p' ha.json)" \
	"4 384 2 1 every pointer"
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --no-db --caller > hc.out
tap_is "perf-hand, live record: SUMMARY names the unmatched frees" \
	"$(sed -n 's/^Unmatched frees: \([0-9]*\) .*/\1/p' hc.out) $(grep -c '^Unmatched' perf.out)" "2 0"

# ---- perf kmem stat on the bundled real trace, against awk ----
"$bin" replay "$boot" --kernel 6.1 --db b.db --caller --no-progress > boot.out 2> err
tap_is "boot: replay exits 0" "$? $(cat err)" "0 "
awk -f "$here/perf-kmem.awk" "$boot" > awk.out
set -- $(head -1 awk.out)
tap_is "boot: totals (allocs req alloc freed cross ping-pong) equal awk's" \
	"$(sqlite3 -separator ' ' b.db "SELECT perf_allocs, perf_bytes_req, perf_bytes_alloc, perf_bytes_freed, perf_cross_node, perf_pingpong FROM run_metrics")" \
	"$1 $2 $3 $4 $5 $6"
tap_is "boot: printed internal fragmentation equals awk's" \
	"$(sed -n 's/^Internal fragmentation: //p' boot.out)" "$7%"
tap_is "boot: perf_callers equal awk's per-call-site sums" \
	"$(sqlite3 b.db "SELECT call_site, hit, bytes_req, bytes_alloc, pingpong FROM perf_callers" | sort)" \
	"$(tail -n +2 awk.out)"
# awk.out: the totals line + one line per call site; the table: the
# header row + one row per call site
tap_is "boot: the --caller table has one row per call site" \
	"$(grep -c '^ [^ .-].* | ' boot.out)" "$(wc -l < awk.out | tr -d ' ')"
# The bundled trace frees no pointer twice, so the live record (above) and
# the full record of --alloc give the same totals, both equal to awk's.
"$bin" replay "$boot" --kernel 6.1 --db ba.db --alloc --no-progress -q 2> err
tap_is "boot: --alloc (every pointer's record) gives the same totals" \
	"$(sqlite3 -separator ' ' ba.db "SELECT perf_allocs, perf_bytes_req, perf_bytes_alloc, perf_bytes_freed, perf_cross_node, perf_pingpong FROM run_metrics")" \
	"$1 $2 $3 $4 $5 $6"
tap_is "boot: model bytes_alloc equals the trace's (6.1 profile)" \
	"$(sqlite3 b.db "SELECT perf_bytes_alloc_model = perf_bytes_alloc FROM run_metrics")" "1"

# ---- slabinfo -T arithmetic on the simulated /proc/slabinfo ----
for cfg in "--kernel 6.1" "--kernel 5.4 --slub-debug FZPU --align none" \
	"--allocator slab" "--kernel 6.1 --nr-cpus 1 --no-cpu-partial"; do
	# shellcheck disable=SC2086 # options are words
	"$bin" replay "$boot" $cfg --no-db --final-slabinfo si --final-sysfs fs \
		--slabinfo-totals > tot 2> err
	# one CPU where the trace has two: the folding is warned of
	w=
	case $cfg in *"--nr-cpus 1"*) w="slabsim: warning: 2870 events ran on CPUs at or above nr_cpus 1 (from --nr-cpus) and were folded" ;; esac
	tap_is "slabinfo ($cfg): replay exits 0" "$? $(cat err)" "0 $w"
	awk -f "$here/slabinfo-totals.awk" fs si > want
	tap_is "slabinfo ($cfg): /proc/slabinfo and sysfs agree" "$(grep -c MISMATCH want)" "0"
	tap_is "slabinfo ($cfg): -T totals equal awk on /proc/slabinfo" \
		"$(grep -E '^(Memory used|# Objects)' tot)" "$(grep -E '^(Memory used|# Objects)' want)"
	tap_is "slabinfo ($cfg): active caches" \
		"$(sed -n 's/.*Active: *\([0-9]*\)$/\1/p' tot)" "$(sed -n 's/^active //p' want)"
done

# slabinfo -L: caches with slabs, Loss = slabs * (4096 << order) - objects *
# object_size (from the sysfs file), largest first
"$bin" replay "$boot" --kernel 6.1 --no-db --final-sysfs fs --slabinfo loss > list 2> err
tap_is "slabinfo -L: replay exits 0" "$? $(cat err)" "0 "
awk -F '\t' 'NR > 1 && $6 > 0 { o = $4; b = 4096; while (o-- > 0) b *= 2; print $1, $6 * b - $8 * $2 }' fs > loss.want
tap_is "slabinfo -L: losses in descending order, as awk computes them" \
	"$(awk 'NR > 1 { print $4 }' list | tr '\n' ' ')" \
	"$(awk '{ print $2 }' loss.want | sort -nr | tr '\n' ' ')"
tap_is "slabinfo -L: each cache's loss" \
	"$(awk 'NR > 1 { print $1, $4 }' list | sort)" "$(sort loss.want)"

# ---- Johnstone & Wilson on a hand-made trace (data/jw-hand.trace) ----
# 5.4 SLUB: kmalloc-4k = 8 objects per order-3 slab (32768 bytes),
# kmalloc-64 = 64 per order-0 slab (4096 bytes). H = heap, L = live req.
#   t=1 alloc 4096: H 32768, L 4096  (H/L 8)
#   t=2 alloc 4096: H 32768, L 8192  (4)      <- peak live
#   t=3 free both:  H 32768, L 0     (undefined: not averaged)
#   t=4 alloc 64:   H 36864, L 64    (576)    <- peak heap
#   t=5 alloc 64:   H 36864, L 128   (end)
# #1 = (8*1 + 4*1 + 576*1) / 3 s = 196; #2 = 32768/8192 = 4 (t=2 s);
# #3 = 36864/64 = 576 (t=4 s); #4 = 36864/8192 = 4.5.
"$bin" replay "$data/jw-hand.trace" --no-db --format json --mem-mib 4 > jw.json 2> err
tap_is "jw-hand: replay exits 0" "$? $(cat err)" "0 "
jw=$(grep '^    "jw": ' jw.json)
tap_is "jw-hand: peaks and their times" \
	"$(for k in heap_peak heap_peak_t_ns live_peak live_peak_t_ns; do printf '%s ' "$(json_num "$jw" $k)"; done)" \
	"36864 4000000000 8192 2000000000 "
tap_is "jw-hand: #1..#4" \
	"$(printf '%s\n' "$jw" | sed 's/.*"f1": \([0-9.]*\), "f2": \([0-9.]*\), "f3": \([0-9.]*\), "f4": \([0-9.]*\)}.*/\1 \2 \3 \4/')" \
	"196.000000 4.000000 576.000000 4.500000"

# A large kmalloc is heap too (data/jw-large.trace, 5.4 SLUB):
#   t=1 kmalloc(10000): whole pages, order 2: H 16384, L 10000 (1.6384)
#   t=3 kfree:          H 0, L 0 (not averaged)
#   t=4 kmalloc(64):    a kmalloc-64 slab: H 4096, L 64 (64)
#   t=5 kfree:          H 4096 (the CPU slab stays), L 0
# #1 = (1.6384*2 + 64*1) / 3 = 22.4256; #2 = #3 = #4 = 16384/10000 = 1.6384.
"$bin" replay "$data/jw-large.trace" --no-db --format json > jwl.json 2> err
tap_is "jw-large: replay exits 0" "$? $(cat err)" "0 "
jw=$(grep '^    "jw": ' jwl.json)
tap_is "jw-large: #1..#4" \
	"$(printf '%s\n' "$jw" | sed 's/.*"f1": \([0-9.]*\), "f2": \([0-9.]*\), "f3": \([0-9.]*\), "f4": \([0-9.]*\)}.*/\1 \2 \3 \4/')" \
	"22.425600 1.638400 1.638400 1.638400"
tap_is "jw-large: peak heap 16384 at t=1 s" \
	"$(json_num "$jw" heap_peak) $(json_num "$jw" heap_peak_t_ns)" "16384 1000000000"
tap_is "jw-large: at the end one order-0 block is held (the order-2 one went back)" \
	"$(grep '^    "pages": ' jwl.json | sed 's/.*"held_blocks": \[\([^]]*\)\].*/\1/')" \
	"1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0"

# ---- page level on the jw-hand run, zone of 4 MiB = 1024 pages ----
# The order-3 slab splits the zone's one order-10 block: free blocks of
# orders 9..3, the order-3 one taken. The order-0 slab splits the free
# order-3 block: free orders 2, 1, 0, one taken. Free: orders 0, 1, 2 and
# 4..9 one each = 1+2+4+16+32+64+128+256+512 = 1015 pages.
# Unusable index (1000 * pages in blocks below the order / 1015, floored):
# o0 0; o1 1 page -> 0; o2 3 -> 2; o3 7 -> 6; o4 7 -> 6; o5 23 -> 22;
# o6 55 -> 54; o7 119 -> 117; o8 247 -> 243; o9 503 -> 495; o10 1015 -> 1000.
pages=$(grep '^    "pages": ' jw.json)
tap_is "jw-hand: free pages in a 4 MiB zone" "$(json_num "$pages" free_pages)" "1015"
tap_is "jw-hand: blocks held by order" \
	"$(printf '%s\n' "$pages" | sed 's/.*"held_blocks": \[\([^]]*\)\].*/\1/')" \
	"1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0"
tap_is "jw-hand: unusable index by order" \
	"$(printf '%s\n' "$pages" | sed 's/.*"unusable_index": \[\([^]]*\)\].*/\1/')" \
	'"0.000", "0.000", "0.002", "0.006", "0.006", "0.022", "0.054", "0.117", "0.243", "0.495", "1.000"'
"$bin" replay "$data/jw-hand.trace" --no-db --mem-mib 6 > /dev/null 2> err
tap_is "--mem-mib 6 (not a multiple of 4) is a usage error" "$? $(grep -c 'multiple of 4' err)" "1 1"

# ---- the time series in the database ----
"$bin" replay "$boot" --kernel 6.1 --db ts.db --sample-every 200ev -q --no-progress
tap_is "samples: 11 sample_orders_full rows per sample" \
	"$(sqlite3 ts.db "SELECT (SELECT count(*) FROM sample_orders_full) = 11 * (SELECT count(*) FROM samples)")" "1"
tap_is "samples: sample_orders holds the 11 orders of sample 0, then changes only" \
	"$(sqlite3 ts.db "SELECT (SELECT count(*) FROM sample_orders WHERE seq = 0),
		(SELECT count(*) FROM sample_orders) < 11 * (SELECT count(*) FROM samples)")" "11|1"
tap_is "samples: heap bytes = (slab + large pages) * 4096 at every sample" \
	"$(sqlite3 ts.db "SELECT count(*) FROM samples s JOIN sample_metrics m USING (run_id, seq) WHERE m.heap_bytes <> (s.slab_pages + s.large_pages) * 4096")" "0"
tap_is "samples: slabinfo space = slabs * (4096 << order) for every cache and sample" \
	"$(sqlite3 ts.db "SELECT count(*) FROM sample_slabinfo_full x JOIN caches c USING (run_id, cache) WHERE x.space <> x.slabs * (4096 << c.slab_order) OR x.used <> x.objects * c.object_size")" "0"
tap_is "samples: the last sample's slabinfo totals are the run's" \
	"$(sqlite3 ts.db "SELECT m.si_space = r.si_space AND m.si_used = r.si_used FROM sample_metrics m JOIN run_metrics r USING (run_id) WHERE m.seq = (SELECT max(seq) FROM samples)")" "1"

# ---- a version 1 database is upgraded: the new tables are added (the
# change logs of version 3: tests/analysis/changelog.sh), and the trace
# identity's columns of version 4 ----
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --db v1.db -q
sqlite3 v1.db "ALTER TABLE runs DROP COLUMN trace_label; ALTER TABLE runs DROP COLUMN trace_hash;
	ALTER TABLE runs DROP COLUMN trace_kernel; ALTER TABLE runs DROP COLUMN trace_nr_cpus;
	DROP TABLE run_metrics; DROP TABLE perf_callers; DROP TABLE perf_ptrs;
	DROP TABLE sample_metrics; DROP TABLE sample_orders; DROP TABLE sample_slabinfo;
	DROP TABLE align_cost; DROP TABLE sample_sheaves; DROP TABLE cache_sheaves;
	PRAGMA user_version = 1"
"$bin" replay "$data/perf-hand.trace" --kernel 6.1 --db v1.db -q 2> err
tap_is "schema 1 -> 4: replay into a version 1 file" "$? $(cat err)" "0 "
tap_is "schema 1 -> 6: user_version 6, two runs, metrics of the second only" \
	"$(sqlite3 v1.db "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM runs), (SELECT group_concat(run_id) FROM run_metrics)")" \
	"6|2|2"
tap_is "schema 1 -> 6: the sheaves' tables created (a 6.1 run: no rows)" \
	"$(sqlite3 v1.db "SELECT count(*) FROM sqlite_master WHERE name IN ('sample_sheaves', 'cache_sheaves'); SELECT count(*) FROM sample_sheaves")" "2
0"
tap_is "schema 1 -> 5: align_cost rows of the second run only" \
	"$(sqlite3 v1.db "SELECT count(DISTINCT run_id), min(run_id) FROM align_cost")" "1|2"
tap_is "schema 1 -> 4: the identity's columns added; the old run labelled by its path, no hash" \
	"$(sqlite3 v1.db "SELECT run_id, trace_label = trace_path, coalesce(length(trace_hash), 0) FROM runs ORDER BY run_id")" \
	"1|1|0
2|1|32"

# ---- the perf views in JSON: the rows of the text tables, in their order ----
# text: " SITE | ALLOC/PER | REQ/PER | HIT | PINGPONG | FRAG%"; json: one row a line
for view in caller alloc; do
	"$bin" replay "$boot" --kernel 6.1 --no-db --$view -s hit,bytes -l 12 > v.txt
	"$bin" replay "$boot" --kernel 6.1 --no-db --$view -s hit,bytes -l 12 --format json > v.json
	awk -F'|' 'NF >= 6 && $1 !~ /Callsite|Alloc Ptr|\.\.\./ {
		gsub(/ /, "", $1); split($2, a, "/"); split($3, q, "/"); gsub(/ /, "", $4); gsub(/ /, "", $5)
		print $1, a[1] + 0, q[1] + 0, $4, $5 }' v.txt > text.rows
	key=callsite
	[ $view = alloc ] && key=ptr
	sed -n 's/^    {.*"'$key'": "\([^"]*\)".*"bytes_alloc": \([0-9]*\), "bytes_req": \([0-9]*\), "hit": \([0-9]*\), "pingpong": \([0-9]*\).*/\1 \2 \3 \4 \5/p' v.json > json.rows
	tap_is "--$view --format json: the text table's 12 rows, same order and figures" \
		"$(wc -l < json.rows) $(cmp -s text.rows json.rows && echo same)" "12 same"
done
tap_like "--alloc --format json: the summary stays, with perf's totals" "$(cat v.json)" \
	'"perf_kmem": {"allocs": 1652'

# ---- the summary's cache table: -s KEY and -l N -------------------------------
# the full JSON list, sorted with awk by waste (rounding + layout + free + tail,
# then name), against the table's first 3 rows with -s waste -l 3
"$bin" replay "$boot" --kernel 6.1 --no-db --format json > all.json
want=$(sed -n 's/^    {"name": "\([^"]*\)".*"rounding": \([0-9]*\), "layout": \([0-9]*\), "free_slots": \([0-9]*\), "slab_tail": \([0-9]*\).*/\1 \2 \3 \4 \5/p' all.json |
	awk '{print $2 + $3 + $4 + $5, $1}' | sort -k1,1nr -k2,2 | head -n 3 | awk '{printf "%s ", $2}')
got=$("$bin" replay "$boot" --kernel 6.1 --no-db -s waste -l 3 | awk '/^cache / {on = 1; next} on && NF == 12 {printf "%s ", $1}')
tap_is "cache table -s waste -l 3: the 3 caches awk ranks first" "$got" "$want"
n=$(grep -c '^    {"name"' all.json)
tap_is "cache table -l 3 in JSON: 3 caches and caches_total $n" \
	"$("$bin" replay "$boot" --kernel 6.1 --no-db -s live -l 3 --format json | grep -c '^    {"name"') $("$bin" replay "$boot" --kernel 6.1 --no-db -l 3 --format json | sed -n 's/.*"caches_total": \([0-9]*\).*/\1/p')" "3 $n"
"$bin" replay "$boot" --kernel 6.1 --no-db -s hit > /dev/null 2> err
tap_is "cache table -s hit (a perf key without a perf view): usage error" "$? $(head -n 1 err)" \
	"1 slabsim: -s of the cache table expects pages, waste, live or name, got 'hit' (the perf keys go with --caller, --alloc, --perf)"

tap_done
