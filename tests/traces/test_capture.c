/* test_capture.c - capture directory parsing (traces/capture.h): the kernel
 * command line's slab parameters (slub_debug forms of 5.4 and 6.1), uname
 * releases, the real 6.1 slab-attrs.tsv (argv[1]), the hand-made capture
 * (argv[2]), /proc/meminfo files, and a SLOB capture (argv[3]: no slabinfo,
 * meminfo at the start, at two snapshots and at the end; the meminfo files
 * are those of a real SLOB kernel booted by qemu-boot). Expected values are
 * read off the input files by hand. */
#include "capture.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A call that must return 0; prints the error otherwise. */
#define CHECK_EQ_U64_RC(name, rc) (CHECK((name), (rc) == 0) || (printf("#   %s\n", e.msg), 0))

static void test_cmdline(void)
{
	struct capture_cmdline c;
	struct err e;
	int rc = capture_parse_cmdline("BOOT_IMAGE=/vmlinuz ro slub_debug=FZ,kmalloc-64,dentry;P "
				       "slub_min_order=1 slub_max_order=2 slub_min_objects=16 "
				       "slab_nomerge no_hash_pointers\n",
				       "cmdline.txt", &c, &e);
	CHECK_EQ_U64("cmdline parses", rc, 0);
	CHECK("slub_debug given", c.slub_debug_given);
	CHECK_EQ_U64("two slub_debug blocks", c.ndebug, 2);
	if (c.ndebug == 2) {
		CHECK_EQ_STR("block 1 flags", c.debug[0].flags, "FZ");
		CHECK_EQ_U64("block 1: two caches", c.debug[0].ncaches, 2);
		if (c.debug[0].ncaches == 2) {
			CHECK_EQ_STR("block 1 cache 1", c.debug[0].caches[0], "kmalloc-64");
			CHECK_EQ_STR("block 1 cache 2", c.debug[0].caches[1], "dentry");
		}
		CHECK_EQ_STR("block 2 flags", c.debug[1].flags, "P");
		CHECK_EQ_U64("block 2: every cache", c.debug[1].ncaches, 0);
	}
	CHECK_EQ_U64("slub_min_order", c.slub_min_order, 1);
	CHECK_EQ_U64("slub_max_order", c.slub_max_order, 2);
	CHECK_EQ_U64("slub_min_objects", c.slub_min_objects, 16);
	CHECK("slab_nomerge", c.nomerge);
	CHECK("no_hash_pointers", c.no_hash_pointers);
	CHECK_EQ_STR("raw kept without newline", c.raw,
		     "BOOT_IMAGE=/vmlinuz ro slub_debug=FZ,kmalloc-64,dentry;P slub_min_order=1 "
		     "slub_max_order=2 slub_min_objects=16 slab_nomerge no_hash_pointers");
	capture_cmdline_free(&c);

	rc = capture_parse_cmdline("quiet slub_debug", "c", &c, &e);
	CHECK("bare slub_debug: one block, default flags",
	      rc == 0 && c.slub_debug_given && c.ndebug == 1 && c.debug[0].flags[0] == '\0' &&
		      c.debug[0].ncaches == 0);
	CHECK_EQ_U64("absent orders are -1", (uint64_t)(c.slub_min_order + 1), 0);
	capture_cmdline_free(&c);

	rc = capture_parse_cmdline("slub_debug=,dentry", "c", &c, &e);
	CHECK("',dentry': default flags for dentry",
	      rc == 0 && c.ndebug == 1 && c.debug[0].flags[0] == '\0' && c.debug[0].ncaches == 1);
	capture_cmdline_free(&c);

	rc = capture_parse_cmdline("ro quiet", "c", &c, &e);
	CHECK("no slab parameters", rc == 0 && !c.slub_debug_given && !c.nomerge);
	capture_cmdline_free(&c);

	rc = capture_parse_cmdline("slub_max_order=x", "dir/cmdline.txt", &c, &e);
	CHECK_EQ_U64("bad slub_max_order: EINPUT", (uint64_t)(int64_t)rc,
		     (uint64_t)(int64_t)SLABSIM_EINPUT);
	CHECK_EQ_STR("bad slub_max_order: message", e.msg,
		     "dir/cmdline.txt:1: expected slub_max_order=<number>, got 'x'");
}

