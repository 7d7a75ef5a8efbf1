#!/bin/sh
# oldschema.sh - files of schema versions 1-4 are read as they are
# (docs/schema.md): `report`, `plot` and `query align-pay`/`align-pay-caches`
# on them exit 0, the who-pays section marked not recorded (align_cost came
# with version 5; before, they exited 3 "no such table: align_cost"). The
# old files are made from a version 5 file by undoing each upgrade of
# docs/schema.md: 5 -> 4 drops align_cost, 4 -> 3 the trace identity
# columns, 3 -> 2 stores the full series in the tables, 2 -> 1 drops the
# tables of docs/metrics.md; 6 -> 5 drops sample_sheaves and cache_sheaves
# (study-sheaves then reads parked objects as not recorded). Also: align-pay's need column is filled (it
# was empty for policies without a sites file). TAP.
#   $1 slabsim binary, $2 the bundled 6.1 boot trace
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") boot=$(abs_path "$2")
tap_scratch

q() { sqlite3 -batch -init /dev/null "$@"; }

for al in none natural cap512; do
	"$bin" replay "$boot" --kernel 6.1 --nr-cpus 2 --slub-debug FZPU --align $al \
		--sample-every 100ev --db v5.db -q 2> err
	tap_is "replay align=$al: exit 0" "$?" 0
done

# ---- need: the rule each paying call site asks for ----
"$bin" query align-pay --db v5.db --format csv > pay.csv 2> err
tap_is "v5: align-pay exits 0, nothing on stderr" "$? $(cat err)" "0 "
tap_is "v5: align-pay: every row's need is its run's policy (no sites file)" \
	"$(awk -F, 'NR > 1 { print $4 "=" $7 }' pay.csv | sort | uniq -c | awk '{ print $2 }')" \
	"cap512=cap512
natural=natural"
tap_is "v5: align-pay: 20 paying sites under natural, some under cap512" \
	"$(awk -F, 'NR > 1 && $4 == "natural"' pay.csv | wc -l) $(awk -F, 'NR > 1 && $4 == "cap512"' pay.csv | wc -l | awk '{ print ($1 > 0) }')" \
	"20 1"
"$bin" report --db v5.db --out r5 > out 2> err
tap_is "v5: report exits 0" "$?" 0
tap_is "v5: report's who-pays table has no empty need cell" \
	"$(sed -n '/Who pays for the alignment/,/<\/table>/p' r5/index.html |
		grep '^<tr><td>' | awk -F'</td>' '{ sub(/.*>/, "", $7); if ($7 == "") n++ } END { print n + 0 }')" 0

# ---- the older versions ----
cp v5.db v4.db
q v4.db "DROP TABLE align_cost; PRAGMA user_version = 4"
cp v4.db v3.db
q v3.db "ALTER TABLE runs DROP COLUMN trace_label; ALTER TABLE runs DROP COLUMN trace_hash;
	ALTER TABLE runs DROP COLUMN trace_kernel; ALTER TABLE runs DROP COLUMN trace_nr_cpus;
	PRAGMA user_version = 3"
cp v3.db v2.db
q v2.db "PRAGMA foreign_keys = OFF;
	CREATE TEMP TABLE c AS SELECT * FROM sample_caches_full;
	CREATE TEMP TABLE s AS SELECT * FROM sample_slabinfo_full;
	CREATE TEMP TABLE o AS SELECT * FROM sample_orders_full;
	DROP VIEW sample_caches_full; DROP VIEW sample_slabinfo_full; DROP VIEW sample_orders_full;
	DELETE FROM sample_caches; INSERT INTO sample_caches SELECT * FROM temp.c;
	DELETE FROM sample_slabinfo; INSERT INTO sample_slabinfo SELECT * FROM temp.s;
	DELETE FROM sample_orders; INSERT INTO sample_orders SELECT * FROM temp.o;
	PRAGMA user_version = 2"
cp v2.db v1.db
q v1.db "PRAGMA foreign_keys = OFF; DROP TABLE run_metrics; DROP TABLE perf_callers;
	DROP TABLE perf_ptrs; DROP TABLE sample_metrics; DROP TABLE sample_orders;
	DROP TABLE sample_slabinfo; PRAGMA user_version = 1"
for v in 4 3 2 1; do
	tap_is "v$v file: version $v, no align_cost" \
		"$(q v$v.db "SELECT user_version FROM pragma_user_version;
			SELECT count(*) FROM sqlite_master WHERE name = 'align_cost'")" "$v
0"
	for qn in align-pay align-pay-caches; do
		"$bin" query $qn --db v$v.db > out 2> err
		tap_is "v$v: query $qn exits 0 with no rows" "$? $(tail -1 out)" "0 (no rows)"
		tap_like "v$v: query $qn says why" "$(cat err)" \
			"v$v.db is schema version $v: align_cost (who pays, version 5) was not recorded"
	done
	"$bin" query align-overhead --db v$v.db --format csv > out 2> err
	tap_is "v$v: query align-overhead: the natural/none pair" \
		"$? $(cut -d, -f2,4,5 out | tail -1)" "0 slub,FZPU,1"
	"$bin" report --db v$v.db --out r$v > out 2> err
	tap_is "v$v: report exits 0, nothing on stderr" "$? $(cat err)" "0 "
	tap_like "v$v: report marks who pays not recorded" "$(cat r$v/index.html)" \
		"Not recorded: this file is schema version $v; the table align_cost came with version 5."
	tap_is "v$v: reading left the file at version $v" "$(q v$v.db "PRAGMA user_version")" $v
done

# ---- version 6 -> 5: the sheaves' tables (sample_sheaves, cache_sheaves) ----
"$bin" replay "$boot" --kernel 7.0 --nr-cpus 2 --sample-every 100ev --db s6.db -q 2> err
tap_is "v6: a 7.0 replay records parked objects" \
	"$? $(q s6.db "PRAGMA user_version; SELECT count(*) > 0, max(parked_objs) > 0 FROM sample_sheaves")" "0 6
1|1"
cp s6.db s5.db
q s5.db "DROP TABLE sample_sheaves; DROP TABLE cache_sheaves; PRAGMA user_version = 5"
"$bin" query study-sheaves --db s6.db --format csv > out 2> err
tap_like "v6: study-sheaves counts parked objects" "$(cut -d, -f2,8-10 out | tail -1)" "7.0,"
tap_is "v6: ... more than none" "$(tail -1 out | awk -F, '{ print ($9 > 0) }')" 1
"$bin" query study-sheaves --db s5.db --format csv > out 2> err
tap_is "v5: study-sheaves exits 0, parked objects not recorded (empty, not 0)" \
	"$? $(cat err)$(tail -1 out | cut -d, -f2,9,10)" "0 7.0,,"
tap_is "v5: reading left the file at version 5" "$(q s5.db "PRAGMA user_version")" 5
cp s5.db s5m.db
"$bin" merge s6.db s5m.db -q 2> err
tap_is "v5: merges into a version 6 file (the run is s6.db's already: nothing copied, exit 0)" \
	"$? $(cat err)$(q s6.db "SELECT count(*) FROM runs")" "0 1"
"$bin" replay "$boot" --kernel 7.0 --nr-cpus 2 --sample-every 100ev --db s5.db -q 2> err
tap_is "v5: a replay into it upgrades it to version 6 and records the new run's parked objects" \
	"$? $(q s5.db "PRAGMA user_version; SELECT count(DISTINCT run_id) FROM sample_sheaves")" "0 6
1"
tap_done
