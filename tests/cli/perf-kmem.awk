# perf-kmem.awk - perf kmem stat's slab figures computed from ftrace text,
# independently of slabsim, following tools/perf/builtin-kmem.c: sums over
# every allocation event; a free of a pointer ever allocated adds that
# pointer's last bytes_alloc (even if already freed) and is a ping-pong when
# its CPU differs from the last allocation's (reset to -1 by every free);
# cross-node: node= present, not -1, not node 0 (all CPUs on node 0).
# Output: "allocs req alloc freed cross pingpong frag%", then one line per
# call site "site|hit|req|alloc|pingpong", sorted.
/^#/ { next }
{
	ev = ""
	cpu = -1
	for (i = 1; i <= NF; i++) {
		if (cpu < 0 && $i ~ /^\[[0-9]+\]$/)
			cpu = substr($i, 2, length($i) - 2) + 0
		if ($i ~ /^(kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node|kfree|kmem_cache_free):$/) {
			ev = substr($i, 1, length($i) - 1)
			break
		}
	}
	if (ev == "")
		next
	split("", f)
	for (j = i + 1; j <= NF; j++) {
		k = index($j, "=")
		if (k)
			f[substr($j, 1, k - 1)] = substr($j, k + 1)
	}
	p = f["ptr"]
	if (ev ~ /alloc/) {
		n++
		req += f["bytes_req"]
		al += f["bytes_alloc"]
		cs = f["call_site"]
		hit[cs]++
		sreq[cs] += f["bytes_req"]
		sal[cs] += f["bytes_alloc"]
		if (!(cs in spp))
			spp[cs] = 0
		last[p] = f["bytes_alloc"]
		acpu[p] = cpu
		psite[p] = cs
		if (("node" in f) && f["node"] != "-1" && f["node"] != "0")
			cross++
	} else if (p in last) {
		freed += last[p]
		if (cpu != acpu[p]) {
			pp++
			spp[psite[p]]++
		}
		acpu[p] = -1
	}
}
END {
	printf "%d %d %d %d %d %d %.6f\n", n, req, al, freed, cross, pp, al ? 100 - 100 * req / al : 0
	for (cs in hit)
		print cs "|" hit[cs] "|" sreq[cs] "|" sal[cs] "|" spp[cs] | "sort"
}
