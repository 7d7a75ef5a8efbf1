#!/bin/sh
# validate_samples.sh - `slabsim validate` on every real capture bundled
# under traces/samples/ (a directory with slab-attrs.tsv). For each:
#   - layout: zero mismatches (the goal of issue 6);
#   - snapshots: pages_mae_over_swing <= 0.10 (issue 9's bar; a model that
#     predicts "no change" scores 0.3 to 0.5). Measured on qemu-boot captures
#     of Debian 6.1: 0.0012 (2 CPUs), 0.0066 (8 CPUs), 0.0043 (8 possible, 3
#     online), 0.0016 (2 CPUs, slub_debug=FZPU), so 0.10 leaves room for
#     other captures while still failing a model that loses track;
#   - end state: total pages within 5% and the memory-weighted per-cache
#     page error below 10% (measured 3.9%, 4.2%, 4.3%, 2.8%: most of it is
#     caches the trace never names, e.g. mempool reserves, counted under
#     :unnamed-OSZ-SLOT in the model and under their name in the kernel).
# Without any such capture the test is skipped. TAP output.
#   $1 slabsim binary, $2 traces/samples
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2")
tap_scratch

found=0
for d in "$samples"/*/; do
	[ -f "$d/slab-attrs.tsv" ] || continue
	found=1
	name=$(basename "$d")
	"$bin" validate "$d" --no-db -q --no-progress --format json > out.json
	tap_is "$name: validate succeeds" "$?" 0
	tap_like "$name: no layout mismatch" "$(cat out.json)" '"caches_mismatched": 0, "mismatches": []'
	# the headline and the end-state totals, checked with awk
	r=$(awk '
	/"pages_mae_over_swing":/ { v = $2; sub(/,$/, "", v); mae = v }
	/"end_state":/ {
		match($0, /"real": \{[^}]*\}/); real = substr($0, RSTART, RLENGTH)
		match($0, /"predicted": \{[^}]*\}/); pred = substr($0, RSTART, RLENGTH)
		match(real, /"pages": [0-9]+/); rp = substr(real, RSTART + 9, RLENGTH - 9)
		match(pred, /"pages": [0-9]+/); pp = substr(pred, RSTART + 9, RLENGTH - 9)
		match($0, /"weighted_page_error": [0-9.]+/); we = substr($0, RSTART + 23, RLENGTH - 23)
	}
	END {
		ok_mae = mae != "null" && mae + 0 <= 0.10
		d = pp - rp; if (d < 0) d = -d
		ok_tot = rp > 0 && d / rp <= 0.05
		ok_we = we != "" && we + 0 <= 0.10
		printf "%d %d %d mae=%s real=%s predicted=%s weighted=%s\n", ok_mae, ok_tot, ok_we, mae, rp, pp, we
	}' out.json)
	set -- $r
	tap_is "$name: pages_mae_over_swing <= 0.10 ($4)" "$1" 1
	tap_is "$name: end-state total pages within 5% ($5 $6)" "$2" 1
	tap_is "$name: memory-weighted page error <= 10% ($7)" "$3" 1
done
if [ "$found" -eq 0 ]; then
	echo "ok 1 # SKIP no capture directory under traces/samples"
	echo "1..1"
	exit 0
fi
tap_done
