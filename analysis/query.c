/* query.c - the named queries and their printers (see query.h). */
#include "query.h"
#include "json.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* The newest finished run of every configuration of every trace (a trace
 * path replayed again after its file changed is another trace: its hash
 * differs), with a debug label:
 * SLAB's CONFIG_DEBUG_SLAB as on/off, SLUB's slub_debug letters, else off;
 * and `trace`, the input's label (runs.trace_label), followed by " #" and
 * the first 8 digits of its hash when one label names inputs of different
 * contents: a trace is one value of `trace`, whatever the file names. */
#define LATEST                                                                                     \
	"WITH latest AS (\n"                                                                       \
	"  SELECT r.*, CASE\n"                                                                     \
	"      WHEN r.allocator = 'slab' THEN\n"                                                   \
	"        CASE WHEN json_extract(r.config_json, '$.slab_debug') THEN 'on' ELSE 'off' END\n" \
	"      WHEN r.slub_debug IS NULL OR r.slub_debug IN ('', '-') THEN 'off'\n"                \
	"      ELSE r.slub_debug END AS debug,\n"                                                  \
	"    r.trace_label || CASE WHEN (SELECT count(DISTINCT x.trace_hash) FROM runs x\n"        \
	"      WHERE x.trace_label IS r.trace_label) > 1\n"                                        \
	"      THEN ' #' || substr(r.trace_hash, 1, 8) ELSE '' END AS trace\n"                     \
	"  FROM runs r\n"                                                                          \
	"  WHERE r.status = 'done' AND r.run_id = (\n"                                             \
	"    SELECT max(s.run_id) FROM runs s\n"                                                   \
	"    WHERE s.config_hash = r.config_hash AND s.status = 'done'\n"                          \
	"      AND s.trace_hash IS r.trace_hash))\n"

const char query_latest_cte[] = LATEST;

/* Runs whose slab pages no cache holds: SLOB's pages are its shared page
 * lists (and `exact` has no slabs), so their caches rows have pages = 0 and
 * no free-slot or tail waste. Their page-level figures are the run's totals:
 * the last sample (taken at the end), pages from runs.final_slab_pages. */
#define SHARED                                                                                     \
	"shared AS (\n"                                                                            \
	"  SELECT l.run_id, s.live_req_bytes, s.waste_rounding, s.waste_layout,\n"                 \
	"         s.waste_free_slots, s.waste_tail, l.final_slab_pages AS pages\n"                 \
	"  FROM latest l JOIN samples s ON s.run_id = l.run_id\n"                                  \
	"   AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = l.run_id)\n"              \
	"  WHERE l.final_slab_pages > 0 AND NOT EXISTS (SELECT 1 FROM caches c\n"                  \
	"    WHERE c.run_id = l.run_id AND c.alias_of IS NULL AND c.pages > 0))\n"

const char query_shared_cte[] = SHARED;

/* The headline figures of repetitions (the names of repetition_stats,
 * replay_workload.c), one value per run: runs' totals, and the waste of the
 * run's last sample (taken at the end: the whole-allocator totals, so SLOB's
 * free units in its shared pages are in them). "figs(k, figure)" orders them. */
#define SEED_FIGS                                                                                  \
	"figs(k, figure) AS (VALUES (1, 'final_slab_pages'), (2, 'peak_slab_pages'),\n"            \
	"    (3, 'final_live_objs'), (4, 'waste_rounding'), (5, 'waste_layout'),\n"                \
	"    (6, 'waste_free_slots'), (7, 'waste_tail'), (8, 'align_violations')),\n"              \
	"per AS (\n"                                                                               \
	"  SELECT l.run_id, l.trace, l.trace_path, l.allocator, l.kernel, l.align, l.debug,\n"     \
	"         l.nr_cpus,\n"                                                                    \
	"         json_remove(l.config_json, '$.workload.seed') AS grp,\n"                         \
	"         json_extract(l.config_json, '$.workload.seed') AS seed,\n"                       \
	"         l.final_slab_pages, l.peak_slab_pages, l.final_live_objs, l.align_violations,\n" \
	"         s.waste_rounding, s.waste_layout, s.waste_free_slots, s.waste_tail\n"            \
	"  FROM latest l LEFT JOIN samples s ON s.run_id = l.run_id\n"                             \
	"   AND s.seq = (SELECT max(seq) FROM samples m WHERE m.run_id = l.run_id)\n"              \
	"  WHERE json_type(l.config_json, '$.workload.seed') IS NOT NULL),\n"                      \
	"grouped AS (\n"                                                                           \
	"  SELECT p.* FROM per p JOIN (SELECT grp, trace_path FROM per\n"                          \
	"    GROUP BY grp, trace_path HAVING count(*) >= 2) g\n"                                   \
	"    ON g.grp = p.grp AND g.trace_path IS p.trace_path)\n"

/* ---- the studies' tables (analysis/study.c; README "Studies") ---- */

/* Where a run stands: the configuration its trace was recorded under (the
 * trace's own kernel profile, SLUB, no debugging: what replays of it are
 * checked against, bytes_alloc to the byte) or a what-if. */
#define BASIS                                                                                      \
	"CASE WHEN l.allocator = 'slub' AND l.kernel = l.trace_kernel AND l.debug = 'off'\n"       \
	"  AND json_extract(l.config_json, '$.slub_tiny') IS NULL\n"                               \
	"  AND json_extract(l.config_json, '$.random_kmalloc') IS NULL\n"                          \
	"  AND json_extract(l.config_json, '$.sheaf_capacity') IS NULL\n"                          \
	"  AND json_extract(l.config_json, '$.barn_limit') IS NULL\n"                              \
	"  THEN 'recorded' ELSE 'what-if' END"

/* The sheaves of run r (schema version 6, sample_sheaves and
 * cache_sheaves): root caches with sheaves, objects parked at the end (the
 * last sample) and the most at any sample, and the bytes parked at the end
 * (each cache's parked objects times its slot size). No rows: no cache has
 * sheaves (0), or, in a file older than version 6, not recorded (NULL). */
#define SHEAF_V6 "(SELECT user_version FROM pragma_user_version) >= 6"
#define SHEAF_COLS(r)                                                                              \
	"  (SELECT count(*) FROM cache_sheaves c WHERE c.run_id = " r ") AS sheaf_caches,\n"       \
	"  CASE WHEN " SHEAF_V6 " THEN coalesce((SELECT s.parked_objs FROM sample_sheaves s\n"     \
	"    WHERE s.run_id = " r " ORDER BY s.seq DESC LIMIT 1), 0) END AS parked_end,\n"         \
	"  CASE WHEN " SHEAF_V6                                                                    \
	" THEN coalesce((SELECT max(s.parked_objs) FROM sample_sheaves s\n"                        \
	"    WHERE s.run_id = " r "), 0) END AS parked_max,\n"                                     \
	"  CASE WHEN " SHEAF_V6 " THEN coalesce((SELECT sum(c.parked_objs * x.slab_size)\n"        \
	"    FROM cache_sheaves c JOIN caches x ON x.run_id = c.run_id AND x.cache = c.cache\n"    \
	"    WHERE c.run_id = " r "), 0) END AS parked_bytes\n"
/* A SLUB run of the profile's own defaults but for the sheaves' what-ifs */
#define SHEAF_RUNS                                                                                 \
	"  FROM latest l WHERE l.allocator = 'slub' AND l.debug = 'off'\n"                         \
	"    AND json_extract(l.config_json, '$.slub_tiny') IS NULL\n"                             \
	"    AND json_extract(l.config_json, '$.random_kmalloc') IS NULL\n"                        \
	"    AND json_extract(l.config_json, '$.slab_nomerge') IS NULL\n"                          \
	"    AND l.align = CASE WHEN l.kernel IN ('5.4', '6.1', '6.6') THEN 'natural'\n"           \
	"      ELSE 'pow2-divisor' END\n"

