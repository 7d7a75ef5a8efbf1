/* json.h - the one JSON string writer every --format json output uses. */
#ifndef SLABSIM_JSON_H
#define SLABSIM_JSON_H

#include <stdio.h>

/* Write s as a JSON string literal that is valid UTF-8 (RFC 8259 asks
 * for it; strict parsers refuse anything else): quotes, backslash escapes
 * for '"' and '\\', \n, and \u00XX for the other control bytes;
 * well-formed UTF-8 sequences pass through as they are, and every byte
 * that does not start one (names come from traces: any bytes) becomes the
 * escape \ufffd, U+FFFD REPLACEMENT CHARACTER, one per such byte (so that
 * the count of bad bytes shows; slabsim(1), JSON OUTPUT). */
void json_str(FILE *out, const char *s);

#endif
