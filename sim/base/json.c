/* json.c - see json.h. */
#include "json.h"

/* The length of the well-formed UTF-8 sequence at s (Unicode's Table 3-7:
 * no overlong form, no surrogate, nothing above U+10FFFF), or 0 when the
 * byte at s does not start one. s is NUL-terminated, and NUL is never a
 * continuation byte, so the checks stop at the end. */
static int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int n;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0; /* a continuation byte, C0/C1 (overlong), F5..FF */
	if (c == 0xe0)
		lo = 0xa0; /* overlong below U+0800 */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates U+D800..U+DFFF */
	else if (c == 0xf0)
		lo = 0x90; /* overlong below U+10000 */
	else if (c == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void json_str(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', out);
	while (*s) {
		unsigned char c = *s;
		int n = utf8_len(s);
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else if (n == 0)
			fputs("\\ufffd", out); /* one invalid byte: U+FFFD, escaped */
		else
			fwrite(s, 1, (size_t)n, out);
		s += n ? n : 1;
	}
	fputc('"', out);
}