/* The kmalloc size of a normal kmalloc cache's name (kmalloc-96,
 * kmalloc-rnd-07-2k) in bytes, else NULL. */
#define KM_SIZE(n)                                                                                 \
	"(CASE WHEN " n " GLOB 'kmalloc-rnd-[0-9][0-9]-*' THEN substr(" n ", 16)\n"                \
	"      WHEN " n " GLOB 'kmalloc-[0-9]*' THEN substr(" n ", 9) END)"
#define KM_BYTES(t)                                                                                \
	"(CASE WHEN " t " LIKE '%k' THEN 1024 * CAST(" t " AS INTEGER) ELSE CAST(" t               \
	" AS INTEGER) END)"

/* Kernel profiles in release order ("6.18" after "6.1"). */
#define KERNEL_ORDER(k)                                                                            \
	"CAST(substr(" k ", 1, instr(" k ", '.') - 1) AS INTEGER), "                               \
	"CAST(substr(" k ", instr(" k ", '.') + 1) AS INTEGER)"

#define STUDY_QUERIES                                                                              \
	{"study-align-2024",                                                                       \
	 "study 1: what the 6.11 widening (align pow2-divisor) costs over the 2019 guarantee "     \
	 "(natural) and natural over none, per trace, allocator, kernel profile and debug "        \
	 "setting: slab pages at the end and at the peak, and where the widening lands (the "      \
	 "root cache whose peak pages change most, the call site whose allocated bytes grow "      \
	 "most)",                                                                                  \
	 LATEST                                                                                    \
	 ", c AS (\n"                                                                              \
	 "  SELECT l.trace, l.allocator, l.kernel, l.debug, l.trace_kernel,\n"                     \
	 "    min(" BASIS ") AS basis,\n"                                                          \
	 "    max(CASE WHEN l.align = 'none' THEN l.run_id END) AS r_none,\n"                      \
	 "    max(CASE WHEN l.align = 'natural' THEN l.run_id END) AS r_nat,\n"                    \
	 "    max(CASE WHEN l.align = 'pow2-divisor' THEN l.run_id END) AS r_p2\n"                 \
	 "  FROM latest l WHERE l.align IN ('none', 'natural', 'pow2-divisor')\n"                  \
	 "  GROUP BY l.trace, l.allocator, l.kernel, l.debug\n"                                    \
	 "  HAVING count(DISTINCT l.align) = 3),\n"                                                \
	 "f AS (\n"                                                                                \
	 "  SELECT c.*, a.final_slab_pages AS none_final, a.peak_slab_pages AS none_peak,\n"       \
	 "    b.final_slab_pages AS natural_final, b.peak_slab_pages AS natural_peak,\n"           \
	 "    p.final_slab_pages AS p2_final, p.peak_slab_pages AS p2_peak\n"                      \
	 "  FROM c JOIN runs a ON a.run_id = c.r_none JOIN runs b ON b.run_id = c.r_nat\n"         \
	 "  JOIN runs p ON p.run_id = c.r_p2),\n"                                                  \
	 "sp AS (SELECT f.r_p2, a.call_site, sum(a.bytes_alloc) AS b FROM f\n"                     \
	 "  JOIN align_cost a ON a.run_id = f.r_p2 GROUP BY f.r_p2, a.call_site),\n"               \
	 "sn AS (SELECT f.r_p2, a.call_site, sum(a.bytes_alloc) AS b FROM f\n"                     \
	 "  JOIN align_cost a ON a.run_id = f.r_nat GROUP BY f.r_p2, a.call_site),\n"              \
	 "sd AS (SELECT x.r_p2, x.call_site, x.b - coalesce(y.b, 0) AS d FROM sp x\n"              \
	 "  LEFT JOIN sn y ON y.r_p2 = x.r_p2 AND y.call_site = x.call_site)\n"                    \
	 "SELECT trace, allocator, kernel, debug, none_final, none_peak, natural_final,\n"         \
	 "  natural_peak, p2_final AS pow2_final, p2_peak AS pow2_peak,\n"                         \
	 "  natural_peak - none_peak AS cost_2019_peak,\n"                                         \
	 "  round(100.0 * (natural_peak - none_peak) / none_peak, 2) AS cost_2019_pct,\n"          \
	 "  p2_peak - natural_peak AS widening_peak,\n"                                            \
	 "  round(100.0 * (p2_peak - natural_peak) / natural_peak, 2) AS widening_pct,\n"          \
	 "  p2_final - natural_final AS widening_final,\n"                                         \
	 "  (SELECT x.cache || ' ' || printf('%+d', x.peak_pages - coalesce(y.peak_pages, 0))\n"   \
	 "   FROM caches x LEFT JOIN caches y ON y.run_id = f.r_nat AND y.cache = x.cache\n"       \
	 "   WHERE x.run_id = f.r_p2 AND x.alias_of IS NULL\n"                                     \
	 "     AND x.peak_pages <> coalesce(y.peak_pages, 0)\n"                                    \
	 "   ORDER BY abs(x.peak_pages - coalesce(y.peak_pages, 0)) DESC, x.cache LIMIT 1)\n"      \
	 "    AS top_cache_peak_pages,\n"                                                          \
	 "  (SELECT d.call_site || ' ' || printf('%+d', d.d) FROM sd d\n"                          \
	 "   WHERE d.r_p2 = f.r_p2 AND d.d <> 0 ORDER BY d.d DESC, d.call_site LIMIT 1)\n"         \
	 "    AS top_site_bytes,\n"                                                                \
	 "  CASE WHEN basis = 'recorded' THEN CASE WHEN kernel IN ('5.4', '6.1', '6.6')\n"         \
	 "    THEN 'natural recorded, others what-if'\n"                                           \
	 "    ELSE 'pow2-divisor recorded, others what-if' END ELSE 'what-if' END AS basis\n"      \
	 "FROM f ORDER BY trace, allocator DESC, kernel, debug"},                                  \
		{"study-align-2024-where",                                                         \
		 "study 1, where the widening lands: per trace, allocator, kernel profile and "    \
		 "debug "                                                                          \
		 "setting, the root caches whose peak slab pages differ between align "            \
		 "pow2-divisor and "                                                               \
		 "natural (SLUB: SLOB's caches hold no pages), and the 5 call sites whose "        \
		 "allocated "                                                                      \
		 "bytes grow most (bytes summed over their allocations)",                          \
		 LATEST                                                                            \
		 ", c AS (\n"                                                                      \
		 "  SELECT l.trace, l.allocator, l.kernel, l.debug,\n"                             \
		 "    max(CASE WHEN l.align = 'natural' THEN l.run_id END) AS r_nat,\n"            \
		 "    max(CASE WHEN l.align = 'pow2-divisor' THEN l.run_id END) AS r_p2\n"         \
		 "  FROM latest l WHERE l.align IN ('natural', 'pow2-divisor')\n"                  \
		 "  GROUP BY l.trace, l.allocator, l.kernel, l.debug\n"                            \
		 "  HAVING count(DISTINCT l.align) = 2),\n"                                        \
		 "ca AS (\n"                                                                       \
		 "  SELECT c.trace, c.allocator, c.kernel, c.debug, 'cache' AS kind, x.cache AS "  \
		 "name,\n"                                                                         \
		 "    coalesce(y.peak_pages, 0) AS natural_value, x.peak_pages AS pow2_value,\n"   \
		 "    x.peak_pages - coalesce(y.peak_pages, 0) AS widening,\n"                     \
		 "    row_number() OVER (PARTITION BY c.r_p2 ORDER BY\n"                           \
		 "      abs(x.peak_pages - coalesce(y.peak_pages, 0)) DESC, x.cache) AS rank\n"    \
		 "  FROM c JOIN caches x ON x.run_id = c.r_p2 AND x.alias_of IS NULL\n"            \
		 "  LEFT JOIN caches y ON y.run_id = c.r_nat AND y.cache = x.cache\n"              \
		 "  WHERE x.peak_pages <> coalesce(y.peak_pages, 0)),\n"                           \
		 "sp AS (SELECT c.r_p2, a.call_site, sum(a.bytes_alloc) AS b FROM c\n"             \
		 "  JOIN align_cost a ON a.run_id = c.r_p2 GROUP BY c.r_p2, a.call_site),\n"       \
		 "sn AS (SELECT c.r_p2, a.call_site, sum(a.bytes_alloc) AS b FROM c\n"             \
		 "  JOIN align_cost a ON a.run_id = c.r_nat GROUP BY c.r_p2, a.call_site),\n"      \
		 "si AS (\n"                                                                       \
		 "  SELECT c.trace, c.allocator, c.kernel, c.debug, 'call site (bytes)' AS "       \
		 "kind,\n"                                                                         \
		 "    x.call_site AS name, coalesce(y.b, 0) AS natural_value, x.b AS "             \
		 "pow2_value,\n"                                                                   \
		 "    x.b - coalesce(y.b, 0) AS widening,\n"                                       \
		 "    row_number() OVER (PARTITION BY c.r_p2 ORDER BY x.b - coalesce(y.b, 0) "     \
		 "DESC,\n"                                                                         \
		 "      x.call_site) AS rank\n"                                                    \
		 "  FROM c JOIN sp x ON x.r_p2 = c.r_p2\n"                                         \
		 "  LEFT JOIN sn y ON y.r_p2 = x.r_p2 AND y.call_site = x.call_site\n"             \
		 "  WHERE x.b <> coalesce(y.b, 0))\n"                                              \
		 "SELECT trace, allocator, kernel, debug, kind, rank, name, natural_value,\n"      \
		 "  pow2_value, widening\n"                                                        \
		 "FROM (SELECT * FROM ca UNION ALL SELECT * FROM si WHERE rank <= 5)\n"            \
		 "ORDER BY trace, allocator DESC, kernel, debug, kind, rank"},                     \
		{"study-sheaves",                                                                  \
		 "study 2: sheaves against per-CPU partial lists, per trace and kernel profile "   \
		 "(6.1: "                                                                          \
		 "per-CPU slabs and partial lists; 6.18: sheaves for the caches created with a "   \
		 "capacity; 7.0: sheaves for every cache, no per-CPU partial lists): slab pages "  \
		 "at the "                                                                         \
		 "end and at the peak and their change over 6.1, the root caches with sheaves, "   \
		 "and the "                                                                        \
		 "objects parked in sheaves and barns (allocated in slabs, free for the kernel) "  \
		 "at the "                                                                         \
		 "end, the most at any sample, and what those at the end fill in pages",           \
		 LATEST ", p AS (\n"                                                               \
			"  SELECT l.*,\n" SHEAF_COLS("l.run_id") SHEAF_RUNS                        \
		 "    AND json_extract(l.config_json, '$.sheaf_capacity') IS NULL\n"               \
		 "    AND json_extract(l.config_json, '$.barn_limit') IS NULL),\n"                 \
		 "b AS (SELECT trace, final_slab_pages AS f, peak_slab_pages AS k FROM p\n"        \
		 "  WHERE kernel = '6.1')\n"                                                       \
		 "SELECT p.trace, p.kernel, p.final_slab_pages AS final_pages,\n"                  \
		 "  p.peak_slab_pages AS peak_pages, p.final_slab_pages - b.f AS vs_6_1_final,\n"  \
		 "  p.peak_slab_pages - b.k AS vs_6_1_peak,\n"                                     \
		 "  round(100.0 * (p.peak_slab_pages - b.k) / b.k, 2) AS vs_6_1_peak_pct,\n"       \
		 "  p.sheaf_caches, p.parked_end, p.parked_max,\n"                                 \
		 "  round(p.parked_bytes / 4096.0, 1) AS parked_end_pages,\n"                      \
		 "  CASE WHEN p.kernel = p.trace_kernel THEN 'recorded'\n"                         \
		 "    WHEN p.kernel = '7.0' THEN 'what-if (no 7.0 kernel captured)'\n"             \
		 "    ELSE 'what-if' END AS basis\n"                                               \
		 "FROM p LEFT JOIN b ON b.trace = p.trace\n"                                       \
		 "ORDER BY p.trace, " KERNEL_ORDER("p.kernel")},                                   \
		{"study-sheaf-capacity",                                                           \
		 "study 3: sheaf capacity and barn limits against the kernel's capacity rule, "    \
		 "per "                                                                            \
		 "trace, kernel profile (6.18, 7.0), sheaf_capacity and barn_limit ('kernel': "    \
		 "the "                                                                            \
		 "kernel's own): slab pages at the end and at the peak, their change over the "    \
		 "kernel's "                                                                       \
		 "rule (both 'kernel'), and the objects parked in sheaves and barns at the end "   \
		 "and the "                                                                        \
		 "most at any sample",                                                             \
		 LATEST                                                                            \
		 ", p AS (\n"                                                                      \
		 "  SELECT l.*,\n"                                                                 \
		 "    coalesce(CAST(json_extract(l.config_json, '$.sheaf_capacity') AS TEXT),\n"   \
		 "      'kernel') AS capacity,\n"                                                  \
		 "    coalesce(CAST(json_extract(l.config_json, '$.barn_limit') AS TEXT),\n"       \
		 "      'kernel') AS barn,\n" SHEAF_COLS("l.run_id") SHEAF_RUNS                    \
		 "    AND l.kernel IN ('6.18', '7.0')),\n"                                         \
		 "b AS (SELECT trace, kernel, final_slab_pages AS f, peak_slab_pages AS k,\n"      \
		 "  parked_end AS e FROM p WHERE capacity = 'kernel' AND barn = 'kernel')\n"       \
		 "SELECT p.trace, p.kernel, p.capacity AS sheaf_capacity, p.barn AS barn_limit,\n" \
		 "  p.final_slab_pages AS final_pages, p.peak_slab_pages AS peak_pages,\n"         \
		 "  p.final_slab_pages - b.f AS vs_kernel_final, p.peak_slab_pages - b.k AS\n"     \
		 "  vs_kernel_peak, round(100.0 * (p.peak_slab_pages - b.k) / b.k, 2)\n"           \
		 "  AS vs_kernel_peak_pct, p.parked_end, p.parked_max,\n"                          \
		 "  round(p.parked_bytes / 4096.0, 1) AS parked_end_pages,\n"                      \
		 "  CASE WHEN p.kernel = p.trace_kernel AND p.capacity = 'kernel'\n"               \
		 "    AND p.barn = 'kernel' THEN 'recorded' ELSE 'what-if' END AS basis\n"         \
		 "FROM p LEFT JOIN b ON b.trace = p.trace AND b.kernel = p.kernel\n"               \
		 "ORDER BY p.trace, " KERNEL_ORDER(                                                \
			 "p.kernel") ", p.barn <> 'kernel', p.barn,\n"                             \
				     "  p.capacity <> 'kernel', CAST(p.capacity AS INTEGER)"},     \
		{"study-random-kmalloc",                                                           \
		 "study 4: what the random kmalloc caches (16 sets: kmalloc-N and "                \
		 "kmalloc-rnd-01..15-N) "                                                          \
		 "cost against one set, per trace, kernel profile and kmalloc size: pages of the " \
		 "normal kmalloc caches at the end, the copies holding pages, and a row 'all' "    \
		 "with "                                                                           \
		 "the runs' slab pages at the end and at the peak",                                \
		 LATEST                                                                            \
		 ", p AS (\n"                                                                      \
		 "  SELECT l.trace, l.kernel, l.run_id,\n"                                         \
		 "    json_extract(l.config_json, '$.random_kmalloc') IS NOT NULL AS rnd\n"        \
		 "  FROM latest l WHERE l.allocator = 'slub' AND l.debug = 'off'),\n"              \
		 "pr AS (SELECT a.trace, a.kernel, a.run_id AS r_one, b.run_id AS r_rnd\n"         \
		 "  FROM p a JOIN p b ON b.trace = a.trace AND b.kernel = a.kernel\n"              \
		 "  WHERE NOT a.rnd AND b.rnd),\n"                                                 \
		 "k AS (\n"                                                                        \
		 "  SELECT pr.trace, pr.kernel, " KM_SIZE(                                         \
			 "x.cache") " AS size,\n"                                                  \
				    "    sum(CASE WHEN x.run_id = pr.r_one THEN x.pages ELSE 0 "   \
				    "END) AS one_set_pages,\n"                                     \
				    "    sum(CASE WHEN x.run_id = pr.r_rnd THEN x.pages ELSE 0 "   \
				    "END) AS random_pages,\n"                                      \
				    "    sum(x.run_id = pr.r_rnd AND x.pages > 0) AS "             \
				    "sets_with_pages\n"                                            \
				    "  FROM pr JOIN caches x ON x.run_id IN (pr.r_one, "           \
				    "pr.r_rnd)\n"                                                  \
				    "  WHERE x.alias_of IS NULL AND " KM_SIZE(                     \
					    "x.cache") " IS NOT NULL\n"                            \
						       "  GROUP BY pr.trace, pr.kernel, size)\n"   \
						       "SELECT * FROM (\n"                         \
						       "SELECT trace, kernel, size, "              \
						       "one_set_pages, random_pages, "             \
						       "sets_with_pages,\n"                        \
						       "  random_pages - one_set_pages AS "        \
						       "extra_pages, NULL AS one_set_peak,\n"      \
						       "  NULL AS random_peak, 'what-if (model "   \
						       "validated on 6.12)' AS basis\n"            \
						       "FROM k WHERE one_set_pages > 0 OR "        \
						       "random_pages > 0\n"                        \
						       "UNION ALL\n"                               \
						       "SELECT pr.trace, pr.kernel, 'all', "       \
						       "a.final_slab_pages, b.final_slab_pages, "  \
						       "NULL,\n"                                   \
						       "  b.final_slab_pages - "                   \
						       "a.final_slab_pages, a.peak_slab_pages, "   \
						       "b.peak_slab_pages,\n"                      \
						       "  'what-if (model validated on 6.12)'\n"   \
						       "FROM pr JOIN runs a ON a.run_id = "        \
						       "pr.r_one JOIN runs b ON b.run_id = "       \
						       "pr.r_rnd\n"                                \
						       ") ORDER BY trace, kernel, size = "         \
						       "'all', " KM_BYTES("size")},                \
		{"study-isolation",                                                                \
		 "study 5: what isolation costs: kmem_buckets (slab_buckets) and slab_nomerge on " \
		 "and "                                                                            \
		 "off, per trace and kernel profile: slab pages at the end and at the peak, root " \
		 "caches "                                                                         \
		 "holding pages, the peak's change over both off, and the root cache whose pages " \
		 "at "                                                                             \
		 "the end grow most",                                                              \
		 LATEST                                                                            \
		 ", p AS (\n"                                                                      \
		 "  SELECT l.*, json_extract(l.config_json, '$.slab_buckets') IS NOT NULL AS "     \
		 "bk,\n"                                                                           \
		 "    json_extract(l.config_json, '$.slab_nomerge') IS NOT NULL AS nm\n"           \
		 "  FROM latest l WHERE l.allocator = 'slub' AND l.debug = 'off'\n"                \
		 "    AND json_extract(l.config_json, '$.random_kmalloc') IS NULL\n"               \
		 "    AND json_extract(l.config_json, '$.slub_tiny') IS NULL),\n"                  \
		 "b AS (SELECT * FROM p WHERE NOT bk AND NOT nm)\n"                                \
		 "SELECT p.trace, p.kernel, CASE WHEN p.bk THEN 'on' ELSE 'off' END AS "           \
		 "slab_buckets,\n"                                                                 \
		 "  CASE WHEN p.nm THEN 'on' ELSE 'off' END AS slab_nomerge,\n"                    \
		 "  p.final_slab_pages AS final_pages, p.peak_slab_pages AS peak_pages,\n"         \
		 "  (SELECT count(*) FROM caches x WHERE x.run_id = p.run_id AND x.alias_of IS "   \
		 "NULL\n"                                                                          \
		 "     AND x.pages > 0) AS caches_with_pages,\n"                                   \
		 "  (SELECT count(*) FROM caches x WHERE x.run_id = p.run_id\n"                    \
		 "     AND x.alias_of IS NOT NULL) AS merged_caches,\n"                            \
		 "  p.peak_slab_pages - b.peak_slab_pages AS extra_peak_pages,\n"                  \
		 "  round(100.0 * (p.peak_slab_pages - b.peak_slab_pages) / b.peak_slab_pages, "   \
		 "2)\n"                                                                            \
		 "    AS extra_peak_pct,\n"                                                        \
		 "  (SELECT x.cache || ' ' || printf('%+d', x.pages - coalesce(y.pages, 0))\n"     \
		 "   FROM caches x LEFT JOIN caches y ON y.run_id = b.run_id AND y.cache = "       \
		 "x.cache\n"                                                                       \
		 "     AND y.alias_of IS NULL\n"                                                   \
		 "   WHERE x.run_id = p.run_id AND x.alias_of IS NULL\n"                           \
		 "     AND x.pages > coalesce(y.pages, 0)\n"                                       \
		 "   ORDER BY x.pages - coalesce(y.pages, 0) DESC, x.cache LIMIT 1) AS "           \
		 "top_cache,\n"                                                                    \
		 "  CASE WHEN p.kernel = p.trace_kernel AND p.bk AND NOT p.nm THEN 'recorded'\n"   \
		 "    ELSE 'what-if' END AS basis\n"                                               \
		 "FROM p JOIN b ON b.trace = p.trace AND b.kernel = p.kernel\n"                    \
		 "ORDER BY p.trace, p.kernel, p.bk, p.nm"},                                        \
		{"study-slob-tiny",                                                                \
		 "study 6: SLOB against SLUB_TINY (and SLUB), per trace: slab pages at the end "   \
		 "and at "                                                                         \
		 "the peak of each allocator and kernel profile, and the peak's change over SLOB " \
		 "under "                                                                          \
		 "its last rules (the 6.1 profile)",                                               \
		 LATEST                                                                            \
		 ", p AS (\n"                                                                      \
		 "  SELECT l.*, l.allocator || CASE WHEN json_extract(l.config_json,\n"            \
		 "    '$.slub_tiny') THEN ' SLUB_TINY' ELSE '' END AS model,\n"                    \
		 "    " BASIS " AS basis\n"                                                        \
		 "  FROM latest l WHERE l.debug = 'off' AND l.allocator IN ('slub', 'slob')\n"     \
		 "    AND json_extract(l.config_json, '$.random_kmalloc') IS NULL\n"               \
		 "    AND json_extract(l.config_json, '$.slab_buckets') IS NULL\n"                 \
		 "    AND json_extract(l.config_json, '$.slab_nomerge') IS NULL\n"                 \
		 "    AND l.align = CASE WHEN l.kernel IN ('5.4', '6.1', '6.6') THEN 'natural'\n"  \
		 "      ELSE 'pow2-divisor' END),\n"                                               \
		 "s AS (SELECT trace, peak_slab_pages AS slob_peak, final_slab_pages AS "          \
		 "slob_final\n"                                                                    \
		 "  FROM p WHERE allocator = 'slob' AND kernel = '6.1')\n"                         \
		 "SELECT p.trace, p.model, p.kernel, p.final_slab_pages AS final_pages,\n"         \
		 "  p.peak_slab_pages AS peak_pages, p.peak_slab_pages - s.slob_peak AS "          \
		 "vs_slob_peak,\n"                                                                 \
		 "  round(100.0 * (p.peak_slab_pages - s.slob_peak) / s.slob_peak, 2) AS "         \
		 "vs_slob_pct,\n"                                                                  \
		 "  p.final_slab_pages - s.slob_final AS vs_slob_final,\n"                         \
		 "  CASE WHEN p.allocator = 'slob' AND p.kernel = '6.1' THEN 'baseline (SLOB''s "  \
		 "'\n"                                                                             \
		 "    || 'last rules)' WHEN p.model = 'slub SLUB_TINY' AND p.kernel <> '6.1'\n"    \
		 "    THEN 'what-if (model validated on 6.12)' ELSE p.basis END AS basis\n"        \
		 "FROM p JOIN s ON s.trace = p.trace\n"                                            \
		 "ORDER BY p.trace, p.allocator DESC, p.model, p.kernel"},

