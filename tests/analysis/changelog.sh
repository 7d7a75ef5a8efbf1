#!/bin/sh
# changelog.sh - schema version 3 stores the per-key time series
# (sample_caches, sample_slabinfo, sample_orders) as change logs, and the
# views sample_caches_full, ... give the series versions 1 and 2 stored (one
# row per sample and key). Checked against figures derived without the
# views: awk carries each change log forward over the samples, the
# per-sample totals of the samples and sample_metrics tables, a trace where a
# cache comes to hold nothing (SLAB's reaping), and a version 2 file made
# from the full series, read before and after its upgrade. TAP.
#   $1 slabsim binary, $2 tests/cli/data, $3 the bundled 6.1 boot trace
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2") boot=$(abs_path "$3")
tap_scratch

q() { sqlite3 -batch -init /dev/null "$@"; }

# Three allocators on the boot trace, a sample every 50 events (61 samples
# each), and SLAB's reaping trace (slab.sh: kmalloc-64's only slab goes back
# between the markers s2 and s3, so the cache ends up holding nothing).
for a in slub slab slob; do
	"$bin" replay "$boot" --kernel 6.1 --allocator "$a" --sample-every 50ev --db b.db -q \
		--no-progress 2> err
	tap_is "replay $a: exit 0, nothing on stderr" "$? $(cat err)" "0 "
done
"$bin" replay "$data/slab-reap.trace" --allocator slab --kernel 5.4 --nr-cpus 1 --db b.db -q \
	--no-progress 2> err
tap_is "replay slab-reap: exit 0, nothing on stderr" "$? $(cat err)" "0 "

# ---- the rule, recomputed with awk ----
# carry TABLE KEY NV ZEROS: the full series of the change log TABLE (key
# column KEY, NV value columns) by the rule of docs/schema.md, computed by
# awk from the table and the samples: a key's value at a sample is its latest
# row at or before it; with ZEROS=1 a key whose value is all zeros is left
# out. Rows "run|seq|key|values...", sorted.
carry() {
	{
		q b.db "SELECT 'S', run_id, seq FROM samples ORDER BY run_id, seq"
		q b.db "SELECT 'R', * FROM $1 ORDER BY run_id, seq, $2"
	} | awk -F'|' -v nv="$3" -v zeros="$4" '
		$1 == "S" { ns[$2]++; sseq[$2, ns[$2]] = $3; next }
		{ # rows come in seq order within a run
			k = $2 SUBSEP $4
			if (!(k in nr)) { keys[$2] = keys[$2] SUBSEP $4 }
			nr[k]++; rseq[k, nr[k]] = $3
			v = $5; for (i = 6; i < 5 + nv; i++) v = v "|" $i
			rval[k, nr[k]] = v
		}
		END {
			for (run in ns) {
				n = split(substr(keys[run], 2), kk, SUBSEP)
				for (j = 1; j <= n; j++) {
					k = run SUBSEP kk[j]; r = 0
					for (i = 1; i <= ns[run]; i++) {
						while (r < nr[k] && rseq[k, r + 1] <= sseq[run, i]) r++
						if (!r) continue
						v = rval[k, r]; z = v; gsub(/[0|]/, "", z)
						if (zeros && z == "") continue
						print run "|" sseq[run, i] "|" kk[j] "|" v
					}
				}
			}
		}' | sort
}
view() { q b.db "SELECT * FROM $1" | sort; }

carry sample_caches cache 4 1 > caches.awk
carry sample_slabinfo cache 6 1 > slabinfo.awk
carry sample_orders page_order 3 0 > orders.awk
view sample_caches_full > caches.view
view sample_slabinfo_full > slabinfo.view
view sample_orders_full > orders.view
tap_is "sample_caches_full = the change log carried forward by awk ($(wc -l < caches.awk) rows)" \
	"$(cmp -s caches.awk caches.view && echo same)" same
tap_is "sample_slabinfo_full = the change log carried forward by awk ($(wc -l < slabinfo.awk) rows)" \
	"$(cmp -s slabinfo.awk slabinfo.view && echo same)" same
tap_is "sample_orders_full = the change log carried forward by awk ($(wc -l < orders.awk) rows)" \
	"$(cmp -s orders.awk orders.view && echo same)" same
# 3 x 61 boot samples and the reaping trace's 4 (3 markers and the end)
tap_is "samples: 3 x 61 + 4" "$(q b.db "SELECT count(*) FROM samples")" 187
tap_is "sample_orders_full: 11 orders at every sample of the runs with a page allocator" \
	"$(q b.db "SELECT count(*) = 11 * (SELECT count(*) FROM samples) FROM sample_orders_full")" 1

