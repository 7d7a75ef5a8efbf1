#!/bin/sh
# allocator-names.sh - what differs between allocators stays behind
# policy_ops (policies/policy.h): outside policies/ no C file compares a
# string with an allocator's name, includes an allocator's own header or
# calls its layout function directly. Option parsing finds a policy with
# policy_find(), which compares inside policies/. The names come from the
# binary (the --allocator error lists policy_table), so a new allocator is
# covered without editing this file. TAP output.
#   $1 slabsim binary, $2 the source tree
set -u
. "$(dirname "$0")/tap.sh"
bin=$(abs_path "$1") src=$(abs_path "$2")
tap_scratch

names=$("$bin" replay x --allocator ':none:' 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p')
tap_like "the binary lists its allocators" " $names " " slub slab "
alt=$(printf '%s\n' "$names" | tr ' ' '|')

# hits DIR...: file:line of each comparison with an allocator's name (a
# string literal, a policy's name field, or a variable holding one), each
# include of an allocator's header, each direct call of a layout function
hits() {
	grep -rnE --include='*.c' --include='*.h' \
		-e "(str(n|case|ncase)?cmp|memcmp) *\\([^;]*\"($alt)\"" \
		-e "(str(n|case|ncase)?cmp|memcmp) *\\([^;]*(ops->name|allocator)\\b" \
		-e "#include \"($alt)\\.h\"" \
		-e "\\blayout_($alt)\\(" \
		"$@"
}

# the check itself finds what it looks for
mkdir -p probe
cat >probe/probe.c <<'C'
	if (strcmp(s->p->ops->name, "slob") == 0)
	bool slab = !strcmp(r->allocator, cfg_name);
#include "slob.h"
	if (layout_slub(&cfg, &spec, &g, NULL))
	v->slabinfo_list = strcmp(arg, "loss") ? 1 : 2;
	if (strcmp(w, "slub_debug") == 0)
C
tap_is "the check finds each kind in a probe" "$(hits probe | cut -d: -f2 | tr '\n' ' ')" \
	"1 2 3 4 "

cd "$src" || exit 1
for d in sim analysis traces; do
	tap_is "no allocator names compared in $d/" "$(hits "$d")" ""
done
tap_done
