#!/bin/sh
# study.sh - studies over several traces (issue 19, "Done means"): three
# databases, every named query's rows per trace against a recomputation
# from the runs, caches, violations and samples tables with sqlite3 and awk;
# plot and report exit 0 on each, every PNG is a non-empty PNG, and the .dat
# files hold what the queries say. TAP.
#   same: two traces with the same file name (the boot excerpt in two
#         directories, one line dropped in the second), swept with 'label ='
#   cd:   the same two files replayed into one database from inside their
#         directories, so that path and label are both 'trace.txt': the
#         content hash tells them apart ('trace.txt #HASH8')
#   caps: the three bundled captures (2 CPUs, 2 CPUs slub_debug=FZPU, 8 CPUs)
#   $1 slabsim binary, $2 the source tree
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") src=$(abs_path "$2")
tap_scratch
LC_ALL=C
export LC_ALL
q() { sqlite3 -batch -init /dev/null "$1" "$2"; }
S=$src/traces/samples

# ---- the inputs and the databases ----
mkdir a b
cp "$S/linux-6.1-boot-excerpt.trace" a/trace.txt
sed '$d' "$S/linux-6.1-boot-excerpt.trace" > b/trace.txt # its last kmalloc dropped
cat > same.sweep <<EOF
trace = a/trace.txt
label = boot-a
trace = b/trace.txt
label = boot-b
kernel = 6.1
allocator = slub, slob
align = none, natural
EOF
"$bin" sweep same.sweep --db same.db -j 2 -q > out 2> err
tap_is "same: sweep over two trace.txt exits 0" "$? $(cat err)" "0 "
for d in a b; do
	for al in slub slob; do
		for an in none natural; do
			(cd $d && "$bin" replay trace.txt --kernel 6.1 --allocator $al --align $an \
				--db ../cd.db -q) || tap_diag "replay $d $al $an failed"
		done
	done
done
cat > caps.sweep <<EOF
trace = $S/linux-6.1-qemu-2cpu/trace.txt.zst
trace = $S/linux-6.1-qemu-2cpu-fzpu/trace.txt.zst
trace = $S/linux-6.1-qemu-8cpu/trace.txt.zst
kernel = 6.1
allocator = slub, slob
align = none, natural
EOF
"$bin" sweep caps.sweep --db caps.db -j 2 -q > out 2> err
tap_is "caps: sweep over the three captures exits 0" "$? $(cat err)" "0 "

# two captures whose directories have one name get one label: refused
mkdir -p x/cap y/cap
cp "$S/linux-6.1-qemu-2cpu/uname.txt" "$S/linux-6.1-qemu-2cpu/ncpus.txt" x/cap/
cp "$S/linux-6.1-qemu-2cpu/uname.txt" "$S/linux-6.1-qemu-2cpu/ncpus.txt" y/cap/
cp a/trace.txt x/cap/trace.txt
cp b/trace.txt y/cap/trace.txt
printf 'trace = x/cap/trace.txt\ntrace = y/cap/trace.txt\n' > dup.sweep
"$bin" sweep dup.sweep --db dup.db -q > out 2> err
tap_is "two captures named 'cap' without 'label =': exit 2, both named" \
	"$? $(grep -c "x/cap/trace.txt and y/cap/trace.txt would both be labelled 'cap'" err)" "2 1"
printf 'trace = x/cap/trace.txt\nlabel = x\ntrace = y/cap/trace.txt\n' > dup.sweep
"$bin" sweep dup.sweep --db dup.db -q --dry-run > out 2> err
tap_is "... and accepted with a label on one" "$?" 0

# ---- the identity in runs ----
tap_is "same: labels, hashes (two), kernel and CPUs detected" \
	"$(q same.db "SELECT trace_label, count(*), count(DISTINCT trace_hash), trace_kernel, trace_nr_cpus
		FROM runs GROUP BY trace_label ORDER BY 1")" "$(printf '%s\n' 'boot-a|4|1|6.1|2' 'boot-b|4|1|6.1|2')"
tap_is "same: two hashes of 32 hex digits (XXH3-128; the golden dump checks the value)" \
	"$(q same.db "SELECT count(DISTINCT trace_hash), min(trace_hash GLOB '[0-9a-f]*' AND length(trace_hash) = 32) FROM runs")" "2|1"
tap_is "cd: one path, one label, two hashes" \
	"$(q cd.db "SELECT count(DISTINCT trace_path), count(DISTINCT trace_label), count(DISTINCT trace_hash) FROM runs")" "1|1|2"
