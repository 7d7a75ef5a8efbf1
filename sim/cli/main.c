/* main.c - the slabsim command line: the table of commands. Each command
 * parses its own options (sim/cli/cmd_*.c); no model logic lives here. */
#include "cli.h"
#include "err.h"
#include "layout.h"
#include "policy.h"
#include "rec.h"
#include "sim.h"
#include "trace.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line per command; a new command adds its row here and its file to
 * sim/meson.build. */
static const struct cli_cmd commands[] = {
	{"replay", "replay TRACE|DIR",
	 "replay a kmem: trace, a capture directory or a --workload through a model", cmd_replay,
	 usage_replay},
	{"layout", "layout", "print the geometry of every kmalloc cache of a model", cmd_layout,
	 usage_layout},
	{"synth", "synth", "write a synthetic workload (--workload SPEC) as an ftrace text trace",
	 cmd_synth, usage_synth},
	{"sweep", "sweep SPEC", "run every configuration of a sweep spec in parallel workers",
	 cmd_sweep, usage_sweep},
	{"merge", "merge OUT IN...", "combine results databases (e.g. the shards of a sweep)",
	 cmd_merge, usage_merge},
	{"query", "query NAME", "run a named query on a results database", cmd_query, usage_query},
	{"plot", "plot", "draw the graphs of a results database with gnuplot", cmd_plot,
	 usage_plot},
	{"report", "report", "write an HTML report (plots and tables) of a results database",
	 cmd_report, usage_report},
	{"fit", "fit TRACE", "fit a workload spec (sizes, rates, lifetimes) to a trace", cmd_fit,
	 usage_fit},
	{"validate", "validate DIR", "compare a model with the kernel that recorded a capture",
	 cmd_validate, usage_validate},
	{"live", "live", "replay the running kernel's slab events as they happen, beside what-ifs",
	 cmd_live, usage_live},
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage_main(FILE *f)
{
	fprintf(f, "Usage: slabsim COMMAND [OPTIONS]\n"
		   "\n"
		   "Simulate the Linux kernel's slab allocators on recorded or synthetic "
		   "workloads.\n"
		   "\n"
		   "Commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-17s %s\n", commands[i].synopsis, commands[i].summary);
	fprintf(f, "  %-17s %s\n", "help [COMMAND]", "show help for a command");
	fprintf(f,
		"\n"
		"Options:\n"
		"  -h, --help      this help\n"
		"  -V, --version   print the version\n"
		"\n"
		"Run 'slabsim COMMAND --help' for a command's options.\n\n%s",
		cli_exit_codes_help);
}

static const struct cli_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_main(stderr);
		return SLABSIM_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage_main(stdout);
		return 0;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("slabsim %s\n", SLABSIM_VERSION);
		return 0;
	}
	if (strcmp(cmd, "help") == 0) {
		if (argc < 3) {
			usage_main(stdout);
			return 0;
		}
		if (strcmp(argv[2], "help") == 0) {
			printf("Usage: slabsim help [COMMAND]\n\n"
			       "Print the help of COMMAND (as 'slabsim COMMAND --help'), or "
			       "without\n"
			       "COMMAND the list of commands. The manual page slabsim(1) holds "
			       "them\n"
			       "all.\n");
			return 0;
		}
		const struct cli_cmd *c = find_command(argv[2]);
		if (!c) {
			fprintf(stderr, "slabsim: unknown command '%s'\n", argv[2]);
			return SLABSIM_EXIT_USAGE;
		}
		c->usage(stdout);
		return 0;
	}
	const struct cli_cmd *c = find_command(cmd);
	if (!c) {
		fprintf(stderr, "slabsim: unknown command '%s'\n", cmd);
		usage_main(stderr);
		return SLABSIM_EXIT_USAGE;
	}
	/* getopt_long names argv[0] in its messages: "slabsim replay: ..." */
	char name[64];
	(void)snprintf(name, sizeof(name), "slabsim %s", c->name);
	argv[1] = name;
	return c->run(argc - 1, argv + 1);
}
