/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * dpdk-test: main(), the command registry, the suite runner and the
 * helpers behind the assertion macros.
 */

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "test.h"

struct test_commands_list test_commands =
	TAILQ_HEAD_INITIALIZER(test_commands);

/* Set by a constructor that saw a command registered twice. */
static const char *duplicate_command;

void
add_test_command(struct test_command *t)
{
	struct test_command *it;

	TAILQ_FOREACH(it, &test_commands, next) {
		int c = strcmp(t->command, it->command);

		if (c == 0) {
			duplicate_command = t->command;
			return;
		}
		if (c < 0) {
			TAILQ_INSERT_BEFORE(it, t, next);
			return;
		}
	}
	TAILQ_INSERT_TAIL(&test_commands, t, next);
}

/* Value formatting and assertion reports */

/* decimal, plus hex when that helps (flags, sizes, addresses) */
void
test_fmt_uint(char *buf, size_t len, uintmax_t v)
{
	if (v > 9)
		snprintf(buf, len, "%ju (0x%jx)", v, v);
	else
		snprintf(buf, len, "%ju", v);
}

void
test_fmt_int(char *buf, size_t len, intmax_t v)
{
	if (v < 0)
		snprintf(buf, len, "%jd", v);
	else
		test_fmt_uint(buf, len, (uintmax_t)v);
}

void
test_fmt_float(char *buf, size_t len, long double v)
{
	snprintf(buf, len, "%Lg", v);
}

void
test_fmt_ptr(char *buf, size_t len, const volatile void *v)
{
	if (v == NULL)
		snprintf(buf, len, "NULL");
	else
		snprintf(buf, len, "%p", (const void *)(uintptr_t)v);
}

static const char *
file_base(const char *file)
{
	const char *base = strrchr(file, '/');

	return base != NULL ? base + 1 : file;
}

