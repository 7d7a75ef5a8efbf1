# gen-trace.awk - build a long ftrace text trace from a short sample by
# repetition (used by replay-bench.sh; POSIX awk, tested with mawk and gawk).
#
#   awk -v n=EVENTS [-v balance=1] [-v countfile=FILE] -f gen-trace.awk SAMPLE > OUT
#
# Prints the sample's header lines, then n event lines: the sample's event
# lines over and over. Repetition k (from 0) gets
#   - pointers shifted: the sample's hashed pointers use the low 32 bits only,
#     the top 32 bits become k (ptr=0000000000000000, NULL, and values up to
#     0x10, ZERO_SIZE_PTR, are kept), so repetitions never share a pointer;
#     repetition 0 is the sample unchanged;
#   - timestamps shifted by k * (last - first + 1 tick), so time never goes
#     backwards, also across repetitions (the sample's precision is kept).
# With balance=1, every complete repetition is followed by a kfree of each
# object the sample leaves allocated (at the repetition's last timestamp), so
# the live set no longer grows with the length; those extra lines are not
# counted in n. countfile receives the number of event lines written.
/^#/ || /^[ \t]*$/ { if (!nev) hdr[++nh] = $0; next }
{
	if (!match($0, / [0-9]+\.[0-9]+: /)) { bad = "no timestamp on line " NR; exit 1 }
	ts = substr($0, RSTART + 1, RLENGTH - 3)
	a = substr($0, 1, RSTART)
	rest = substr($0, RSTART + RLENGTH - 2)
	dot = index(ts, ".")
	d = length(ts) - dot
	if (nev && d != digits) { bad = "mixed timestamp precision on line " NR; exit 1 }
	digits = d
	tick = substr(ts, 1, dot - 1) * 10 ^ d + substr(ts, dot + 1)
	if (!match(rest, /^: [a-z_]+:/)) { bad = "no event name on line " NR; exit 1 }
	ev = substr(rest, 3, RLENGTH - 3)
	if (!match(rest, /ptr=[0-9a-f]+/) || RLENGTH != 20) { bad = "no 16-digit ptr= on line " NR; exit 1 }
	p = substr(rest, RSTART + 4, 16)
	nev++
	A[nev] = a; T[nev] = tick; P[nev] = p
	B[nev] = substr(rest, 1, RSTART + 3)
	C[nev] = substr(rest, RSTART + 20)
	if (ev ~ /^(kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node)$/) kind[nev] = "a"
	else if (ev ~ /^(kfree|kmem_cache_free)$/) kind[nev] = "f"
	if (p <= "0000000000000010") { fixed[nev] = p; shift[nev] = 0 }
	else if (substr(p, 1, 8) != "00000000") { bad = "ptr " p " on line " NR " uses the top 32 bits"; exit 1 }
	else { fixed[nev] = substr(p, 9); shift[nev] = 1 }
	if (nev == 1 || tick < tmin) tmin = tick
	if (nev == 1 || tick > tmax) tmax = tick
}
END {
	if (bad != "") { print "gen-trace.awk: " bad > "/dev/stderr"; exit 1 }
	if (!nev) { print "gen-trace.awk: no events in the sample" > "/dev/stderr"; exit 1 }
	nleft = 0
	if (balance) {
		# the objects the sample leaves allocated, in allocation order
		for (i = 1; i <= nev; i++) {
			if (kind[i] == "a" && P[i] != "0000000000000000") live[P[i]] = i
			else if (kind[i] == "f") delete live[P[i]]
		}
		for (q in live) at[live[q]] = 1
		for (i = 1; i <= nev; i++)
			if (i in at) { left_ptr[++nleft] = fixed[i]; left_shift[nleft] = shift[i] }
	}
	unit = 10 ^ digits
	span = tmax - tmin + 1
	fmt = "%s%d.%0" digits "d%s%s%s\n"
	ffmt = "%s%d.%0" digits "d: kfree: call_site=replay_bench_balance+0x0/0x0 ptr=%s\n"
	for (i = 1; i <= nh; i++) print hdr[i]
	left = n; out = 0
	for (rep = 0; left > 0; rep++) {
		top = sprintf("%08x", rep)
		off = rep * span
		m = left < nev ? left : nev
		for (i = 1; i <= m; i++) {
			t = T[i] + off
			s = int(t / unit)
			printf fmt, A[i], s, t - s * unit, B[i], (shift[i] ? top fixed[i] : fixed[i]), C[i]
		}
		out += m
		left -= m
		if (m == nev && nleft) {
			t = tmax + off
			s = int(t / unit)
			for (j = 1; j <= nleft; j++)
				printf ffmt, A[nev], s, t - s * unit, (left_shift[j] ? top left_ptr[j] : left_ptr[j])
			out += nleft
		}
	}
	if (countfile != "") print out > countfile
}
