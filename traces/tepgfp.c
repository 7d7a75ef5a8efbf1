/* tepgfp.c - see tepgfp.h. */
#include "tepgfp.h"

#if defined(SLABSIM_HAVE_TRACECMD) || defined(SLABSIM_HAVE_TRACEFS)
#include <string.h>

struct tep_print_arg *tepgfp_table(struct tep_print_arg *arg)
{
	struct tep_print_arg *f;
	for (; arg; arg = arg->next) {
		switch (arg->type) {
		case TEP_PRINT_FLAGS:
			f = arg->flags.field;
			while (f && f->type == TEP_PRINT_TYPE)
				f = f->typecast.item;
			if (f && f->type == TEP_PRINT_FIELD && f->field.name &&
			    strcmp(f->field.name, "gfp_flags") == 0)
				return arg;
			break;
		case TEP_PRINT_OP:
			if ((f = tepgfp_table(arg->op.left)) || (f = tepgfp_table(arg->op.right)))
				return f;
			break;
		case TEP_PRINT_TYPE:
			if ((f = tepgfp_table(arg->typecast.item)))
				return f;
			break;
		default:
			break;
		}
	}
	return NULL;
}
#else
/* without libtraceevent there is nothing to walk (ISO C wants a
 * declaration in every file) */
typedef int tepgfp_none;
#endif
