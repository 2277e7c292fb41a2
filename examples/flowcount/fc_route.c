/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/* Routes: l3fwd's rule files into rte_lpm / rte_lpm6 (see fc_route.h). */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_errno.h>

#include "fc_route.h"

#define FC_ROUTE_MAX_RULES 65536
#define FC_ROUTE_LPM4_TBL8S (1 << 8)
#define FC_ROUTE_LPM6_TBL8S (1 << 16)

struct fc_route_rule {
	uint8_t family;
	uint8_t depth;
	uint16_t port;
	uint8_t addr[16];   /* network order; IPv4 in the first 4 bytes */
	const char *path;   /* where it was read, for an error when the */
	unsigned int line;  /* table refuses it */
};

static struct fc_route_rule *fc_rules;
static unsigned int fc_nb_rules;
static struct fc_routes fc_routes_socket[FC_NB_SOCKETS];
static bool fc_routes_made[FC_NB_SOCKETS];

static int
fc_route_error(const char *path, unsigned int line, const char *what,
		const char *tok)
{
	fprintf(stderr, "%s: %s:%u: %s%s%s%s\n", fc_prgname, path, line, what,
		tok != NULL ? " '" : "", tok != NULL ? tok : "",
		tok != NULL ? "'" : "");
	return -1;
}

/* "ADDR/DEPTH PORT" after the 'R' */
static int
fc_route_parse_rule(char *s, int family, struct fc_route_rule *r,
		const char *path, unsigned int line)
{
	char *prefix, *port_s, *extra, *slash, *end, *sp;
	uint64_t depth, port;

	prefix = strtok_r(s, " \t\r\n", &sp);
	port_s = strtok_r(NULL, " \t\r\n", &sp);
	extra = strtok_r(NULL, " \t\r\n", &sp);
	if (prefix == NULL || port_s == NULL || extra != NULL)
		return fc_route_error(path, line, "expected 'R<prefix>/<depth> "
			"<port>'", NULL);
	slash = strchr(prefix, '/');
	if (slash == NULL)
		return fc_route_error(path, line, "no '/<depth>' in", prefix);
	*slash = '\0';
	if (fc_strtou64(slash + 1, &end, 10, &depth) != 0 || *end != '\0' ||
			depth > (family == 4 ? 32u : 128u))
		return fc_route_error(path, line, family == 4 ?
			"depth must be 0 to 32, got" :
			"depth must be 0 to 128, got", slash + 1);
	memset(r, 0, sizeof(*r));
	if (inet_pton(family == 4 ? AF_INET : AF_INET6, prefix, r->addr) != 1)
		return fc_route_error(path, line, family == 4 ?
			"not an IPv4 address:" : "not an IPv6 address:", prefix);
	if (fc_strtou64(port_s, &end, 10, &port) != 0 || *end != '\0' ||
			port >= FC_MAX_PORTS)
		return fc_route_error(path, line, "not a port number:", port_s);
	r->family = (uint8_t)family;
	r->depth = (uint8_t)depth;
	r->port = (uint16_t)port;
	return 0;
}

int
fc_routes_read(const char *path, int family, uint32_t portmask)
{
	char buf[LINE_MAX];
	unsigned int line = 0, added = 0, skipped = 0;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "%s: --rule_ipv%d: cannot open %s: %s\n",
			fc_prgname, family, path, strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), f) != NULL) {
		struct fc_route_rule r;
		const char *p = buf;

		line++;
		if (strchr(buf, '\n') == NULL && !feof(f)) {
			fclose(f);
			return fc_route_error(path, line, "line too long", NULL);
		}
		if (buf[0] == '#')
			continue;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			continue;
		if (buf[0] == '@') {
			fclose(f);
			return fc_route_error(path, line, "ACL rules ('@') are "
				"not supported: routes start with 'R'", NULL);
		}
		if (buf[0] != 'R') {
			fclose(f);
			return fc_route_error(path, line, "a rule starts with "
				"'R', a comment with '#'", NULL);
		}
		if (fc_route_parse_rule(buf + 1, family, &r, path, line) != 0) {
			fclose(f);
			return -1;
		}
		r.path = path;
		r.line = line;
		/* as l3fwd: routes to ports not in use are left out */
		if (!(portmask & (1u << r.port))) {
			skipped++;
			continue;
		}
		if (fc_nb_rules == FC_ROUTE_MAX_RULES) {
			fclose(f);
			return fc_route_error(path, line, "more than 65536 "
				"rules", NULL);
		}
		if (fc_nb_rules % 1024 == 0) {
			struct fc_route_rule *n = realloc(fc_rules,
				(fc_nb_rules + 1024) * sizeof(*n));

			if (n == NULL) {
				fclose(f);
				return fc_route_error(path, line, "no memory",
					NULL);
			}
			fc_rules = n;
		}
		fc_rules[fc_nb_rules++] = r;
		added++;
	}
	/* a directory opens, then fails to read (EISDIR): say so, not
	 * "no rules" */
	if (ferror(f)) {
		int err = errno;

		fclose(f);
		fprintf(stderr, "%s: --rule_ipv%d: cannot read %s: %s\n",
			fc_prgname, family, path, strerror(err));
		return -1;
	}
	fclose(f);
	if (added + skipped == 0) {
		fprintf(stderr, "%s: %s: no rules ('R<prefix>/<depth> "
			"<port>' lines)\n", fc_prgname, path);
		return -1;
	}
	printf("routes: %u IPv%d rules from %s", added, family, path);
	if (skipped > 0)
		printf(" (%u to ports not enabled left out)", skipped);
	printf("\n");
	return 0;
}

