#!/bin/sh
# dump.sh - replay one trace into a fresh results database and print a
# canonical text dump of it: every table of docs/schema.md, rows sorted by
# their primary key, the per-key time series as the full series (the *_full
# views: one row per sample and key, what schema versions 1 and 2 stored)
# and then as stored (change logs), without the columns that vary from run to run
# (created_utc, finished_utc, version, wall_seconds: only their presence is
# shown). Used by golden.sh (compare) and update.sh (regenerate).
#   dump.sh SLABSIM TRACE DB [REPLAY-OPTIONS...] > dump.txt
# DB must not exist. The replay runs with --check (the model's invariant
# walk after every event; the results are the same without it). The trace is
# replayed through a symlink named after its basename, so runs.trace_path and
# runs.config_hash do not depend on where the source tree lives.
set -u
[ $# -ge 3 ] || { echo "usage: dump.sh SLABSIM TRACE DB [OPTIONS...]" >&2; exit 1; }
bin=$1 trace=$2 db=$3
shift 3
[ ! -e "$db" ] || { echo "dump.sh: $db exists" >&2; exit 1; }
case $trace in /*) ;; *) trace=$PWD/$trace ;; esac
case $bin in */*) case $bin in /*) ;; *) bin=$PWD/$bin ;; esac ;; esac
case $db in /*) ;; *) db=$PWD/$db ;; esac
link=$(mktemp -d) || exit 1
trap 'rm -rf "$link"' EXIT
name=$(basename "$trace")
ln -s "$trace" "$link/$name" || exit 1
(cd "$link" && "$bin" replay "$name" --db "$db" --quiet --no-progress --check "$@") || exit 1

# columns TABLE: the table's column list, so a schema change shows in the diff
columns() {
	echo ".headers off"
	echo "SELECT '-- columns: ' || group_concat(name, ',') FROM
		(SELECT name FROM pragma_table_info('$1') ORDER BY cid);"
	echo ".headers on"
}

sqlite3 -batch -init /dev/null "$db" <<SQL || exit 1
.headers on
.mode list
.separator "|"
.nullvalue NULL
.print "== file"
SELECT application_id, user_version FROM pragma_application_id, pragma_user_version;
.print "== runs"
$(columns runs)
SELECT run_id, status, command, trace_path, allocator, kernel, align, slub_debug, nr_cpus,
       slub_min_order, slub_max_order, slub_min_objects, sample_every, config_json,
       config_hash, events, t_first_ns, t_last_ns, final_slab_pages, peak_slab_pages,
       peak_slab_pages_t_ns, final_large_pages, final_live_objs, final_live_req_bytes,
       align_violations, trace_label, trace_hash, trace_kernel, trace_nr_cpus,
       created_utc GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*Z' AS created_utc_ok,
       finished_utc GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*Z' AS finished_utc_ok,
       version <> '' AS version_ok, wall_seconds >= 0 AS wall_seconds_ok
FROM runs ORDER BY run_id;
.print "== counts"
$(columns counts)
SELECT * FROM counts ORDER BY run_id, tbl, kind;
.print "== caches"
$(columns caches)
SELECT * FROM caches ORDER BY run_id, cache;
.print "== sites"
$(columns sites)
SELECT * FROM sites ORDER BY run_id, call_site;
.print "== violations"
$(columns violations)
SELECT * FROM violations ORDER BY run_id, cache, call_site, size;
.print "== align_cost"
$(columns align_cost)
SELECT * FROM align_cost ORDER BY run_id, cache, call_site;
.print "== samples"
$(columns samples)
SELECT * FROM samples ORDER BY run_id, seq;
.print "== sample_caches"
$(columns sample_caches_full)
SELECT * FROM sample_caches_full ORDER BY run_id, seq, cache;
.print "== run_metrics"
$(columns run_metrics)
SELECT * FROM run_metrics ORDER BY run_id;
.print "== perf_callers"
$(columns perf_callers)
SELECT * FROM perf_callers ORDER BY run_id, call_site;
.print "== perf_ptrs"
$(columns perf_ptrs)
SELECT * FROM perf_ptrs ORDER BY run_id, ptr;
.print "== sample_metrics"
$(columns sample_metrics)
SELECT * FROM sample_metrics ORDER BY run_id, seq;
.print "== sample_orders"
$(columns sample_orders_full)
SELECT * FROM sample_orders_full ORDER BY run_id, seq, page_order;
.print "== sample_slabinfo"
$(columns sample_slabinfo_full)
SELECT * FROM sample_slabinfo_full ORDER BY run_id, seq, cache;
.print "== sample_caches: change log"
$(columns sample_caches)
SELECT * FROM sample_caches ORDER BY run_id, seq, cache;
.print "== sample_orders: change log"
$(columns sample_orders)
SELECT * FROM sample_orders ORDER BY run_id, seq, page_order;
.print "== sample_slabinfo: change log"
$(columns sample_slabinfo)
SELECT * FROM sample_slabinfo ORDER BY run_id, seq, cache;
SQL
