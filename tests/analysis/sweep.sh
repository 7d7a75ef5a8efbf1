#!/bin/sh
# sweep.sh - sweeps, merge, named queries, plots and the report through the
# CLI, on the bundled boot trace. Expected values are computed here from the
# run rows with sqlite3 and awk, never copied from slabsim's output. TAP.
#   $1 slabsim binary, $2 the source tree, $3 the bundled boot trace
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") src=$(abs_path "$2") boot=$(abs_path "$3")
tap_scratch

q() { # q DB SQL: sqlite3 with a busy timeout (the sweep may be writing)
	sqlite3 -cmd '.timeout 5000' "$1" "$2"
}

# The default sweep's axes on the bundled trace: 4 SLUB + 4 SLAB + 2 SLOB.
cat > small.sweep <<EOS
# comment
trace = $boot
kernel = 6.1
nr_cpus = 2
allocator = slub, slab, slob
align = none, natural
slub_debug = -, FZPU
slab_debug = off, on
sample_every = 200ev
EOS

# ---- spec errors ----
printf 'trace = %s\nallocator = slub\nalign = none, nat\n' "$boot" > bad.sweep
"$bin" sweep bad.sweep --db bad.db > out 2> err
tap_is "bad align value: exit 2" "$?" 2
tap_like "bad align value: names file:line and what was expected" "$(cat err)" \
	"bad.sweep:3: align: expected auto, none, natural, cap512, own-caches, merged, kmalloc-aligned-caches, kmalloc-aligned-overalloc or pow2-divisor, got 'nat'"
printf 'workload = %s\nduration = 5\n' "$src/traces/workloads/netbuf.wl" > wl.sweep
"$bin" sweep wl.sweep --db bad.db > out 2> err
tap_is "duration without a unit: exit 2" "$?" 2
tap_like "duration without a unit: names the spec" "$(cat err)" "wl.sweep: duration expects a time"
printf 'workload = nosuch.wl\nseed = 1..2\n' > wl.sweep
"$bin" sweep wl.sweep --db bad.db > out 2> err
tap_is "unreadable workload: exit 3" "$?" 3
tap_like "unreadable workload: its runs are skipped" "$(cat err)" "nosuch.wl"
"$bin" sweep small.sweep --db bad.db --shard 0/2 > out 2> err
tap_is "--shard 0/2: usage error" "$?" 1
"$bin" sweep small.sweep --db bad.db --shard 3/2 > out 2> err
tap_is "--shard 3/2: usage error" "$?" 1

# ---- a whole sweep ----
"$bin" sweep small.sweep --db full.db -j 2 > out 2> err
tap_is "sweep exits 0" "$?" 0
tap_is "10 runs, 10 configurations" "$(q full.db "SELECT count(*), count(DISTINCT config_hash) FROM runs WHERE status = 'done'")" "10|10"
tap_is "runs per allocator (debug axes apply to their allocator only)" \
	"$(q full.db "SELECT group_concat(allocator || ':' || n) FROM (SELECT allocator, count(*) AS n FROM runs GROUP BY allocator ORDER BY allocator)")" \
	"slab:4,slob:2,slub:4"
tap_is "no scratch directory left" "$(ls -d full.db.sweep.* 2>/dev/null | wc -l)" 0
"$bin" sweep small.sweep --db full.db -j 2 > out 2> err
tap_like "rerun skips every done run" "$(cat err)" "10 already done, 0 to run"
tap_is "rerun adds no row" "$(q full.db "SELECT count(*) FROM runs")" 10

# the sweep's rows equal a text-trace replay of the same configuration
"$bin" replay "$boot" --kernel 6.1 --nr-cpus 2 --allocator slub --slub-debug FZPU \
	--align none --sample-every 200ev --db replay.db -q 2> err
h=$(q replay.db "SELECT config_hash FROM runs")
tap_is "replay and sweep agree on the configuration hash" \
	"$(q full.db "SELECT count(*) FROM runs WHERE config_hash = '$h'")" 1
for t in counts caches sites violations samples sample_caches sample_caches_full; do
	a=$(q replay.db "SELECT t.* FROM $t t" | cut -d'|' -f2- | sort | cksum)
	b=$(q full.db "SELECT t.* FROM $t t JOIN runs r USING (run_id) WHERE r.config_hash = '$h'" |
		cut -d'|' -f2- | sort | cksum)
	tap_is "parsed events replay like the text trace: $t rows" "$b" "$a"
