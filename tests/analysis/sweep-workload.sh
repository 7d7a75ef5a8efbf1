#!/bin/sh
# sweep-workload.sh - sweeps over a synthetic workload with a seed axis: the
# runs equal `replay --workload --seed` runs (same configuration hash, same
# figures), resumption skips them, the seed-groups query's mean, sd and 95%
# interval equal the ones computed here with awk from the per-seed rows, and
# plot 2's error bars are those intervals. TAP.
#   $1 slabsim binary, $2 the source tree
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") src=$(abs_path "$2")
tap_scratch
wl=$src/traces/workloads/netbuf.wl

q() { sqlite3 -cmd '.timeout 5000' "$1" "$2"; }

# Student's t quantile t(0.975, df), from a printed table (df 1..5)
tq() { awk -v df="$1" 'BEGIN { split("12.7062047361747 4.30265272974946 3.18244630528371 2.77644510519779 2.57058183563632", t, " "); print t[df] }'; }

# 2 SLOB + 2 SLUB configurations x 3 seeds
cat > wl.sweep <<EOS
workload = $wl
duration = 500ms
seed = 1..3
allocator = slob, slub
align = none, natural
slub_debug = FZPU
EOS

"$bin" sweep wl.sweep --db w.db -j 2 > out 2> err
tap_is "workload sweep exits 0" "$?" 0
tap_is "12 runs: 4 configurations x 3 seeds" \
	"$(q w.db "SELECT count(*), count(DISTINCT config_hash), count(DISTINCT json_extract(config_json, '\$.workload.seed')) FROM runs WHERE status = 'done'")" "12|12|3"
tap_is "workload runs record the workload path, its hash and the duration" \
	"$(q w.db "SELECT DISTINCT trace_path = '$wl', json_extract(config_json, '\$.workload.duration_ns'), json_extract(config_json, '\$.workload.rng') FROM runs")" \
	"1|500000000|mt19937"

# the three replay --workload --seed runs of one configuration
for s in 1 2 3; do
	"$bin" replay --workload "$wl" --duration 500ms --seed $s --allocator slob --align none \
		--db r.db -q > /dev/null 2>&1 || tap_diag "replay seed $s failed"
done
fig="config_hash, events, final_slab_pages, peak_slab_pages, final_live_objs, align_violations"
tap_is "sweep rows = replay --workload --seed rows (hash, events, pages, live, violations)" \
	"$(q w.db "SELECT $fig FROM runs WHERE allocator = 'slob' AND align = 'none' ORDER BY config_hash")" \
	"$(q r.db "SELECT $fig FROM runs ORDER BY config_hash")"
cw="SELECT r.config_hash, c.cache, c.allocs, c.live_objs, c.waste_rounding, c.waste_layout FROM caches c JOIN runs r USING (run_id)"
tap_is "sweep caches rows = replay's" \
	"$(q w.db "$cw WHERE r.allocator = 'slob' AND r.align = 'none' ORDER BY 1, 2")" \
	"$(q r.db "$cw ORDER BY 1, 2")"
tap_is "the seeds give different runs" \
	"$(q r.db "SELECT count(DISTINCT final_live_objs || ',' || peak_slab_pages) > 1 FROM runs")" 1

# resumption: a rerun skips everything; replay rows count as done
"$bin" sweep wl.sweep --db w.db -j 2 > out 2> err
tap_like "rerun skips every run" "$(cat err)" "12 already done, 0 to run"
tap_is "rerun adds no row" "$(q w.db "SELECT count(*) FROM runs")" 12
cp r.db m.db
"$bin" sweep wl.sweep --db m.db -j 2 > out 2> err
tap_like "sweep into the replay file runs only the other 9" "$(cat err)" "3 already done, 9 to run"
tap_is "and then holds 12 configurations once each" \
	"$(q m.db "SELECT count(*), count(DISTINCT config_hash) FROM runs")" "12|12"

