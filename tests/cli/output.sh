#!/bin/sh
# output.sh - -o/--output means the same in every command: what the command
# prints on stdout goes to the file instead (replay, validate, query,
# layout, fit, synth), or, for plot and report, the output directory (the
# same as --out). TAP output.
#   $1 slabsim binary, $2 traces/samples, $3 tests/cli/data
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") samples=$(abs_path "$2") data=$(abs_path "$3")
tap_scratch
boot=$samples/linux-6.1-boot-excerpt.trace

# same NAME ARGS...: `slabsim ARGS -o f` writes to f exactly what
# `slabsim ARGS` prints, and nothing on stdout
same() {
	s_name=$1
	shift
	"$bin" "$@" > want.txt 2> /dev/null
	"$bin" "$@" -o got.txt > stdout.txt 2> /dev/null
	rc=$?
	tap_is "$s_name: -o FILE = stdout, stdout empty" \
		"$rc $(cmp -s want.txt got.txt && echo same) $(wc -c < stdout.txt)" "0 same 0"
	rm -f got.txt
}
same "replay" replay "$boot" --no-db --format json
same "replay --caller" replay "$boot" --no-db --caller -l 5
same "replay --workload" replay --workload "$data/hand-192.wl" --no-db --duration 100ms
same "validate" validate "$data/capture-a" --no-db -q --format json
same "layout" layout --kernel 6.1 --format tsv
"$bin" replay "$boot" --db r.db -q
same "query" query runs --db r.db --format csv
"$bin" replay "$boot" --no-db --output "$boot" 2> err.txt
tap_is "replay --output TRACE refuses to overwrite the trace" "$? $(head -n 1 err.txt)" \
	"1 slabsim: --output $boot is the trace itself"
"$bin" replay "$boot" --no-db -o no/such/dir/f 2> err.txt
tap_is "replay -o in a missing directory: exit 3, named" "$? $(cat err.txt)" \
	"3 slabsim: no/such/dir/f: No such file or directory"
"$bin" plot --db r.db -o figs --no-render > /dev/null 2>&1
"$bin" plot --db r.db --out figs2 --no-render > /dev/null 2>&1
# one run: no natural/none pair, so no overhead figure: 4 .dat of 5
tap_is "plot -o DIR = plot --out DIR (the same files, 4 .dat)" \
	"$(cd figs && ls | tr '\n' ' ') $(ls figs | grep -c '\.dat$')" "$(cd figs2 && ls | tr '\n' ' ') 4"
tap_done