const struct query_def query_table[] = {
	{"align-overhead",
	 "memory overhead of natural alignment: natural vs none runs of the same "
	 "configuration, per trace, allocator, kernel and debug setting",
	 LATEST
	 ", pairs AS (\n"
	 "  SELECT n.trace, n.allocator, n.kernel, n.debug,\n"
	 "         n.peak_slab_pages AS natural_peak, u.peak_slab_pages AS none_peak,\n"
	 "         n.final_slab_pages AS natural_final, u.final_slab_pages AS none_final\n"
	 "  FROM latest n JOIN latest u\n"
	 "    ON u.trace_path IS n.trace_path AND u.trace IS n.trace AND u.align = 'none'\n"
	 "   AND u.config_json = replace(n.config_json, '\"align\":\"natural\"',\n"
	 "                               '\"align\":\"none\"')\n"
	 "  WHERE n.align = 'natural')\n"
	 "SELECT trace, allocator, kernel, debug, count(*) AS pairs,\n"
	 "       sum(none_peak) AS none_peak_pages, sum(natural_peak) AS natural_peak_pages,\n"
	 "       sum(natural_peak - none_peak) AS extra_peak_pages,\n"
	 "       round(100.0 * sum(natural_peak - none_peak) / sum(none_peak), 3)\n"
	 "         AS extra_peak_pct,\n"
	 "       sum(natural_final - none_final) AS extra_final_pages\n"
	 "FROM pairs\n"
	 "GROUP BY trace, allocator, kernel, debug\n"
	 "ORDER BY trace, allocator, kernel, debug"},
	{"top-waste",
	 "the caches that waste most: the 5 root caches with the most waste bytes (rounding + "
	 "layout + free slots + slab tail) at the end of each run; for SLOB, whose caches hold "
	 "no pages, the caches' rounding + layout and a '(shared pages)' row with the free "
	 "space of its page lists (run totals)",
	 LATEST ", " SHARED ", w AS (\n"
		"  SELECT l.run_id, l.trace, l.allocator, l.align, l.debug, c.cache, c.pages,\n"
		"         c.waste_rounding + c.waste_layout + c.waste_free_slots + c.waste_tail\n"
		"           AS waste_bytes,\n"
		"         c.waste_rounding, c.waste_layout, c.waste_free_slots, c.waste_tail\n"
		"  FROM latest l JOIN caches c ON c.run_id = l.run_id\n"
		"  WHERE c.alias_of IS NULL AND (c.pages > 0 OR (c.allocs > 0 AND\n"
		"        l.run_id IN (SELECT run_id FROM shared)))\n"
		"  UNION ALL\n"
		"  SELECT l.run_id, l.trace, l.allocator, l.align, l.debug, '(shared pages)',\n"
		"         sh.pages,\n"
		"         sh.waste_free_slots + sh.waste_tail, 0, 0, sh.waste_free_slots,\n"
		"         sh.waste_tail\n"
		"  FROM latest l JOIN shared sh ON sh.run_id = l.run_id),\n"
		"ranked AS (\n"
		"  SELECT *, row_number() OVER (PARTITION BY run_id\n"
		"                               ORDER BY waste_bytes DESC, cache) AS rank\n"
		"  FROM w)\n"
		"SELECT trace, run_id, allocator, align, debug, rank, cache, pages, waste_bytes,\n"
		"       round(100.0 * waste_bytes / (pages * 4096), 1) AS waste_pct,\n"
		"       waste_rounding, waste_layout, waste_free_slots, waste_tail\n"
		"FROM ranked WHERE rank <= 5\n"
		"ORDER BY trace, run_id, rank"},
	{"unaligned-sites",
	 "call sites that would see unaligned objects: power-of-two kmallocs off their "
	 "natural alignment in align=none runs, per run and call site",
	 LATEST "SELECT l.trace, l.run_id, l.allocator, l.kernel, l.debug, v.call_site,\n"
		"       sum(v.count) AS unaligned_allocs,\n"
		"       group_concat(DISTINCT v.size) AS sizes,\n"
		"       s.allocs AS site_allocs,\n"
		"       round(100.0 * sum(v.count) / s.allocs, 2) AS pct_of_site\n"
		"FROM latest l JOIN violations v ON v.run_id = l.run_id\n"
		"LEFT JOIN sites s ON s.run_id = v.run_id AND s.call_site = v.call_site\n"
		"WHERE l.align = 'none'\n"
		"GROUP BY l.run_id, v.call_site\n"
		"ORDER BY l.trace, l.run_id, unaligned_allocs DESC, v.call_site"},
	{"align-pay",
	 "who pays for the alignment policy (natural, or any other): per run the 20 call "
	 "sites whose kmallocs cost most against the same kmallocs under align=none, in bytes "
	 "summed over their allocations (slot growth, of it the left red zone's shift under "
	 "slub_debug, and SLOB's alignment fragments) and live at the end",
	 LATEST "SELECT * FROM (\n"
		"  SELECT l.trace, l.run_id, l.allocator, l.align, l.debug, a.call_site,\n"
		"         coalesce(a.need, CASE WHEN l.align IN ('natural', 'cap512')\n"
		"           THEN l.align ELSE 'none (not listed)' END) AS need,\n"
		"         sum(a.allocs) AS allocs,\n"
		"         sum(a.bytes_alloc - a.bytes_alloc_none) + sum(a.fragment_bytes)\n"
		"           AS paid_bytes,\n"
		"         sum(a.bytes_alloc - a.bytes_alloc_none) AS slot_growth_bytes,\n"
		"         sum(a.redzone_shift_bytes) AS redzone_shift_bytes,\n"
		"         sum(a.fragment_bytes) AS fragment_bytes,\n"
		"         sum(a.live_growth_bytes) AS live_growth_bytes,\n"
		"         sum(a.violations) AS listed_violations,\n"
		"         row_number() OVER (PARTITION BY l.run_id ORDER BY\n"
		"           sum(a.bytes_alloc - a.bytes_alloc_none) + sum(a.fragment_bytes) DESC,\n"
		"           a.call_site) AS rank\n"
		"  FROM latest l JOIN align_cost a ON a.run_id = l.run_id\n"
		"  GROUP BY l.run_id, a.call_site)\n"
		"WHERE rank <= 20 AND paid_bytes <> 0\n"
		"ORDER BY trace, run_id, rank"},
	{"align-pay-caches",
	 "who pays, per cache: the same bytes as align-pay summed per run and serving root "
	 "cache ('' = the page allocator), with the call sites that pay",
	 LATEST "SELECT l.trace, l.run_id, l.allocator, l.align, l.debug, a.cache,\n"
		"       count(*) AS call_sites, sum(a.allocs) AS allocs,\n"
		"       sum(a.bytes_alloc - a.bytes_alloc_none) + sum(a.fragment_bytes)\n"
		"         AS paid_bytes,\n"
		"       sum(a.bytes_alloc - a.bytes_alloc_none) AS slot_growth_bytes,\n"
		"       sum(a.redzone_shift_bytes) AS redzone_shift_bytes,\n"
		"       sum(a.fragment_bytes) AS fragment_bytes,\n"
		"       sum(a.live_growth_bytes) AS live_growth_bytes\n"
		"FROM latest l JOIN align_cost a ON a.run_id = l.run_id\n"
		"GROUP BY l.run_id, a.cache\n"
		"HAVING paid_bytes <> 0\n"
		"ORDER BY l.trace, l.run_id, paid_bytes DESC, a.cache"},
	{"sites-file",
	 "a sites file (--align-sites) naming every function whose power-of-two kmallocs were "
	 "off their natural alignment in some run (the violations table), as 'FUNCTION+* "
	 "natural', most misaligned first; print it with --format text",
	 LATEST ", fn AS (\n"
		"  SELECT CASE WHEN instr(v.call_site, '+') > 1\n"
		"           THEN substr(v.call_site, 1, instr(v.call_site, '+') - 1) || '+*'\n"
		"           ELSE v.call_site END AS pattern,\n"
		"         sum(v.count) AS n, count(DISTINCT l.run_id) AS runs\n"
		"  FROM latest l JOIN violations v ON v.run_id = l.run_id\n"
		"  GROUP BY pattern)\n"
		"SELECT line, align, note FROM (\n"
		"  SELECT 0 AS k, 0 AS n, '' AS pattern, NULL AS align, NULL AS note,\n"
		"         '# sites file from slabsim query sites-file: call sites whose' AS line\n"
		"  UNION ALL SELECT 1, 0, '', NULL, NULL,\n"
		"         '# power-of-two kmallocs were off their natural alignment'\n"
		"  UNION ALL SELECT 2, 0, '', NULL, NULL,\n"
		"         '# (misaligned kmallocs summed over the runs that saw them)'\n"
		"  UNION ALL SELECT 3, n, pattern, 'natural', '# ' || n || ' in ' || runs ||\n"
		"         ' run' || CASE WHEN runs > 1 THEN 's' ELSE '' END, pattern FROM fn)\n"
		"ORDER BY k, n DESC, pattern"},
	{"waste-by-kind",
	 "waste at the end of each run by kind (bytes, root caches summed): size-class "
	 "rounding, layout and debug metadata, free slots, slab tails; for SLOB (its caches "
	 "hold no pages) the run totals, where free_slots is the free space of its pages",
	 LATEST
	 ", " SHARED "SELECT l.trace, l.run_id, l.allocator, l.kernel, l.align, l.debug,\n"
	 "       coalesce(sh.live_req_bytes, sum(c.live_req_bytes)) AS live_req_bytes,\n"
	 "       coalesce(sh.waste_rounding, sum(c.waste_rounding)) AS rounding,\n"
	 "       coalesce(sh.waste_layout, sum(c.waste_layout)) AS layout,\n"
	 "       coalesce(sh.waste_free_slots, sum(c.waste_free_slots)) AS free_slots,\n"
	 "       coalesce(sh.waste_tail, sum(c.waste_tail)) AS tail,\n"
	 "       coalesce(sh.pages, sum(c.pages)) AS pages,\n"
	 "       CASE WHEN sh.run_id IS NULL THEN 'caches' ELSE 'run totals' END AS figures\n"
	 "FROM latest l JOIN caches c ON c.run_id = l.run_id\n"
	 "LEFT JOIN shared sh ON sh.run_id = l.run_id\n"
	 "WHERE c.alias_of IS NULL\n"
	 "GROUP BY l.run_id\n"
	 "ORDER BY l.trace, l.run_id"},
	{"seed-groups",
	 "repetitions: runs of a workload that differ only by seed (sweeps with a seed axis, "
	 "replay --workload --seed/--repeat), mean, sample sd and 95% t confidence interval "
	 "of each headline figure per group (computed by slabsim with GSL)",
	 LATEST ", " SEED_FIGS
		"SELECT trace, trace_path AS workload, allocator, kernel, align, debug, nr_cpus,\n"
		"       min(run_id) AS first_run, figure, count(*) AS n,\n"
		"       min(seed) AS seed_min, max(seed) AS seed_max,\n"
		"       slabsim_mean(x) AS mean, slabsim_sd(x) AS sd,\n"
		"       slabsim_mean(x) - slabsim_ci95(x) AS ci95_lo,\n"
		"       slabsim_mean(x) + slabsim_ci95(x) AS ci95_hi\n"
		"FROM (SELECT g.*, f.k, f.figure, CASE f.figure\n"
		"        WHEN 'final_slab_pages' THEN final_slab_pages\n"
		"        WHEN 'peak_slab_pages' THEN peak_slab_pages\n"
		"        WHEN 'final_live_objs' THEN final_live_objs\n"
		"        WHEN 'waste_rounding' THEN waste_rounding\n"
		"        WHEN 'waste_layout' THEN waste_layout\n"
		"        WHEN 'waste_free_slots' THEN waste_free_slots\n"
		"        WHEN 'waste_tail' THEN waste_tail\n"
		"        ELSE align_violations END AS x\n"
		"      FROM grouped g CROSS JOIN figs f)\n"
		"GROUP BY grp, trace, k\n"
		"ORDER BY trace, workload, allocator, kernel, align, debug, nr_cpus, first_run, k"},
	{"runs",
	 "the newest finished run of every configuration, with its trace's identity (label, "
	 "content hash, detected kernel and CPUs) and its headline figures",
	 LATEST "SELECT trace, run_id, command, trace_path, allocator, kernel, align, debug,\n"
		"       nr_cpus, trace_hash, trace_kernel, trace_nr_cpus,\n"
		"       events, peak_slab_pages, final_slab_pages, align_violations,\n"
		"       round(wall_seconds, 3) AS wall_seconds\n"
		"FROM latest\n"
		"ORDER BY trace, run_id"},
	STUDY_QUERIES{NULL, NULL, NULL},
};

