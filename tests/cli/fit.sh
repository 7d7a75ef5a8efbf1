#!/bin/sh
# fit.sh - `slabsim fit` through the CLI. TAP output.
#   $1 slabsim binary, $2 tests/cli/data, $3 the bundled 6.1 trace,
#   [$4 a slabsim with `replay --workload` (default $1)]: the specs are fed
#   to it when it has that option (the generator lives on another branch).
#
# data/fit-hand.trace is made by hand; data/fit-hand.spec is the spec it must
# give (comments and blank lines aside), worked out as follows. Span: first
# event 100.000000 s, last 100.001000 s: duration 1 ms, so each rate is
# allocations / 1 ms. Every stream has fewer than 10 allocations, so by
# default it arrives `periodic 1ms/N` (N = 4, 6, 2: 250us, 166666.67 ns
# written in whole ns 166.667us, 500us); --periodic-below 0 gives the Poisson
# rates 4000, 6000, 2000. Traced caches get usersize = object_size (never
# merged, as in the replay).
# - a_alloc (kmalloc, GFP_KERNEL): 4 allocations of 32, 32, 64, 100 bytes on
#   CPUs 0, 0, 1, 1, never freed: lifetime forever.
# - b_alloc (kmem_cache_alloc 80/80, freed as name=bcache): 6 allocations on
#   CPU 1 living 10, 20, 40, 80, 160, 320 us, none censored. Exponential
#   MLE mean 630/6 = 105 us, logL = -6 ln(105e-6) - 6 = 48.9693. Lognormal
#   MLE (closed form without censoring): mu = ln(10 us) + 2.5 ln 2 (median
#   56568.5 ns, written in whole ns: 56.569us), sigma = ln 2 sqrt(17.5/6)
#   = 1.18377, logL = -Σ ln t - 6 ln sigma - 3 ln(2 pi) - 3 = 49.1545. AIC 2 - 2(48.9693) = -95.94 <
#   4 - 2(49.1545) = -94.31: exponential 105us.
# - c_alloc (kmalloc, __GFP_RECLAIMABLE): 200 bytes at 500 and 700 us on CPU
#   0; the first freed after 30 us. One pair < 5: the pooled fit, over the
#   streams that free (b_alloc, c_alloc; not a_alloc, which is `forever`) and
#   without an immortal fraction. Pooled: events 10..320 us and 30 us (Σ 660
#   us), c2 censored at the end (300 us): exponential mean 960/7 = 137.143 us,
#   logL = -7 ln(137.143e-6) - 7 = 55.2614, AIC -108.5228. The censored
#   lognormal maximum (an independent grid search in Python: median 70.077
#   us, sigma 1.33657, logL 56.0212) has AIC -108.0425: exponential 137.143us.
# - No stream gets an immortal fraction: a_alloc has no pair (forever), b_alloc
#   nothing censored, c_alloc is pooled.
# - ignored: one kfree(NULL), one free of an unknown pointer (0xdead).
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") data=$(abs_path "$2") boot=$(abs_path "$3")
gen=$(abs_path "${4:-$1}")
tap_scratch

# spec_body FILE: the spec without comments, trailing blanks and blank lines
spec_body() { sed -e 's/[#;].*//' -e 's/[ 	]*$//' -e '/^$/d' "$1"; }

"$bin" fit "$data/fit-hand.trace" > hand.spec 2> hand.err
tap_is "hand: exit 0" "$?" "0"
tap_is "hand: spec equals the hand-written one" "$(spec_body hand.spec)" \
	"$(spec_body "$data/fit-hand.spec")"
tap_like "hand: pooled exponential mean 137.143us" "$(grep '^# pooled' hand.spec)" \
	"exponential mean 137.143us logL 55.2614 AIC -108.5228; lognormal median 70.077us sigma 1.33657 logL 56.0212"
tap_like "hand: b_alloc lognormal alternative (closed form)" \
	"$(grep -A5 '^\[stream b_alloc' hand.spec)" "lognormal median 56.569us sigma 1.18377"