# ---- a change log: rows only where a key changes ----
# same TABLE KEY: rows equal to their key's previous row (must be 0), and
# first rows of a key that are all zeros (must be 0 for the cache tables).
same() {
	q b.db "SELECT * FROM $1 ORDER BY run_id, $2, seq" | awk -F'|' -v key=3 '
		{ k = $1 "|" $key; v = ""; for (i = 4; i <= NF; i++) v = v "|" $i
		  z = v; gsub(/[0|]/, "", z)
		  if (k == pk && v == pv) dup++
		  if (k != pk && z == "") zfirst++
		  pk = k; pv = v }
		END { print dup + 0, zfirst + 0 }'
}
tap_is "sample_caches: no row repeats its key's previous one, none starts with zeros" \
	"$(same sample_caches cache)" "0 0"
tap_is "sample_slabinfo: likewise" "$(same sample_slabinfo cache)" "0 0"
tap_is "sample_orders: no row repeats its order's previous one" \
	"$(same sample_orders page_order | cut -d' ' -f1)" "0"
tap_is "sample_orders: the 11 orders of each run's first sample, zeros included (4 runs)" \
	"$(q b.db "SELECT count(*) FROM sample_orders o WHERE seq = 0")" 44
for t in sample_caches sample_slabinfo sample_orders; do
	n=$(q b.db "SELECT (SELECT count(*) FROM $t), (SELECT count(*) FROM ${t}_full)")
	tap_like "$t: fewer rows than the full series ($n)" \
		"$(q b.db "SELECT (SELECT count(*) FROM $t) < (SELECT count(*) FROM ${t}_full)")" 1
done

# ---- the full series against the other tables, at every sample ----
# SLUB and SLAB caches hold every slab page and live object of the boot
# trace (it has no large kmalloc): samples.slab_pages and live_objs are the
# sums over sample_caches_full; sample_metrics' slabinfo totals are the sums
# over the caches of sample_slabinfo_full with slabs and objects (slabinfo
# -T's rule); free_pages and heap pages are the page allocator's blocks.
tap_is "samples: slab_pages and live_objs = sums over sample_caches_full (SLUB, SLAB)" \
	"$(q b.db "SELECT count(*) FROM samples s JOIN runs r USING (run_id)
		WHERE r.allocator IN ('slub', 'slab') AND r.trace_path LIKE '%boot%' AND
		(s.slab_pages <> (SELECT total(pages) FROM sample_caches_full c
			WHERE c.run_id = s.run_id AND c.seq = s.seq) OR
		 s.live_objs <> (SELECT total(live_objs) FROM sample_caches_full c
			WHERE c.run_id = s.run_id AND c.seq = s.seq))")" 0
tap_is "sample_metrics: si_* = sums over sample_slabinfo_full, at all 187 samples" \
	"$(q b.db "SELECT count(*), sum(m.si_space = x.space AND m.si_used = x.used AND
		m.si_objects = x.objects AND m.si_partobj = x.partobj AND m.si_slabs = x.slabs AND
		m.si_partial = x.partial) FROM sample_metrics m LEFT JOIN (SELECT run_id, seq,
		total(space) AS space, total(used) AS used, total(objects) AS objects,
		total(objects_partial) AS partobj, total(slabs) AS slabs, total(partial) AS partial
		FROM sample_slabinfo_full WHERE slabs > 0 AND objects > 0 GROUP BY run_id, seq
		UNION ALL SELECT run_id, seq, 0, 0, 0, 0, 0, 0 FROM samples s WHERE NOT EXISTS
		(SELECT 1 FROM sample_slabinfo_full f WHERE f.run_id = s.run_id AND f.seq = s.seq
		 AND slabs > 0 AND objects > 0)) x
		ON x.run_id = m.run_id AND x.seq = m.seq")" "187|187"
tap_is "sample_metrics: free_pages = Σ free_blocks << order, heap = Σ held_blocks << order" \
	"$(q b.db "SELECT count(*) FROM sample_metrics m WHERE
		m.free_pages <> (SELECT sum(free_blocks << page_order) FROM sample_orders_full o
			WHERE o.run_id = m.run_id AND o.seq = m.seq) OR
		m.heap_bytes <> 4096 * (SELECT sum(held_blocks << page_order) FROM sample_orders_full o
			WHERE o.run_id = m.run_id AND o.seq = m.seq)")" 0

