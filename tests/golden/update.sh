#!/bin/sh
# update.sh - regenerate tests/golden/expected/*.txt with a slabsim build, for
# a deliberate change of the model or the schema. Read the diff it prints,
# check the moved figures against the kernel rules, and explain in the
# commit/issue note why each one moved (tests/golden/README.md).
#   tests/golden/update.sh [SLABSIM]     (default: build/slabsim)
set -u
here=$(cd "$(dirname "$0")" && pwd) || exit 1
root=$(cd "$here/../.." && pwd) || exit 1
bin=${1:-$root/build/slabsim}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || { echo "update.sh: no slabsim at $bin (build it, or pass its path)" >&2; exit 1; }
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
changed=0
# shellcheck disable=SC2086 # options are words
while read -r name trace opts; do
	case $name in '#'* | '') continue ;; esac
	want=$here/expected/$name.txt
	if ! sh "$here/dump.sh" "$bin" "$root/traces/samples/$trace" "$tmp/$name.db" $opts > "$tmp/$name.txt"; then
		echo "update.sh: $name: replay or dump failed; $want left as it was" >&2
		status=1
		continue
	fi
	if [ -f "$want" ] && cmp -s "$want" "$tmp/$name.txt"; then
		echo "$name: unchanged"
		continue
	fi
	echo "$name: changed:"
	[ -f "$want" ] && diff -u "$want" "$tmp/$name.txt"
	cp "$tmp/$name.txt" "$want" || status=1
	changed=$((changed + 1))
done < "$here/cases"
if [ "$changed" -gt 0 ]; then
	echo "update.sh: $changed expected file(s) rewritten. Explain every moved figure in the commit/issue note."
fi
exit "$status"
