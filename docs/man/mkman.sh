#!/bin/sh
# mkman.sh SLABSIM OUT - write the manual page slabsim(1) from the built
# program's own help: the overview of `slabsim --help`, then a section per
# command with `slabsim help COMMAND`, so the page cannot drift from the
# options the program takes. Run by meson at build time.
set -eu
bin=$1 out=$2
version=$("$bin" --version | awk '{print $2}')
# roff: a line starting with . or ' is a request; backslashes are escapes
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
cmds=$("$bin" --help | awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}' | grep -v '^help$')
{
	echo ".TH SLABSIM 1 \"\" \"slabsim $version\" \"User Commands\""
	echo ".SH NAME"
	printf '%s\n' "slabsim \\- simulate the Linux kernel's slab allocators on recorded or synthetic workloads"
	echo ".SH SYNOPSIS"
	echo ".B slabsim"
	echo ".I COMMAND"
	printf '%s\n' '[\fIOPTIONS\fR]'
	echo ".SH DESCRIPTION"
	echo ".nf"
	"$bin" --help | esc
	echo ".fi"
	echo ".SH COMMANDS"
	for c in $cmds; do
		echo ".SS $c"
		echo ".nf"
		"$bin" help "$c" | esc
		echo ".fi"
	done
	echo ".SH JSON OUTPUT"
	esc <<-'EOT'
	Every --format json output is valid UTF-8 (RFC 8259), whatever bytes a trace's call sites
	or cache names hold: well-formed UTF-8 sequences are copied as they are, control bytes are
	escaped (\n, \u00XX), and each byte that does not start a well-formed sequence (a
	continuation byte out of place, an overlong form, a surrogate, F5..FF) becomes \ufffd,
	U+FFFD REPLACEMENT CHARACTER, one per byte, so that the count of bad bytes shows.
	Sums of the trace's 64-bit fields (perf kmem's requested, allocated and freed bytes, lost
	events) saturate at 18446744073709551615 instead of wrapping; the outputs say so where it
	happens.
	EOT
	echo ".SH FILES"
	echo "slabsim.db, the results database by default (its schema: docs/schema.md of the source tree)."
	echo ".SH SEE ALSO"
	echo "The README and docs/ of the source tree: design.md, metrics.md, schema.md, sweeps.md,"
	echo "workloads.md, fit.md, capture-format.md, models.md."
} > "$out"
