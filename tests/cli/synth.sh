#!/bin/sh
# synth.sh - synthetic workloads through the CLI: `slabsim synth` output is
# byte-identical for the same spec and seed; reading it back replays exactly
# as `replay --workload`; a hand-sized workload's pages worked out by hand;
# the run records its generator; --repeat statistics checked with awk; bad
# specs name file:line. TAP output.
#   $1 slabsim binary, $2 tests/cli/data, $3 traces/workloads
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2") wl=$(abs_path "$3")
tap_scratch

# ---- determinism ----
"$bin" synth --workload "$wl/netbuf.wl" --duration 200ms --seed 5 -o a.trace
tap_is "synth exits 0" "$?" 0
"$bin" synth --workload "$wl/netbuf.wl" --duration 200ms --seed 5 > b.trace
if cmp -s a.trace b.trace; then tap_ok "same spec and seed: identical bytes (-o and stdout)"
else tap_not_ok "same spec and seed: identical bytes (-o and stdout)"; fi
"$bin" synth --workload "$wl/netbuf.wl" --duration 200ms --seed 5 -o - > d.trace
if cmp -s a.trace d.trace && [ ! -e ./- ]; then tap_ok "-o - writes stdout (no file named -)"
else tap_not_ok "-o - writes stdout (no file named -)"; fi
"$bin" synth --workload "$wl/netbuf.wl" --duration 200ms --seed 6 > c.trace
if cmp -s a.trace c.trace; then tap_not_ok "another seed: other bytes"
else tap_ok "another seed: other bytes"; fi
n=$(grep -c ': kmalloc: \|: kmem_cache_alloc: \|: kfree: \|: kmem_cache_free: ' a.trace)
tap_is "every non-header line is a slab event" "$n" "$(grep -vc '^#' a.trace)"
tap_is "events in time order" \
	"$(awk '!/^#/ {t = $4; sub(":", "", t); if (t + 0 < last) bad++; last = t + 0}
		END {print bad + 0}' a.trace)" 0

# ---- the written trace replays as --workload does ----
# (hand-192's `keep` objects are never freed, so no kmem_cache_free names
# their cache: the replay finds it by its sizes among the --caches ones)
for spec in netbuf fsmeta fragment hand-192; do
	f=$wl/$spec.wl
	[ "$spec" = hand-192 ] && f=$data/$spec.wl
	"$bin" synth --workload "$f" --duration 300ms --kernel 6.1 -o "$spec.trace"
	"$bin" replay "$spec.trace" --caches "$f" --kernel 6.1 --no-db \
		--format json | grep -v '"trace"\|"lines"\|"lost_events"\|"config_from"' > t.json
	"$bin" replay --workload "$f" --duration 300ms --kernel 6.1 --no-db \
		--format json | grep -v '"trace"\|"config_from"' > w.json
	if cmp -s t.json w.json && grep -q '"slab_pages": [1-9]' w.json; then
		tap_ok "$spec: trace read back = replay --workload (all figures)"
	else
		tap_not_ok "$spec: trace read back = replay --workload (all figures)" \
			"$(diff t.json w.json | head -20)"
	fi
done

