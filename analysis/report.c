/* report.c - the HTML report (see report.h). */
#include "report.h"
#include "query.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

/* dir/name as base64 (RFC 4648) on f; returns 0 or -1 if unreadable. */
static int base64_file(FILE *f, const char *dir, const char *name)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char p[4096];
	unsigned char in[3];
	size_t n;
	(void)snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *src = fopen(p, "rb");
	if (!src)
		return -1;
	while ((n = fread(in, 1, 3, src)) > 0) {
		uint32_t v = (uint32_t)in[0] << 16 | (n > 1 ? (uint32_t)in[1] << 8 : 0) |
			     (n > 2 ? in[2] : 0);
		fputc(tab[v >> 18 & 63], f);
		fputc(tab[v >> 12 & 63], f);
		fputc(n > 1 ? tab[v >> 6 & 63] : '=', f);
		fputc(n > 2 ? tab[v & 63] : '=', f);
		if (n < 3)
			break;
	}
	int bad = ferror(src);
	fclose(src);
	return bad ? -1 : 0;
}

static int table(FILE *f, sqlite3 *db, const char *heading, const char *name, struct err *e)
{
	const struct query_def *q = query_find(name);
	unsigned long n;
	fprintf(f, "<h2>");
	html_text(f, heading);
	fprintf(f, "</h2>\n<p class=q><code>slabsim query %s</code>: ", name);
	html_text(f, q->desc);
	fprintf(f, "</p>\n<div class=t>\n");
	int rc = query_print(db, q->sql, QUERY_HTML, f, &n, e);
	fprintf(f, "</div>\n");
	return rc;
}

int report_write(const char *db_path, const char *out_dir, const struct plot_opts *o, struct err *e)
{
	struct plot_result pr;
	sqlite3 *db = NULL;
	int rc;
	char p[4096];

	if ((rc = plot_all(db_path, out_dir, o, &pr, e)))
		return rc;
	(void)snprintf(p, sizeof(p), "%s/index.html", out_dir);
	FILE *f = fopen(p, "w");
	if (!f)
		return err_set(e, SLABSIM_EIO, "%s: %s", p, strerror(errno));
	if ((rc = query_open(db_path, &db, e))) {
		fclose(f);
		return rc;
	}
	fprintf(f, "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
		   "<title>slabsim report</title>\n<style>\n"
		   "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em}\n"
		   "table{border-collapse:collapse;font-size:85%%}\n"
		   "td,th{border:1px solid #bbb;padding:2px 6px}th{background:#eee}\n"
		   "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
		   "div.t{overflow-x:auto}img{max-width:100%%;border:1px solid #ddd}\n"
		   "p.q{color:#444}figcaption{font-weight:bold}\n</style>\n</head>\n<body>\n"
		   "<h1>slabsim report</h1>\n<p>Results database <code>");
	html_text(f, db_path);
	fprintf(f, "</code>; per-trace figures use the runs of <code>");
	html_text(f, pr.trace);
	fprintf(f,
		"</code>. Figures are also in this directory as PNG and SVG, with the "
		"gnuplot scripts (<code>*.gp</code>) and their data (<code>*.dat</code>).</p>\n");
	if ((rc = table(f, db, "Memory overhead of natural alignment", "align-overhead", e)) ||
	    (rc = table(f, db, "Repetitions: mean and 95% confidence interval over seeds",
			"seed-groups", e)))
		goto out;
	fprintf(f, "<h2>Figures</h2>\n");
	for (int i = 0; i < PLOT_NFIGS; i++) {
		const struct plot_fig *fg = &pr.figs[i];
		char png[64];
		(void)snprintf(png, sizeof(png), "%s.png", fg->name);
		fprintf(f, "<figure id=\"%s\">\n<figcaption>", fg->name);
		html_text(f, fg->title);
		fprintf(f, "</figcaption>\n");
		if (!fg->drawn || !o->render) {
			fprintf(f, "<p>Not drawn: ");
			html_text(f, fg->drawn ? "rendering was turned off" : fg->note);
			fprintf(f, ".</p>\n</figure>\n");
			continue;
		}
		fprintf(f, "<img alt=\"%s\" src=\"data:image/png;base64,", fg->name);
		if (base64_file(f, out_dir, png)) {
			rc = err_set(e, SLABSIM_EIO, "%s/%s: cannot read", out_dir, png);
			goto out;
		}
		fprintf(f,
			"\">\n<p><a href=\"%s.svg\">SVG</a> &middot; <a href=\"%s.gp\">gnuplot "
			"script</a> &middot; <a href=\"%s.dat\">data</a></p>\n</figure>\n",
			fg->name, fg->name, fg->name);
	}
	if ((rc = table(f, db, "Waste by kind", "waste-by-kind", e)) ||
	    (rc = table(f, db, "The caches that waste most", "top-waste", e)) ||
	    (rc = table(f, db, "Call sites that would see unaligned objects", "unaligned-sites",
			e)) ||
	    (rc = table(f, db, "Runs", "runs", e)))
		goto out;
	fprintf(f, "</body>\n</html>\n");
out:
	sqlite3_close(db);
	if (fclose(f) != 0 && !rc)
		rc = err_set(e, SLABSIM_EIO, "%s: write error", p);
	return rc;
}
