#!/bin/sh
# real_inputs.sh - real `trace-cmd report` and `perf script` text, and the
# bundled trace.dat samples, replayed; the counts are derived here with awk
# from the text, independently of the reader. TAP output.
#   $1 slabsim binary, $2 tests/traces/data, $3 traces/samples
# The text files are excerpts of real output (tests/traces/data/README.md);
# the trace.dat samples and their report text are described in
# traces/samples/README.md.
set -u
. "$(dirname "$0")/../cli/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2") samples=$(abs_path "$3")
tap_scratch

tap_ok_if() { # NAME COMMAND...: ok when COMMAND succeeds
	n=$1
	shift
	if "$@"; then tap_ok "$n"; else tap_not_ok "$n"; fi
}
json() { # FILE [ARGS...]: the JSON summary, the trace's name left out
	f=$1
	shift
	"$bin" replay "$f" --kernel 6.1 --format json --no-db "$@" 2>"$tmp/err" | grep -v '^  "trace": '
}
# num JSON SECTION KEY: the number after "KEY": in the line of "SECTION"
num() {
	printf '%s\n' "$1" | grep "\"$2\": {" | head -1 |
		sed -E "s/.*\"$3\": ([0-9]+).*/\\1/"
}
# awk_counts FILE: "kmalloc K kmem_cache_alloc A kfree F kmem_cache_free C
# nullfree N lines L" of a report/perf-script text, by the event names
awk_counts() {
	awk '{
		for (i = 1; i <= NF; i++) if ($i ~ /^(kmem:)?(kmalloc|kmem_cache_alloc|kfree|kmem_cache_free):$/) {
			e = $i; sub(/^kmem:/, "", e); sub(/:$/, "", e); n[e]++
			if (e == "kfree" && $0 ~ / ptr=\(nil\)/) nil++
			break
		}
	} END { printf "kmalloc %d kmem_cache_alloc %d kfree %d kmem_cache_free %d nullfree %d lines %d",
		n["kmalloc"], n["kmem_cache_alloc"], n["kfree"], n["kmem_cache_free"], nil, NR }' "$1"
}
got_counts() { # JSON
	printf 'kmalloc %s kmem_cache_alloc %s kfree %s kmem_cache_free %s nullfree %s lines %s' \
		"$(num "$1" events kmalloc)" "$(num "$1" events kmem_cache_alloc)" \
		"$(num "$1" events kfree)" "$(num "$1" events kmem_cache_free)" \
		"$(num "$1" anomalies free_null)" "$(num "$1" lines total)"
}

# ---- real text: every event read, kfree(NULL) as "ptr=(nil)" --------------
for f in tracecmd-report-6.18.txt perf-script-6.18.txt; do
	j=$(json "$data/$f")
	tap_is "$f: event counts and NULL frees as awk counts them" "$(got_counts "$j")" \
		"$(awk_counts "$data/$f")"
	tap_is "$f: no malformed line" "$(num "$j" lines malformed)" 0
	nil=$(grep -c 'ptr=(nil)' "$data/$f")
	tap_ok_if "$f: holds NULL pointers ($nil)" [ "$nil" -gt 0 ]
	tap_is "$f: --strict reads it all" \
		"$("$bin" replay "$data/$f" --kernel 6.1 --no-db --strict >/dev/null 2>&1; echo $?)" 0
done

# ---- trace.dat: the JSON of its report text --------------------------------
if "$bin" replay "$samples/linux-6.18-kmem.dat" --no-db >/dev/null 2>"$tmp/err"; then
	for s in linux-6.18-kmem linux-6.18-kmem-lost linux-6.18-kmem-pagefree; do
		zstd -dc "$samples/$s.report.zst" >"$tmp/$s.txt"
		jd=$(json "$samples/$s.dat")
		jt=$(json "$tmp/$s.txt")
		# but for the lost_events sources: the text has no buffer stats
		tap_is "$s.dat: the JSON of its report text, lost_events aside" \
			"$(printf '%s\n' "$jd" | grep -v '^  "lost_events": ')" \
			"$(printf '%s\n' "$jt" | grep -v '^  "lost_events": ')"
		tap_is "$s.dat: lost events in total as in its report text" \
			"$(num "$jd" lost_events total)" "$(num "$jt" lost_events total)"
		tap_is "$s.dat: event counts as awk counts them in the report" "$(got_counts "$jd")" \
			"$(awk_counts "$tmp/$s.txt")"
		tap_is "$s.dat on a pipe: the same JSON" \
			"$(cat "$samples/$s.dat" | "$bin" replay - --kernel 6.1 --format json --no-db |
				grep -v '^  "trace": ')" "$jd"
		if command -v trace-cmd >/dev/null; then
			trace-cmd report -i "$samples/$s.dat" >"$tmp/live.txt" 2>/dev/null
			tap_ok_if "$s.dat: the bundled report is what this trace-cmd prints" \
				cmp -s "$tmp/live.txt" "$tmp/$s.txt"
		else
			tap_skip "$s.dat: the bundled report is what trace-cmd prints" "no trace-cmd"
		fi
	done
	jd=$(json "$samples/linux-6.18-kmem-lost.dat")
	lost=$(awk -F'[][ ]+' '/EVENTS DROPPED\]$/ { n += $2 } END { print n + 0 }' \
		"$tmp/linux-6.18-kmem-lost.txt")
	tap_is "lost sample: the dropped-events notes' sum" "$(num "$jd" lines lost_events)" "$lost"
	tap_is "lost sample: every source, the notes' and the stored stats', and the total" \
		"$(printf '%s\n' "$jd" | grep '^  "lost_events": ')" \
		"  \"lost_events\": {\"markers\": $lost, \"header\": null, \"buffer_stats\": $lost, \"perf_records\": null, \"capture\": null, \"total\": $lost},"
	tap_is "lost sample: its report text has the notes alone" \
		"$(json "$tmp/linux-6.18-kmem-lost.txt" | grep '^  "lost_events": ')" \
		"  \"lost_events\": {\"markers\": $lost, \"header\": null, \"buffer_stats\": null, \"perf_records\": null, \"capture\": null, \"total\": $lost},"
	# the page frees (kmem:mm_page_free) are read from the records: 356,
	# as many as its report's lines, the direct map's base learnt from the
	# sysctl reads' kfree and page free pairs as from the text
	jd=$(json "$samples/linux-6.18-kmem-pagefree.dat")
	tap_is "page-free sample: its page frees, all of the report's" \
		"$(printf '%s\n' "$jd" | grep -o '"page_frees": [0-9]*') $(zstd -dc "$samples/linux-6.18-kmem-pagefree.report.zst" | grep -c ' mm_page_free: ')" \
		'"page_frees": 356 356'
	tap_ok_if "page-free sample: the base known before its end" \
		[ "$(printf '%s\n' "$jd" | sed -n 's/.*"page_frees_before_base": \([0-9]*\).*/\1/p')" -lt 356 ]
	tap_is "version 6, xz-compressed: the JSON of the version 7 file" \
		"$(json "$samples/linux-6.18-kmem-v6.dat.xz")" "$(json "$samples/linux-6.18-kmem.dat")"
else
	tap_skip "trace.dat samples" "$(cat "$tmp/err")"
fi
tap_done