# ---- a hand-sized workload (tests/cli/data/hand-192.wl) ----
# Cache obj: object_size 192 with a constructor, 5.4 rules: the free pointer
# cannot overlay a constructed object, so it goes after it: size = 192 + 8 =
# 200, aligned to 8 = 200. Order 0: 4096 / 200 = 20 objects, tail 4096 -
# 20 * 200 = 96 bytes <= 4096/16, and 20 >= min_objects 4 * (fls(2) + 1) =
# 12, so order 0 is kept.
# Events (one CPU, no frees before 500 ms): in each 10 ms window keep
# allocates once and temp five times (keep first: its arrival was scheduled
# earlier), so allocation i is a keep object iff i % 6 == 0; 300 allocations
# fill slabs in order: 300 / 20 = 15 slabs, all full at 500 ms. The 301st
# slab object would be index 300: none. Peak 15 pages, reached by the 281st
# allocation (index 280 = 46 * 6 + 4: temp at 46 * 10 + 4 * 2 = 466 ms).
# At 500 ms the 250 temp objects go; every slab i holds indices 20i..20i+19,
# which contain at least 3 multiples of 6, so no slab empties: 15 pages stay.
# Live 50 (keep), requested 50 * 192 = 9600; layout waste 50 * (200 - 192) =
# 400; free slots (300 - 50) * 200 = 50000; tail 15 * 96 = 1440; sum 61440 =
# 15 * 4096.
"$bin" replay --workload "$data/hand-192.wl" --no-db --format json > hand.json
tot=$(grep '"totals"' hand.json)
got="live $(json_num "$tot" live_objects) pages $(json_num "$tot" slab_pages) peak $(json_num "$tot" peak_slab_pages) at $(json_num "$tot" peak_slab_pages_t_ns) layout $(json_num "$tot" layout) free $(json_num "$tot" free_slots) tail $(json_num "$tot" slab_tail)"
tap_is "hand-192: figures worked out by hand" "$got" \
	"live 50 pages 15 peak 15 at 466000000 layout 400 free 50000 tail 1440"
# the phase markers make labelled samples; the one of `teardown` is taken at
# 500 ms before that instant's frees: the end of build, 300 live in 15 pages
"$bin" replay --workload "$data/hand-192.wl" --db hand.db -q
tap_is "hand-192: phase samples (label, t, live, pages)" \
	"$(sqlite3 hand.db "SELECT group_concat(label || ' ' || t_ns || ' ' || live_objs || ' ' || slab_pages, ', ') FROM (SELECT * FROM samples WHERE label LIKE 'phase=%' ORDER BY seq)")" \
	"phase=build 0 0 0, phase=teardown 500000000 300 15"
c=$(grep '"name": "obj"' hand.json)
tap_is "hand-192: cache geometry 200-byte slots, 20 per order-0 slab" \
	"$(json_num "$c" slab_size) $(json_num "$c" objs_per_slab) $(json_num "$c" order)" \
	"200 20 0"

# ---- spec caches go through the model's create: SLUB merges them ----
# Two caches of 60-byte objects, no flags: kmem_cache_create rounds 60 to 64
# (8-byte words), so b60 finds a60 (same size, same flags) and becomes its
# alias: one root, a60, with both streams' 2 x 100 objects (one every ms for
# 100 ms each) in 200 / 64 -> 4 slabs of one page (64 objects of 64 bytes).
printf '[workload]\nduration = 100ms\ncpus = 1\n[cache a60]\nobject_size = 60\n[cache b60]\nobject_size = 60\n[stream a]\ntarget = cache a60\nlifetime = forever\narrival = periodic 1ms\n[stream b]\ntarget = cache b60\nlifetime = forever\narrival = periodic 1ms\n' > merge.wl
"$bin" replay --workload merge.wl --kernel 6.1 --no-db --format json > merge.json
c=$(grep '"name": "a60"' merge.json)
tap_is "merged spec caches: a60 holds 200 objects in 4 pages, b60 is no root" \
	"$(json_num "$c" live_objects) $(json_num "$c" pages) $(grep -c '"name": "b60"' merge.json)" \
	"200 4 0"

# ---- the run records its generator ----
"$bin" replay --workload "$data/hand-192.wl" --seed 42 --duration 700ms --db r.db -q
tap_is "replay --workload --db exits 0" "$?" 0
cfg=$(sqlite3 r.db "SELECT config_json FROM runs")
tap_like "config_json: the workload's path, rng, seed, duration" "$cfg" \
	"\"path\":\"$data/hand-192.wl\""
tap_like "config_json: rng, seed, duration" "$cfg" \
	"\"rng\":\"mt19937\",\"seed\":42,\"duration_ns\":700000000}"
