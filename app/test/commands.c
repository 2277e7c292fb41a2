/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The interactive RTE>> prompt of dpdk-test, on DPDK's cmdline library.
 * Commands: every registered test (with completion), dump_tests (or list),
 * quit (or exit).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>

#include "test.h"

static int last_result = TEST_SUCCESS;

/* <test name>: the token's choices ("a#b#c") are filled in at run time */
struct cmd_run_result {
	cmdline_fixed_string_t name;
};

static void
cmd_run_parsed(void *parsed_result, struct cmdline *cl, void *data)
{
	struct cmd_run_result *res = parsed_result;

	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	last_result = test_run_command(res->name);
}

static cmdline_parse_token_string_t cmd_run_name =
	TOKEN_STRING_INITIALIZER(struct cmd_run_result, name, NULL);

static cmdline_parse_inst_t cmd_run = {
	.f = cmd_run_parsed,
	.data = NULL,
	.help_str = "<test name>: run that test",
	.tokens = {
		(void *)&cmd_run_name,
		NULL,
	},
};

/* dump_tests | list */
struct cmd_dump_result {
	cmdline_fixed_string_t what;
};

static void
cmd_dump_parsed(void *parsed_result, struct cmdline *cl, void *data)
{
	RTE_SET_USED(parsed_result);
	RTE_SET_USED(cl);
	RTE_SET_USED(data);
	test_dump_commands(stdout);
}

static cmdline_parse_token_string_t cmd_dump_what =
	TOKEN_STRING_INITIALIZER(struct cmd_dump_result, what,
		"dump_tests#list");

static cmdline_parse_inst_t cmd_dump = {
	.f = cmd_dump_parsed,
	.data = NULL,
	.help_str = "dump_tests|list: list the tests",
	.tokens = {
		(void *)&cmd_dump_what,
		NULL,
	},
};

/* quit | exit */
struct cmd_quit_result {
	cmdline_fixed_string_t quit;
};

static void
cmd_quit_parsed(void *parsed_result, struct cmdline *cl, void *data)
{
	RTE_SET_USED(parsed_result);
	RTE_SET_USED(data);
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t cmd_quit_quit =
	TOKEN_STRING_INITIALIZER(struct cmd_quit_result, quit, "quit#exit");

static cmdline_parse_inst_t cmd_quit = {
	.f = cmd_quit_parsed,
	.data = NULL,
	.help_str = "quit|exit: leave dpdk-test",
	.tokens = {
		(void *)&cmd_quit_quit,
		NULL,
	},
};

/* "name1#name2#..." of every registered test, or NULL if there are none */
static char *
test_names_choices(void)
{
	struct test_command *t;
	size_t len = 0, pos = 0;
	char *s;

	TAILQ_FOREACH(t, &test_commands, next)
		len += strlen(t->command) + 1;
	if (len == 0)
		return NULL;
	s = malloc(len);
	if (s == NULL)
		return NULL;
	TAILQ_FOREACH(t, &test_commands, next) {
		size_t n = strlen(t->command);

		if (pos > 0)
			s[pos++] = '#';
		memcpy(s + pos, t->command, n);
		pos += n;
	}
	s[pos] = '\0';
	return s;
}

int
test_interactive(void)
{
	cmdline_parse_ctx_t ctx[4];
	struct cmdline *cl;
	unsigned int n = 0;
	char *choices;

	choices = test_names_choices();
	if (choices != NULL) {
		/* an empty choice string would mean "any words": never that */
		cmd_run_name.string_data.str = choices;
		ctx[n++] = &cmd_run;
	}
	ctx[n++] = &cmd_dump;
	ctx[n++] = &cmd_quit;
	ctx[n] = NULL;

	cl = cmdline_stdin_new(ctx, "RTE>>");
	if (cl == NULL) {
		fprintf(stderr, "dpdk-test: cannot open the command line\n");
		free(choices);
		return TEST_FAILED;
	}
	cmdline_interact(cl);
	cmdline_stdin_exit(cl);
	printf("\n");
	free(choices);
	return last_result;
}
