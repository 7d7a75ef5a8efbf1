#!/bin/sh
# man.sh - the manual page renders, holds every command's options, and the
# bash completion completes commands and flags. TAP output.
#   $1 slabsim binary, $2 the built slabsim.1, $3 the built slabsim.bash
set -u
bin=$1 page=$2 comp=$3
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$bin")
page=$(abs_path "$page")
comp=$(abs_path "$comp")
tap_scratch

groff -man -Tutf8 -ww "$page" > page.txt 2> warn.txt
tap_is "slabsim.1 renders with groff, no warning" "$? $(cat warn.txt)" "0 "
cmds=$("$bin" --help | awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}' | grep -v '^help$')
n=$(echo "$cmds" | wc -l)
tap_is "a section per command ($n)" "$(grep -c '^\.SS ' "$page")" "$n"
miss=
for c in $cmds; do
	for o in $("$bin" help "$c" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -q -- "$o" page.txt || miss="$miss $c:$o"
	done
done
tap_is "every option of every command's help is in the page" "$miss" ""
tap_like "the page names the exit status 5" "$(cat page.txt)" "5  nothing to work on"
"$bin" help help > hh.txt 2>&1
tap_is "slabsim help help" "$? $(head -n 1 hh.txt)" "0 Usage: slabsim help [COMMAND]"

# complete WORDS...: COMPREPLY for the last word, as bash gives it
complete_() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _slabsim; echo "${COMPREPLY[*]}"' \
		sh "$comp" "$@"
}
tap_is "completion: commands" "$(complete_ slabsim re)" "replay report"
tap_is "completion: replay's flags" "$(complete_ slabsim replay --no-s)" "--no-sample-caches --no-spill"
tap_is "completion: validate's flags" "$(complete_ slabsim validate --no-a)" "--no-anchor"
tap_is "completion: help's commands" "$(complete_ slabsim help sw)" "sweep"
tap_done
