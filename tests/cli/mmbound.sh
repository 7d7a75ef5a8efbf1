#!/bin/sh
# mmbound.sh - issue 27: the nodes beyond the bound of an mm's tree
# (sim/mmfree.h mmf_bound). Two hand-made 6.18 traces, one with tracefs'
# record-tgid column (data/mmbound-6.18.trace) and the same lines without it
# (data/mmbound-6.18-notgid.trace):
#   - app 500 execs (mm_alloc: its mm M, made by a task whose events name its
#     thread group, 500), maps V1, and its store allocates N1..N5 at
#     mas_preallocate; then, after other work (a names_cache allocation), W1
#     at mas_wr_bnode: a write into another maple tree (a tmpfs directory's
#     offsets allocate at the same sites), not counted against the bound;
#   - its thread 501 (group 500: M's) maps V2, whose store takes W2 at
#     mas_wr_bnode right after it (VMA work on that CPU: counted), and unmaps
#     V2 (vms_complete_munmap_vmas): M has 1 VMA, its tree 3 entries at most,
#     one node (mmf_tree_bound(1) = 1); of its 6 counted nodes the 5 oldest,
#     N1..N5, were freed (kfree_rcu);
#   - 500 allocates N1 again (freed: a plain allocation) and at W2's address
#     (still live: a free at reuse).
# With the tgids: 5 beyond the bound, 1 at reuse, maple_node live N1 W1 W2 =
# 3 (counting W1 would free 6; not counting W2, 4). Without them the
# thread's VMA and node go to a placeholder and M is not known to hold every
# VMA of its tree: no bound, both allocations frees at reuse, 7 live.
# TAP output.  $1 slabsim binary
set -u
bin=$1
dir=$(dirname "$0")
# shellcheck source=tap.sh
. "$dir/tap.sh"
tab=$("$bin" replay "$dir/data/mmbound-6.18.trace" --no-db --kernel 6.18 2>/dev/null)
tap_is "tgids: exit" "$?" 0
tap_is "tgids: summary line" "$(printf '%s\n' "$tab" | grep '^untraced frees')" \
	"untraced frees inferred 6 (1 at an allocation of a live pointer, 0 at an mm's teardown, 0 beyond a forked tree's size, 5 beyond the bound of an mm's tree): maple_node 1+0+0+5"
tap_is "tgids: maple_node live objects" "$(printf '%s\n' "$tab" | awk '$1 == "maple_node" { print $4 }')" 3
got=$("$bin" replay "$dir/data/mmbound-6.18.trace" --no-db --kernel 6.18 --format json 2>/dev/null |
	grep -o '"beyond_tree_bound": [0-9]*' | head -n 1)
tap_is "tgids: JSON beyond_tree_bound" "$got" '"beyond_tree_bound": 5'
tab=$("$bin" replay "$dir/data/mmbound-6.18-notgid.trace" --no-db --kernel 6.18 2>/dev/null)
tap_is "no tgids: summary line" "$(printf '%s\n' "$tab" | grep '^untraced frees')" \
	"untraced frees inferred 2 (2 at an allocation of a live pointer, 0 at an mm's teardown, 0 beyond a forked tree's size): maple_node 2+0+0"
tap_is "no tgids: maple_node live objects" "$(printf '%s\n' "$tab" | awk '$1 == "maple_node" { print $4 }')" 7
tap_done
