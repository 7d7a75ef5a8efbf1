/* run.h - one run of slabsim: the path every command that replays takes.
 *
 *   input       a trace file or stdin, an already parsed event array (sweep
 *               workers), or a synthetic workload with a seed
 *   model       run_model: the allocator and its policy_cfg, created with
 *               the engine; the setup hook then adds what the input needs
 *               before any event (a capture's caches, a start state)
 *   name pass   6.1's kmem_cache_alloc names no cache: names are learned
 *               from the frees first (sim_learn_names_source)
 *   source      the stream the replay reads; which of the equivalent fast
 *               paths (spill, prefetch, chunked parsers, ranges) is taken
 *               is decided here and nowhere else, and never changes a result
 *   replay      sim_replay_source, samples to the recorder's sink
 *   record      the end state to the sink, the totals into the runs row,
 *               commit (analysis/rec.h); a failed run is rolled back
 *   result      struct run: the engine after the replay, to print from
 *
 * A command parses its options into run_opts and run_input, calls
 * run_exec, and prints from the result. Nothing here prints except notes
 * and the engine's progress bar.
 */
#ifndef SLABSIM_RUN_H
#define SLABSIM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "policy.h"
#include "sim.h"

struct rec;
struct evarr;
struct trace_stats;

/* ---- the model ---- */

/* Model fields given explicitly (run_model.given): a capture's metadata or
 * a trace's detected defaults do not override them. */
enum {
	RUN_GIVEN_ALLOCATOR = 1u << 0,
	RUN_GIVEN_KERNEL = 1u << 1,
	RUN_GIVEN_ALIGN = 1u << 2,
	RUN_GIVEN_SLUB_DEBUG = 1u << 3,
	RUN_GIVEN_NR_CPUS = 1u << 4,
	RUN_GIVEN_MIN_ORDER = 1u << 5,
	RUN_GIVEN_MAX_ORDER = 1u << 6,
	RUN_GIVEN_MIN_OBJECTS = 1u << 7,
	RUN_GIVEN_NO_CPU_PARTIAL = 1u << 8,
	RUN_GIVEN_SLAB_DEBUG = 1u << 9,
	RUN_GIVEN_SLAB_MAX_ORDER = 1u << 10,
	RUN_GIVEN_ALIGN_SITES = 1u << 11,
	RUN_GIVEN_CONFIG = 1u << 12, /* some --config SWITCH=y|n (which: config_given) */
};

/* --config MEMCG=: no POLICY_SET_ bit of its own (policy_cfg.no_kmalloc_cg) */
#define RUN_SWITCH_MEMCG (1u << 31)
/* --config RANDOM_KMALLOC_SEED=: policy_cfg.random_seed given */
#define RUN_SWITCH_SEED (1u << 30)

/* An allocator model and its configuration. */
struct run_model {
	const char *allocator; /* a policy_table name */
	struct policy_cfg cfg;
	uint32_t given; /* RUN_GIVEN_* */
	/* Where cfg.kernel and cfg.nr_cpus came from ("--kernel", "the
	 * capture's uname.txt"); NULL: the default, which run_exec replaces by
	 * what the trace says (run_detect). */
	const char *kernel_from, *nr_cpus_from;
	/* The configuration switches --config gave (POLICY_SET_SLUB_TINY,
	 * _ZONE_DMA, _SLAB_BUCKETS, _RANDOM_KMALLOC, _CPU_PARTIAL, and
	 * RUN_SWITCH_MEMCG): a capture's evidence does not override them. */
	uint32_t config_given;
	/* Where the switches a capture decided came from (its slabinfo's
	 * cache names), or NULL. */
	const char *config_from;
	/* The sites file (policies/sites.h) of the callers that need alignment,
	 * borrowed; NULL = none. run_exec loads it into cfg.sites for the run
	 * (run_model_load_sites) unless cfg.sites is set already. */
	const char *sites_path;
};

/* SLUB with policy_cfg_default(), nothing given. */
void run_model_default(struct run_model *m);
struct trace_stats;
/* Fill m's kernel profile and CPU count that nothing decided yet (their
 * _from is NULL) from what a trace's counts say: accounted= fields (printed
 * from Linux 5.19) mean the 6.1 profile, their absence in a trace with
 * allocations 5.4; the CPUs its header states, or 1 + the highest CPU of an
 * event. Sets the _from strings of what it set. true when m changed. */
bool run_detect(struct run_model *m, const struct trace_stats *st);
/* The profile's own defaults for what was not given, once the kernel
 * profile is known: --align becomes the profile's rule (policy_kernel_align:
 * natural up to 6.6, pow2-divisor from 6.12) unless RUN_GIVEN_ALIGN. Called
 * by run_detect, val_capture_model and before every engine is made; the
 * commands that detect nothing (layout) call it after their options. */
