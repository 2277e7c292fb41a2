/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_TEST_H_
#define _PCPU_TEST_H_

/**
 * @file
 * The dpdk-test harness: test commands, suites of named cases and
 * assertion macros, shaped like DPDK's own app/test so that a DPDK user
 * finds what they expect:
 *
 *   dpdk-test [EAL args] [test names...]
 *   DPDK_TEST=<name> dpdk-test [EAL args]
 *   dpdk-test [EAL args]            (interactive RTE>> prompt)
 *
 * A test command is a function returning TEST_SUCCESS, TEST_FAILED or
 * TEST_SKIPPED, registered from its own source file with
 * REGISTER_TEST_COMMAND(). Most commands run a struct unit_test_suite with
 * unit_test_suite_runner().
 *
 * Assertions print one line naming file, line, function, the expression
 * and the values compared, then return TEST_FAILED from the calling
 * function (so they belong in functions returning int).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_errno.h>

/** Test or case passed. */
#define TEST_SUCCESS 0
/** Test or case failed. */
#define TEST_FAILED (-1)
/** Test or case skipped; also meson's exit code for a skipped test. */
#define TEST_SKIPPED 77
/* A case may also return -ENOTSUP: counted as "unsupported". */

/*
 * Value formatting for the assertion messages. The _Generic selects a
 * function designator, so only the selected function's call is
 * type-checked against the value: integers print as intmax_t/uintmax_t
 * (decimal and hex), floating point as %Lg, anything else as a pointer.
 */
void test_fmt_int(char *buf, size_t len, intmax_t v);
void test_fmt_uint(char *buf, size_t len, uintmax_t v);
void test_fmt_float(char *buf, size_t len, long double v);
void test_fmt_ptr(char *buf, size_t len, const volatile void *v);

#define TEST_FMT_VALUE_(buf, v) _Generic((v),				\
	_Bool: test_fmt_uint,						\
	char: test_fmt_int,						\
	signed char: test_fmt_int,					\
	unsigned char: test_fmt_uint,					\
	short: test_fmt_int,						\
	unsigned short: test_fmt_uint,					\
	int: test_fmt_int,						\
	unsigned int: test_fmt_uint,					\
	long: test_fmt_int,						\
	unsigned long: test_fmt_uint,					\
	long long: test_fmt_int,					\
	unsigned long long: test_fmt_uint,				\
	float: test_fmt_float,						\
	double: test_fmt_float,						\
	long double: test_fmt_float,					\
	default: test_fmt_ptr)(buf, sizeof(buf), v)

/** Size of the buffers the assertion macros format values into. */
#define TEST_VALUE_BUF 64

/**
 * @internal Print one assertion failure line:
 * "<file>:<line>: <func>: <check> failed[: <values>]: <message>".
 */
void test_assert_report(const char *file, int line, const char *func,
	const char *check, const char *values, const char *fmt, ...)
	__rte_format_printf(6, 7);

#define TEST_REPORT_(check, values, ...) \
	test_assert_report(__FILE__, __LINE__, __func__, check, values, \
		__VA_ARGS__)

/** Fail the calling function unless @p cond holds. */
#define TEST_ASSERT(cond, ...) do {					\
	if (!(cond)) {							\
		TEST_REPORT_("TEST_ASSERT(" #cond ")", NULL, __VA_ARGS__); \
		return TEST_FAILED;					\
	}								\
} while (0)

/* Shared body of the two-value comparisons; a and b are evaluated once. */
#define TEST_ASSERT_CMP2_(check, a, b, op, ...) do {			\
	__auto_type test_a_ = (a);					\
	__auto_type test_b_ = (b);					\
	if (!(test_a_ op test_b_)) {					\
		char test_sa_[TEST_VALUE_BUF], test_sb_[TEST_VALUE_BUF]; \
		char test_v_[2 * TEST_VALUE_BUF + 32];			\
		TEST_FMT_VALUE_(test_sa_, test_a_);			\
		TEST_FMT_VALUE_(test_sb_, test_b_);			\
		snprintf(test_v_, sizeof(test_v_), "%s = %s, %s = %s",	\
			"left", test_sa_, "right", test_sb_);		\
		TEST_REPORT_(check, test_v_, __VA_ARGS__);		\
		return TEST_FAILED;					\
	}								\
} while (0)