const struct query_def *query_find(const char *name)
{
	for (const struct query_def *q = query_table; q->name; q++)
		if (!strcmp(q->name, name))
			return q;
	return NULL;
}

/* ---- statistics as SQL aggregates, computed with GSL ----
 * slabsim_mean(x), slabsim_sd(x) (sample, n - 1) and slabsim_ci95(x), the
 * half-width t(0.975, n - 1) * sd / sqrt(n) of the 95% confidence interval
 * of the mean. NULL values are skipped; sd and ci95 are NULL below 2 values,
 * every one of them NULL with none. */
struct agg {
	double *v;
	size_t n, cap;
};

static void agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct agg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	if (!a) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 16;
		double *nv = realloc(a->v, nc * sizeof(*nv));
		if (!nv) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n++] = sqlite3_value_double(argv[0]);
}

static void agg_final(sqlite3_context *ctx)
{
	struct agg *a = sqlite3_aggregate_context(ctx, 0);
	const char *what = sqlite3_user_data(ctx);
	size_t need = what[0] == 'm' ? 1 : 2;
	if (!a || a->n < need) {
		sqlite3_result_null(ctx);
	} else {
		double mean = gsl_stats_mean(a->v, 1, a->n);
		if (what[0] == 'm') {
			sqlite3_result_double(ctx, mean);
		} else {
			double sd = gsl_stats_sd_m(a->v, 1, a->n, mean);
			if (what[0] == 's')
				sqlite3_result_double(ctx, sd);
			else
				sqlite3_result_double(ctx, query_ci95_half(sd, a->n));
		}
	}
	if (a)
		free(a->v);
}