# ---- seed-groups: mean, sample sd, t interval, from the per-seed rows ----
# figures per run: runs totals and the last sample's waste
q w.db "SELECT r.allocator, r.align, json_extract(r.config_json, '\$.workload.seed'),
	r.final_slab_pages, r.peak_slab_pages, r.final_live_objs, s.waste_rounding, s.waste_layout,
	s.waste_free_slots, s.waste_tail, r.align_violations
	FROM runs r JOIN samples s ON s.run_id = r.run_id
	AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = r.run_id)" > per
t2=$(tq 2)
awk -F'|' -v t="$t2" '
	BEGIN { split("final_slab_pages peak_slab_pages final_live_objs waste_rounding waste_layout waste_free_slots waste_tail align_violations", name, " ") }
	{ g = $1 "," $2; G[g] = 1; n[g]++; for (f = 1; f <= 8; f++) { x[g, f, n[g]] = $(f + 3); s[g, f] += $(f + 3) } }
	END { for (g in G) for (f = 1; f <= 8; f++) {
		m = s[g, f] / n[g]; ss = 0
		for (i = 1; i <= n[g]; i++) ss += (x[g, f, i] - m) ^ 2
		sd = sqrt(ss / (n[g] - 1)); h = t * sd / sqrt(n[g])
		printf "%s,%s,%d,%.4f,%.4f,%.4f,%.4f\n", g, name[f], n[g], m, sd, m - h, m + h } }' per | sort > want
"$bin" query seed-groups --db w.db --format csv > sg
# columns: trace, workload, allocator, kernel, align, debug, nr_cpus, first_run,
# figure, n, seed_min, seed_max, mean, sd, ci95_lo, ci95_hi
awk -F, 'NR > 1 { printf "%s,%s,%s,%d,%.4f,%.4f,%.4f,%.4f\n", $3, $5, $9, $10, $13, $14, $15, $16 }' sg | sort > got
tap_is "seed-groups: 4 groups x 8 figures" "$(wc -l < got)" 32
tap_is "seed-groups = mean, sd, mean -+ t(0.975,2) sd/sqrt(3) computed with awk" "$(cat got)" "$(cat want)"
tap_is "seed-groups: seeds 1..3 in every group" "$(awk -F, 'NR > 1 { print $11 "-" $12 }' sg | sort -u)" "1-3"
tap_is "seed-groups: one trace, the workload" "$(awk -F, 'NR > 1 { print $1 }' sg | sort -u | wc -l)" 1
tap_like "seed-groups: a group with spread (sd > 0)" "$(awk -F, '$5 > 0 { print "spread" }' want)" spread

# --repeat stores the same statistics for its seeds (repetition_stats)
"$bin" replay --workload "$wl" --duration 500ms --seed 1 --repeat 3 --allocator slob --align none \
	--db rep.db -q > /dev/null 2>&1
tap_is "replay --repeat 3 stores what seed-groups computes" \
	"$(q rep.db "SELECT figure, printf('%.4f', mean), printf('%.4f', sd), printf('%.4f', ci95_lo) FROM repetition_stats ORDER BY figure" | tr '|' ',')" \
	"$(grep '^slob,none,' want | cut -d, -f3,5,6,7 | sort)"

# ---- plot 2: error bars = the 95% interval of the per-seed overheads ----
"$bin" plot --db w.db --out p --no-render > out 2> err
tap_is "plot --no-render exits 0" "$?" 0
q w.db "SELECT n.allocator, 100.0 * (n.peak_slab_pages - u.peak_slab_pages) / u.peak_slab_pages
	FROM runs n JOIN runs u ON u.allocator = n.allocator AND u.align = 'none'
	AND json_extract(u.config_json, '\$.workload.seed') = json_extract(n.config_json, '\$.workload.seed')
	WHERE n.align = 'natural'" |
	awk -F'|' -v t="$t2" '{ k = $1; n[k]++; x[k, n[k]] = $2; s[k] += $2 }
	END { for (k in n) { m = s[k] / n[k]; ss = 0; for (i = 1; i <= n[k]; i++) ss += (x[k, i] - m) ^ 2
		printf "%s %.4f %.4f %d\n", k, m, t * sqrt(ss / (n[k] - 1)) / sqrt(n[k]), n[k] } }' | sort > want
