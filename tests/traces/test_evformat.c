/* test_evformat.c - the event formats read in process (traces/evformat.h)
 * against libtraceevent's parse of the same text.
 *
 * argv: the samples folder. For every format of each bundled trace.dat
 * that evformat takes, libtraceevent must give the same fields (offset,
 * size, dynamic, relative), the same print string and the same gfp flag
 * table (values and names, in order), each format parsed with the last
 * table-holding one as its model, as tracedat.c parses them. The formats
 * tracedat.c reads (the slab events, the page free, ftrace's print) must be
 * taken. Then shapes that are not taken (what libtraceevent would read
 * differently, or crash on) and the header page's commit size.
 */
#include "check.h"
#include "datfile.h"
#include "evformat.h"
#include "tepgfp.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(SLABSIM_HAVE_TRACECMD) && defined(SLABSIM_HAVE_ZSTD)
#include <traceevent/event-parse.h>


/* The differences between ev and f (0: none), the first one printed. */
static int compare(const struct datfile_format *df, struct tep_event *ev, const struct evformat *f)
{
	int bad = 0;
	for (int common = 0; common < 2; common++) {
		struct tep_format_field **fl =
			common ? tep_event_common_fields(ev) : tep_event_fields(ev);
		for (int i = 0; fl && fl[i]; i++) {
			struct evformat_field o = evformat_field(f, fl[i]->name, common);
			unsigned flags =
				((fl[i]->flags & TEP_FIELD_IS_DYNAMIC) ? EVFORMAT_DYNAMIC : 0) |
				((fl[i]->flags & TEP_FIELD_IS_RELATIVE) ? EVFORMAT_RELATIVE : 0);
			if (!o.found || o.offset != fl[i]->offset || o.size != fl[i]->size ||
			    o.flags != flags) {
				if (!bad++)
					check_diag("#   %s:%s field %s\n", df->system, df->name,
						   fl[i]->name);
			}
		}
		free(fl);
	}
	const char *pf = ev->print_fmt.format ? ev->print_fmt.format : "";
	if (strcmp(pf, evformat_print(f)) != 0 && !bad++)
		check_diag("#   %s:%s print '%s' / '%s'\n", df->system, df->name, pf,
			   evformat_print(f));
	const uint64_t *val;
	const char *const *name;
	size_t n = evformat_gfp_table(f, &val, &name), i = 0;
	struct tep_print_arg *t = tepgfp_table(ev->print_fmt.args);
	for (struct tep_print_flag_sym *s = t ? t->flags.flags : NULL; s; s = s->next, i++) {
		uint64_t v = s->value ? strtoull(s->value, NULL, 0) : 0;
		/* the { 0, NULL } end: a name no value selects */
		if ((i >= n || v != val[i] || (v && strcmp(s->str ? s->str : "", name[i]) != 0)) &&
		    !bad++)
			check_diag("#   %s:%s flag %zu\n", df->system, df->name, i);
	}
	if (i != n && !bad++)
		check_diag("#   %s:%s %zu flags, want %zu\n", df->system, df->name, n, i);
	return bad;
}

static bool read_by_tracedat(const struct datfile_format *f)
{
	static const char *const names[] = {"kmalloc", "kmem_cache_alloc", "kfree",
					    "kmem_cache_free", "mm_page_free"};
	if (strcmp(f->system, "ftrace") == 0)
		return strcmp(f->name, "print") == 0;
	for (size_t i = 0; strcmp(f->system, "kmem") == 0 && i < sizeof(names) / sizeof(names[0]);
	     i++)
		if (strcmp(f->name, names[i]) == 0)
			return true;
	return false;
}

