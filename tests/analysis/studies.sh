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
for s in 1-align-2024:48 4-random-kmalloc:4 5-isolation:8 6-slob-tiny:12; do
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

# ---- the sweeps of studies 4-6, and study 1 on the boot excerpt ----

B=$src/traces/samples/linux-6.1-boot-excerpt.trace
sed "s|^trace = .*|trace = $B|; /^label = /d" "$src/analysis/sweeps/study-1-align-2024.sweep" |
	awk '!/^trace =/ || !seen++' > s1.sweep
"$bin" sweep s1.sweep --db s1.db -j 2 -q > out 2> err
tap_is "study 1 on the boot excerpt: 24 runs" "$? $(q s1.db "SELECT count(*) FROM runs WHERE status = 'done'")" "0 24"
for n in 4-random-kmalloc 5-isolation 6-slob-tiny; do
	(cd "$src" && "$bin" sweep analysis/sweeps/study-$n.sweep --db "$W/s$n.db" -j 2 -q) > out 2> err
	tap_is "study $n: sweep exits 0" "$? $(cat err)" "0 "
done
tap_is "isolation: slab_nomerge in config_json (the resume key)" \
	"$(q s5-isolation.db "SELECT count(*) FROM runs WHERE json_extract(config_json, '$.slab_nomerge')")" 4

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
"$bin" report --db s5-isolation.db --study isolation --study slob-tiny --out r1 > out 2> err
tap_is "two studies on one page (study 6 has no runs there: not drawn)" \
	"$? $(grep -c '<section id=' r1/index.html) $(grep -c 'Not drawn: the table has no rows' r1/index.html)" "0 2 1"
"$bin" report --db s1.db --study nope --out r0 > out 2> err
tap_is "report --study nope: exit 1 (usage), the studies named" \
	"$? $(grep -c "expected one of align-2024, random-kmalloc, isolation, slob-tiny, got 'nope'" err)" "1 1"
"$bin" plot --db s1.db --study align-2024 --out r0 > out 2> err
tap_is "plot --study: exit 1 (usage)" "$? $(grep -c 'study is an option of report' err)" "1 1"
tap_done
