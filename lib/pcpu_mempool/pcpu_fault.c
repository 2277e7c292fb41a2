/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Fault injection (pcpu_fault.h): built only with -Dfault_injection=true.
 * Per failure point, a count of calls and the number of the call to fail;
 * the counts are atomic, so calls from any thread count. No EAL: the
 * EAL-free chunk library (pcpu_chunk.c) links it too.
 *
 * PCPU_FAULT_ARM in the environment ("point:N[,point:N...]", points by
 * their lower-case identifier, e.g. "telemetry:2,mmap:1") arms points
 * before any constructor of the library runs, for failures at start-up.
 */

/* this file is the fault-injection build's; it also compiles alone */
#ifndef PCPU_FAULT_INJECTION
#define PCPU_FAULT_INJECTION
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pcpu_fault.h"

static struct {
	uint64_t calls[PCPU_FAULT_NB];
	uint64_t fail_at[PCPU_FAULT_NB];   /* 0: never */
	uint64_t fired[PCPU_FAULT_NB];
	int64_t mapped;
} pcpu_faults;

static const char * const fault_names[PCPU_FAULT_NB] = {
#define FAULT_NAME(id, name) [PCPU_FAULT_ ## id] = name,
	PCPU_FAULT_POINTS(FAULT_NAME)
#undef FAULT_NAME
};

static const char * const fault_ids[PCPU_FAULT_NB] = {
#define FAULT_ID(id, name) [PCPU_FAULT_ ## id] = #id,
	PCPU_FAULT_POINTS(FAULT_ID)
#undef FAULT_ID
};

int
pcpu_fault_hit(enum pcpu_fault_point point)
{
	uint64_t n = __atomic_add_fetch(&pcpu_faults.calls[point], 1,
		__ATOMIC_RELAXED);

	if (n != __atomic_load_n(&pcpu_faults.fail_at[point], __ATOMIC_RELAXED))
		return 0;
	__atomic_add_fetch(&pcpu_faults.fired[point], 1, __ATOMIC_RELAXED);
	return 1;
}

void
pcpu_fault_map_account(int64_t bytes)
{
	__atomic_add_fetch(&pcpu_faults.mapped, bytes, __ATOMIC_RELAXED);
}

void
pcpu_fault_arm(enum pcpu_fault_point point, uint64_t nth)
{
	__atomic_store_n(&pcpu_faults.fail_at[point], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pcpu_faults.calls[point], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pcpu_faults.fired[point], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pcpu_faults.fail_at[point], nth, __ATOMIC_RELEASE);
}

void
pcpu_fault_reset(void)
{
	unsigned int p;

	for (p = 0; p < PCPU_FAULT_NB; p++)
		pcpu_fault_arm((enum pcpu_fault_point)p, 0);
}

uint64_t
pcpu_fault_calls(enum pcpu_fault_point point)
{
	return __atomic_load_n(&pcpu_faults.calls[point], __ATOMIC_RELAXED);
}

uint64_t
pcpu_fault_fired(enum pcpu_fault_point point)
{
	return __atomic_load_n(&pcpu_faults.fired[point], __ATOMIC_RELAXED);
}

const char *
pcpu_fault_name(enum pcpu_fault_point point)
{
	return (unsigned int)point < PCPU_FAULT_NB ? fault_names[point] : "?";
}

int64_t
pcpu_fault_mapped_bytes(void)
{
	return __atomic_load_n(&pcpu_faults.mapped, __ATOMIC_RELAXED);
}

/* Before the library's constructors: priority 101 (as DPDK's
 * RTE_PRIORITY_LOG) runs before RTE_INIT's 65535. */
static void __attribute__((constructor(101)))
fault_arm_from_env(void)
{
	const char *env = getenv("PCPU_FAULT_ARM");
	char buf[256], *tok, *save = NULL;
	unsigned int p;

	if (env == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		unsigned long long nth;

		if (colon == NULL)
			goto bad;
		*colon = '\0';
		nth = strtoull(colon + 1, NULL, 0);
		for (p = 0; p < PCPU_FAULT_NB; p++)
			if (strcasecmp(tok, fault_ids[p]) == 0)
				break;
		if (p == PCPU_FAULT_NB || nth == 0)
			goto bad;
		pcpu_fault_arm((enum pcpu_fault_point)p, nth);
	}
	return;
bad:
	fprintf(stderr, "PCPU_FAULT_ARM=%s: want point:N[,point:N...]\n", env);
	abort();
}
