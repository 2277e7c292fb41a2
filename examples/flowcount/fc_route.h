/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _FC_ROUTE_H_
#define _FC_ROUTE_H_

/*
 * Routes of dpdk-flowcount: l3fwd's rule files (--rule_ipv4, --rule_ipv6)
 * in rte_lpm / rte_lpm6 tables, one pair per socket that has worker lcores
 * (as l3fwd), plus a default route per family (0.0.0.0/0, ::/0), which the
 * LPM libraries do not take (their depths start at 1) and which is used
 * when their lookup misses.
 *
 * Rule file syntax (l3fwd's): one rule per line, "R<prefix>/<depth> <port>"
 * with the address in the file's family; a line starting with '#' is a
 * comment, blank lines are skipped. l3fwd's ACL lines ('@') and anything
 * else are errors.
 */

#include <stdint.h>

#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "pcpu_compat.h"

#include "flowcount.h"

/* next hop meaning "no route" */
#define FC_ROUTE_NONE UINT16_MAX

struct fc_routes {
	struct rte_lpm *lpm4;
	struct rte_lpm6 *lpm6;
	uint16_t default4;  /* 0.0.0.0/0, or FC_ROUTE_NONE */
	uint16_t default6;  /* ::/0, or FC_ROUTE_NONE */
};

/*
 * Read one rule file of @family (4 or 6) into the rule list. Rules to
 * ports outside @portmask are skipped, as l3fwd does, and counted in the
 * line printed. Returns 0, or -1 after printing "FILE:LINE: what" to
 * stderr.
 */
int fc_routes_read(const char *path, int family, uint32_t portmask);

/* The tables of @socket_id, built from the rules read (once per socket).
 * NULL after printing the error. */
const struct fc_routes *fc_routes_get(int socket_id);

/* Free every socket's tables and the rule list. */
void fc_routes_free(void);

static inline uint16_t
fc_route_ipv4(const struct fc_routes *r, uint32_t dst)
{
	uint32_t nh;

	if (rte_lpm_lookup(r->lpm4, dst, &nh) == 0)
		return (uint16_t)nh;
	return r->default4;
}

static inline uint16_t
fc_route_ipv6(const struct fc_routes *r, const uint8_t *dst)
{
	uint32_t nh;

	if (rte_lpm6_lookup(r->lpm6, PCPU_LPM6_ADDR(dst), &nh) == 0)
		return (uint16_t)nh;
	return r->default6;
}

#endif /* _FC_ROUTE_H_ */
