#!/bin/sh
# fit-validate.sh - how closely a workload fitted to a trace reproduces the
# trace's end state: fit TRACE, replay the real trace, then replay the fitted
# spec (replay --workload, same duration as the trace's span) for N seeds, and
# compare per cache and in total the live objects and slab pages at the end.
#
#   sh tests/bench/fit-validate.sh SLABSIM TRACE [SEEDS] [FIT OPTIONS...]
#
# SLABSIM must have `replay --workload`; the fit is made by $FIT (default
# SLABSIM), so a branch's fit can be checked against another's generator
# before they are merged. Prints one row per
# cache (sorted by real pages): real, then mean and sd over the seeds; and the
# totals with the ratio synthetic / real. Cache names of the real replay lose
# their leading ':' (`:unnamed-128-128` is `unnamed-128-128` in the spec).
# Mean and sd are computed by awk here: this is a report, not a model figure.
set -u
bin=$1 trace=$2
seeds=${3:-10}
[ $# -ge 3 ] && shift 3 || shift $#
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
LC_ALL=C
export LC_ALL

"${FIT:-$bin}" fit "$trace" -q "$@" > "$tmp/spec" || exit 1
"$bin" replay "$trace" --kernel 6.1 --no-db --format json > "$tmp/real.json" || exit 1
s=1
while [ "$s" -le "$seeds" ]; do
	"$bin" replay --workload "$tmp/spec" --seed "$s" --kernel 6.1 --no-db --format json \
		> "$tmp/syn.$s.json" || exit 1
	s=$((s + 1))
done

# rows FILE: "name live pages" per cache, then "TOTAL live pages"
rows() {
	sed -n -e 's/^ *{"name": "\([^"]*\)".*"live_objects": \([0-9]*\),.*"pages": \([0-9]*\),.*/\1 \2 \3/p' \
		-e 's/^  "totals": {"live_objects": \([0-9]*\),.*"slab_pages": \([0-9]*\),.*/TOTAL \1 \2/p' "$1" |
		sed 's/^://'
}

rows "$tmp/real.json" > "$tmp/real.rows"
s=1
while [ "$s" -le "$seeds" ]; do
	rows "$tmp/syn.$s.json" | sed "s/^/$s /"
	s=$((s + 1))
done > "$tmp/syn.rows"

echo "fit-validate: $trace, $seeds seeds, fit options: ${*:-none}"
awk -v n="$seeds" '
	FNR == NR { rl[$1] = $2; rp[$1] = $3; names[$1] = 1; next }
	{ k = $2; sl[k] += $3; sl2[k] += $3 * $3; sp[k] += $4; sp2[k] += $4 * $4; names[k] = 1 }
	function sd(s, s2) { v = (s2 - s * s / n) / (n > 1 ? n - 1 : 1); return v > 0 ? sqrt(v) : 0 }
	END {
		printf "%-28s %9s %9s %16s %16s\n", "cache", "real live", "pages", "synth live", "pages"
		for (k in names) if (k != "TOTAL") order[++m] = k
		# sort by real pages, then name (insertion sort: few caches)
		for (i = 2; i <= m; i++) {
			x = order[i]
			for (j = i - 1; j >= 1 && (rp[order[j]] + 0 < rp[x] + 0 ||
			    (rp[order[j]] + 0 == rp[x] + 0 && order[j] > x)); j--)
				order[j + 1] = order[j]
			order[j + 1] = x
		}
		for (i = 1; i <= m; i++) {
			k = order[i]
			ml = sl[k] / n; dl = sd(sl[k], sl2[k]); mp = sp[k] / n; dp = sd(sp[k], sp2[k])
			# how often the real figure lies within 2 sd of the mean over seeds
			inl += (rl[k] - ml) ^ 2 <= 4 * dl * dl; inp += (rp[k] - mp) ^ 2 <= 4 * dp * dp
			if (rl[k] >= 5) {
				big++
				e = (ml - rl[k]) / rl[k]; e = e < 0 ? -e : e
				if (e > maxe) { maxe = e; maxk = k }
				sume += e
			}
			printf "%-28s %9d %9d %8.1f +- %5.1f %8.1f +- %5.1f\n", k, rl[k], rp[k],
				sl[k] / n, sd(sl[k], sl2[k]), sp[k] / n, sd(sp[k], sp2[k])
		}
		k = "TOTAL"
		printf "%-28s %9d %9d %8.1f +- %5.1f %8.1f +- %5.1f\n", k, rl[k], rp[k],
			sl[k] / n, sd(sl[k], sl2[k]), sp[k] / n, sd(sp[k], sp2[k])
		printf "ratio synthetic/real: live objects %.3f, slab pages %.3f\n",
			sl[k] / n / rl[k], sp[k] / n / rp[k]
		printf "caches with the real figure within mean +- 2 sd: live objects %d/%d, pages %d/%d\n",
			inl, m, inp, m
		if (big)
			printf "caches with >= 5 real live objects: %d, mean |synth mean - real| / real %.3f, max %.3f (%s)\n",
				big, sume / big, maxe, maxk
	}' "$tmp/real.rows" "$tmp/syn.rows"