tap_is "--periodic-below 0: Poisson rates" \
	"$("$bin" fit "$data/fit-hand.trace" -q --periodic-below 0 | grep '^arrival' | tr '\n' ' ')" \
	"arrival = poisson 4000 arrival = poisson 6000 arrival = poisson 2000 "
tap_like "hand: ignored frees reported on stderr" "$(cat hand.err)" \
	"ignored 1 frees of pointers allocated before the trace, 1 kfree(NULL)"

"$bin" fit "$data/fit-hand.trace" -q -o out.spec > out.stdout 2> out.err
tap_is "-o: exit 0, nothing on stdout or stderr" "$? $(cat out.stdout out.err)" "0 "
tap_is "-o: same spec as stdout" "$(cat out.spec)" "$(cat hand.spec)"

# --by cache: kmalloc streams per size class and gfp type, caches by name,
# in the order of their first allocation (32 at 0, bcache at 10, 64 at 200 us).
"$bin" fit "$data/fit-hand.trace" --by cache -q > cache.spec
tap_is "--by cache: streams" "$(grep '^\[stream' cache.spec | tr '\n' ' ')" \
	"[stream kmalloc-32] [stream bcache] [stream kmalloc-64] [stream kmalloc-128] [stream kmalloc-rcl-256] "
# --min-allocs 2 folds kmalloc-64 (1 allocation, 64 bytes) and kmalloc-128
# (1, 100 bytes) into one stream; kmalloc-rcl-256 (2) stays.
"$bin" fit "$data/fit-hand.trace" --by cache --min-allocs 2 -q > fold.spec
tap_is "--min-allocs 2: streams" "$(grep '^\[stream' fold.spec | tr '\n' ' ')" \
	"[stream kmalloc-32] [stream bcache] [stream other-kmalloc-kernel] [stream kmalloc-rcl-256] "
tap_is "--min-allocs 2: folded sizes" \
	"$(sed -n '/^\[stream other-kmalloc-kernel\]/,/^$/p' fold.spec | grep '^size')" \
	"size = empirical 64:1,100:1"
tap_is "--min-allocs 2: folded, 2 allocations in 1 ms" \
	"$(sed -n '/^\[stream other-kmalloc-kernel\]/,/^$/p' fold.spec | grep '^arrival')" \
	"arrival = periodic 500us"
# --max-sizes 2: the lightest size (64 or 100, first found: 64) merges up
"$bin" fit "$data/fit-hand.trace" --max-sizes 2 -q > cap.spec
tap_is "--max-sizes 2: 64 merged into 100" "$(grep '^size = empirical' cap.spec)" \
	"size = empirical 32:2,100:2"

# The bundled trace: one stream per (call site, target) key, counted by awk:
# kmalloc keys are (site, gfp type), kmem_cache_alloc keys (site, bytes_req,
# bytes_alloc).
"$bin" fit "$boot" > boot.spec 2> boot.err
tap_is "boot: exit 0" "$?" "0"
keys=$(awk '
	/ kmalloc: | kmalloc_node: / {
		t = "kernel"
		if ($0 ~ /GFP_DMA/) t = "dma"; else if ($0 ~ /__GFP_RECLAIMABLE/) t = "rcl"
		else if ($0 ~ /__GFP_ACCOUNT|accounted=true/) t = "account"
		for (i = 1; i <= NF; i++) if ($i ~ /^call_site=/) s = $i
		k["k " t " " s] = 1
	}
	/ kmem_cache_alloc: | kmem_cache_alloc_node: / {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^call_site=/) s = $i
			if ($i ~ /^bytes_req=/) r = $i
			if ($i ~ /^bytes_alloc=/) a = $i
		}
		k["c " r " " a " " s] = 1
	}
	END { n = 0; for (x in k) n++; print n }' "$boot")
# (a stream with an immortal fraction p adds a stream SITE-forever)
tap_is "boot: one stream per site key ($keys)" \
	"$(grep '^\[stream' boot.spec | grep -cv -- '-forever]$')" "$keys"
allocs=$(grep -cE ' (kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node): ' "$boot")
tap_is "boot: stream allocations add up to the trace's ($allocs)" \
	"$(sed -n 's/^# \([0-9]*\) allocations from.*/\1/p' boot.spec | awk '{s += $1} END {print s}')" \
	"$allocs"