# ---- a cache that comes to hold nothing: one row of zeros ----
reap=$(q b.db "SELECT run_id FROM runs WHERE trace_path LIKE '%slab-reap%'")
at() { # at TABLE COLUMNS: "label: columns" of kmalloc-64 in TABLE at each sample
	q b.db "SELECT s.label || ': ' || coalesce((SELECT $2 FROM $1 c WHERE c.run_id = s.run_id
		AND c.seq = s.seq AND c.cache = 'kmalloc-64'), '-') FROM samples s
		WHERE s.run_id = $reap ORDER BY s.seq"
}
tap_is "reaping: sample_caches holds the drop to nothing as a row of zeros" \
	"$(at sample_caches "slabs || ' ' || pages || ' ' || live_objs || ' ' || live_req_bytes")" \
	"s1 all freed: 1 1 0 0
s2 10 s later: -
s3 20 s later: 0 0 0 0
end: -"
tap_is "reaping: sample_caches_full has kmalloc-64 until s2, not after" \
	"$(at sample_caches_full "slabs || ' ' || pages || ' ' || live_objs")" \
	"s1 all freed: 1 1 0
s2 10 s later: 1 1 0
s3 20 s later: -
end: -"
# slab.sh's working: at s1 all 64 objects sit in CPU 0's array (active); by
# s2 (11 s) the reaps gave 24 + 24 + 8 + 4 back to the slab, 4 stay active.
tap_is "reaping: sample_slabinfo likewise (64, then 4 active objects, then zeros)" \
	"$(at sample_slabinfo "slabs || ' ' || objects || ' ' || space")" \
	"s1 all freed: 1 64 4096
s2 10 s later: 1 4 4096
s3 20 s later: 0 0 0
end: -"
tap_is "reaping: sample_slabinfo_full" "$(at sample_slabinfo_full "slabs || ' ' || objects")" \
	"s1 all freed: 1 64
s2 10 s later: 1 4
s3 20 s later: -
end: -"

# ---- a version 2 file: a row for every sample, none for an empty cache ----
cp b.db v2.db
q v2.db "PRAGMA foreign_keys = OFF;
	CREATE TEMP TABLE c AS SELECT * FROM sample_caches_full;
	CREATE TEMP TABLE s AS SELECT * FROM sample_slabinfo_full;
	CREATE TEMP TABLE o AS SELECT * FROM sample_orders_full;
	DROP VIEW sample_caches_full; DROP VIEW sample_slabinfo_full; DROP VIEW sample_orders_full;
	DELETE FROM sample_caches; INSERT INTO sample_caches SELECT * FROM temp.c;
	DELETE FROM sample_slabinfo; INSERT INTO sample_slabinfo SELECT * FROM temp.s;
	DELETE FROM sample_orders; INSERT INTO sample_orders SELECT * FROM temp.o;
	PRAGMA user_version = 2"
tables() { # tables DB: the three per-key series as the file's tables hold them
	for t in sample_caches sample_slabinfo sample_orders; do
		q "$1" "SELECT '$t', * FROM $t ORDER BY 2, 3, 4"
	done
}
fulls() { # fulls DB: the three full series
	for t in sample_caches sample_slabinfo sample_orders; do
		q "$1" "SELECT '$t', * FROM ${t}_full ORDER BY 2, 3, 4"
	done
}
tables v2.db > v2.rows
tap_is "v2 file: version 2, the full series in the tables, no views" \
	"$(q v2.db "SELECT user_version FROM pragma_user_version;
		SELECT count(*) FROM sqlite_master WHERE type = 'view'")