done

# a trace that cannot be read: its runs fail, the other trace's run
printf 'trace = missing.trace\ntrace = %s\nkernel = 6.1\n' "$boot" > two.sweep
"$bin" sweep two.sweep --db two.db -j 2 > out 2> err
tap_is "unreadable trace: exit 3" "$?" 3
tap_like "unreadable trace: named" "$(cat err)" "missing.trace"
tap_is "unreadable trace: the other trace's run is recorded" \
	"$(q two.db "SELECT count(*) FROM runs WHERE trace_path = '$boot'")" 1

# ---- resumption after SIGKILL ----
# 40 runs, one worker: long enough to kill after the first few
sed 's/^nr_cpus = 2$/nr_cpus = 1, 2, 3, 4/' small.sweep > long.sweep
"$bin" sweep long.sweep --db kill.db -j 1 > out 2> err &
pid=$!
i=0 n=0
while [ "$i" -lt 600 ]; do
	n=$(q kill.db "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 3 ] && break
	sleep 0.1
	i=$((i + 1))
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
n1=$(q kill.db "SELECT count(*) FROM runs")
tap_is "killed sweep: database passes integrity_check" "$(q kill.db "PRAGMA integrity_check")" ok
if [ "$n1" -ge 3 ] && [ "$n1" -lt 40 ]; then
	tap_ok "killed after $n1 of 40 runs"
else
	tap_not_ok "killed after some runs" "runs recorded: $n1 (want 3..39)"
fi
sleep 0.3 # the workers die with the parent (PR_SET_PDEATHSIG)
tap_is "killed sweep: every recorded run is done" \
	"$(q kill.db "SELECT count(*) FROM runs WHERE status <> 'done'")" 0
"$bin" sweep long.sweep --db kill.db -j 2 > out 2> err
tap_is "resumed sweep exits 0" "$?" 0
tap_like "resumed sweep skips the recorded runs" "$(cat err)" "$n1 already done, $((40 - n1)) to run"
tap_is "after resuming: 40 runs, none duplicated" \
	"$(q kill.db "SELECT count(*), count(DISTINCT config_hash) FROM runs")" "40|40"
tap_is "after resuming: every planned configuration is there" \
	"$("$bin" sweep long.sweep --db kill.db --dry-run | awk '$2 == "done"' | wc -l)" 40
tap_is "the dead sweep's scratch directory was removed" "$(ls -d kill.db.sweep.* 2>/dev/null | wc -l)" 0

# ---- SIGINT: workers stopped, finished runs kept, exit 130 ----
"$bin" sweep long.sweep --db int.db -j 1 > out 2> err &
pid=$!
i=0
while [ "$i" -lt 600 ]; do
	n=$(q int.db "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 2 ] && break
	sleep 0.1
	i=$((i + 1))
done
kill -INT "$pid"
wait "$pid"
tap_is "SIGINT: exit status 130" "$?" 130
tap_like "SIGINT: says how to resume" "$(cat err)" "rerun to resume"
tap_is "SIGINT: database passes integrity_check" "$(q int.db "PRAGMA integrity_check")" ok
tap_is "SIGINT: scratch directory removed" "$(ls -d int.db.sweep.* 2>/dev/null | wc -l)" 0
n1=$(q int.db "SELECT count(*) FROM runs")
"$bin" sweep long.sweep --db int.db -j 2 -q 2> err
tap_is "SIGINT: rerun completes the 40 runs once each" \
	"$(q int.db "SELECT count(*), count(DISTINCT config_hash) FROM runs") $([ "$n1" -lt 40 ] && echo resumed)" "40|40 resumed"

# ---- shards + merge = one sweep ----
# rows of every table, with run ids replaced by config hashes and the
# columns that differ between runs of the same configuration dropped
dump() {
	q "$1" "SELECT config_hash, trace_path, allocator, kernel, align, slub_debug, nr_cpus,
	       slub_min_order, slub_max_order, slub_min_objects, sample_every, config_json,
	       events, t_first_ns, t_last_ns, final_slab_pages, peak_slab_pages,
	       peak_slab_pages_t_ns, final_large_pages, final_live_objs,
	       final_live_req_bytes, align_violations FROM runs" | sort
	for t in counts caches sites violations samples sample_caches; do
		q "$1" "SELECT r.config_hash, t.* FROM $t t JOIN runs r USING (run_id)" |
			cut -d'|' -f1,3- | sort
	done
}
for i in 1 2 3; do
	"$bin" sweep small.sweep --db "s$i.db" --shard "$i/3" -j 2 -q 2> err
done
tap_is "shards hold 4, 3 and 3 runs" \
	"$(q s1.db "SELECT count(*) FROM runs") $(q s2.db "SELECT count(*) FROM runs") $(q s3.db "SELECT count(*) FROM runs")" "4 3 3"
tap_is "shards are disjoint" "$(for i in 1 2 3; do q "s$i.db" "SELECT config_hash FROM runs"; done | sort | uniq -d | wc -l)" 0
"$bin" merge merged.db s1.db s2.db s3.db > out 2> err
tap_is "merge exits 0" "$?" 0
tap_is "merge reports the copies" "$(awk '{s += $2} END {print s}' out)" 10
tap_is "shards + merge = the unsharded sweep (all tables)" "$(dump merged.db | cksum)" "$(dump full.db | cksum)"
"$bin" merge merged.db s2.db full.db > out 2> err
tap_is "merging again copies nothing" "$(awk '{s += $2} END {print s}' out)" 0
tap_is "merged file passes integrity_check" "$(q merged.db "PRAGMA integrity_check")" ok
printf 'not a database' > junk.db
"$bin" merge merged.db junk.db > out 2> err
tap_is "merging a non-database: exit 3" "$?" 3

# the example scripts: GNU parallel (xargs -P when it is missing), and the
# Slurm array script with the array variables set by hand
mkdir par && cd par || exit 1
SLABSIM=$bin sh "$src/analysis/sweep-parallel.sh" ../small.sweep out.db 3 > out 2> err
tap_is "sweep-parallel.sh exits 0" "$?" 0
tap_is "sweep-parallel.sh = the unsharded sweep" "$(dump out.db | cksum)" "$(dump ../full.db | cksum)"
rm -f part-*.db out.db
SLABSIM=$bin SLABSIM_RUNNER=xargs sh "$src/analysis/sweep-parallel.sh" ../small.sweep out.db 2 > out 2> err
tap_is "sweep-parallel.sh with xargs -P = the unsharded sweep" "$(dump out.db | cksum)" "$(dump ../full.db | cksum)"
# (tests/analysis/slurm.sh runs it on a real Slurm). Shard 3 of 4 is left
# out, then run as a one-task array (SLURM_ARRAY_TASK_COUNT=1): the shard
# count is the script's argument, not the array's size.
for i in 1 2 4; do
	SLABSIM=$bin SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 \
		sh "$src/analysis/sweep-slurm.sh" ../small.sweep slurm 4 > out 2> err
done
SLABSIM=$bin sh "$src/analysis/sweep-slurm.sh" --merge ../small.sweep slurm 4 > out 2> err
tap_is "sweep-slurm.sh --merge with a shard missing: exit 4" "$?" 4
tap_like "sweep-slurm.sh --merge names the missing shard" "$(cat err)" \
	"sweep-slurm.sh: shard 3/4 (slurm/part-3.db): missing"
tap_is "sweep-slurm.sh --merge names no other shard" "$(grep -c ': shard ' err)" 1
SLABSIM=$bin SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=1 \
	sh "$src/analysis/sweep-slurm.sh" ../small.sweep slurm 4 > out 2> err
tap_is "sweep-slurm.sh: shard 3 of 4 alone in its array runs" "$?" 0
SLABSIM=$bin sh "$src/analysis/sweep-slurm.sh" --merge ../small.sweep slurm 4 > out 2> err
tap_is "sweep-slurm.sh --merge again: exit 0" "$?" 0
tap_is "sweep-slurm.sh array tasks + merges = the unsharded sweep" \
	"$(dump slurm/sweep.db | cksum)" "$(dump ../full.db | cksum)"
SLABSIM=$bin SLURM_ARRAY_TASK_ID=5 sh "$src/analysis/sweep-slurm.sh" ../small.sweep slurm 4 > out 2> err
tap_is "sweep-slurm.sh: array index 5 of 4 shards: exit 1" "$?" 1
cd .. || exit 1

# ---- named queries against the run rows ----
"$bin" query --list > out
tap_is "query --list names 16 queries" "$(awk '{print $1}' out | tr '\n' ' ')" \
	"align-overhead top-waste unaligned-sites align-pay align-pay-caches sites-file waste-by-kind seed-groups runs study-align-2024 study-align-2024-where study-sheaves study-sheaf-capacity study-random-kmalloc study-isolation study-slob-tiny "
# align-overhead: pair natural and none by allocator and debug setting, here
# with awk over (allocator, align, debug, peak)
q full.db "SELECT trace_label, allocator, align,
	  CASE WHEN allocator = 'slab' THEN (CASE WHEN config_json LIKE '%\"slab_debug\":true%' THEN 'on' ELSE 'off' END)
	       WHEN slub_debug = '-' THEN 'off' ELSE slub_debug END, peak_slab_pages FROM runs" |
	awk -F'|' '{ k = $1 "," $2 "," $4; if ($3 == "natural") nat[k] = $5; else non[k] = $5 }
	END { for (k in nat) printf "%s,%d,%.3f\n", k, nat[k] - non[k], 100 * (nat[k] - non[k]) / non[k] }' |
	sort > want
"$bin" query align-overhead --db full.db --format csv |
	awk -F, 'NR > 1 { printf "%s,%s,%s,%d,%.3f\n", $1, $2, $4, $8, $9 }' | sort > got
tap_is "align-overhead equals natural - none peak pages per allocator and debug" "$(cat got)" "$(cat want)"
tap_like "align-overhead: SLUB with FZPU pays for natural alignment" "$(cat want)" ",slub,FZPU,"
# top-waste: for every run, the 5 root caches with the most waste. SLOB's
# pages belong to its shared page lists, not to caches (pages = 0): its
# caches with allocations count with their rounding + layout, and one
# '(shared pages)' row holds the free space of the run's last sample.
{
	q full.db "SELECT c.run_id, c.cache, c.waste_rounding, c.waste_layout, c.waste_free_slots,
		   c.waste_tail FROM caches c JOIN runs r USING (run_id) WHERE c.alias_of IS NULL
		   AND (c.pages > 0 OR (r.allocator = 'slob' AND c.allocs > 0))"
	q full.db "SELECT s.run_id, '(shared pages)', 0, 0, s.waste_free_slots, s.waste_tail
		   FROM samples s JOIN runs r USING (run_id) WHERE r.allocator = 'slob'
		   AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = s.run_id)"
} | awk -F'|' '{ print $1 "|" $3 + $4 + $5 + $6 "|" $2 }' |
	sort -t'|' -k1,1n -k2,2nr -k3,3 | awk -F'|' '{ if (++n[$1] <= 5) print $1 "," $3 "," $2 }' > want
# columns: trace, run_id, allocator, align, debug, rank, cache, pages, waste_bytes, ...
"$bin" query top-waste --db full.db --format csv | awk -F, 'NR > 1 { print $2 "," $7 "," $9 }' > got
tap_is "top-waste equals the 5 largest waste sums per run (SLOB: shared pages row)" "$(cat got)" "$(cat want)"
tap_is "top-waste: 5 rows per run" "$(wc -l < got)" 50
tap_is "top-waste: SLOB's shared pages lead its runs" \
	"$(grep -c ',(shared pages),' got) $(q full.db "SELECT count(*) FROM runs WHERE allocator = 'slob'")" "2 2"
# unaligned-sites: violations summed by call site, align = none runs
q full.db "SELECT v.run_id, v.call_site, v.count FROM violations v JOIN runs r USING (run_id)
	   WHERE r.align = 'none'" |
	awk -F'|' '{ s[$1 "," $2] += $3 } END { for (k in s) print k "," s[k] }' | sort > want
"$bin" query unaligned-sites --db full.db --format csv | awk -F, 'NR > 1 { print $2 "," $6 "," $7 }' | sort > got
tap_is "unaligned-sites equals the violations summed by call site" "$(cat got)" "$(cat want)"
if [ -s want ]; then tap_ok "unaligned-sites: some call sites see unaligned objects"; else tap_not_ok "unaligned-sites has rows"; fi
tap_is "no violations under align=natural" \
	"$(q full.db "SELECT count(*) FROM violations v JOIN runs r USING (run_id) WHERE r.align = 'natural'")" 0
# waste-by-kind: sums of the caches rows; SLOB: the last sample's totals and
# the run's final pages
q full.db "SELECT c.run_id, c.live_req_bytes, c.waste_rounding, c.waste_layout, c.waste_free_slots,
	   c.waste_tail, c.pages FROM caches c JOIN runs r USING (run_id)
	   WHERE c.alias_of IS NULL AND r.allocator <> 'slob'" |
	awk -F'|' '{ for (i = 2; i <= 7; i++) s[$1, i] += $i; r[$1] = 1 }
	END { for (k in r) printf "%d,%d,%d,%d,%d,%d,%d,caches\n", k, s[k,2], s[k,3], s[k,4], s[k,5], s[k,6], s[k,7] }' > want
q full.db "SELECT s.run_id, s.live_req_bytes, s.waste_rounding, s.waste_layout, s.waste_free_slots,
	   s.waste_tail, r.final_slab_pages, 'run totals' FROM samples s JOIN runs r USING (run_id)
	   WHERE r.allocator = 'slob' AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = s.run_id)" |
	tr '|' ',' >> want
