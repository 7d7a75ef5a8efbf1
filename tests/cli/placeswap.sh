#!/bin/sh
# placeswap.sh - issue 27: objects put outside their kernel slab's model
# slab trade places (replay.c place_swap). A hand-made 6.18 trace
# (data/placeswap-6.18.trace, 1 CPU, raw pointers, no start state) of
# maple_node, 16 objects to a slab:
#   - an object at C (kernel slab 0xffff888006000000): the first refill
#     takes 32 objects from two new slabs S1 and S2; it lands in S1, which
#     is bound to C;
#   - 15 objects of kernel slab A (C + 4096): the sheaf hands out S1's
#     other 15, S1 is bound to C and there is no start state, so they stay
#     there, outside A's model slab (15 outside);
#   - a 16th object of A: S2's first, S2 is bound to A;
#   - a second object of C: S1 is full, the sheaf hands out one of S2; it
#     takes the slot in S1 of one of A's objects, which takes its slot in
#     S2, A's own slab (1 traded).
# Under 6.12 (no placement by address) nothing is counted. TAP output.
#   $1 slabsim binary
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1")
trace=$(abs_path "$(dirname "$0")/data/placeswap-6.18.trace")
tap_scratch
out=$("$bin" replay "$trace" --no-db --kernel 6.18 --nr-cpus 1 2>/dev/null)
tap_is "exit" "$?" 0
tap_is "summary line" "$(printf '%s\n' "$out" | grep '^placement')" \
	"placement by address: 15 objects put outside their kernel slab's model slab, 1 traded places with one put outside before, 0 start objects moved to another start slab, 0 found not live (no start slab had room), 0 parked objects moved into a slab the trace showed"
tap_is "maple_node: 18 live in 2 slabs" \
	"$(printf '%s\n' "$out" | awk '$1 == "maple_node" { print $4, $5 }')" "18 2"
out=$("$bin" replay "$trace" --no-db --kernel 6.18 --nr-cpus 1 --format json 2>/dev/null)
tap_is "JSON" "$(printf '%s\n' "$out" | grep '"placement"')" '  "placement": {"outside": 15, "traded": 1, "start_moved": 0, "start_dropped": 0, "parked_rehomed": 0},'
out=$("$bin" replay "$trace" --no-db --kernel 6.12 --nr-cpus 1 2>/dev/null)
tap_is "6.12: no placement line" "$(printf '%s\n' "$out" | grep -c '^placement')" 0
tap_done