/** Fail unless @p a == @p b; prints both values. */
#define TEST_ASSERT_EQUAL(a, b, ...) \
	TEST_ASSERT_CMP2_("TEST_ASSERT_EQUAL(" #a ", " #b ")", a, b, ==, \
		__VA_ARGS__)

/** Fail unless @p a != @p b; prints both values. */
#define TEST_ASSERT_NOT_EQUAL(a, b, ...) \
	TEST_ASSERT_CMP2_("TEST_ASSERT_NOT_EQUAL(" #a ", " #b ")", a, b, !=, \
		__VA_ARGS__)

/* Shared body of the one-value checks; also prints rte_errno. */
#define TEST_ASSERT_CMP1_(check, val, ok, ...) do {			\
	__auto_type test_v1_ = (val);					\
	if (!(ok)) {							\
		char test_s_[TEST_VALUE_BUF];				\
		char test_v_[TEST_VALUE_BUF + 64];			\
		int test_errno_ = rte_errno;				\
		TEST_FMT_VALUE_(test_s_, test_v1_);			\
		snprintf(test_v_, sizeof(test_v_),			\
			"value = %s, rte_errno = %d (%s)", test_s_,	\
			test_errno_, strerror(test_errno_));		\
		TEST_REPORT_(check, test_v_, __VA_ARGS__);		\
		return TEST_FAILED;					\
	}								\
} while (0)

/** Fail unless @p val is 0 (a call that succeeded). */
#define TEST_ASSERT_SUCCESS(val, ...) \
	TEST_ASSERT_CMP1_("TEST_ASSERT_SUCCESS(" #val ")", val, test_v1_ == 0, \
		__VA_ARGS__)

/** Fail unless @p val is non-zero (a call that failed). */
#define TEST_ASSERT_FAIL(val, ...) \
	TEST_ASSERT_CMP1_("TEST_ASSERT_FAIL(" #val ")", val, test_v1_ != 0, \
		__VA_ARGS__)

/** Fail unless pointer @p val is NULL. */
#define TEST_ASSERT_NULL(val, ...) \
	TEST_ASSERT_CMP1_("TEST_ASSERT_NULL(" #val ")", val, test_v1_ == NULL, \
		__VA_ARGS__)

/** Fail unless pointer @p val is not NULL. */
#define TEST_ASSERT_NOT_NULL(val, ...) \
	TEST_ASSERT_CMP1_("TEST_ASSERT_NOT_NULL(" #val ")", val, \
		test_v1_ != NULL, \
		__VA_ARGS__)

/**
 * @internal Compare @p len bytes; on a difference fill @p values with the
 * first differing offset and bytes and return non-zero.
 */
int test_buffers_differ(const void *a, const void *b, size_t len,
	char *values, size_t values_len);

/** Fail unless @p len bytes at @p a and @p b are equal; prints the
 * first differing offset and bytes. */
#define TEST_ASSERT_BUFFERS_ARE_EQUAL(a, b, len, ...) do {		\
	char test_v_[128];						\
	if (test_buffers_differ(a, b, len, test_v_, sizeof(test_v_))) { \
		TEST_REPORT_("TEST_ASSERT_BUFFERS_ARE_EQUAL(" #a ", " #b \
			", " #len ")", test_v_, __VA_ARGS__);		\
		return TEST_FAILED;					\
	}								\
} while (0)

/** @internal Print " + SKIP <file>:<line>: <func>: <message>". */
void test_skip_report(const char *file, int line, const char *func,
	const char *fmt, ...) __rte_format_printf(4, 5);

/** Return TEST_SKIPPED from the calling case, saying why (printf-like). */
#define TEST_SKIP(...) do {						\
	test_skip_report(__FILE__, __LINE__, __func__, __VA_ARGS__);	\
	return TEST_SKIPPED;						\
} while (0)

