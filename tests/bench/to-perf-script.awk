# to-perf-script.awk - a tracefs text trace (gen_bench's, say) as `perf
# script` prints the same events: "comm pid [cpu] sec.usec: kmem:EVENT:
# fields", pointers as 0x... and NULL as (nil). For the parse cost of perf
# script text where no perf.data of that size is at hand (targets.sh -P needs
# one for `perf kmem stat`):
#   mawk -f tests/bench/to-perf-script.awk bench-repeat-2M.trace >perf.txt
/^#/ { next }
{
	match($1, /-[0-9]+$/)
	task = substr($1, 1, RSTART - 1)
	pid = substr($1, RSTART + 1)
	rest = ""
	for (f = 6; f <= NF; f++) {
		x = $f
		if (x ~ /^ptr=/) {
			v = substr(x, 5)
			x = v ~ /^0+$/ ? "ptr=(nil)" : "ptr=0x" v
		}
		rest = rest " " x
	}
	printf "%16s %6s %s %12s %22s%s\n", task, pid, $2, $4, "kmem:" $5, rest
}