/* The names of 6.9 and later (slab_debug=, slab_max_order=), and the init
 * arguments after "--" (this 6.18 machine's command line has some). */
static void test_cmdline_6_9(void)
{
	struct capture_cmdline c;
	struct err e;
	int rc =
		capture_parse_cmdline("console=ttyS0 slab_debug=FZ,vm_area_struct slab_max_order=1 "
				      "slab_min_objects=8 rdinit=/init -- --init-arg "
				      "slab_min_order=3 slub_debug=P\n",
				      "cmdline.txt", &c, &e);
	CHECK_EQ_U64("6.9 names: parses", rc, 0);
	CHECK("slab_debug= given", c.slub_debug_given);
	CHECK_EQ_U64("slab_debug=: one block (P after -- is init's)", c.ndebug, 1);
	if (c.ndebug == 1) {
		CHECK_EQ_STR("slab_debug= flags", c.debug[0].flags, "FZ");
		CHECK_EQ_U64("slab_debug=: one cache", c.debug[0].ncaches, 1);
		if (c.debug[0].ncaches == 1)
			CHECK_EQ_STR("slab_debug= cache", c.debug[0].caches[0], "vm_area_struct");
	}
	CHECK_EQ_U64("slab_max_order", c.slub_max_order, 1);
	CHECK_EQ_U64("slab_min_objects", c.slub_min_objects, 8);
	CHECK_EQ_U64("slab_min_order after -- is init's: not given",
		     (uint64_t)(c.slub_min_order + 1), 0);
	capture_cmdline_free(&c);
}

/* A slab-attrs.tsv of Linux 6.18 (rows of this development machine's
 * 6.18.44, /sys/kernel/slab read by traces/capture/record): 30 columns, the
 * 28 of older scripts then remote_node_defrag_ratio and sheaf_capacity;
 * here with the last two swapped, as a reader takes columns by name. */
static void test_attrs_6_18(void)
{
	char path[] = "/tmp/slabsim-test-attrs-XXXXXX";
	int fd = mkstemp(path);
	if (!CHECK("temporary file", fd >= 0))
		return;
	FILE *f = fdopen(fd, "w");
	fputs("name\tlink_target\tobject_size\tslab_size\torder\tobjs_per_slab\talign\tred_zone\t"
	      "poison\tstore_user\thwcache_align\tobjects\ttotal_objects\tslabs\tpartial\t"
	      "cpu_slabs\taliases\tsanity_checks\ttrace\tcache_dma\treclaim_account\t"
	      "destroy_by_rcu\tusersize\tmin_partial\tcpu_partial\tctor\tobjects_partial\t"
	      "slabs_cpu_partial\tsheaf_capacity\tremote_node_defrag_ratio\n"
	      "kmalloc-96\t-\t96\t96\t0\t42\t32\t0\t0\t0\t0\t4042 N0=4042\t4368 N0=4368\t"
	      "104 N0=104\t17 N0=17\t4 N0=4\t0\t0\t0\t0\t0\t0\t96\t5\t120\t-\t267 N0=267\t"
	      "126(6) C0=84(4) C1=42(2)\t0\t100\n"
	      "vm_area_struct\t-\t192\t192\t0\t21\t64\t0\t0\t0\t1\t1677 N0=1677\t"
	      "2604 N0=2604\t124 N0=124\t102 N0=102\t17 N0=17\t0\t0\t0\t0\t0\t1\t0\t5\t"
	      "120\t-\t1215 N0=1215\t157(15) C0=42(4) C1=115(11)\t32\t100\n",
	      f);
	fclose(f);
	struct capture_attrs a;
	struct err e;
	int rc = capture_read_attrs(path, &a, &e);
	unlink(path);
	if (!CHECK_EQ_U64_RC("6.18 tsv reads", rc))
		return;
	CHECK_EQ_U64("6.18: two rows", a.n, 2);
	CHECK("6.18: sheaf_capacity column found", a.has_col[CAPTURE_A_SHEAF_CAPACITY]);
	char miss[320];
	capture_attrs_missing(&a, miss, sizeof(miss));
	CHECK_EQ_STR("6.18: no layout column missing", miss, "");
	if (a.n == 2) {
		CHECK_EQ_U64("kmalloc-96 align 32 (6.11 rule)", a.rows[0].v[CAPTURE_A_ALIGN], 32);
		CHECK_EQ_U64("kmalloc-96 sheaf_capacity 0", a.rows[0].v[CAPTURE_A_SHEAF_CAPACITY],
			     0);
		CHECK_EQ_U64("kmalloc-96 CPU 1 partial slabs", a.rows[0].cpu_partial_slabs[1], 2);
		CHECK_EQ_U64("vm_area_struct slab_size 192", a.rows[1].v[CAPTURE_A_SLAB_SIZE], 192);
		CHECK_EQ_U64("vm_area_struct 21 per slab", a.rows[1].v[CAPTURE_A_OBJS_PER_SLAB],
			     21);
		CHECK_EQ_U64("vm_area_struct sheaf_capacity 32",
			     a.rows[1].v[CAPTURE_A_SHEAF_CAPACITY], 32);
		CHECK_EQ_U64("vm_area_struct objects_partial",
			     a.rows[1].v[CAPTURE_A_OBJECTS_PARTIAL], 1215);
	}
	capture_attrs_free(&a);
}

