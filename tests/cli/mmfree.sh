#!/bin/sh
# mmfree.sh - issue 27: frees the trace does not show (sim/mmfree.h). A
# hand-made 6.18 trace (data/mmfree-6.18.trace), replayed under the 6.18
# profile:
#   - pid 100 forks: mm_struct at copy_process, the child's tree (__mt_dup
#     N1, mas_dup_alloc N2 N3) and VMAs (vm_area_dup V1 V2), alloc_pid ends
#     the burst; then it maps in its own mm (V3, N4);
#   - the child, pid 101 (no mm known: a placeholder), maps (V4, N5) and
#     exits: the first exit_mmap free (V1, of the fork's mm) joins its
#     placeholder to that mm and tears it down: N1 N2 N3 N5, 4 frees; the
#     later exit_mmap frees find it dead;
#   - pid 100 allocates N4 again (still live: 1 free at reuse) and N1 (freed
#     at the teardown: a plain allocation);
#   - pid 200, older than the trace, made N6, execs (mm_alloc), makes V5
#     and N7 in the new mm; exit_mmap of VMAs older than the trace tears
#     down its previous mm (N6: 1), then exit_mmap of V5 the new one (N7: 1);
#   - pid 300 (a thread: no VMA links it to an mm) makes N8: it stays;
#   - pid 400 execs (mm_alloc: its mm known), makes N10..N14, then forks:
#     the dup copies 2 nodes (N15 N16), so 3 of its 5 were replaced and
#     freed through kfree_rcu: the 3 oldest, N10 N11 N12, go when alloc_pid
#     ends the burst; N10 allocated again is then a plain allocation, N13 a
#     free at reuse.
# Reuse 2, teardown 6, beyond the fork 3; maple_node live at the end N4 N1
# N8 N13 N14 N15 N16 N10 = 8. Under the 6.1 profile the model is off (6.1
# traces the RCU frees): 0 at teardown, 15 live (one per pointer).
# TAP output.  $1 slabsim binary
set -u
bin=$1
dir=$(dirname "$0")
trace=$dir/data/mmfree-6.18.trace
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
check() { # name, got, want
	if [ "$2" = "$3" ]; then ok "$1"; else nok "$1: got '$2', want '$3'"; fi
}
echo "1..6"
out=$("$bin" replay "$trace" --no-db --kernel 6.18 --format json 2>/dev/null)
check "6.18 exit" "$?" 0
got=$(printf '%s\n' "$out" | grep '"untraced_frees"')
check "6.18 inferred frees" "$got" \
  '  "untraced_frees": {"at_reuse": 2, "at_teardown": 6, "beyond_fork": 3, "at_page_free": 0, "at_full_slab": 0, "start_parked": 0, "beyond_tree_bound": 0, "page_frees": 0, "page_frees_before_base": 0, "caches": [{"name": "maple_node", "at_reuse": 2, "at_teardown": 6, "beyond_fork": 3, "at_page_free": 0, "at_full_slab": 0, "start_parked": 0, "beyond_tree_bound": 0}]},'
tab=$("$bin" replay "$trace" --no-db --kernel 6.18 2>/dev/null)
got=$(printf '%s\n' "$tab" | grep '^untraced frees')
check "6.18 summary line" "$got" \
  "untraced frees inferred 11 (2 at an allocation of a live pointer, 6 at an mm's teardown, 3 beyond a forked tree's size): maple_node 2+6+3"
got=$(printf '%s\n' "$tab" | awk '$1 == "maple_node" { print $4 }')
check "6.18 maple_node live objects" "$got" 8
out=$("$bin" replay "$trace" --no-db --kernel 6.1 --format json 2>/dev/null)
got=$(printf '%s\n' "$out" | grep -o '"at_teardown": [0-9]*' | head -1)
check "6.1 no teardown model" "$got" '"at_teardown": 0'
got=$("$bin" replay "$trace" --no-db --kernel 6.1 2>/dev/null | awk '$1 == "maple_node" { print $4 }')
check "6.1 maple_node live objects" "$got" 15
exit $fail
