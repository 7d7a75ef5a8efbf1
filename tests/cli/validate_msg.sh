#!/bin/sh
# validate_msg.sh - issue 26: the start state of a kmem_buckets cache whose
# CPU-held slabs the trace shows emptied, on a hand-made 6.18 capture worked
# out by hand below. TAP output.
#   $1 slabsim binary, $2 tests/cli/data
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2")
tap_scratch
cap=$data/capture-msg

# ---------------------------------------------------------------------------
# tests/cli/data/capture-msg: kernel 6.18 (CONFIG_SLAB_BUCKETS: msg_msg-N in
# its slabinfo), 2 CPUs, raw pointers. msg_msg-512: 16 objects of 512 bytes
# in order-1 slabs (2 pages), min_partial 5, cpu_partial 52 objects.
#
# Start (slab-attrs-start.tsv): msg_msg-512 3 slabs, cpu_slabs 3,
# slabs_cpu_partial "8(1) C1=8(1)": a CPU slab on CPUs 0 and 1 and one slab
# on CPU 1's partial stack; slabinfo counts all 48 objects active (a CPU-held
# slab's free slots count as in use). What a cache holds after its SysV
# messages were all removed: every CPU-held slab empty.
# Trace: 50 load_msg kmallocs of 500 bytes (msg_msg-512 by the call site,
# not kmalloc-512):
#   CPU 0: 16 in real slab A (ffff888005000000), every slot never touched
#   before, then 1 in B: A is CPU 0's CPU slab with 16 free slots, B a new
#   slab (CPU 0 has no partial stack, the node none);
#   CPU 1: 16 in C, 16 in D, 1 in E: C its CPU slab, 16 free; D the slab of
#   its partial stack, 16 free (___slab_alloc takes the stack before any new
#   slab: the kernel asserts a partial slab has a free object); E new.
#   "SNAP 1": 5 slabs, 80 objects, 10 pages, as the real kernel said.
# Before: the walks that find these free slots put load_msg's slabs under
# kmalloc-512 (the routing by call site was not applied), so the three slabs
# started half free (24 phantom live objects, 12 pages at the snapshot); and
# a slab used up with every slot free was taken for a new slab after a full
# CPU slab (the CPU slabs 16 live each, the partial slab half).
# ---------------------------------------------------------------------------
"$bin" validate "$cap" --no-db --format json > v.json 2> v.err
tap_is "validate succeeds" "$?" 0
tap_like "profile 6.18 with kmem_buckets, from the capture" "$(cat v.err)" \
	"capture: configuration from its slabinfo cache names: SLUB_TINY=n ZONE_DMA=y MEMCG=y SLAB_BUCKETS=y RANDOM_KMALLOC_CACHES=n"
tap_like "start: msg_msg-512's three CPU-held slabs all free, as the walks show" "$(cat v.err)" \
	"capture: of them from slab-attrs-start.tsv, slab by slab: 3 caches, 32 objects in 5 slabs: 2 CPU slabs, 1 per-CPU partial, 0 node partial, 2 full; 48 free slots on CPUs, in 3 of the 3 CPU-held slabs as the trace's addresses show, half a slab in the others"
tap_like "snapshot 1: msg_msg-512 5 slabs, 10 pages, as the kernel held" "$(cat v.json)" \
	'{"name": "msg_msg-512", "real_pages": 10, "predicted_pages": 10}'
tap_like "kmalloc-512 untouched: its one full slab" "$(cat v.json)" \
	'{"name": "kmalloc-512", "real_pages": 2, "predicted_pages": 2}'
tap_like "end state: msg_msg-512 80 objects in 5 slabs, the 50 messages live, none from the start" "$(cat v.json)" \
	'{"name": "msg_msg-512", "in_real": true, "in_model": true, "real": {"active_objs": 80, "total_objs": 80, "slabs": 5, "pages": 10}, "predicted": {"active_objs": 80, "total_objs": 80, "slabs": 5, "pages": 10, "live_objs": 50}'
tap_like "snapshot 1: total 14 pages, no error" "$(cat v.json)" \
	'"real_pages": 14, "predicted_pages": 14'
tap_done
