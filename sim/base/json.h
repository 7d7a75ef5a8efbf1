/* json.h - the one JSON string writer every --format json output uses. */
#ifndef SLABSIM_JSON_H
#define SLABSIM_JSON_H

#include <stdio.h>

/* Write s as a JSON string literal: quotes, backslash escapes for '"' and
 * '\\', \n, and \u00XX for the other control bytes. Other bytes pass
 * through (names come from traces: UTF-8 or plain bytes). */
void json_str(FILE *out, const char *s);

#endif