double query_ci95_half(double sd, size_t n)
{
	if (n < 2)
		return 0.0;
	return gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * sd / sqrt((double)n);
}

int query_register_stats(sqlite3 *db)
{
	static const char *const names[][2] = {
		{"slabsim_mean", "mean"}, {"slabsim_sd", "sd"}, {"slabsim_ci95", "ci95"}};
	for (size_t i = 0; i < 3; i++) {
		int rc = sqlite3_create_function(db, names[i][0], 1, SQLITE_UTF8,
						 (void *)names[i][1], NULL, agg_step, agg_final);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

bool query_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	bool have = false;
	if (sqlite3_prepare_v2(
		    db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?1", -1,
		    &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		have = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return have;
}

long long query_schema_version(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	long long v = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA main.user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * Schema version 3 stores sample_caches, sample_slabinfo and sample_orders as
 * change logs and adds the views sample_caches_full, ... that give one row
 * per sample and key (docs/schema.md). In files of versions 1 and 2 the
 * tables themselves hold that series (a row for every sample), and the file
 * is read-only here, so the same names are given to this connection as TEMP
 * views of the tables: readers use the *_full names whatever the version.
 */
static int full_series_views(sqlite3 *db)
{
	static const char *const tables[] = {"sample_caches", "sample_slabinfo", "sample_orders"};
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "PRAGMA main.user_version", -1, &st, NULL);
	int64_t version = 0;
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_OK && version < 4) {
		/* the trace identity of version 4: the path as label, as the
		 * upgrade does (docs/schema.md); unless runs has the columns */
		bool have = false;
		rc = sqlite3_prepare_v2(db,
					"SELECT 1 FROM pragma_table_info('runs') WHERE name = "
					"'trace_label'",
					-1, &st, NULL);
		if (rc == SQLITE_OK)
			have = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		if (rc == SQLITE_OK && !have)
			rc = sqlite3_exec(
				db,
				"CREATE TEMP VIEW IF NOT EXISTS runs AS SELECT *,"
				" trace_path AS trace_label, NULL AS trace_hash,"
				" NULL AS trace_kernel, NULL AS trace_nr_cpus FROM main.runs",
				NULL, NULL, NULL);
	}
	/* tables later versions added: older files did not record them and
	 * read as having no rows (the report says so, query_has_table tells):
	 * what an alignment policy costs (version 5), the sheaves' parked
	 * objects per sample and per cache (version 6) */
	static const struct {
		int since;
		const char *table, *view;
	} standin[] = {
		{5, "align_cost",
		 "CREATE TEMP VIEW IF NOT EXISTS align_cost AS SELECT"
		 " NULL AS run_id, NULL AS cache, NULL AS call_site,"
		 " NULL AS need, NULL AS allocs, NULL AS violations,"
		 " NULL AS bytes_alloc, NULL AS bytes_alloc_none,"
		 " NULL AS redzone_shift_bytes, NULL AS fragment_bytes,"
		 " NULL AS live_growth_bytes WHERE 0"},
		{6, "sample_sheaves",
		 "CREATE TEMP VIEW IF NOT EXISTS sample_sheaves AS SELECT"
		 " NULL AS run_id, NULL AS seq, NULL AS parked_objs WHERE 0"},
		{6, "cache_sheaves",
		 "CREATE TEMP VIEW IF NOT EXISTS cache_sheaves AS SELECT"
		 " NULL AS run_id, NULL AS cache, NULL AS sheaf_capacity,"
		 " NULL AS parked_objs WHERE 0"},
	};
	for (size_t i = 0; i < sizeof(standin) / sizeof(standin[0]); i++)
		if (rc == SQLITE_OK && version < standin[i].since &&
		    !query_has_table(db, standin[i].table))
			rc = sqlite3_exec(db, standin[i].view, NULL, NULL, NULL);
	if (rc != SQLITE_OK || version >= 3)
		return rc;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && rc == SQLITE_OK; i++) {
		/* only the tables the file has (version 1 has no sample_slabinfo) */
		char *sql = sqlite3_mprintf(
			"SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = '%s'",
			tables[i]);
		bool have = false;
		rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
		if (rc == SQLITE_OK)
			have = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		sqlite3_free(sql);
		if (rc != SQLITE_OK || !have)
			continue;
		sql = sqlite3_mprintf(
			"CREATE TEMP VIEW IF NOT EXISTS %s_full AS SELECT * FROM main.%s",
			tables[i], tables[i]);
		rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
		sqlite3_free(sql);
	}
	return rc;
}

int query_open(const char *path, sqlite3 **out, struct err *e)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	*out = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		int rc = err_set(e, SLABSIM_EIO, "%s: cannot open: %s", path,
				 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return rc;
	}
	(void)sqlite3_busy_timeout(db, 5000);
	/* PRAGMA application_id: "slab" (analysis/rec.c) */
	if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 0) != 0x736c6162) {
		int rc = err_set(e, SLABSIM_EIO, "%s: not a slabsim results database%s%s", path,
				 st ? "" : ": ", st ? "" : sqlite3_errmsg(db));
		sqlite3_finalize(st);
		sqlite3_close(db);
		return rc;
	}
	sqlite3_finalize(st);
	if (full_series_views(db) != SQLITE_OK) {
		int rc = err_set(e, SLABSIM_EIO, "%s: cannot read the schema: %s", path,
				 sqlite3_errmsg(db));
		sqlite3_close(db);
		return rc;
	}
	if (query_register_stats(db) != SQLITE_OK) {
		int rc = err_set(e, SLABSIM_EIO, "%s: cannot register functions: %s", path,
				 sqlite3_errmsg(db));
		sqlite3_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void query_html_text(FILE *f, const char *s, bool attr)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"' && attr)
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* A cell as text: NULL as "" in tables and csv. */
static char *cell(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return strdup(t ? (const char *)t : "");
}

/* One query being printed: the statement, the format, the column left
 * out (-1: none) and, for the table format, every cell (row-major, to size
 * the columns once all rows are in). */
struct qprint {
	sqlite3_stmt *st;
	int nc, skip;
	enum query_format fmt;
	FILE *out;
	char **cells;
	int *numeric;
	size_t ncells, cap;
};

/* The header of csv, json and html (the table format's comes last). */
static void qp_head(const struct qprint *p)
{
	bool first = true;
	if (p->fmt == QUERY_JSON)
		fputc('[', p->out);
	if (p->fmt == QUERY_HTML)
		fputs("<table>\n<tr>", p->out);
	if (p->fmt != QUERY_CSV && p->fmt != QUERY_HTML)
		return;
	for (int i = 0; i < p->nc; i++) {
		if (i == p->skip)
			continue;
		if (p->fmt == QUERY_CSV) {
			fputs(first ? "" : ",", p->out);
			csv_field(p->out, sqlite3_column_name(p->st, i));
		} else {
			fputs("<th>", p->out);
			query_html_text(p->out, sqlite3_column_name(p->st, i), true);
			fputs("</th>", p->out);
		}
		first = false;
	}
	fputs(p->fmt == QUERY_CSV ? "\n" : "</tr>\n", p->out);
}

/* A json value of cell i: null, a number or a string. */
static void qp_json_cell(const struct qprint *p, int i)
{
	int ty = sqlite3_column_type(p->st, i);
	if (ty == SQLITE_NULL)
		fputs("null", p->out);
	else if (ty == SQLITE_INTEGER)
		fprintf(p->out, "%lld", sqlite3_column_int64(p->st, i));
	else if (ty == SQLITE_FLOAT)
		fprintf(p->out, "%.15g", sqlite3_column_double(p->st, i));
	else
		json_str(p->out, (const char *)sqlite3_column_text(p->st, i));
}

/* Row n (from 0) of csv, json, text or html, printed as it comes. */
static void qp_row_stream(const struct qprint *p, unsigned long n)
{
	FILE *out = p->out;
	bool first = true;
	if (p->fmt == QUERY_JSON)
		fputs(n ? ",\n {" : "\n {", out);
	if (p->fmt == QUERY_HTML)
		fputs("<tr>", out);
	for (int i = 0; i < p->nc; i++) {
		const unsigned char *t = sqlite3_column_text(p->st, i);
		int ty = sqlite3_column_type(p->st, i);
		if (i == p->skip || (p->fmt == QUERY_TEXT && !t))
			continue;
		if (p->fmt == QUERY_CSV) {
			fputs(first ? "" : ",", out);
			csv_field(out, t ? (const char *)t : "");
		} else if (p->fmt == QUERY_JSON) {
			fputs(first ? "" : ", ", out);
			json_str(out, sqlite3_column_name(p->st, i));
			fputs(": ", out);
			qp_json_cell(p, i);
		} else if (p->fmt == QUERY_TEXT) {
			fprintf(out, "%s%s", first ? "" : " ", (const char *)t);
		} else {
			fputs(ty == SQLITE_INTEGER || ty == SQLITE_FLOAT ? "<td class=n>" : "<td>",
			      out);
			query_html_text(out, t ? (const char *)t : "", true);
			fputs("</td>", out);
		}
		first = false;
	}
	if (p->fmt == QUERY_JSON)
		fputc('}', out);
	else
		fputs(p->fmt == QUERY_HTML ? "</tr>\n" : "\n", out);
}

/* A row of the table format, kept until the widths are known: 0 or
 * SQLITE_NOMEM. */
static int qp_row_keep(struct qprint *p)
{
	if (p->ncells + (size_t)p->nc > p->cap) {
		size_t cap = (p->ncells + (size_t)p->nc) * 2;
		char **nb = realloc(p->cells, cap * sizeof(*nb));
		if (!nb)
			return SQLITE_NOMEM;
		p->cells = nb;
		p->cap = cap;
	}
	for (int i = 0; i < p->nc; i++) {
		int ty = sqlite3_column_type(p->st, i);
		if (ty == SQLITE_INTEGER || ty == SQLITE_FLOAT)
			p->numeric[i] = 1;
		p->cells[p->ncells++] = cell(p->st, i);
	}
	return 0;
}

/* The table format: header, rule and the kept rows in aligned columns
 * (numbers right-aligned), "(no rows)" for none. */
static void qp_table(const struct qprint *p, unsigned long n)
{
	int nc = p->nc, last = nc - 1;
	FILE *out = p->out;
	size_t *w = calloc((size_t)nc + 1, sizeof(*w));
	if (!w)
		return;
	while (last > 0 && last == p->skip)
		last--;
	for (int i = 0; i < nc; i++)
		w[i] = strlen(sqlite3_column_name(p->st, i));
	for (size_t k = 0; k < p->ncells; k++) {
		size_t l = p->cells[k] ? strlen(p->cells[k]) : 0;
		if (l > w[k % (size_t)nc])
			w[k % (size_t)nc] = l;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0, col = 0; i < nc; i++) {
			if (i == p->skip)
				continue;
			fputs(col++ ? "  " : "", out);
			if (pass == 0)
				fprintf(out, "%-*s", i == last ? 0 : (int)w[i],
					sqlite3_column_name(p->st, i));
			else
				for (size_t k = 0; k < w[i]; k++)
					fputc('-', out);
		}
		fputc('\n', out);
	}
	for (size_t k = 0, col = 0; k < p->ncells; k++) {
		int i = (int)(k % (size_t)nc);
		const char *c = p->cells[k] ? p->cells[k] : "";
		if (i != p->skip)
			fprintf(out, "%s%*s", col++ ? "  " : "",
				p->numeric[i] ? (int)w[i] : (i == last ? 0 : -(int)w[i]), c);
		if (i == nc - 1) {
			fputc('\n', out);
			col = 0;
		}
	}
	if (!n)
		fputs("(no rows)\n", out);
	free(w);
}