sites=$(grep -oE '(kmalloc|kmem_cache_alloc): call_site=[^ ]*' "$boot" | sed 's/.*call_site=//' | sort -u)
tap_is "boot: every call site has a stream" \
	"$(sed -n 's/^site = //p' boot.spec | sort -u)" "$sites"
# the size histogram of one site, by awk
want=$(awk '/kmalloc: call_site=acpi_ns_get_normalized_pathname\+0x4a\/0x90 / {
		for (i = 1; i <= NF; i++) if ($i ~ /^bytes_req=/) { sub("bytes_req=", "", $i); n[$i]++ } }
	END { for (s in n) print s ":" n[s] }' "$boot" | sort -n | tr '\n' ',' | sed 's/,$//')
tap_is "boot: size histogram of acpi_ns_get_normalized_pathname" \
	"$(sed -n '/^site = acpi_ns_get_normalized_pathname+0x4a\/0x90/,/^$/p' boot.spec | sed -n 's/^size = empirical //p')" \
	"$want"
tap_like "boot: ignored frees reported" "$(cat boot.err)" \
	"ignored 42 frees of pointers allocated before the trace, 53 kfree(NULL)"
# a split stream's two rates add up to its allocations / span
# (acpi_ut_allocate_object_desc_dbg: 166 allocations, span 14070 us)
rates=$(sed -n '/^\[stream acpi_ut_allocate_object_desc_dbg+0x39_0x70/,/^cpu/p' boot.spec |
	awk '/^arrival = poisson/ {s += $4} /^arrival = burst/ {s += $4 * $5} END {printf "%.6g", s}')
tap_is "boot: immortal split keeps the rate 166 / 14.07 ms (rates have 6 digits)" \
	"$(awk -v r="$rates" 'BEGIN {e = r / (166 / 0.01407) - 1; print (e < 1e-4 && e > -1e-4) ? "yes" : "no: " r}')" "yes"

# The generator reads the specs: the hand spec's a_alloc (periodic, 4
# allocations, forever) leaves exactly 4 live objects in kmalloc-32/64/128
# whatever the seed draws for their sizes; bcache is created with 80 bytes.
if "$gen" replay --help 2>/dev/null | grep -q -- '--workload'; then
	for seed in 1 2 3; do
		"$gen" replay --workload hand.spec --seed $seed --kernel 6.1 --no-db --format json \
			> gen.json 2> gen.err
		tap_is "generator, seed $seed: exit 0, a_alloc's 4 objects live" \
			"$? $(grep -E '"name": "kmalloc-(32|64|128)"' gen.json |
				sed 's/.*"live_objects": \([0-9]*\),.*/\1/' | awk '{s += $1} END {print s}')" \
			"0 4"
	done
	tap_like "generator: bcache of 80 bytes" "$(grep '"name": "bcache"' gen.json)" \
		'"object_size": 80, "slab_size": 80'
	for spec in boot.spec cache.spec fold.spec; do
		"$gen" replay --workload $spec --kernel 6.1 --no-db -q 2> gen.err
		tap_is "generator reads $spec" "$? $(cat gen.err)" "0 "
	done
	"$bin" fit "$boot" --by cache -q > bootc.spec
	"$gen" replay --workload bootc.spec --kernel 6.1 --no-db -q 2> gen.err
	tap_is "generator reads the boot trace's --by cache spec" "$? $(cat gen.err)" "0 "
else
	tap_diag "no replay --workload in $gen: generator checks skipped"
fi