void run_model_settle(struct run_model *m);
/* A capture directory as a run's input, as `replay DIR` and a sweep's
 * `trace = DIR` take it (its model comes from val_capture_model): the
 * setup hook that gives the model the capture's caches, lost events and
 * recorded start state, and the config_json member saying so. */
struct capture;
struct run_capture {
	const struct capture *cap;
	bool start;  /* from the capture's recorded start state (not --empty-start) */
	FILE *notes; /* what the start state holds, or NULL */
};
int run_capture_setup(const struct run_capture *c, struct sim *s, struct err *e);
/* "\"start_state\":\"capture\"" when the run starts from a recorded start
 * state (the same trace from it or empty: two configurations), else NULL. */
const char *run_capture_config_extra(const struct run_capture *c);
/* Load m->sites_path into *owned and point m->cfg.sites at it, when a path
 * is given and cfg.sites is not set (else *owned = NULL). The caller
 * destroys *owned (policy_sites_destroy) after every engine made with m.
 * Errors: those of policy_sites_load (SLABSIM_EINPUT with file:line,
 * SLABSIM_EIO). */
int run_model_load_sites(struct run_model *m, struct policy_sites **owned, struct err *e);
/* "5.4" or "6.1". */
const char *run_kernel_name(const struct run_model *m);
/* The model as JSON members without braces ("allocator":"slub",...), the
 * part of a run's config_json every command shares. 0, or -1 if n is too
 * small. */
int run_model_json(const struct run_model *m, char *buf, size_t n);

struct run_workload;
/* The config_json of a run (the `runs` row; its hash with the trace path is
 * the configuration key sweeps resume by): {model,"sample_every":...} then,
 * for a workload run, its "workload" member with seed, then extra (JSON
 * members, or NULL). 0, or -1 if n is too small. */
int run_config_json(const struct run_model *m, const char *sample_every,
		    const struct run_workload *wl, uint64_t seed, const char *extra, char *buf,
		    size_t n);

/* ---- a synthetic workload as input ---- */

struct workload;
struct synth;
/* A workload spec loaded for runs: its seed and duration as chosen. */
struct run_workload {
	struct workload *w;
	uint64_t seed, duration_ns; /* the option's, else the spec's */
	uint64_t *req, *alloc;	    /* per spec cache: traced sizes under the model */
	struct synth *g;
	char label[320]; /* "SPEC event": names events in messages */
};
/* Load the spec at path; seed and duration are option strings or NULL.
 * Errors: SLABSIM_EUSAGE (bad option value, no duration), SLABSIM_EINPUT,
 * SLABSIM_EIO. run_workload_close must be called in every case. */
int run_workload_open(struct run_workload *wl, const char *path, const char *seed,
		      const char *duration, struct err *e);
/* Define the spec's caches on s and (re)start the generator with seed. */
int run_workload_start(struct run_workload *wl, struct sim *s, uint64_t seed, struct err *e);
/* The running generator as an event source. */
void run_workload_source(struct run_workload *wl, struct trace_source *src);
void run_workload_close(struct run_workload *wl);
/* "workload":{...} for config_json (path, hash, name, rng, seed, duration). */
int run_workload_json(const struct run_workload *wl, uint64_t seed, char *buf, size_t n);
/* Load the spec at path and create its caches on s (replay TRACE --caches). */
int run_define_workload_caches(const char *path, struct sim *s, struct err *e);
/* A decimal uint64; 0 or -1. */
int run_parse_seed(const char *s, uint64_t *out);

/* ---- the input's identity ---- */

/* What runs.trace_label, trace_hash, trace_kernel and trace_nr_cpus record
 * (docs/schema.md, schema version 4). */
struct run_trace_id {
	char label[512];  /* names the input in queries, figures and the report */
	char hash[33];	  /* the input's identity (trace.h, trace_stats.input_hash:
			     XXH3-128 of its bytes as stored); "" = not known yet */
	char kernel[8];	  /* kernel profile detected ("5.4", "6.1"); "" = none */
	uint32_t nr_cpus; /* CPUs detected; 0 = none */
};

/* Identify the trace file at path without reading it: when path is a
 * capture's trace (its directory holds uname.txt, ncpus.txt or
 * capture-info.txt), the capture directory's name as label and the kernel
 * profile and CPUs of its metadata; otherwise the label is path as given.
 * label (NULL = the rule above) replaces the label. The hash is left "":
 * run_exec records the one the read that parses the trace computes
 * (trace_stats.input_hash), so that a FIFO is opened once and no file is
 * read only to be hashed. Never fails. */
void run_trace_identify(const char *path, const char *label, struct run_trace_id *id);

/* ---- one run ---- */

enum run_input_kind {
	RUN_TRACE = 0, /* path: a trace file, "-" = stdin */
	RUN_EVENTS,    /* events: a parsed array (borrowed; must outlive the run) */
	RUN_WORKLOAD,  /* wl with seed (borrowed) */
};