int query_print_cols(sqlite3 *db, const char *sql, enum query_format fmt, int skip, FILE *out,
		     unsigned long *nrows, struct err *e)
{
	struct qprint p = {.skip = skip, .fmt = fmt, .out = out};
	unsigned long n = 0;
	int rc = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &p.st, NULL) != SQLITE_OK)
		return err_set(e, SLABSIM_EIO, "query: %s", sqlite3_errmsg(db));
	p.nc = sqlite3_column_count(p.st);
	if (!(p.numeric = calloc((size_t)p.nc + 1, sizeof(*p.numeric)))) {
		sqlite3_finalize(p.st);
		return err_set(e, SLABSIM_ENOMEM, "out of memory");
	}
	qp_head(&p);
	while (!rc && (rc = sqlite3_step(p.st)) == SQLITE_ROW) {
		if (fmt == QUERY_TABLE)
			rc = qp_row_keep(&p);
		else
			qp_row_stream(&p, n);
		n++;
		rc = rc == SQLITE_ROW ? 0 : rc;
	}
	bool bad = rc != SQLITE_DONE;
	rc = bad ? err_set(e, SLABSIM_EIO, "query: %s", sqlite3_errmsg(db)) : 0;
	if (fmt == QUERY_JSON)
		fputs(n ? "\n]\n" : "]\n", out);
	if (fmt == QUERY_HTML)
		fputs("</table>\n", out);
	if (fmt == QUERY_TABLE && !bad)
		qp_table(&p, n);
	for (size_t k = 0; k < p.ncells; k++)
		free(p.cells[k]);
	free(p.cells);
	free(p.numeric);
	sqlite3_finalize(p.st);
	if (nrows)
		*nrows = n;
	return rc;
}

int query_print(sqlite3 *db, const char *sql, enum query_format fmt, FILE *out,
		unsigned long *nrows, struct err *e)
{
	return query_print_cols(db, sql, fmt, -1, out, nrows, e);
}
