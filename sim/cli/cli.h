/* cli.h - what the subcommands of the slabsim command line share: the model
 * options every command that builds a model takes, usage and error helpers,
 * and the table of commands. Each command lives in its own sim/cli/cmd_*.c. */
#ifndef SLABSIM_CLI_H
#define SLABSIM_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "policy.h"
#include "run.h"
#include "sim.h"

/* The "Exit status:" paragraph every --help ends with. */
extern const char cli_exit_codes_help[];

/* getopt codes of the model options; commands number their own options
 * from CLI_OPT_CMD up. */
enum {
	CLI_OPT_ALLOCATOR = 256,
	CLI_OPT_KERNEL,
	CLI_OPT_ALIGN,
	CLI_OPT_SLUB_DEBUG,
	CLI_OPT_NR_CPUS,
	CLI_OPT_MIN_ORDER,
	CLI_OPT_MAX_ORDER,
	CLI_OPT_MIN_OBJECTS,
	CLI_OPT_NO_CPU_PARTIAL,
	CLI_OPT_SLAB_DEBUG,
	CLI_OPT_SLAB_MAX_ORDER,
	CLI_OPT_ALIGN_SITES,
	CLI_OPT_CONFIG,
	CLI_OPT_CMD = 400,
};

/* The model options and -h, for a command's struct option table. */
#define CLI_MODEL_LONGOPTS                                                                         \
	{"allocator", required_argument, NULL, CLI_OPT_ALLOCATOR},                                 \
		{"kernel", required_argument, NULL, CLI_OPT_KERNEL},                               \
		{"align", required_argument, NULL, CLI_OPT_ALIGN},                                 \
		{"slub-debug", required_argument, NULL, CLI_OPT_SLUB_DEBUG},                       \
		{"nr-cpus", required_argument, NULL, CLI_OPT_NR_CPUS},                             \
		{"slub-min-order", required_argument, NULL, CLI_OPT_MIN_ORDER},                    \
		{"slub-max-order", required_argument, NULL, CLI_OPT_MAX_ORDER},                    \
		{"slub-min-objects", required_argument, NULL, CLI_OPT_MIN_OBJECTS},                \
		{"no-cpu-partial", no_argument, NULL, CLI_OPT_NO_CPU_PARTIAL},                     \
		{"slab-debug", no_argument, NULL, CLI_OPT_SLAB_DEBUG},                             \
		{"slab-max-order", required_argument, NULL, CLI_OPT_SLAB_MAX_ORDER},               \
		{"align-sites", required_argument, NULL, CLI_OPT_ALIGN_SITES},                     \
		{"config", required_argument, NULL, CLI_OPT_CONFIG},                               \
	{                                                                                          \
		"help", no_argument, NULL, 'h'                                                     \
	}

/* Returns 1 if c was a model option (its RUN_GIVEN_* bit set in m->given),
 * 0 if not, -1 on a bad value (message printed). */
int cli_model_opt(struct run_model *m, int c, const char *arg);
void cli_usage_model_opts(FILE *f);

/* "Try 'slabsim CMD --help'." and SLABSIM_EXIT_USAGE. */
int cli_bad_usage(const char *cmd);
/* The one operand after the options (argv[ind], ind = getopt's optind), or
 * NULL after "slabsim: CMD needs a WHAT[HINT]" / "... takes one WHAT". */
const char *cli_one_arg(int argc, char **argv, int ind, const char *cmd, const char *what,
			const char *hint);
/* -o/--output FILE of the commands that print to stdout: stdout goes to
 * path from now on (created or truncated). 0, or the exit status after a
 * message naming path. */
int cli_output(const char *path);
/* Print "slabsim: <msg>" and return the exit code of e->code. */
int cli_fail(struct err *e);
/* Whole number in [lo, hi]; prints "OPT expects ..." and returns -1 if not. */
int cli_parse_u32(const char *opt, const char *s, uint32_t lo, uint32_t hi, uint32_t *out);
/* --sample-every: N, Nev (events) or Nns/Nus/Nms/Ns (virtual time). */
int cli_parse_sample_every(const char *s, uint64_t *ns, uint64_t *ev);

/* The commands: argv[0] is "slabsim CMD" (getopt names it in messages). */
struct cli_cmd {
	const char *name;
	const char *synopsis; /* "replay TRACE" */
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
};

/* What `replay --workload` needs of replay's options (replay_workload.c). */
struct cli_replay_ctl {
	const struct run_model *m;
	struct sim_opts so;
	const char *db, *slabinfo, *sample_spec;
	bool json, quiet;
};
int cli_replay_workload(const struct cli_replay_ctl *c, const char *spec, const char *seed,
			const char *duration, uint32_t repeat);

int cmd_replay(int argc, char **argv);
void usage_replay(FILE *f);
int cmd_layout(int argc, char **argv);
void usage_layout(FILE *f);
int cmd_synth(int argc, char **argv);
void usage_synth(FILE *f);
int cmd_sweep(int argc, char **argv);
void usage_sweep(FILE *f);
int cmd_merge(int argc, char **argv);
void usage_merge(FILE *f);
int cmd_query(int argc, char **argv);
void usage_query(FILE *f);
int cmd_plot(int argc, char **argv);
void usage_plot(FILE *f);
int cmd_report(int argc, char **argv);
void usage_report(FILE *f);
int cmd_fit(int argc, char **argv);
void usage_fit(FILE *f);
int cmd_validate(int argc, char **argv);
void usage_validate(FILE *f);
int cmd_live(int argc, char **argv);
void usage_live(FILE *f);

#endif