# Errors and their exit codes.
"$bin" fit > /dev/null 2> err.txt
tap_is "no TRACE: exit 1" "$?" "1"
"$bin" fit "$data/fit-hand.trace" --by node > /dev/null 2> err.txt
tap_is "--by node: exit 1" "$? $(head -1 err.txt)" "1 slabsim: --by expects site or cache, got 'node'"
"$bin" fit "$tmp/missing.trace" > /dev/null 2> err.txt
tap_is "missing trace: exit 3" "$?" "3"
printf '# tracer: nop\n  kworker-7 [000] ..... 1.000000: kfree: call_site=f+0x1/0x2 ptr=0000000000000010\n' > noalloc.trace
"$bin" fit noalloc.trace > /dev/null 2> err.txt
tap_is "no allocation: exit 2" "$?" "2"
tap_like "no allocation: message names the file" "$(cat err.txt)" "noalloc.trace"
printf '# tracer: nop\n  kworker-7 [000] ..... 1.000000: kmalloc: call_site=f+0x1/0x2 ptr=0000000000000010 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n' > onetime.trace
"$bin" fit onetime.trace > /dev/null 2> err.txt
tap_is "a trace spanning no time: exit 2" "$? $(grep -c 'expected a trace spanning some time' err.txt)" "2 1"
"$bin" fit "$data/fit-hand.trace" -o "$tmp/no/such/dir.spec" 2> err.txt
tap_is "unwritable -o: exit 3" "$?" "3"

# kmalloc(0) and a failed allocation are ignored and counted
printf '%s\n' '# tracer: nop' \
	'  kworker-7 [000] ..... 1.000000: kmalloc: call_site=f+0x1/0x2 ptr=0000000000000010 bytes_req=0 bytes_alloc=0 gfp_flags=GFP_KERNEL node=-1 accounted=false' \
	'  kworker-7 [000] ..... 1.000001: kmalloc: call_site=f+0x1/0x2 ptr=0000000000000000 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false' \
	'  kworker-7 [000] ..... 1.000002: kmalloc: call_site=f+0x1/0x2 ptr=0000000000000040 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false' \
	> zero.trace
"$bin" fit zero.trace > zero.spec 2> zero.err
tap_is "kmalloc(0), failed: exit 0, one allocation kept" "$? $(sed -n 's/^# \([0-9]*\) allocations, .*/\1/p' zero.spec)" "0 1"
tap_like "kmalloc(0), failed: counted on stderr" "$(cat zero.err)" \
	"ignored allocations: 1 failed, 1 of 0 or over 4 MiB, 0 at a live address"

# stdin, and --strict on a malformed line (line 14: bytes_req=abc)
tap_is "stdin: same body, workload named stdin" \
	"$("$bin" fit - -q < "$data/fit-hand.trace" | spec_body /dev/stdin)" \
	"$(spec_body "$data/fit-hand.spec" | sed 's/^name = fit-hand$/name = stdin/')"
"$bin" fit "$data/err-strict-line14.trace" --strict -q > /dev/null 2> err.txt
tap_is "--strict: exit 2 naming file:line" "$? $(sed 's/.*\(err-strict-line14.trace:14\).*/\1/' err.txt)" \
	"2 err-strict-line14.trace:14"
"$bin" fit "$data/err-strict-line14.trace" -q > lax.spec 2> err.txt
tap_is "without --strict: exit 0, the skipped line counted in the spec" \
	"$? $(tail -1 lax.spec)" "0 # 1 malformed lines skipped (first: line 14)"

# CPU numbers (issue 25). A spec names CPUs 0..8191 (cpus 1..8192), as many
# as Linux's NR_CPUS allows: an event on a higher CPU is bad input naming its
# line (CPU 4294967295 crashed fit, 2147483648 took 16.8 GB, 9000 gave a
# spec with cpus = 9001 that synth refused). CPU 8191 is the highest: the
# spec says cpus = 8192 and lists only the CPUs seen, and synth takes it.
# cpu_trace CPU: an allocation on CPU 0 at 1 s, one on CPU at 1.5 s (line 3).
cpu_trace() {
	printf '%s\n' '# tracer: nop' \
		'  kworker-7 [000] ..... 1.000000: kmalloc: call_site=f+0x1/0x2 ptr=ffff888003a1c000 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false' \
		"  kworker-7 [$1] ..... 1.500000: kmalloc: call_site=f+0x1/0x2 ptr=ffff888003a1c040 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false" \
		'  kworker-7 [000] ..... 2.000000: kfree: call_site=f+0x1/0x2 ptr=ffff888003a1c000'
}
for c in 4294967295 2147483648 9000 8192; do
	cpu_trace "$c" > "cpu$c.trace"
	"$bin" fit "cpu$c.trace" -q > /dev/null 2> err.txt
	tap_is "CPU $c: exit 2, file:line and the range" "$? $(cat err.txt)" \
		"2 slabsim: cpu$c.trace:3: expected a CPU from 0 to 8191 (a workload's cpus is at most 8192), got $c"