const struct fc_routes *
fc_routes_get(int socket_id)
{
	struct fc_routes *r;
	struct rte_lpm_config c4 = {
		.max_rules = FC_ROUTE_MAX_RULES,
		.number_tbl8s = FC_ROUTE_LPM4_TBL8S,
	};
	struct rte_lpm6_config c6 = {
		.max_rules = FC_ROUTE_MAX_RULES,
		.number_tbl8s = FC_ROUTE_LPM6_TBL8S,
	};
	char name[32];
	unsigned int i;

	if (socket_id < 0 || socket_id >= FC_NB_SOCKETS) {
		fprintf(stderr, "%s: socket %d out of range\n", fc_prgname,
			socket_id);
		return NULL;
	}
	r = &fc_routes_socket[socket_id];
	if (fc_routes_made[socket_id])
		return r;
	snprintf(name, sizeof(name), "fc_lpm4_%d", socket_id);
	r->lpm4 = rte_lpm_create(name, socket_id, &c4);
	snprintf(name, sizeof(name), "fc_lpm6_%d", socket_id);
	r->lpm6 = rte_lpm6_create(name, socket_id, &c6);
	if (r->lpm4 == NULL || r->lpm6 == NULL) {
		fprintf(stderr, "%s: cannot create the LPM tables on socket "
			"%d: %s\n", fc_prgname, socket_id,
			rte_strerror(rte_errno));
		return NULL;
	}
	r->default4 = FC_ROUTE_NONE;
	r->default6 = FC_ROUTE_NONE;
	for (i = 0; i < fc_nb_rules; i++) {
		const struct fc_route_rule *u = &fc_rules[i];
		int ret;

		if (u->depth == 0) {
			/* a later default route replaces an earlier one, as
			 * a later rule of the same prefix does in LPM */
			if (u->family == 4)
				r->default4 = u->port;
			else
				r->default6 = u->port;
			continue;
		}
		if (u->family == 4) {
			uint32_t a = rte_be_to_cpu_32(*(const rte_be32_t *)
				(const void *)u->addr);

			ret = rte_lpm_add(r->lpm4, a & (UINT32_MAX <<
				(32 - u->depth)), u->depth, u->port);
		} else {
			ret = rte_lpm6_add(r->lpm6, PCPU_LPM6_ADDR(u->addr),
				u->depth, u->port);
		}
		if (ret < 0) {
			fprintf(stderr, "%s: %s:%u: cannot add the route "
				"(socket %d): %s%s\n", fc_prgname, u->path,
				u->line, socket_id, strerror(-ret),
				ret == -ENOSPC && u->family == 4 ?
				" (the IPv4 table has 256 groups for routes "
				"longer than /24, as l3fwd's)" : "");
			return NULL;
		}
	}
	fc_routes_made[socket_id] = true;
	return r;
}

void
fc_routes_free(void)
{
	unsigned int s;

	for (s = 0; s < FC_NB_SOCKETS; s++) {
		rte_lpm_free(fc_routes_socket[s].lpm4);
		rte_lpm6_free(fc_routes_socket[s].lpm6);
		memset(&fc_routes_socket[s], 0, sizeof(fc_routes_socket[s]));
		fc_routes_made[s] = false;
	}
	free(fc_rules);
	fc_rules = NULL;
	fc_nb_rules = 0;
}
