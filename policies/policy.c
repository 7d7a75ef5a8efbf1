/* policy.c - the table of allocator models: a new model is one file and one
 * row here. */
#include "policies_int.h"

#include <string.h>

const struct policy_ops *const policy_table[] = {
	&slub_ops,
	&slab_ops,
	&slob_ops,
	&exact_ops,
	NULL,
};

const struct policy_ops *policy_find(const char *name)
{
	for (int i = 0; policy_table[i]; i++)
		if (strcmp(policy_table[i]->name, name) == 0)
			return policy_table[i];
	return NULL;
}