sort want > want.s
"$bin" query waste-by-kind --db full.db --format csv | awk -F, 'NR > 1 { print $2 "," $7 "," $8 "," $9 "," $10 "," $11 "," $12 "," $13 }' | sort > got
tap_is "waste-by-kind equals the caches rows summed (SLOB: run totals)" "$(cat got)" "$(cat want.s)"
# SLOB's run totals add up to its pages (docs/metrics.md): the free space is there
tap_is "waste-by-kind: SLOB's live + waste = pages x 4096" \
	"$(awk -F, '$8 == "run totals" { if ($2 + $3 + $4 + $5 + $6 != $7 * 4096) bad++; n++ } END { print n, bad + 0 }' got)" "2 0"
tap_like "waste-by-kind: SLOB has free space in its pages" "$(awk -F, '$8 == "run totals" && $5 > 0 { print "free" }' got)" "free"
"$bin" query runs --db full.db --format json > out
tap_is "json: one object per run" "$(grep -c '"run_id": ' out)" 10
"$bin" query nosuch --db full.db > out 2> err
tap_is "unknown query: usage error" "$?" 1
"$bin" query runs --db missing.db > out 2> err
tap_is "missing database: exit 3" "$?" 3

# ---- plot ----
"$bin" plot --db full.db --out plots > out 2> err
tap_is "plot exits 0" "$?" 0
for f in memory-time align-overhead waste-by-kind top-caches occupancy-cdf; do
	ok=1
	[ -s "plots/$f.png" ] && [ "$(od -An -c -N4 "plots/$f.png" | tr -d ' ')" = '211PNG' ] || ok=0
	[ -s "plots/$f.svg" ] && grep -q '<svg' "plots/$f.svg" || ok=0
	[ -s "plots/$f.gp" ] && [ -s "plots/$f.dat" ] || ok=0
	tap_is "$f: non-empty PNG and SVG beside its .gp and .dat" "$ok" 1