# one row per bar: "trace" "allocator" "kernel" "debug" mean_pct ci95_pct n
# x rgb hatched label_y "label"; split at the quotes, the numbers are field 9
awk -F'"' '!/^#/ && NF { split($9, v, " "); printf "%s %.4f %.4f %d\n", $4, v[1], v[2], v[3] }' \
	p/align-overhead.dat | sort > got
tap_is "align-overhead.dat: mean and t(0.975,2) sd/sqrt(3) of the per-seed overheads" "$(cat got)" "$(cat want)"
tap_like "align-overhead.dat: a non-zero error bar" "$(awk '$3 > 0 { print "bar" }' got)" bar
tap_like "align-overhead.gp: drawn with error bars (mean, ci95 columns)" "$(cat p/align-overhead.gp)" "using 8:5:6 with yerrorbars"
tap_like "plot 1 labels runs by seed" "$(grep '^# trace .*, run ' p/memory-time.dat)" "slob align=none debug=off seed=2"

# ---- shards: two halves merged give the same groups as one sweep ----
"$bin" sweep wl.sweep --db s1.db --shard 1/2 -j 2 > out 2> err &&
	"$bin" sweep wl.sweep --db s2.db --shard 2/2 -j 2 > out 2> err &&
	"$bin" merge sh.db s1.db s2.db > out 2> err
tap_is "shards 1/2 + 2/2 merged: exit 0" "$?" 0
tap_is "shards hold 6 + 6 runs, seeds of a group split between them" \
	"$(q s1.db "SELECT count(*) FROM runs") $(q s2.db "SELECT count(*) FROM runs")" "6 6"
"$bin" query seed-groups --db sh.db --format csv | cut -d, -f1-7,9- | sort > got
"$bin" query seed-groups --db w.db --format csv | cut -d, -f1-7,9- | sort > want
tap_is "merged shards: the same seed-groups as one sweep" "$(cat got)" "$(cat want)"

# ---- no seed axis: the workload's own seed (netbuf.wl: seed = 1) ----
printf 'workload = %s\nduration = 500ms\nallocator = slob\nalign = none\n' "$wl" > one.sweep
"$bin" sweep one.sweep --db r.db > out 2> err
tap_like "no seed axis: one run, the spec's seed, already done by replay --seed 1" "$(cat err)" \
	"1 runs in one.sweep; 0 in other shards, 1 already done, 0 to run"

# a workload without 'duration =' needs one in the sweep spec
grep -v '^duration = 1s' "$src/tests/cli/data/hand-192.wl" > nodur.wl
printf 'workload = nodur.wl\n' > nodur.sweep
"$bin" sweep nodur.sweep --db nd.db > out 2> err
tap_is "no duration anywhere: exit 2" "$?" 2
tap_like "no duration anywhere: says where to put it" "$(cat err)" "nodur.sweep: nodur.wl has no duration: add 'duration = T'"

# ---- the bundled example sweep parses and plans 24 runs ----
(cd "$src" && "$bin" sweep analysis/sweeps/netbuf-seeds.sweep --db "$tmp/ex.db" --dry-run) > plan 2> err
tap_is "analysis/sweeps/netbuf-seeds.sweep: 24 runs planned" "$(grep -c todo plan)" 24

# no align axis under a kernel given: the run takes that profile's rule
# (6.18: pow2-divisor, run_model_settle) and its label says so (it said
# natural, the 5.4 default, while the run was pow2-divisor)
printf 'workload = %s\nduration = 100ms\nkernel = 6.18\nallocator = slub\n' "$wl" > k.sweep
"$bin" sweep k.sweep --db k.db --dry-run > kplan 2> /dev/null
tap_like "dry run under kernel 6.18 without an align axis: the label says pow2-divisor" \
	"$(cat kplan)" "slub kernel=6.18 nr_cpus=2 align=pow2-divisor seed="
"$bin" sweep k.sweep --db k.db > /dev/null 2>&1
tap_is "... and the run is pow2-divisor" "$(q k.db "select align from runs")" "pow2-divisor"
tap_done