struct run_input {
	enum run_input_kind kind;
	const char *path; /* the trace (RUN_TRACE), or what the run records as its
			     trace_path (NULL = the array's or workload's path) */
	const struct evarr *events;
	struct run_workload *wl;
	uint64_t seed;
	/* The input's identity, or NULL: the run identifies a trace file with
	 * run_trace_identify, a workload by its path and its spec's hash, an
	 * array by its path. A kernel or CPU count the identity leaves unknown
	 * is recorded as the trace's own counts say (run_detect), whatever
	 * the model was given. */
	const struct run_trace_id *id;
};

/* How a text trace is read. All false/0 is the default fast path; every
 * choice gives the same results (tests/cli/spill.sh, parse-threads.sh). */
struct run_read {
	bool strict;		/* stop at the first malformed line */
	bool no_name_pass;	/* do not learn names from a first pass */
	bool no_spill;		/* read the file twice instead of keeping the parsed events */
	bool no_prefetch;	/* parse on the replay thread */
	uint32_t name_threads;	/* name pass in N byte ranges; 0 or 1 = serial */
	uint32_t parse_threads; /* chunked parser threads; 0 = default */
	const char *kallsyms;	/* a perf.data's kernel symbols; NULL: perf's search */
};

struct run;

/* Where a failed run stopped (run_opts.failed_at). */
enum run_stage {
	RUN_STAGE_MODEL = 0, /* creating the engine, the setup hook */
	RUN_STAGE_INPUT,     /* the name pass, opening the source */
	RUN_STAGE_REPLAY,    /* the replay and the finish hook */
	RUN_STAGE_RECORD,    /* beginning or ending the recorded run */
};

struct run_opts {
	const char *command;	  /* runs.command: "replay", "sweep", "validate" */
	struct run_model model;	  /* sets so.ops and so.cfg */
	struct sim_opts so;	  /* sampling, check, progress, metrics, markers */
	const char *sample_spec;  /* --sample-every as given, recorded (NULL = "1000ev") */
	const char *config_extra; /* JSON members appended to config_json, or NULL */
	const char *config_json;  /* the whole config_json instead (sweeps), or NULL */
	struct run_read read;
	/* After the engine is created, before the name pass: define caches,
	 * set a start state. NULL = none. */
	int (*setup)(void *ctx, struct sim *s, struct err *e);
	/* After the replay, before the end state is recorded and committed:
	 * rows of a command's own (validate) go into the open run here. r is
	 * the run so far (run_sim, run_line_stats). NULL = none. */
	int (*finish)(void *ctx, struct run *r, struct rec *rec, struct err *e);
	void *ctx; /* for setup and finish */
	/* Record into rec's database (opened by the caller; it may take many
	 * runs); or, with rec NULL, into the database at db, opened once the
	 * input is open (so a missing trace creates no file) and closed by
	 * run_free; both NULL: the run is not recorded. */
	struct rec *rec;
	const char *db;
	FILE *notes; /* a note when the fast path falls back; NULL = none */
	/* For tests: called when a trace file read by the name pass is about
	 * to be opened again for the replay (--no-spill, --strict, ranges),
	 * with ctx. A file that changed there fails the run (SLABSIM_EIO).
	 * NULL = none. */
	void (*between_passes)(void *ctx);
	enum run_stage *failed_at; /* OUT: where a failed run stopped; may be NULL */
};

/* Run in through the model of o. OUT: *out, the run (run_free), NULL on
 * error. A recorded run is committed before this returns 0; on any error
 * it is rolled back and e says why (SLABSIM_EUSAGE for an unknown
 * allocator, the input's, the model's or the database's error). */
int run_exec(const struct run_opts *o, const struct run_input *in, struct run **out, struct err *e);

/* A run whose events are pushed as they happen (slabsim live), with the
 * model, setup hook and recording of o as run_exec takes them: the engine
 * is made and set up, and the run begun in o's database, by
 * run_push_begin (OUT: *out, NULL on error; id names the input, path is
 * what runs.trace_path records); each event goes to run_push_event, as a
 * read trace's would; run_push_end takes the end sample, records the end
 * state and commits (rolled back on error). Samples follow o->so as in a
 * replay. run_free in every case. Errors: run_exec's. */
int run_push_begin(const struct run_opts *o, const struct run_trace_id *id, const char *path,
		   struct run **out, struct err *e);
struct trace_event;
int run_push_event(struct run *r, const struct trace_event *ev, struct err *e);
int run_push_end(const struct run_opts *o, struct run *r, struct err *e);

/* The engine after the replay (borrowed; valid until run_free). */
struct sim *run_sim(const struct run *r);
/* Line counts of a text trace or a parsed array, NULL for a workload (valid
 * until run_free). After the replay only: it stops the parser threads. */
const struct trace_stats *run_line_stats(struct run *r);
/* The recorded run's id, 0 when not recorded. */
int64_t run_id(const struct run *r);
/* r may be NULL. */
void run_free(struct run *r);

/* Monotonic wall clock in seconds. */
double run_now(void);

#endif