static void test_uname(void)
{
	char rel[64];
	uint32_t ma = 0, mi = 0;
	struct err e;
	int rc = capture_parse_uname("Linux qemu 6.1.0-57-amd64 #1 SMP PREEMPT_DYNAMIC Debian "
				     "6.1.192-3 (2025-08-01) x86_64 GNU/Linux\n",
				     "u", rel, sizeof(rel), &ma, &mi, &e);
	CHECK("uname -a 6.1", rc == 0 && ma == 6 && mi == 1);
	CHECK_EQ_STR("release", rel, "6.1.0-57-amd64");
	rc = capture_parse_uname("Linux h 5.4.0-100-generic #113", "u", rel, sizeof(rel), &ma, &mi,
				 &e);
	CHECK("uname 5.4", rc == 0 && ma == 5 && mi == 4);
	rc = capture_parse_uname("6.12.9", "u", rel, sizeof(rel), &ma, &mi, &e);
	CHECK("bare release 6.12", rc == 0 && ma == 6 && mi == 12);
	rc = capture_parse_uname("Linux host", "dir/uname.txt", rel, sizeof(rel), &ma, &mi, &e);
	CHECK("no release: EINPUT naming the file",
	      rc == SLABSIM_EINPUT && strncmp(e.msg, "dir/uname.txt:1: ", 17) == 0);
}

static void test_snap_id(void)
{
	CHECK_EQ_STR("SNAP 12", capture_snap_id("SNAP 12"), "12");
	CHECK_EQ_STR("SNAP  a-b", capture_snap_id("SNAP  a-b"), "a-b");
	CHECK("SNAPSHOT 1 is no snapshot", capture_snap_id("SNAPSHOT 1") == NULL);
	CHECK("SNAP alone", capture_snap_id("SNAP") == NULL);
	CHECK("phase one", capture_snap_id("phase one") == NULL);
}

