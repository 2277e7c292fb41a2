/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * A program written to DPDK 24.11's lcore variable documentation
 * (rte_lcore_var.h and the "Lcore Variables" guide), with nothing of
 * pcpu_mempool in it. It builds unchanged against DPDK 24.11 and, through
 * the opt-in libpcpu_mempool_lcore_var (pkg-config or meson dependency),
 * against DPDK 22.11. Built and run by devtools/test-consumer.sh and
 * devtools/test-subproject.sh.
 *
 * Its module allocates at run time, after rte_eal_init(), which the guide
 * allows ("may be done at any time"); the RTE_INIT constructor of the
 * guide's example would allocate before rte_eal_init(), which the 22.11
 * route cannot (see the programmer's guide, "Migrating from
 * rte_lcore_var").
 *
 * Every lcore adds (lcore id + 1) * ITERS to its value of one counter
 * variable, checks its value of an initialised state variable, an
 * explicitly sized and an explicitly aligned one; the main lcore sums the
 * counters. Prints "lcore_var_consumer: lcores=N sum=S expected=E OK" (or
 * MISMATCH with the first failed check) and exits 0 on success.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_lcore_var.h>

#define ITERS 100000u
#define NAME_SIZE 40
#define ALIGNED_SIZE 24
#define ALIGNED_ALIGN 64

/* the guide's example module */
struct foo_lcore_state {
	int a;
	long b;
};

static RTE_LCORE_VAR_HANDLE(struct foo_lcore_state, lcore_states);

static long
foo_get_a_plus_b(void)
{
	const struct foo_lcore_state *state = RTE_LCORE_VAR(lcore_states);

	return state->a + state->b;
}

static void
foo_init(void)
{
	unsigned int lcore_id;
	struct foo_lcore_state *state;

	RTE_LCORE_VAR_ALLOC(lcore_states);
	RTE_LCORE_VAR_FOREACH(lcore_id, state, lcore_states) {
		state->a = (int)lcore_id;
		state->b = 1000;
	}
}

/* this program's own variables */
static RTE_LCORE_VAR_HANDLE(uint64_t, counters);
static RTE_LCORE_VAR_HANDLE(char, names);
static RTE_LCORE_VAR_HANDLE(uint8_t, aligned);

static const char *failed;

static void
fail(const char *what)
{
	if (failed == NULL)
		failed = what;
}

static int
is_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

static int
worker(void *arg)
{
	unsigned int lcore_id = rte_lcore_id(), i;
	unsigned int n = (lcore_id + 1) * ITERS;
	char *name = RTE_LCORE_VAR(names);

	(void)arg;
	if (foo_get_a_plus_b() != (long)lcore_id + 1000)
		fail("state set by RTE_LCORE_VAR_FOREACH seen by RTE_LCORE_VAR");
	if (RTE_LCORE_VAR(counters) != RTE_LCORE_VAR_LCORE(lcore_id, counters))
		fail("RTE_LCORE_VAR == RTE_LCORE_VAR_LCORE(own id)");
	if ((uintptr_t)RTE_LCORE_VAR(aligned) % ALIGNED_ALIGN != 0)
		fail("RTE_LCORE_VAR_ALLOC_SIZE_ALIGN alignment");
	if (!is_zero(name, NAME_SIZE) ||
			!is_zero(RTE_LCORE_VAR(aligned), ALIGNED_SIZE))
		fail("values start zeroed");
	snprintf(name, NAME_SIZE, "lcore %u", lcore_id);

	for (i = 0; i < n; i++)
		(*RTE_LCORE_VAR(counters))++;
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned int lcore_id;
	uint64_t *counter, sum = 0, expected = 0;
	char *name, want[NAME_SIZE];

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "lcore_var_consumer: rte_eal_init failed\n");
		return 1;
	}

	foo_init();
	RTE_LCORE_VAR_ALLOC(counters);
	RTE_LCORE_VAR_ALLOC_SIZE(names, NAME_SIZE);
	RTE_LCORE_VAR_ALLOC_SIZE_ALIGN(aligned, ALIGNED_SIZE, ALIGNED_ALIGN);
	if (lcore_states == NULL || counters == NULL || names == NULL ||
			aligned == NULL)
		fail("handles are never NULL");

	rte_eal_mp_remote_launch(worker, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();

	RTE_LCORE_FOREACH(lcore_id) {
		expected += (uint64_t)(lcore_id + 1) * ITERS;
		name = RTE_LCORE_VAR_LCORE(lcore_id, names);
		snprintf(want, sizeof(want), "lcore %u", lcore_id);
		if (strcmp(name, want) != 0)
			fail("RTE_LCORE_VAR_LCORE reads what the lcore wrote");
	}
	RTE_LCORE_VAR_FOREACH(lcore_id, counter, counters)
		sum += *counter;
	if (sum != expected)
		fail("sum over RTE_LCORE_VAR_FOREACH");

	printf("lcore_var_consumer: lcores=%u sum=%" PRIu64 " expected=%"
		PRIu64 " %s%s\n", rte_lcore_count(), sum, expected,
		failed == NULL ? "OK" : "MISMATCH: ",
		failed == NULL ? "" : failed);
	/* lcore variables are never freed: EAL's clean-up is all there is */
	rte_eal_cleanup();
	return failed == NULL ? 0 : 1;
}