done
# memory-time: one block per run, each ending at the run's final slab pages
# one block per run, but a run whose series (its samples' times and pages)
# equals an earlier run's of the trace is not repeated: as many blocks as
# distinct series, counted here with sqlite3
tap_is "memory-time.dat: one block per distinct series of runs" \
	"$(grep -c '^# trace .*, run [0-9]*: ' plots/memory-time.dat)" \
	"$(q full.db "SELECT count(DISTINCT trace_label || '/' || s) FROM runs JOIN (SELECT run_id,
		group_concat((t_ns - t_first_ns) || ':' || slab_pages, ' ') s FROM (SELECT s.run_id, s.t_ns,
		s.slab_pages, r.t_first_ns FROM samples s JOIN runs r USING (run_id) ORDER BY s.run_id, s.seq)
		GROUP BY run_id) USING (run_id)")"
tap_is "memory-time.dat: 10 runs in 7 distinct series" "$(grep -c '^# trace .*, run [0-9]*: ' plots/memory-time.dat)" 7
awk '/^# trace / { if (id != "") print id, last; id = $0; sub(/.*, run /, "", id); sub(/:.*/, "", id) } /^[0-9]/ { last = $2 }
	END { print id, last }' plots/memory-time.dat | sort -n > got
q full.db "SELECT run_id, final_slab_pages * 4 FROM runs" | tr '|' ' ' | sort -n > want
tap_is "memory-time.dat: last point of each line = its run's final slab KiB" \
	"$(awk 'NR == FNR { f[$1] = $2; next } f[$1] != $2 { print "run " $1 ": " $2 " != " f[$1] }' want got)" ""