done
cpu_trace 8191 > cpu8191.trace
"$bin" fit cpu8191.trace -q -o cpu8191.wl 2> err.txt
tap_is "CPU 8191: exit 0, cpus = 8192, the two CPUs seen" \
	"$? $(grep -E '^(cpus|cpu) =' cpu8191.wl | tr '\n' ' ')" "0 cpus = 8192 cpu = 0:1,8191:1 "
"$gen" synth --workload cpu8191.wl -o cpu8191.out 2> err.txt
tap_is "CPU 8191: synth takes what fit wrote, events on CPUs 0 and 8191" \
	"$? $(grep -o ' \[[0-9]*\] ' cpu8191.out | sort -u | tr -d ' ' | tr '\n' ' ')" "0 [000] [8191] "

# The workload name comes from the file name: every byte a spec's name cannot
# hold (blanks, [ ] = , # ;, control and non-ASCII bytes) becomes '_', so that
# synth reads the spec ('we]ird=na me' gave a spec synth refused); --name
# must be such a word itself.
cp cpu8191.trace 'we]ird=na me.trace'
"$bin" fit 'we]ird=na me.trace' -q -o weird.wl 2> err.txt
"$gen" synth --workload weird.wl -o /dev/null 2>> err.txt
tap_is "odd file name: the name made one word, synth takes it" \
	"$? $(grep '^name' weird.wl) $(cat err.txt)" "0 name = we_ird_na_me "
"$bin" fit cpu8191.trace --name 'a=b' -q > /dev/null 2> err.txt
tap_is "--name with '=': exit 1 naming the rule" "$? $(head -1 err.txt)" \
	"1 slabsim: --name expects one word of printable ASCII without [ ] = , # ;, got 'a=b'"

# An empty name= (found by fuzz_fit: a line cut after 'name=') names no
# cache: the geometry does, not '[cache ]', which synth refuses.
printf '%s\n' '# tracer: nop' \
	'  kworker-7 [000] ..... 1.000000: kmem_cache_alloc: call_site=g+0x1/0x2 ptr=ffff888003a1c000 bytes_req=600 bytes_alloc=600 gfp_flags=GFP_KERNEL node=-1 accounted=false' \
	'  kworker-7 [000] ..... 2.000000: kmem_cache_free: call_site=g+0x1/0x2 ptr=ffff888003a1c000 name=' \
	> emptyname.trace
"$bin" fit emptyname.trace -q -o emptyname.wl 2> err.txt
"$gen" synth --workload emptyname.wl -o /dev/null 2>> err.txt
tap_is "empty name=: [cache unnamed-600-600], synth takes it" \
	"$? $(grep '^\[cache' emptyname.wl) $(cat err.txt)" "0 [cache unnamed-600-600] "

# Rates: a spec states at most 1e9 allocations a second per stream. 20
# allocations of one site in 1 ns (ns timestamps) gave 'poisson 2e10', which
# synth refused: now bad input saying what the trace lacks.
{
	echo '# tracer: nop'
	for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20; do
		t=1.000000000
		[ "$i" -gt 10 ] && t=1.000000001
		echo "  kworker-7 [000] ..... $t: kmalloc: call_site=f+0x1/0x2 ptr=ffff888003a1c0$i bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false"
	done
} > fast.trace
"$bin" fit fast.trace -q > /dev/null 2> err.txt
tap_is "20 allocations in 1 ns: exit 2 naming the rate limit" "$? $(cat err.txt)" \
	"2 slabsim: fast.trace: expected a trace spanning at least 1 ns per allocation of a stream (a spec's rates are at most 1e9 a second), got 20 allocations of call site f+0x1/0x2 in 1 ns"

tap_done