hash=$(printf '%s' "$cfg" | sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p')
tap_is "config_json: the spec hash is the one synth prints" "$hash" \
	"$("$bin" synth --workload "$data/hand-192.wl" | sed -n 's/.* spec \([0-9a-f]*\) .*/\1/p')"

# ---- --repeat ----
"$bin" replay --workload "$wl/fsmeta.wl" --duration 200ms --seed 3 --repeat 4 --db rep.db -q
tap_is "--repeat 4 exits 0" "$?" 0
tap_is "--repeat 4: four runs, seeds 3..6" \
	"$(sqlite3 rep.db "SELECT group_concat(seed) FROM (SELECT seed FROM repetition_runs ORDER BY seed)")" \
	"3,4,5,6"
# mean, sd and the 95% interval of final_slab_pages from the per-seed run
# rows, with awk: t(0.975, 3 degrees of freedom) = 3.182446 (t table)
sqlite3 rep.db "SELECT final_slab_pages FROM runs JOIN repetition_runs USING (run_id)" > pages
want=$(awk '{x[NR] = $1; s += $1} END {m = s / NR; for (i = 1; i <= NR; i++) q += (x[i] - m) ^ 2;
	sd = sqrt(q / (NR - 1)); h = 3.182446 * sd / sqrt(NR);
	printf "%.3f %.3f %.3f %.3f\n", m, sd, m - h, m + h}' pages)
tap_is "--repeat: mean, sd, 95% CI of final_slab_pages" \
	"$(sqlite3 rep.db "SELECT printf('%.3f %.3f %.3f %.3f', mean, sd, ci95_lo, ci95_hi) FROM repetition_stats WHERE figure = 'final_slab_pages'")" \
	"$want"
tap_is "--repeat: eight figures summarised" \
	"$(sqlite3 rep.db "SELECT count(*) FROM repetition_stats")" 8
tap_like "--repeat: table output names the interval" \
	"$("$bin" replay --workload "$wl/fsmeta.wl" --duration 100ms --repeat 2 --no-db)" \
	"95% confidence interval"

# ---- errors ----
"$bin" replay --workload "$data/bad-workload.wl" --no-db > out 2> err
tap_is "bad spec: exit 2" "$?" 2
tap_like "bad spec: file:line and what was expected" "$(cat err)" \
	"bad-workload.wl:7: expected exponential MEAN with a time MEAN > 0 (e.g. 10ms), got 'exponential 10'"
"$bin" synth --workload "$data/bad-workload.wl" > out 2> err
tap_is "synth of a bad spec: exit 2" "$?" 2
"$bin" synth --workload no-such.wl > out 2> err
tap_is "missing spec: exit 3" "$?" 3
"$bin" replay --seed 3 "$data/../data/dyn-a-65x64.trace" --no-db > out 2> err
tap_is "--seed without --workload: exit 1" "$?" 1
"$bin" replay --workload "$data/hand-192.wl" --duration 5 --no-db > out 2> err
tap_is "--duration without a unit: exit 1" "$?" 1
"$bin" synth > out 2> err
tap_is "synth without --workload: exit 1" "$?" 1
printf '[stream a]\ntarget = kmalloc\nsize = fixed 8\nlifetime = forever\narrival = poisson 1\n' > nodur.wl
"$bin" synth --workload nodur.wl > out 2> err
tap_like "no duration anywhere: usage error naming it" "$? $(cat err)" "1 slabsim: nodur.wl: no duration"
printf '[workload]\nduration = 1s\n[cache kmalloc-64]\nobject_size = 64\n[stream a]\ntarget = cache kmalloc-64\nlifetime = forever\narrival = poisson 10\n' > km.wl
"$bin" replay --workload km.wl --no-db > out 2> err
tap_like "a spec cache named like a kmalloc cache: exit 2, told to use kmalloc" \
	"$? $(cat err)" "2 slabsim: km.wl: [cache kmalloc-64]: expected a cache name the model does not have"
"$bin" synth --workload "$data/hand-192.wl" -o /nonexistent-dir/x.trace > out 2> err
tap_is "unwritable output: exit 3" "$?" 3

tap_done
