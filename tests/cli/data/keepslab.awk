# keepslab.awk - a 6.18 trace for pgfree.sh, on one CPU: four kfree +
# page free pairs (the first page free starts the vote, three fix the
# direct map's base), then np kernel slabs of per objects of cache (size
# bytes each, at ffff888001000000 + slab * 4096) allocated and all freed
# (traced), then, with pf=1, the np slabs' pages freed; with gap=MS, a
# trace marker 'freed' right after the frees and the page frees MS
# milliseconds later (as a grace period delays them for
# SLAB_TYPESAFE_BY_RCU caches); with marks="A,B,..." (MS, largest first,
# each below gap) a marker 'beforeA' A ms before the page frees, and so on.
#   awk -v cache=NAME -v size=BYTES -v per=OBJS -v np=SLABS -v pf=0|1 [-v gap=MS [-v marks=A,B]] -f keepslab.awk
function ev(s) { printf "            work-700     [000] ..... %.6f: %s\n", t, s; t += 0.000001 }
function at(pg, j) { return sprintf("ffff888001%03x%03x", pg, j * size) }
BEGIN {
	t = 3000.000010
	printf "# tracer: nop\n#\n"
	for (i = 0; i < 4; i++) { # the first page free starts the count: three votes for the base
		p = sprintf("ffff8880001%02x000", i)
		ev("kmalloc: call_site=do_work+0x10/0x100 ptr=" p " bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false")
		ev("kfree: call_site=do_work+0x20/0x100 ptr=" p)
		ev(sprintf("mm_page_free: page=ffffea0000000000 pfn=0x%x order=0", 256 + i))
	}
	for (pg = 0; pg < np; pg++)
		for (j = 0; j < per; j++)
			ev("kmem_cache_alloc: call_site=vm_area_alloc+0x10/0x100 ptr=" at(pg, j) " name=" cache " bytes_req=" size " bytes_alloc=" size " gfp_flags=GFP_KERNEL node=-1 accounted=false")
	for (pg = 0; pg < np; pg++)
		for (j = 0; j < per; j++)
			ev("kmem_cache_free: call_site=vm_area_free+0x10/0x100 ptr=" at(pg, j) " name=" cache)
	if (gap) {
		ev("tracing_mark_write: freed")
		t0 = t
		nm = marks == "" ? 0 : split(marks, m, ",")
		for (i = 1; i <= nm; i++) {
			t = t0 + (gap - m[i]) / 1000
			ev("tracing_mark_write: before" m[i])
		}
		t = t0 + gap / 1000
	}
	if (pf)
		for (pg = 0; pg < np; pg++)
			ev(sprintf("mm_page_free: page=ffffea0000000000 pfn=0x%x order=0", 4096 + pg))
}