tap_is "caps: labels = the capture directories, CPUs from ncpus.txt" \
	"$(q caps.db "SELECT DISTINCT trace_label, trace_kernel, trace_nr_cpus FROM runs ORDER BY 1")" \
	"$(printf '%s\n' 'linux-6.1-qemu-2cpu|6.1|2' 'linux-6.1-qemu-2cpu-fzpu|6.1|2' 'linux-6.1-qemu-8cpu|6.1|8')"

# name DB: run_id|trace as the queries name it (the label, plus ' #' and 8
# digits of the hash when the label names files of different contents)
names() {
	q "$1" "SELECT run_id, trace_label, trace_hash FROM runs WHERE status = 'done'" |
		awk -F'|' '{ id[NR] = $1; lb[NR] = $2; h[NR] = $3; if (!((lb[NR], h[NR]) in seen)) { seen[lb[NR], h[NR]] = 1; n[lb[NR]]++ } }
		END { for (i = 1; i <= NR; i++) print id[i] "|" lb[i] (n[lb[i]] > 1 ? " #" substr(h[i], 1, 8) : "") }' |
		sort -t'|' -k1,1
}
# csv DB QUERY: the query's rows (no header), fields joined by '|'; no field
# of these databases holds a comma
csv() { "$bin" query "$2" --db "$1" --format csv | sed 1d | tr ',' '|'; }

