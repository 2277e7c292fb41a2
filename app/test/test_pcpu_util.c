/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_log.h>

#include "test_pcpu_util.h"

unsigned int
pcpu_test_lcore_next(unsigned int lcore_id)
{
	while (lcore_id < RTE_MAX_LCORE && !rte_pcpu_lcore_has_memory(lcore_id))
		lcore_id++;
	return lcore_id;
}

unsigned int
pcpu_test_mem_lcores(void)
{
	unsigned int l, n = 0;

	for (l = pcpu_test_lcore_next(0); l < RTE_MAX_LCORE;
	     l = pcpu_test_lcore_next(l + 1))
		n++;
	return n;
}

int
pcpu_test_reinit(const struct rte_pcpu_conf *conf)
{
	/* a cleanup of nothing is refused with a log line */
	if (__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE))
		rte_pcpu_cleanup();
	return rte_pcpu_init(conf);
}

int
pcpu_test_all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

int
pcpu_test_log_start(struct pcpu_test_log *l)
{
	memset(l, 0, sizeof(*l));
	l->mem = open_memstream(&l->text, &l->len);
	if (l->mem == NULL)
		return -1;
	l->old = rte_log_get_stream();
	rte_openlog_stream(l->mem);
	return 0;
}

const char *
pcpu_test_log_stop(struct pcpu_test_log *l)
{
	rte_openlog_stream(l->old);
	fclose(l->mem);
	l->mem = NULL;
	if (l->text != NULL)
		fputs(l->text, stdout);
	return l->text != NULL ? l->text : "";
}

void
pcpu_test_log_free(struct pcpu_test_log *l)
{
	free(l->text);
	l->text = NULL;
}

unsigned int
pcpu_test_count_lines(const char *text, const char *needle)
{
	const char *p = text, *eol;
	unsigned int n = 0;

	while (*p != '\0') {
		eol = strchr(p, '\n');
		if (eol == NULL)
			eol = p + strlen(p);
		if (memmem(p, (size_t)(eol - p), needle, strlen(needle)) != NULL)
			n++;
		p = *eol != '\0' ? eol + 1 : eol;
	}
	return n;
}