$(wc -l < v2.rows)" "2
0
$(cat caches.view slabinfo.view orders.view | wc -l)"
# read without upgrading (plot and query open files read-only)
# (the runs have no natural/none pairs: plot says align-overhead is not drawn)
"$bin" plot --db v2.db --out p2 --no-render > /dev/null 2> err
tap_is "v2 file: plot exits 0" "$?" 0
tap_is "v2 file: reading it left it at version 2" "$(q v2.db "PRAGMA user_version")" 2
"$bin" plot --db b.db --out p3 --no-render > /dev/null 2> err
tap_is "v3 file: plot exits 0" "$?" 0
tap_is "plots of the v2 file and of the v3 file: the same 5 .dat files (markers of the reaping trace)" \
	"$(for f in p3/*.dat; do cmp -s "$f" "p2/${f#p3/}" || echo "$f differs"; done
	ls p2/*.dat | wc -l)" 5
tap_is "occupancy-cdf.dat: one block per slab allocator run of the boot trace (SLUB, SLAB)" \
	"$(grep -c '^# trace .*boot.*, run' p3/occupancy-cdf.dat)" 2
# the reaping trace's figures: its cache empties
"$bin" plot --db v2.db --out r2 --trace "$data/slab-reap.trace" --no-render > /dev/null 2> err
"$bin" plot --db b.db --out r3 --trace "$data/slab-reap.trace" --no-render > /dev/null 2> err
tap_is "plots of the reaping run, v2 and v3 file: the same .dat files, 2 values in the CDF" \
	"$(for f in r3/*.dat; do cmp -s "$f" "r2/${f#r3/}" || echo "$f differs"; done
	grep '^# trace' r2/occupancy-cdf.dat | sed 's/.*(//')" "2 values)"

"$bin" merge m.db v2.db -q 2> err
tap_is "a v2 input does not merge into a v3 file: exit 3, says how to upgrade" \
	"$? $(grep -c 'schema version 2, but m.db has 6 (upgrade the older file first' err)" "3 1"
# Upgrade: merging into it opens it with rec_open. Its runs are the ones of
# b.db, so the merge copies nothing.
"$bin" merge v2.db b.db -q 2> err
tap_is "v2 -> 3: merge into the v2 file exits 0" "$? $(cat err)" "0 "
tap_is "v2 -> 6: user_version 6, the runs unchanged" \
	"$(q v2.db "SELECT user_version FROM pragma_user_version; SELECT count(*) FROM runs")" "6
4"
tables v2.db > v3.rows
# every v2 row is kept; the rows added are rows of zeros, one where a cache
# had a row at the sample before and has none at this one (from v2.rows with
# awk: the reaping run's kmalloc-64 at s3, in both cache tables, and SLOB's
# caches, which hold no slabs, whenever their last object goes)
q v2.db "SELECT run_id, seq FROM samples ORDER BY run_id, seq" > v2.samples
want_zero=$(awk -F'|' '
	NR == FNR { if (prev[$1] != "") nexts[$1, prev[$1]] = $2; prev[$1] = $2; next }
	$1 == "sample_orders" { next }
	{ have[$1, $2, $3, $4] = 1; rows[++n] = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 }
	END {
		for (i = 1; i <= n; i++) {
			split(rows[i], f, SUBSEP)
			if (!((f[2], f[3]) in nexts)) continue
			nx = nexts[f[2], f[3]]
			if (!((f[1], f[2], nx, f[4]) in have)) print f[1] "|" f[2] "|" nx "|" f[4]
		}
	}' v2.samples v2.rows | sort)
slob=$(q b.db "SELECT run_id FROM runs WHERE allocator = 'slob'")
tap_is "v2 -> 3: awk expects rows of zeros for the reaping run's kmalloc-64" \
	"$(printf '%s\n' "$want_zero" | grep "|$reap|")" "sample_caches|$reap|2|kmalloc-64
sample_slabinfo|$reap|2|kmalloc-64"
tap_is "v2 -> 3: ... and SLOB's caches (sample_caches only), none in other runs" \
	"$(printf '%s\n' "$want_zero" | grep -v "|$reap|" | cut -d'|' -f1,2 | sort -u)" \
	"sample_caches|$slob"
tap_is "v2 -> 3: the v2 rows are kept and only those rows of zeros added" \
	"$(sort v2.rows v3.rows | uniq -u | sed 's/|/ /4;s/ .*//')" "$(printf '%s\n' "$want_zero" | sort)"
tap_is "v2 -> 3: the added rows are zeros" \
	"$(sort v2.rows v3.rows | uniq -u | cut -d'|' -f5- | sort -u)" "0|0|0|0
0|0|0|0|0|0"
fulls v2.db > v3.full
tap_is "v2 -> 3: the full views give the v2 rows" "$(cmp -s v2.rows v3.full && echo same)" same
rm -rf p2
"$bin" plot --db v2.db --out p2 --no-render > /dev/null 2> err
tap_is "v2 -> 3: plot .dat files unchanged by the upgrade" \
	"$(for f in p3/*.dat; do cmp -s "$f" "p2/${f#p3/}" || echo "$f differs"; done)" ""
tap_is "v2 -> 3: integrity_check" "$(q v2.db "PRAGMA integrity_check")" ok

tap_done