for db in same cd caps; do
	names $db.db > names.$db
	ntr=$(cut -d'|' -f2 names.$db | sort -u | wc -l)
	tap_is "$db: traces as the queries name them" \
		"$(csv $db.db runs | cut -d'|' -f1 | sort -u)" "$(cut -d'|' -f2 names.$db | sort -u)"
	# runs: one row per run, its identity and figures
	q $db.db "SELECT run_id, trace_path, allocator, kernel, align, trace_hash, trace_kernel, trace_nr_cpus,
		events, peak_slab_pages, final_slab_pages, align_violations FROM runs" | sort -t'|' -k1,1 |
		join -t'|' names.$db - | sort > want
	csv $db.db runs | awk -F'|' -v OFS='|' '{ print $2, $1, $4, $5, $6, $7, $10, $11, $12, $13, $14, $15, $16 }' |
		sort > got
	tap_is "$db: runs = the runs table, with each run's trace" "$(cat got)" "$(cat want)"

	# align-overhead: natural - none peak pages per trace, allocator, kernel, debug
	q $db.db "SELECT run_id, allocator, kernel, CASE WHEN slub_debug = '-' THEN 'off' ELSE slub_debug END,
		align, peak_slab_pages, final_slab_pages FROM runs" | sort -t'|' -k1,1 | join -t'|' names.$db - |
		awk -F'|' '{ k = $2 "|" $3 "|" $4 "|" $5; if ($6 == "natural") { np[k] = $7; nf[k] = $8 } else { up[k] = $7; uf[k] = $8 } }
		END { for (k in np) if (k in up) printf "%s|1|%d|%d|%d|%.3f|%d\n", k, up[k], np[k], np[k] - up[k], 100 * (np[k] - up[k]) / up[k], nf[k] - uf[k] }' |
		sort > want
	csv $db.db align-overhead | awk -F'|' -v OFS='|' '{ $9 = sprintf("%.3f", $9); print }' | sort > got
	tap_is "$db: align-overhead per trace = natural - none from runs (awk)" "$(cat got)" "$(cat want)"
	tap_is "$db: align-overhead has slub and slob for each of the $ntr traces" "$(wc -l < got)" $((2 * ntr))

	# top-waste: per run, the 5 root caches with most waste; SLOB: its caches
	# with allocations and one '(shared pages)' row from its last sample
	{
		q $db.db "SELECT c.run_id, c.cache, c.waste_rounding + c.waste_layout + c.waste_free_slots + c.waste_tail
			FROM caches c JOIN runs r USING (run_id) WHERE c.alias_of IS NULL
			AND (c.pages > 0 OR (r.allocator = 'slob' AND c.allocs > 0))"
		q $db.db "SELECT s.run_id, '(shared pages)', s.waste_free_slots + s.waste_tail
			FROM samples s JOIN runs r USING (run_id) WHERE r.allocator = 'slob'
			AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = s.run_id)"
	} | sort -t'|' -k1,1n -k3,3nr -k2,2 | awk -F'|' '++n[$1] <= 5' | sort -t'|' -s -k1,1 | join -t'|' names.$db - | sort > want
	csv $db.db top-waste | awk -F'|' -v OFS='|' '{ print $2, $1, $7, $9 }' | sort > got
	tap_is "$db: top-waste per trace and run = caches and samples (sqlite3, awk)" "$(cat got)" "$(cat want)"

	# unaligned-sites: violations summed by run and call site, align = none
	q $db.db "SELECT v.run_id, v.call_site, v.count FROM violations v JOIN runs r USING (run_id)
		WHERE r.align = 'none'" |
		awk -F'|' '{ s[$1 "|" $2] += $3 } END { for (k in s) print k "|" s[k] }' | sort -t'|' -k1,1 |
		join -t'|' names.$db - | sort > want
	csv $db.db unaligned-sites | awk -F'|' -v OFS='|' '{ print $2, $1, $6, $7 }' | sort > got
	tap_is "$db: unaligned-sites per trace = violations summed (awk)" "$(cat got)" "$(cat want)"
	tap_is "$db: ... and some sites see unaligned objects" "$(test -s got && echo yes)" yes

	# waste-by-kind: caches summed; SLOB: the last sample and final pages
	{
		q $db.db "SELECT c.run_id, sum(c.live_req_bytes), sum(c.waste_rounding), sum(c.waste_layout),
			sum(c.waste_free_slots), sum(c.waste_tail), sum(c.pages), 'caches' FROM caches c
			JOIN runs r USING (run_id) WHERE c.alias_of IS NULL AND r.allocator <> 'slob' GROUP BY c.run_id"
		q $db.db "SELECT s.run_id, s.live_req_bytes, s.waste_rounding, s.waste_layout, s.waste_free_slots,
			s.waste_tail, r.final_slab_pages, 'run totals' FROM samples s JOIN runs r USING (run_id)
			WHERE r.allocator = 'slob' AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = s.run_id)"
	} | sort -t'|' -k1,1 | join -t'|' names.$db - | sort > want
	csv $db.db waste-by-kind | awk -F'|' -v OFS='|' '{ print $2, $1, $7, $8, $9, $10, $11, $12, $13 }' | sort > got
	tap_is "$db: waste-by-kind per trace = caches summed (SLOB: run totals)" "$(cat got)" "$(cat want)"

	# seed-groups: traces have no seeds, so no group
	tap_is "$db: seed-groups has no rows (no seeds)" "$(csv $db.db seed-groups | wc -l)" 0

	# ---- plot and report ----
	"$bin" plot --db $db.db --out p.$db > out 2> err
	tap_is "$db: plot exits 0" "$? $(cat err)" "0 "
	"$bin" report --db $db.db --out r.$db > out 2> err
	tap_is "$db: report exits 0, index.html written" "$? $(cat err) $(test -s r.$db/index.html && echo html)" "0  html"
	bad=
	for png in p.$db/*.png r.$db/*.png; do
		if [ ! -s "$png" ] || ! file "$png" | grep -q 'PNG image data'; then bad="$bad $png"; fi
	done
	tap_is "$db: every PNG (plot and report) is a non-empty PNG" "$(ls p.$db/*.png r.$db/*.png | wc -l)$bad" 10
	tap_is "$db: the report has a section per trace" "$(grep -c '^<h2 class=trace>' r.$db/index.html)" "$ntr"

	# align-overhead.dat: one row per bar = the query's rows (mean = pct, n = pairs)
	awk -F'"' '!/^#/ && NF { split($9, v, " "); printf "%s|%s|%s|%s|%.3f|%s\n", $2, $4, $6, $8, v[1], v[3] }' \
		p.$db/align-overhead.dat | sort > got
	csv $db.db align-overhead | awk -F'|' '{ printf "%s|%s|%s|%s|%.3f|%s\n", $1, $2, $3, $4, $9, $5 }' | sort > want
	tap_is "$db: align-overhead.dat = the align-overhead query" "$(cat got)" "$(cat want)"
	# waste-by-kind.dat: KiB by kind per run, run id last = the query's bytes / 1024
	awk '!/^#/ && NF { n = NF; printf "%d|%s|%s|%s|%s\n", $n, $(n-4), $(n-3), $(n-2), $(n-1) }' \
		p.$db/waste-by-kind.dat | sort > got
	csv $db.db waste-by-kind | awk -F'|' '{ printf "%d|%.3f|%.3f|%.3f|%.3f\n", $2, $8 / 1024, $9 / 1024, $10 / 1024, $11 / 1024 }' |
		sort > want
	tap_is "$db: waste-by-kind.dat = the waste-by-kind query in KiB" "$(cat got)" "$(cat want)"
	# top-caches.dat: a block per trace, allocator and debug setting (one
	# run); its first 5 bars = that run's top-waste rows with waste (caches
	# without waste are not drawn)
	awk '/^# run / { id = $3; sub(":", "", id); k = 0; next } /^#/ || !NF { next }
		++k <= 5 { c = $0; sub(/^"/, "", c); sub(/" .*/, "", c); printf "%s|%s|%.3f\n", id, c, $NF }' \
		p.$db/top-caches.dat | sort > got
	csv $db.db top-waste | awk -F'|' -v OFS='|' '{ print $2, $7, $9 }' > tw
	awk -F'|' 'NR == FNR { r[$1] = 1; next } ($1 in r) && $3 > 0 { printf "%s|%s|%.3f\n", $1, $2, $3 / 1024 }' got tw |
		sed 's/^\([0-9]*\)|(shared pages)|/\1|(shared pages: free space)|/' | sort > want
	tap_is "$db: top-caches.dat blocks = the top-waste rows of their runs in KiB" "$(cat got)" "$(cat want)"
	tap_is "$db: top-caches.dat: a block per trace and allocator" "$(grep -c '^# run ' p.$db/top-caches.dat)" $((2 * ntr))
	# memory-time.dat: every line ends at its run's final slab KiB
	awk '/^# trace / { if (id != "") print id "|" last; id = $0; sub(/.*, run /, "", id); sub(/:.*/, "", id) }
		/^[0-9]/ { last = $2 } END { print id "|" last }' p.$db/memory-time.dat | sort > got
	q $db.db "SELECT run_id, final_slab_pages * 4 FROM runs" | sort > want
	tap_is "$db: memory-time.dat: each line ends at its run's final KiB" \
		"$(awk -F'|' 'NR == FNR { f[$1] = $2; next } f[$1] != $2 { print }' want got)" ""
	tap_is "$db: memory-time.dat: a block per trace at least" \
		"$(grep '^# trace ' p.$db/memory-time.dat | sed 's/, run .*//' | sort -u | wc -l)" "$ntr"
	# occupancy-cdf.dat: every block ends at F = 1
	tap_is "$db: occupancy-cdf.dat: every block ends at F = 1" \
		"$(awk '/^# trace / { if (l != "") print l } /^[0-9]/ { l = $2 } END { print l }' p.$db/occupancy-cdf.dat | sort -u)" "1.000000"