# align-overhead: the slub row, FZPU and off columns (mean %, sd, n)
pct=$(q full.db "SELECT peak_slab_pages FROM runs WHERE allocator = 'slub' AND slub_debug = 'FZPU' ORDER BY align" |
	awk 'NR == 1 { nat = $1 } NR == 2 { non = $1 } END { printf "%.6f", 100 * (nat - non) / non }')
tap_like "align-overhead.dat: slub FZPU mean = 100 (natural - none) / none" \
	"$(grep '^"[^"]*" "slub" "[^"]*" "FZPU" ' plots/align-overhead.dat)" "$pct 0.000000 1"
# waste-by-kind: KiB of the kinds for every run
{
	q full.db "SELECT run_id, sum(waste_rounding), sum(waste_layout), sum(waste_free_slots), sum(waste_tail)
		   FROM caches JOIN runs USING (run_id) WHERE alias_of IS NULL AND allocator <> 'slob' GROUP BY run_id"
	q full.db "SELECT s.run_id, s.waste_rounding, s.waste_layout, s.waste_free_slots, s.waste_tail
		   FROM samples s JOIN runs r USING (run_id) WHERE r.allocator = 'slob'
		   AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = s.run_id)"
} | awk -F'|' '{ printf "%d %.3f %.3f %.3f %.3f\n", $1, $2 / 1024, $3 / 1024, $4 / 1024, $5 / 1024 }' | sort -n > want
awk '!/^#/ { n = NF; printf "%d %s %s %s %s\n", $n, $(n-4), $(n-3), $(n-2), $(n-1) }' plots/waste-by-kind.dat | sort -n > got
tap_is "waste-by-kind.dat: KiB by kind per run (SLOB: run totals)" "$(cat got)" "$(cat want)"
tap_is "waste-by-kind.dat: SLOB's bars say [run totals]" "$(grep -c '^"slob .*\[run totals\]"' plots/waste-by-kind.dat)" 2
# top-caches: SLOB has its panel, with the free space of its shared pages
srun=$(awk '/^# run .*slob/ { sub(":", "", $3); print $3 }' plots/top-caches.dat)
want=$(q full.db "SELECT (waste_free_slots + waste_tail) / 1024.0 FROM samples WHERE run_id = '$srun'
	ORDER BY seq DESC LIMIT 1" | awk '{ printf "%.3f", $1 }')
tap_is "top-caches.dat: SLOB's block has its shared pages' free KiB" \
	"$(awk '/^# run .*slob/ { s = 1; next } /^# run/ { s = 0 } s && /^"\(shared pages/ { print $NF }' plots/top-caches.dat)" "$want"
# occupancy CDF: ends at 1, values in [0, 1], as many values as per-cache samples
tap_is "occupancy-cdf.dat: every block ends at F = 1" \
	"$(awk '/^# trace / { if (l != "") print l } /^[0-9]/ { l = $2 } END { print l }' plots/occupancy-cdf.dat | sort -u)" "1.000000"
tap_is "occupancy-cdf.dat: one block per run with a series of its own" \
	"$(grep -c '^# trace ' plots/occupancy-cdf.dat)" "$(grep -c '^$' plots/occupancy-cdf.dat | awk '{ print $1 / 2 + 1 }')"
n=$(q full.db "SELECT count(*) FROM sample_caches_full sc JOIN caches c USING (run_id, cache)
	JOIN runs r USING (run_id) WHERE r.allocator = 'slub' AND r.align = 'none' AND r.slub_debug = '-'
	AND sc.slabs > 0 AND c.objs_per_slab > 0")
# (runs with identical series are one block, titled align=natural|none)
tap_like "occupancy-cdf.dat: one value per per-cache sample" "$(grep -E 'slub align=([a-z0-9]+[|])*none([|][a-z0-9]+)* debug=off' plots/occupancy-cdf.dat)" "($n values)"
"$bin" plot --db full.db --out plots2 --no-render > out 2> err
tap_is "--no-render: scripts and data only" "$(ls plots2 | grep -c -E '\.(png|svg)$') $(ls plots2 | grep -c -E '\.(gp|dat)$')" "0 10"

# ---- report ----
"$bin" report --db full.db --out rep > out 2> err
tap_is "report exits 0" "$?" 0
tap_is "report embeds the 5 images" "$(grep -c 'src="data:image/png;base64,' rep/index.html)" 5
tap_like "report has the overhead table" "$(cat rep/index.html)" "<th>extra_peak_pct</th>"
tap_done
