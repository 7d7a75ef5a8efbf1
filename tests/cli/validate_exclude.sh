#!/bin/sh
# validate_exclude.sh - `slabsim validate --exclude CACHE,...` on bundled
# captures: the excluded caches are named in the report (table and JSON) and
# are in none of its figures. On the workload-only 6.1 capture
# (linux-6.1-qemu-2cpu-work) the exact figures with and without
# `--exclude dentry`: end-state totals less dentry's slabinfo.txt line,
# layout counts less one cache, pages_mae_over_swing over the other caches;
# at every snapshot, of that capture and of a boot capture (the anchor path),
# the real and predicted totals less exactly dentry's own pages there.
# Names that are no cache of the capture, or an alias, are warnings (exit
# 0, figures as without them); an empty name is a usage error. TAP output.
#   $1 slabsim binary, $2 traces/samples
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2")
tap_scratch
cap=$samples/workload-only/linux-6.1-qemu-2cpu-work
boot=$samples/linux-6.1-qemu-2cpu

# end-state totals of a validate JSON: real pages, predicted pages, caches
end_totals() {
	sed -n 's/.*"end_state": {[^}]*"caches_compared": \([0-9]*\), "real": {[^}]*"pages": \([0-9]*\)}, "predicted": {[^}]*"pages": \([0-9]*\)}.*/\2 \3 \1/p' "$1"
}
# per snapshot of a validate JSON: id, real and predicted pages, and those
# of the cache $2 in it
snap_rows() {
	awk -v c="$2" 'function first(s, key,  i) {
		i = index(s, "\"" key "\": "); s = substr(s, i + length(key) + 4)
		sub(/[",}].*/, "", s); return s }
	/^    {"id": / {
		id = $0; sub(/.*"id": "/, "", id); sub(/".*/, "", id)
		r = first($0, "real_pages"); p = first($0, "predicted_pages")
		cr = cp = 0
		k = index($0, "{\"name\": \"" c "\", ")
		if (k) { s = substr($0, k); cr = first(s, "real_pages"); cp = first(s, "predicted_pages") }
		print id, r, p, cr, cp }' "$1"
}

"$bin" validate "$cap" --no-db -q --no-progress --format json >all.json 2>err
tap_is "without --exclude: exit 0, nothing on stderr" "$? $(cat err)" "0 "
tap_like "without --exclude: the JSON names no excluded cache" "$(cat all.json)" '"excluded": [],'
tap_is "without --exclude: end state real, predicted pages, caches" "$(end_totals all.json)" "4511 4535 145"
tap_like "without --exclude: layout over 145 caches" "$(cat all.json)" '"layout": {"caches_compared": 145, "caches_mismatched": 0,'
tap_like "without --exclude: pages_mae_over_swing" "$(cat all.json)" '"pages_mae_over_swing": 0.035792'

"$bin" validate "$cap" --no-db -q --no-progress --format json --exclude dentry >ex.json 2>err
tap_is "--exclude dentry: exit 0, nothing on stderr" "$? $(cat err)" "0 "
tap_like "--exclude dentry: named in the JSON" "$(cat ex.json)" '"excluded": ["dentry"],'
dent=$(awk '$1 == "dentry" {print $15 * $6}' "$cap/slabinfo.txt")
tap_is "dentry's pages in slabinfo.txt (num_slabs x pagesperslab)" "$dent" "549"
tap_is "--exclude dentry: end state less dentry's 549 real and 550 predicted pages, 144 caches" \
	"$(end_totals ex.json)" "$((4511 - dent)) $((4535 - 550)) 144"
tap_like "--exclude dentry: layout over 144 caches" "$(cat ex.json)" '"layout": {"caches_compared": 144, "caches_mismatched": 0,'
tap_like "--exclude dentry: pages_mae_over_swing over the other caches" "$(cat ex.json)" '"pages_mae_over_swing": 0.038977'
# every snapshot: totals without dentry = totals with it less dentry's row
snap_rows all.json dentry >a.txt
snap_rows ex.json dentry >b.txt
tap_is "8 snapshots compared, dentry in each" "$(awk '$4 > 0' a.txt | wc -l | tr -d ' ')" "8"
tap_is "--exclude dentry: each snapshot's real and predicted totals less dentry's own pages" \
	"$(paste -d' ' a.txt b.txt | awk '$1 != $6 || $7 != $2 - $4 || $8 != $3 - $5 {bad = bad " " $1} END {print "bad:" bad}')" "bad:"
tap_is "dentry's pages in snapshots/00-boot.slabinfo" \
	"$(awk '$1 == "dentry" {print $15 * $6}' "$cap/snapshots/00-boot.slabinfo")" "684"
tap_is "--exclude dentry: the 00-boot snapshot (real 5007 - 684, predicted 5010 - 684: dentry there)" \
	"$(awk '$1 == "00-boot" {print $2, $3}' b.txt)" "4323 4326"

"$bin" validate "$cap" --no-db -q --no-progress --exclude dentry,kmalloc-8 >ex.txt 2>err
tap_is "table: exit 0" "$?" "0"
tap_like "table: the excluded caches named" "$(cat ex.txt)" \
	"excluded (--exclude): dentry, kmalloc-8; not in the layout counts, totals nor pages_mae_over_swing"
tap_like "table: layout over 143 caches" "$(cat ex.txt)" "layout: 143 caches compared, 0 mismatched"
k8=$(awk '$1 == "kmalloc-8" {print $15 * $6}' "$cap/slabinfo.txt")
tap_like "table: real total less dentry and kmalloc-8 ($k8 pages)" "$(cat ex.txt)" \
	"total pages: real $((4511 - dent - k8)), "

# repeated --exclude adds up; duplicates count once
"$bin" validate "$cap" --no-db -q --no-progress --format json --exclude dentry --exclude kmalloc-8,dentry >rep.json 2>err
tap_is "repeated --exclude: exit 0" "$? $(cat err)" "0 "
tap_like "repeated --exclude: both names, once each" "$(cat rep.json)" '"excluded": ["dentry", "kmalloc-8"],'
tap_is "repeated --exclude: the same totals as one list" "$(end_totals rep.json)" "$((4511 - dent - k8)) $(end_totals rep.json | cut -d' ' -f2) 143"

# names that are no cache of the capture: warnings, the figures unchanged
"$bin" validate "$cap" --no-db -q --no-progress --format json --exclude no_such_cache,Acpi-Namespace >warn.json 2>err
tap_is "unknown and alias names: exit 0" "$?" "0"
tap_like "unknown name: a warning naming it and the capture" "$(cat err)" \
	"slabsim: warning: --exclude no_such_cache: no such cache in $cap (slabinfo files, slab-attrs.tsv); ignored"
tap_like "alias: a warning naming the root cache that holds it" "$(cat err)" \
	"slabsim: warning: --exclude Acpi-Namespace: an alias merged into shared_policy_node in this capture"
tap_like "ignored names: nothing excluded" "$(cat warn.json)" '"excluded": [],'
tap_is "ignored names: the figures of a run without --exclude" "$(end_totals warn.json)" "4511 4535 145"

"$bin" validate "$cap" --no-db -q --exclude dentry,,x >/dev/null 2>err
tap_is "an empty name: usage error (exit 1)" "$?" "1"
tap_like "an empty name: the message" "$(cat err)" "slabsim: --exclude expects cache names separated by commas, got 'dentry,,x'"

# a boot capture: the first snapshot is the anchor (the model topped up
# there); the exclusion holds at it and after
"$bin" validate "$boot" --no-db -q --no-progress --format json >ball.json 2>/dev/null
"$bin" validate "$boot" --no-db -q --no-progress --format json --exclude dentry >bex.json 2>/dev/null
tap_is "boot capture: both runs exit 0" "$?" "0"
snap_rows ball.json dentry >ba.txt
snap_rows bex.json dentry >bb.txt
tap_is "boot capture: every snapshot, anchor included, less dentry's own pages" \
	"$(paste -d' ' ba.txt bb.txt | awk '$4 == 0 || $1 != $6 || $7 != $2 - $4 || $8 != $3 - $5 {bad = bad " " $1} END {print NR, "bad:" bad}')" \
	"$(wc -l <ba.txt | tr -d ' ') bad:"
tap_done