done

# the same label, two contents: the queries name both, with their hashes
tap_is "cd: align-overhead names trace.txt twice, by hash" \
	"$(csv cd.db align-overhead | cut -d'|' -f1 | sort -u | sed 's/#[0-9a-f]\{8\}$/#H/')" \
	"$(printf '%s\n' 'trace.txt #H' 'trace.txt #H')"
tap_is "cd: ... 8 runs, none hidden by one another" "$(csv cd.db runs | wc -l)" 8

# the captures' markers: one block per trace in memory-time-phases.dat, one
# row per distinct (time, label) of its runs, the final 'end' left out
for t in linux-6.1-qemu-2cpu linux-6.1-qemu-2cpu-fzpu linux-6.1-qemu-8cpu; do
	want=$(q caps.db "SELECT count(*) FROM (SELECT DISTINCT s.t_ns - r.t_first_ns, s.label FROM samples s
		JOIN runs r USING (run_id) WHERE r.trace_label = '$t' AND s.label IS NOT NULL
		AND s.seq < (SELECT max(seq) FROM samples m WHERE m.run_id = s.run_id))")
	got=$(awk -v t="# trace \"$t\"" '$0 == t { on = 1; next } /^# trace / { on = 0 } on && !/^#/ && NF' \
		p.caps/memory-time-phases.dat | wc -l)
	tap_is "caps: $t: phases rows = its distinct markers" "$got" "$want"
done

# Study 2 without a 6.1 run: the change over 6.1 has no value; its panel
# says so in its title and keys only the parked objects, which it draws.
"$bin" replay "$S/linux-6.18-kmem.dat" --kernel 6.18 --db sh.db -q >/dev/null 2>&1
"$bin" replay "$S/linux-6.18-kmem.dat" --kernel 7.0 --db sh.db -q >/dev/null 2>&1
"$bin" report --db sh.db --out r.sh --study sheaves > out 2> err
tap_is "study 2 without 6.1: report exits 0" "$? $(cat err)" "0 "
tap_like "study 2 without 6.1: the panel's title names the series with no value" \
	"$(grep -m1 '^set title' r.sh/study-sheaves.gp)" "(no value: peak slab pages over 6.1 (per-CPU partial lists))'"
tap_is "study 2 without 6.1: keyed: the parked objects and the hatching only" \
	"$(grep -m1 -c 'keyentry.*over 6.1' r.sh/study-sheaves.gp) $(grep -c 'keyentry.*parked' r.sh/study-sheaves.gp)" "0 2"
tap_done