static void test_attrs(const char *path)
{
	struct capture_attrs a;
	struct err e;
	int rc = capture_read_attrs(path, &a, &e);
	if (!CHECK_EQ_U64_RC("real tsv reads", rc))
		return;
	CHECK_EQ_U64("255 rows (256 lines, one header)", a.n, 255);
	const struct capture_attrs_row *k4 = NULL, *an = NULL, *av = NULL, *z24 = NULL;
	for (uint32_t i = 0; i < a.n; i++) {
		if (!strcmp(a.rows[i].name, "kmalloc-4k"))
			k4 = &a.rows[i];
		if (!strcmp(a.rows[i].name, "Acpi-Namespace"))
			an = &a.rows[i];
		if (!strcmp(a.rows[i].name, "anon_vma"))
			av = &a.rows[i];
		if (!strcmp(a.rows[i].name, ":0000024"))
			z24 = &a.rows[i];
	}
	CHECK("rows found", k4 && an && av && z24);
	if (k4 && an && av && z24) {
		CHECK_EQ_U64("kmalloc-4k objs_per_slab", k4->v[CAPTURE_A_OBJS_PER_SLAB], 8);
		CHECK_EQ_U64("kmalloc-4k order", k4->v[CAPTURE_A_ORDER], 3);
		CHECK_EQ_U64("kmalloc-4k align", k4->v[CAPTURE_A_ALIGN], 4096);
		CHECK_EQ_U64("kmalloc-4k slabs '4 N0=4'", k4->v[CAPTURE_A_SLABS], 4);
		CHECK("kmalloc-4k is a root without ctor", !k4->link_target && k4->has_ctor == 0);
		CHECK_EQ_STR("Acpi-Namespace is an alias", an->link_target, ":0000048");
		CHECK_EQ_U64("anon_vma has a ctor", av->has_ctor, 1);
		CHECK_EQ_U64(":0000024 objects '340 N0=340'", z24->v[CAPTURE_A_OBJECTS], 340);
		CHECK_EQ_U64(":0000024 total_objects", z24->v[CAPTURE_A_TOTAL_OBJECTS], 340);
		CHECK_EQ_U64("6.1: no sheaf_capacity column, -1",
			     (uint64_t)(k4->v[CAPTURE_A_SHEAF_CAPACITY] + 1), 0);
	}
	CHECK("6.1: sheaf_capacity not in the header", !a.has_col[CAPTURE_A_SHEAF_CAPACITY]);
	capture_attrs_free(&a);
}

static void test_dir(const char *dir)
{
	struct capture *c = NULL;
	struct err e;
	int rc = capture_open(dir, &c, &e);
	if (!CHECK_EQ_U64_RC("hand-made capture opens", rc))
		return;
	CHECK("trace.txt found", strstr(c->trace, "/trace.txt") != NULL);
	CHECK("uname: 6.1", c->has_uname && c->major == 6 && c->minor == 1);
	CHECK_EQ_U64("ncpus possible=0-1 -> 2", c->possible, 2);
	CHECK_EQ_U64("ncpus online=0-1 -> 2", c->online, 2);
	CHECK_EQ_U64("ncpus nproc", c->nproc, 2);
	CHECK("cmdline slub_max_order=3", c->has_cmdline && c->cmdline.slub_max_order == 3);
	CHECK("attrs: 2 rows", c->has_attrs && c->attrs.n == 2);
	CHECK("start and end slabinfo", c->has_start && c->has_end);
	CHECK_EQ_U64("start: 2 caches", c->start.n, 2);
	const struct capture_slabinfo_row *r = capture_slabinfo_find(&c->start, "kmalloc-4k");
	CHECK("start kmalloc-4k: 10 16 4096 8 8 : 2 2",
	      r && r->active_objs == 10 && r->num_objs == 16 && r->objsize == 4096 &&
		      r->objperslab == 8 && r->pagesperslab == 8 && r->active_slabs == 2 &&
		      r->num_slabs == 2);
	CHECK_EQ_U64("start pages 2*4 + 2*8", capture_slabinfo_pages(&c->start), 24);
	CHECK_EQ_U64("4 snapshot files", c->nsnapshots, 4);
	if (c->nsnapshots == 4) {
		CHECK_EQ_STR("snapshot ids sorted", c->snapshot_ids[0], "1");
		CHECK_EQ_STR("snapshot 4th", c->snapshot_ids[3], "7");
	}
	struct capture_slabinfo si;
	rc = capture_read_snapshot(c, "2", &si, &e);
	CHECK("snapshot 2: 4 + 32 pages", rc == 0 && capture_slabinfo_pages(&si) == 36);
	if (!rc)
		capture_slabinfo_free(&si);
	CHECK("an old capture: no meminfo files, no meminfo snapshots",
	      !c->has_meminfo_start && !c->has_meminfo_end && c->nmeminfo == 0);
	capture_close(c);
}