/** One named case of a suite. */
struct unit_test_case {
	int (*setup)(void);             /**< NULL or per-case set-up. */
	void (*teardown)(void);         /**< NULL or per-case tear-down. */
	int (*testcase)(void);          /**< The case (or NULL) ... */
	int (*testcase_with_data)(const void *data); /**< ... or this. */
	const char *name;               /**< Printed name. */
	unsigned int enabled;           /**< 0: reported as skipped. */
	const void *data;               /**< For testcase_with_data. */
};

#define TEST_CASE(fn) { NULL, NULL, fn, NULL, #fn, 1, NULL }
#define TEST_CASE_NAMED(name, fn) { NULL, NULL, fn, NULL, name, 1, NULL }
#define TEST_CASE_ST(setup, teardown, fn) \
	{ setup, teardown, fn, NULL, #fn, 1, NULL }
#define TEST_CASE_NAMED_ST(name, setup, teardown, fn) \
	{ setup, teardown, fn, NULL, name, 1, NULL }
#define TEST_CASE_WITH_DATA(setup, teardown, fn, data) \
	{ setup, teardown, NULL, fn, #fn, 1, data }
#define TEST_CASE_NAMED_WITH_DATA(name, setup, teardown, fn, data) \
	{ setup, teardown, NULL, fn, name, 1, data }
#define TEST_CASE_DISABLED(fn) { NULL, NULL, fn, NULL, #fn, 0, NULL }
#define TEST_CASE_ST_DISABLED(setup, teardown, fn) \
	{ setup, teardown, fn, NULL, #fn, 0, NULL }
/** Terminates unit_test_cases[]. */
#define TEST_CASES_END() { NULL, NULL, NULL, NULL, NULL, 0, NULL }

/**
 * A suite: optional set-up/tear-down, cases up to TEST_CASES_END(), and
 * optional NULL-terminated sub-suites (run after the cases, between the
 * suite's set-up and tear-down). The counters are filled by
 * unit_test_suite_runner() (sub-suites included).
 */
struct unit_test_suite {
	const char *suite_name;
	int (*setup)(void);     /**< TEST_SKIPPED skips all, else fail all. */
	void (*teardown)(void);
	unsigned int total;
	unsigned int executed;
	unsigned int succeeded;
	unsigned int skipped;
	unsigned int failed;
	unsigned int unsupported;
	struct unit_test_suite **unit_test_suites;
	struct unit_test_case unit_test_cases[];
};

/**
 * Run a suite, printing one line per case and a summary.
 *
 * @return
 *   TEST_FAILED if any case failed (or set-up failed), TEST_SKIPPED if no
 *   case was executed, else TEST_SUCCESS.
 */
int unit_test_suite_runner(struct unit_test_suite *suite);

/** A registered test command. */
struct test_command {
	TAILQ_ENTRY(test_command) next;
	const char *command;
	int (*callback)(void);
};

/** @internal Called by REGISTER_TEST_COMMAND's constructor. */
void add_test_command(struct test_command *t);

/**
 * Register @p cmd (an identifier, also the command name) to run @p func.
 * Use once per command, at file scope.
 */
#define REGISTER_TEST_COMMAND(cmd, func)				\
	static struct test_command test_struct_##cmd = {		\
		.command = RTE_STR(cmd),				\
		.callback = func,					\
	};								\
	RTE_INIT(test_register_##cmd)					\
	{								\
		add_test_command(&test_struct_##cmd);			\
	}

/*
 * @internal Shared by test.c (main, argument and DPDK_TEST modes) and
 * commands.c (the interactive prompt).
 */
/** Run one command (a test or "dump_tests"), print its verdict, return
 * TEST_SUCCESS, TEST_FAILED or TEST_SKIPPED; an unknown name prints an
 * error on stderr and gives TEST_FAILED. */
int test_run_command(const char *name);
/** Print the registered command names, one a line. */
void test_dump_commands(FILE *f);
/** Registered commands, sorted by name. */
TAILQ_HEAD(test_commands_list, test_command);
extern struct test_commands_list test_commands;
/** Run the interactive RTE>> prompt until "quit" or end of input; return
 * the result of the last command run (TEST_SUCCESS if none). */
int test_interactive(void);

#endif /* _PCPU_TEST_H_ */
