/* policies_int.h - internals shared by the models in policies/. */
#ifndef SLABSIM_POLICIES_INT_H
#define SLABSIM_POLICIES_INT_H

#include "policy.h"

extern const struct policy_ops slub_ops;
extern const struct policy_ops slab_ops;
extern const struct policy_ops slob_ops;
extern const struct policy_ops exact_ops;

#endif