void
test_skip_report(const char *file, int line, const char *func,
	const char *fmt, ...)
{
	va_list ap;

	printf(" + SKIP %s:%d: %s: ", file_base(file), line, func);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void
test_assert_report(const char *file, int line, const char *func,
	const char *check, const char *values, const char *fmt, ...)
{
	va_list ap;

	printf(" + FAIL %s:%d: %s: %s failed", file_base(file), line, func,
		check);
	if (values != NULL)
		printf(": %s", values);
	printf(": ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int
test_buffers_differ(const void *a, const void *b, size_t len,
	char *values, size_t values_len)
{
	const uint8_t *pa = a, *pb = b;
	size_t i;

	for (i = 0; i < len; i++) {
		if (pa[i] != pb[i]) {
			snprintf(values, values_len,
				"first difference at offset %zu of %zu: 0x%02x != 0x%02x",
				i, len, pa[i], pb[i]);
			return 1;
		}
	}
	return 0;
}

/* Suite runner */

#define RULE " + ------------------------------------------------------- +\n"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
suite_count(struct unit_test_suite *suite, int result)
{
	suite->total++;
	switch (result) {
	case TEST_SUCCESS:
		suite->executed++;
		suite->succeeded++;
		break;
	case TEST_SKIPPED:
		suite->skipped++;
		break;
	case -ENOTSUP:
		suite->executed++;
		suite->unsupported++;
		break;
	default:
		suite->executed++;
		suite->failed++;
		break;
	}
}

static const char *
result_str(int result)
{
	switch (result) {
	case TEST_SUCCESS:
		return "succeeded";
	case TEST_SKIPPED:
		return "skipped";
	case -ENOTSUP:
		return "unsupported";
	default:
		return "failed";
	}
}

/*
 * Run one case. @p forced, when not TEST_SUCCESS, is the result imposed by
 * a failed or skipping suite set-up: the case does not run.
 */
static int
run_case(const struct unit_test_case *tc, unsigned int idx, int forced)
{
	const char *why = "";
	double t0 = now_ms();
	int rc;

	if (!tc->enabled) {
		rc = TEST_SKIPPED;
		why = " (disabled)";
	} else if (forced != TEST_SUCCESS) {
		rc = forced;
		why = forced == TEST_SKIPPED ? " (suite set-up skipped)" :
			" (suite set-up failed)";
	} else {
		rc = tc->setup != NULL ? tc->setup() : TEST_SUCCESS;
		if (rc == TEST_SKIPPED) {
			why = " (set-up skipped)";
		} else if (rc != TEST_SUCCESS) {
			rc = TEST_FAILED;
			why = " (set-up failed)";
		} else {
			if (tc->testcase != NULL)
				rc = tc->testcase();
			else
				rc = tc->testcase_with_data(tc->data);
			if (tc->teardown != NULL)
				tc->teardown();
		}
	}
	printf(" + TestCase [%2u] : %s %s%s (%.1f ms)\n", idx, tc->name,
		result_str(rc), why, now_ms() - t0);
	return rc;
}

static void
print_summary(const struct unit_test_suite *suite)
{
	printf(RULE);
	printf(" + Test Suite Summary : %s\n", suite->suite_name);
	printf(RULE);
	printf(" + Tests Total :       %2u\n", suite->total);
	printf(" + Tests Skipped :     %2u\n", suite->skipped);
	printf(" + Tests Executed :    %2u\n", suite->executed);
	printf(" + Tests Unsupported : %2u\n", suite->unsupported);
	printf(" + Tests Passed :      %2u\n", suite->succeeded);
	printf(" + Tests Failed :      %2u\n", suite->failed);
	printf(RULE);
}

static void
suite_add(struct unit_test_suite *to, const struct unit_test_suite *from)
{
	to->total += from->total;
	to->executed += from->executed;
	to->succeeded += from->succeeded;
	to->skipped += from->skipped;
	to->failed += from->failed;
	to->unsupported += from->unsupported;
}

static void
suite_run(struct unit_test_suite *suite, int forced)
{
	bool set_up = false;
	unsigned int i;

	suite->total = suite->executed = suite->succeeded = 0;
	suite->skipped = suite->failed = suite->unsupported = 0;

	printf(RULE);
	printf(" + Test Suite : %s\n", suite->suite_name);
	printf(RULE);

	if (forced == TEST_SUCCESS && suite->setup != NULL) {
		int rc = suite->setup();

		if (rc == TEST_SKIPPED) {
			printf(" + Suite set-up asked to skip the suite\n");
			forced = TEST_SKIPPED;
		} else if (rc != TEST_SUCCESS) {
			printf(" + Suite set-up failed (%d)\n", rc);
			forced = TEST_FAILED;
		} else {
			set_up = true;
		}
	} else if (forced == TEST_SUCCESS) {
		set_up = true;
	}

	for (i = 0; suite->unit_test_cases[i].name != NULL; i++)
		suite_count(suite, run_case(&suite->unit_test_cases[i], i,
			forced));

	if (suite->unit_test_suites != NULL) {
		struct unit_test_suite **sub;

		for (sub = suite->unit_test_suites; *sub != NULL; sub++) {
			suite_run(*sub, forced);
			suite_add(suite, *sub);
		}
	}

	/* tear-down only after a set-up that succeeded (or none) */
	if (set_up && suite->teardown != NULL)
		suite->teardown();

	print_summary(suite);
}

int
unit_test_suite_runner(struct unit_test_suite *suite)
{
	suite_run(suite, TEST_SUCCESS);

	if (suite->failed > 0)
		return TEST_FAILED;
	if (suite->succeeded == 0)
		return TEST_SKIPPED;
	return TEST_SUCCESS;
}

/* Commands */

void
test_dump_commands(FILE *f)
{
	struct test_command *t;

	TAILQ_FOREACH(t, &test_commands, next)
		fprintf(f, "%s\n", t->command);
}

int
test_run_command(const char *name)
{
	struct test_command *t;
	int rc;

	if (strcmp(name, "dump_tests") == 0 || strcmp(name, "list") == 0) {
		test_dump_commands(stdout);
		return TEST_SUCCESS;
	}
	TAILQ_FOREACH(t, &test_commands, next)
		if (strcmp(t->command, name) == 0)
			break;
	if (t == NULL) {
		fflush(stdout);
		fprintf(stderr, "dpdk-test: unknown test '%s' (dump_tests lists the tests)\n",
			name);
		return TEST_FAILED;
	}

	rc = t->callback();
	if (rc == TEST_SUCCESS) {
		printf("Test OK\n");
	} else if (rc == TEST_SKIPPED) {
		printf("Test Skipped\n");
	} else {
		printf("Test Failed\n");
		rc = TEST_FAILED;
	}
	fflush(stdout);
	return rc;
}

/*
 * Run @p names in order, stopping at the first failure. Returns
 * TEST_FAILED, TEST_SKIPPED when every test skipped, else TEST_SUCCESS.
 */
static int
run_list(char **names, int n)
{
	int i, ran = 0, skipped = 0;

	for (i = 0; i < n; i++) {
		int rc = test_run_command(names[i]);

		if (rc == TEST_FAILED)
			return TEST_FAILED;
		ran++;
		if (rc == TEST_SKIPPED)
			skipped++;
	}
	return ran > 0 && skipped == ran ? TEST_SKIPPED : TEST_SUCCESS;
}

/* Split DPDK_TEST on blanks and commas and run the names it holds. */
static int
run_env(const char *value)
{
	char *copy = strdup(value), *save = NULL, *tok;
	char *names[64];
	int n = 0, rc;

	if (copy == NULL)
		return TEST_FAILED;
	for (tok = strtok_r(copy, " \t,", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t,", &save)) {
		if (n == (int)RTE_DIM(names)) {
			fprintf(stderr, "dpdk-test: too many names in DPDK_TEST\n");
			free(copy);
			return TEST_FAILED;
		}
		names[n++] = tok;
	}
	if (n == 0) {
		fprintf(stderr, "dpdk-test: DPDK_TEST is empty\n");
		free(copy);
		return TEST_FAILED;
	}
	rc = run_list(names, n);
	free(copy);
	return rc;
}

static void
usage(const char *prgname)
{
	printf("\nUsage: %s [EAL options] [--] [test names ...]\n"
		"  Runs the named tests in order, stopping at the first failure;\n"
		"  else the tests in DPDK_TEST (blank or comma separated);\n"
		"  else opens an interactive RTE>> prompt.\n"
		"  'dump_tests' lists the tests. Exit status: 0 passed, 1 failed,\n"
		"  77 skipped. Without free hugepages --no-huge is added, unless\n"
		"  DPDK_TEST_HUGE_REQUIRED=1 (then: skipped).\n", prgname);
}

/* Whether any hugepages are free and hugetlbfs is mounted (EAL needs both
 * unless it runs with --no-huge). */
static bool
hugepages_usable(void)
{
	bool mounted = false, free_pages = false;
	char line[512], path[300];
	struct dirent *e;
	FILE *f;
	DIR *d;

	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return false;
	while (!mounted && fgets(line, sizeof(line), f) != NULL)
		mounted = strstr(line, " hugetlbfs ") != NULL;
	fclose(f);
	if (!mounted)
		return false;

	d = opendir("/sys/kernel/mm/hugepages");
	if (d == NULL)
		return false;
	while (!free_pages && (e = readdir(d)) != NULL) {
		unsigned long n = 0;

		if (strncmp(e->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(path, sizeof(path),
			"/sys/kernel/mm/hugepages/%s/free_hugepages", e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%lu", &n) == 1 && n > 0)
			free_pages = true;
		fclose(f);
	}
	closedir(d);
	return free_pages;
}

/*
 * Without usable hugepages EAL refuses to start unless given --no-huge;
 * add it (saying so) so that "dpdk-test pcpu_autotest" works on a machine
 * without hugepages. DPDK_TEST_HUGE_REQUIRED=1 (the -huge meson tests)
 * turns this off: no hugepages then means "skipped".
 * Returns the argv to give EAL (argv itself, or a copy with --no-huge);
 * *argc is updated; NULL when the test must be skipped.
 */
static char **
nohuge_fallback(int *argc, char **argv)
{
	const char *required = getenv("DPDK_TEST_HUGE_REQUIRED");
	char **nargv;
	int i;

	for (i = 1; i < *argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--no-huge") == 0)
			return argv;
	if (hugepages_usable())
		return argv;
	if (required != NULL && strcmp(required, "1") == 0) {
		printf("dpdk-test: no free hugepages (or no hugetlbfs mount) "
			"and DPDK_TEST_HUGE_REQUIRED=1: skipped\n");
		return NULL;
	}
	nargv = calloc(*argc + 2, sizeof(*nargv));
	if (nargv == NULL)
		return argv;
	nargv[0] = argv[0];
	nargv[1] = (char *)(uintptr_t)"--no-huge";
	for (i = 1; i < *argc; i++)
		nargv[i + 1] = argv[i];
	(*argc)++;
	fprintf(stderr, "dpdk-test: no free hugepages (or no hugetlbfs mount): "
		"running with --no-huge (to use hugepages: "
		"echo 512 > /proc/sys/vm/nr_hugepages)\n");
	return nargv;
}

static int
exit_code(int rc)
{
	if (rc == TEST_SUCCESS)
		return 0;
	if (rc == TEST_SKIPPED)
		return TEST_SKIPPED;
	return 1;
}

int
main(int argc, char **argv)
{
	const char *env;
	int ret, rc;

	/* a pipe (meson, tee, CI logs) must see each line as it comes */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (duplicate_command != NULL) {
		fprintf(stderr, "dpdk-test: test command '%s' registered twice\n",
			duplicate_command);
		return 1;
	}

	rte_set_application_usage_hook(usage);
	argv = nohuge_fallback(&argc, argv);
	if (argv == NULL)
		return TEST_SKIPPED;
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dpdk-test: rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	/* rte_eal_init() leaves the program name at argv[ret] */
	argc -= ret;
	argv += ret;
	if (argc > 1 && strcmp(argv[1], "--") == 0) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}

	env = getenv("DPDK_TEST");
	if (argc > 1)
		rc = run_list(argv + 1, argc - 1);
	else if (env != NULL && env[0] != '\0')
		rc = run_env(env);
	else
		rc = test_interactive();

	ret = rte_eal_cleanup();
	if (ret != 0)
		fprintf(stderr, "dpdk-test: rte_eal_cleanup failed: %s\n",
			rte_strerror(-ret));
	return exit_code(rc);
}