/* path of a temporary file holding text (to be unlinked), or NULL */
static char *tmp_text(const char *text)
{
	static char path[64];
	(void)snprintf(path, sizeof(path), "/tmp/test_capture.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n;
	(void)close(fd);
	return ok ? path : NULL;
}

static void test_meminfo(void)
{
	struct capture_meminfo m;
	struct err e;
	char *p = tmp_text("MemTotal:  1000 kB\nSlab:  \t 9272 kB\nSUnreclaim: 9000 kB\n"
			   "HugePages_Total:       0\nNoColon\nSlabby: x kB\n");
	if (!CHECK("temporary meminfo written", p != NULL))
		return;
	int rc = capture_read_meminfo(p, &m, &e);
	CHECK_EQ_U64_RC("meminfo reads (unit-less lines, lines without colon, other keys skipped)",
			rc);
	CHECK_EQ_U64("Slab:", (uint64_t)m.slab_kb, 9272);
	CHECK_EQ_U64("SUnreclaim:", (uint64_t)m.sunreclaim_kb, 9000);
	CHECK_EQ_U64("MemTotal:", (uint64_t)m.memtotal_kb, 1000);
	CHECK("absent lines are -1", m.sreclaimable_kb == -1 && m.memfree_kb == -1);
	(void)unlink(p);

	p = tmp_text("MemTotal: 1 kB\nSlab: 12 MB\n");
	if (!CHECK("temporary meminfo written", p != NULL))
		return;
	rc = capture_read_meminfo(p, &m, &e);
	char want[128];
	(void)snprintf(want, sizeof(want), "%s:2: expected 'Slab: <number> kB', got ' 12 MB'", p);
	CHECK_EQ_U64("Slab: in MB: EINPUT", (uint64_t)(int64_t)rc,
		     (uint64_t)(int64_t)SLABSIM_EINPUT);
	CHECK_EQ_STR("Slab: in MB: message names file and line", e.msg, want);
	(void)unlink(p);
	rc = capture_read_meminfo("/nonexistent/meminfo", &m, &e);
	CHECK_EQ_U64("missing meminfo: EIO", (uint64_t)(int64_t)rc, (uint64_t)(int64_t)SLABSIM_EIO);
}

static void test_slob_dir(const char *dir)
{
	struct capture *c = NULL;
	struct err e;
	int rc = capture_open(dir, &c, &e);
	if (!CHECK_EQ_U64_RC("SLOB capture opens", rc))
		return;
	CHECK("no slabinfo, no attrs", !c->has_start && !c->has_end && !c->has_attrs);
	CHECK_EQ_U64("no slabinfo snapshots", c->nsnapshots, 0);
	CHECK("meminfo start and end", c->has_meminfo_start && c->has_meminfo_end);
	CHECK_EQ_U64("start Slab:", (uint64_t)c->meminfo_start.slab_kb, 9272);
	CHECK_EQ_U64("end Slab:", (uint64_t)c->meminfo_end.slab_kb, 9548);
	CHECK_EQ_U64("end SReclaimable:", (uint64_t)c->meminfo_end.sreclaimable_kb, 0);
	CHECK_EQ_U64("end MemFree:", (uint64_t)c->meminfo_end.memfree_kb, 642252);
	CHECK_EQ_U64("2 meminfo snapshots", c->nmeminfo, 2);
	if (c->nmeminfo == 2) {
		CHECK_EQ_STR("meminfo ids sorted: first", c->meminfo_ids[0], "00-boot");
		CHECK_EQ_STR("meminfo ids sorted: second", c->meminfo_ids[1], "01-free");
	}
	struct capture_meminfo m;
	rc = capture_read_snapshot_meminfo(c, "01-free", &m, &e);
	CHECK("snapshot 01-free: Slab: 13364", rc == 0 && m.slab_kb == 13364);
	rc = capture_read_snapshot_meminfo(c, "02-none", &m, &e);
	CHECK_EQ_U64("missing snapshot meminfo: EIO", (uint64_t)(int64_t)rc,
		     (uint64_t)(int64_t)SLABSIM_EIO);
	capture_close(c);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: test_capture ATTRS.tsv CAPTURE_DIR SLOB_CAPTURE_DIR\n");
		return 2;
	}
	test_cmdline();
	test_cmdline_6_9();
	test_attrs_6_18();
	test_uname();
	test_snap_id();
	test_attrs(argv[1]);
	test_dir(argv[2]);
	test_meminfo();
	test_slob_dir(argv[3]);
	return check_done();
}