static void one_file(const char *path)
{
	char what[1200];
	int fd = open(path, O_RDONLY);
	struct datfile *df = NULL;
	(void)snprintf(what, sizeof(what), "%s: read in process", path);
	if (!CHECK(what, fd >= 0 && datfile_open(fd, &df) == 0)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	size_t n = datfile_nformats(df), taken = 0, tables = 0, wanted = 0, wanted_taken = 0;
	int bad = 0;
	struct evformat **keep = calloc(n + 1, sizeof(*keep));
	const struct evformat *like = NULL;
	tep_set_loglevel(TEP_LOG_NONE);
	for (size_t i = 0; keep && i < n; i++) {
		const struct datfile_format *f = datfile_format(df, i);
		bool want = read_by_tracedat(f);
		wanted += want;
		if (evformat_parse(f->text, f->len, like, &keep[i]) != 0)
			continue;
		taken++;
		wanted_taken += want;
		struct tep_handle *tep = tep_alloc();
		struct tep_event *ev = NULL;
		if (!tep || tep_parse_format(tep, &ev, f->text, f->len, f->system) || !ev) {
			if (!bad++)
				check_diag("#   %s:%s: libtraceevent does not parse it\n",
					   f->system, f->name);
		} else {
			bad += compare(f, ev, keep[i]);
		}
		tep_free(tep);
		const uint64_t *val;
		const char *const *name;
		if (evformat_gfp_table(keep[i], &val, &name)) {
			tables++;
			like = keep[i];
		}
	}
	(void)snprintf(what, sizeof(what),
		       "%s: %zu of %zu formats taken, %zu gfp tables: as libtraceevent reads them",
		       path, taken, n, tables);
	CHECK(what, keep && bad == 0 && taken > n / 2 && tables > 0);
	(void)snprintf(what, sizeof(what), "%s: the %zu formats tracedat.c reads taken", path,
		       wanted);
	CHECK(what, wanted >= 5 && wanted_taken == wanted);
	for (size_t i = 0; keep && i < n; i++)
		evformat_free(keep[i]);
	free(keep);
	datfile_close(df);
}

static bool taken(const char *text)
{
	struct evformat *f = NULL;
	int rc = evformat_parse(text, strlen(text), NULL, &f);
	evformat_free(f);
	return rc == 0;
}

#define HEAD                                                                                       \
	"name: kmalloc\nID: 658\nformat:\n"                                                        \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"                               \
	"\tfield:unsigned long gfp_flags;\toffset:8;\tsize:8;\tsigned:0;\n\n"

static void shapes(void)
{
	CHECK("a plain table is taken",
	      taken(HEAD "print fmt: \"gfp=%s\", __print_flags(REC->gfp_flags, \"|\", "
			 "{(unsigned long)(( gfp_t)((((1UL))) << (6))), \"__GFP_IO\"}, "
			 "{ 0, ((void *)0) })\n"));
	CHECK("a tab in the print string: not taken",
	      !taken(HEAD "print fmt: \"gfp=\t%s\", REC->gfp_flags\n"));
	CHECK("a table over a field the format lacks: not taken",
	      !taken(HEAD "print fmt: \"gfp=%s\", __print_flags(REC->xfp_flags, \"|\", "
			  "{1, \"A\"})\n"));
	CHECK("| and & mixed without brackets: not taken",
	      !taken(HEAD "print fmt: \"%s\", __print_flags(REC->gfp_flags, \"|\", "
			  "{1 | 2 & 3, \"A\"})\n"));
	CHECK("a value beyond 32 bits: not taken",
	      !taken(HEAD "print fmt: \"%s\", __print_flags(REC->gfp_flags, \"|\", "
			  "{1UL << 40, \"A\"})\n"));
	CHECK("a named constant: not taken",
	      !taken(HEAD "print fmt: \"%s\", __print_flags(REC->gfp_flags, \"|\", "
			  "{___GFP_IO, \"A\"})\n"));
	CHECK("a comma in a field's type: not taken",
	      !taken("name: kfree\nID: 657\nformat:\n"
		     "\tfield:unsign,d short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		     "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		     "print fmt: \"ptr=%p\", REC->ptr\n"));
	CHECK("an unclosed [ in a field's type: not taken",
	      !taken("name: kfree\nID: 657\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		     "\tfield:__data_loc char[o name;\toffset:24;\tsize:4;\tsigned:0;\n\n"
		     "print fmt: \"name=%s\", __get_str(name)\n"));
	CHECK("a plain kfree is taken",
	      taken("name: kfree\nID: 657\nformat:\n"
		    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		    "\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n\n"
		    "print fmt: \"name=%s\", __get_str(name)\n"));
	CHECK("unbalanced brackets: not taken",
	      !taken(HEAD "print fmt: \"%s\", (REC->gfp_flags\n"));
	static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				 "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	CHECK_EQ_U64("header page: the commit field's size",
		     (uint64_t)evformat_header_commit_size(hp, sizeof(hp) - 1), 8);
	static const char nc[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				 "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	CHECK("header page without a commit field: -1",
	      evformat_header_commit_size(nc, sizeof(nc) - 1) == -1);
}

int main(int argc, char **argv)
{
	static const char *const files[] = {"linux-6.18-kmem.dat", "linux-6.18-kmem-lost.dat",
					    "linux-6.18-kmem-pagefree.dat"};
	char path[1024];
	if (argc != 2) {
		printf("Bail out! usage: test_evformat SAMPLES_DIR\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", argv[1], files[i]);
		one_file(path);
	}
	shapes();
	return check_done();
}

#else

int main(void)
{
	printf("1..0 # SKIP built without libtracecmd or zstd\n");
	return 0;
}

#endif
