/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Flow key extraction (see flow_parse.h). Every field is read with
 * rte_pktmbuf_read(): NULL when the frame is shorter than the field's end,
 * else a pointer into the first segment or to a copy of a field that spans
 * segments. The rules are those of the guide; where they differ from what
 * a DPDK helper would do on its own, the code says so.
 */

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "flow_parse.h"

#define FLOW_PARSE_MAX_VLAN 2
#define FLOW_PARSE_MAX_IPV6_EXT 8
/* every extension header the walk knows has at least 8 bytes, and the rules
 * call one cut short when those 8 are not all in the frame */
#define FLOW_PARSE_IPV6_EXT_MIN 8u
/* chains up to this many segments are described on the stack */
#define FLOW_PARSE_STACK_SEGS 32

/*
 * rte_pktmbuf_read() of a header whose type has an alignment (the Ethernet
 * header, the 16-bit ports): the field may sit at any address of a
 * segment, so it is always copied into @buf. Returns 0, or -1 when the
 * frame is shorter than off + len.
 */
static inline int
flow_parse_copy(const struct rte_mbuf *m, uint32_t off, uint32_t len,
		void *buf)
{
	const void *p = rte_pktmbuf_read(m, off, len, buf);

	if (p == NULL)
		return -1;
	if (p != buf)
		memcpy(buf, p, len);
	return 0;
}

/* Ports at @off when @key->proto carries them and the frame holds their 4
 * bytes; else they stay 0 (a short transport header is not malformed). */
static void
flow_parse_ports(const struct rte_mbuf *m, uint32_t off, struct flow_key *key)
{
	rte_be16_t port[2];

	if (!flow_parse_has_ports(key->proto) ||
			flow_parse_copy(m, off, sizeof(port), port) != 0)
		return;
	key->sport = rte_be_to_cpu_16(port[0]);
	key->dport = rte_be_to_cpu_16(port[1]);
}

static enum flow_class
flow_parse_ipv4(const struct rte_mbuf *m, uint32_t off, struct flow_key *key)
{
	struct rte_ipv4_hdr buf;
	const struct rte_ipv4_hdr *h;
	uint32_t ihl;

	h = rte_pktmbuf_read(m, off, sizeof(buf), &buf);
	if (h == NULL || (h->version_ihl >> 4) != 4)
		return FLOW_CLASS_MALFORMED;
	ihl = rte_ipv4_hdr_len(h);
	/* the whole header, options included, must be in the frame */
	if (ihl < sizeof(*h) || off + ihl > rte_pktmbuf_pkt_len(m))
		return FLOW_CLASS_MALFORMED;
	key->family = 4;
	key->proto = h->next_proto_id;
	memcpy(key->src, &h->src_addr, 4);
	memcpy(key->dst, &h->dst_addr, 4);
	/* a non-first fragment has no transport header: ports 0 */
	if ((rte_be_to_cpu_16(h->fragment_offset) &
			RTE_IPV4_HDR_OFFSET_MASK) == 0)
		flow_parse_ports(m, off + ihl, key);
	return FLOW_CLASS_FLOW;
}

static enum flow_class
flow_parse_ipv6(const struct rte_mbuf *m, uint32_t off, struct flow_key *key)
{
	struct rte_ipv6_hdr buf;
	const struct rte_ipv6_hdr *h;
	uint8_t ext_buf[FLOW_PARSE_IPV6_EXT_MIN];
	int nh, next, i;
	int first_fragment = 1;

	h = rte_pktmbuf_read(m, off, sizeof(buf), &buf);
	if (h == NULL || (rte_be_to_cpu_32(h->vtc_flow) >> 28) != 6)
		return FLOW_CLASS_MALFORMED;
	key->family = 6;
	memcpy(key->src, &h->src_addr, 16);
	memcpy(key->dst, &h->dst_addr, 16);
	nh = h->proto;
	off += sizeof(*h);
	/* bounded walk of the extension header chain: hop-by-hop, routing,
	 * destination options, AH and fragment, as rte_ipv6_get_next_ext()
	 * knows them */
	for (i = 0; i < FLOW_PARSE_MAX_IPV6_EXT; i++) {
		const uint8_t *ext;
		size_t ext_len = 0;

		if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING &&
				nh != IPPROTO_DSTOPTS && nh != IPPROTO_AH &&
				nh != IPPROTO_FRAGMENT)
			break;
		ext = rte_pktmbuf_read(m, off, sizeof(ext_buf), ext_buf);
		if (ext == NULL)
			return FLOW_CLASS_MALFORMED;
		next = rte_ipv6_get_next_ext(ext, nh, &ext_len);
		if (nh == IPPROTO_FRAGMENT) {
			const struct rte_ipv6_fragment_ext *fh =
				(const struct rte_ipv6_fragment_ext *)ext;

			if ((rte_be_to_cpu_16(fh->frag_data) &
					RTE_IPV6_EHDR_FO_MASK) != 0)
				first_fragment = 0;
		}
		nh = next;
		off += (uint32_t)ext_len;
		/* a non-first fragment ends the walk: its next header is the
		 * protocol, and there are no ports */
		if (!first_fragment)
			break;
	}
	key->proto = (uint8_t)nh;
	if (first_fragment)
		flow_parse_ports(m, off, key);
	return FLOW_CLASS_FLOW;
}

enum flow_class
flow_parse_mbuf(const struct rte_mbuf *m, struct flow_key *key,
		uint32_t *l3_off)
{
	struct rte_vlan_hdr vbuf;
	struct rte_ether_hdr eth;
	enum flow_class cls;
	uint32_t off = sizeof(eth);
	uint16_t etype;
	int tags;

	memset(key, 0, sizeof(*key));
	*l3_off = 0;
	if (flow_parse_copy(m, 0, sizeof(eth), &eth) != 0)
		return FLOW_CLASS_MALFORMED;
	etype = rte_be_to_cpu_16(eth.ether_type);
	/* up to two tags of any of the three TPIDs, in any order */
	for (tags = 0; tags < FLOW_PARSE_MAX_VLAN; tags++) {
		const struct rte_vlan_hdr *vh;

		if (etype != RTE_ETHER_TYPE_VLAN &&
				etype != RTE_ETHER_TYPE_QINQ &&
				etype != RTE_ETHER_TYPE_QINQ1)
			break;
		vh = rte_pktmbuf_read(m, off, sizeof(vbuf), &vbuf);
		if (vh == NULL)
			return FLOW_CLASS_MALFORMED;
		etype = rte_be_to_cpu_16(vh->eth_proto);
		off += sizeof(*vh);
	}
	if (etype == RTE_ETHER_TYPE_IPV4)
		cls = flow_parse_ipv4(m, off, key);
	else if (etype == RTE_ETHER_TYPE_IPV6)
		cls = flow_parse_ipv6(m, off, key);
	else
		cls = FLOW_CLASS_NON_IP;
	if (cls == FLOW_CLASS_FLOW)
		*l3_off = off;
	else
		memset(key, 0, sizeof(*key));
	return cls;
}

/* Lay mbuf headers over @segs (no mempool: only the fields
 * rte_pktmbuf_read() uses are set). */
static unsigned int
flow_parse_chain(struct rte_mbuf *chain, const struct flow_seg *segs,
		unsigned int nb_segs)
{
	/* an empty segment still needs an address: pointer arithmetic on
	 * NULL is undefined even with a zero offset */
	static const uint8_t empty;
	unsigned int i, n = 0;
	uint32_t covered = 0;

	for (i = 0; i < nb_segs && covered < FLOW_PARSE_MAX_DEPTH; i++) {
		const uint8_t *p = segs[i].len != 0 ? segs[i].data : &empty;
		uint32_t left = segs[i].len;

		do {
			uint16_t l = (uint16_t)RTE_MIN(left, (uint32_t)UINT16_MAX);
			struct rte_mbuf *c = &chain[n];

			memset(c, 0, sizeof(*c));
			c->buf_addr = (void *)(uintptr_t)p;
			c->data_len = l;
			if (n > 0)
				chain[n - 1].next = c;
			n++;
			p += l;
			left -= l;
			covered += l;
		} while (left > 0);
	}
	if (n > 0) {
		chain[0].pkt_len = covered;
		chain[0].nb_segs = (uint16_t)RTE_MIN(n, (unsigned int)UINT16_MAX);
	}
	return n;
}

/* Where flow_parse_chain() can lay @segs out: @stack_chain, or a heap
 * array when it needs more headers (long segments are split at 65535
 * bytes). NULL: no memory. */
static struct rte_mbuf *
flow_parse_chain_mem(const struct flow_seg *segs, unsigned int nb_segs,
		struct rte_mbuf *stack_chain)
{
	unsigned int i, need = 0;

	for (i = 0; i < nb_segs; i++)
		need += segs[i].len / UINT16_MAX + 1;
	if (need <= FLOW_PARSE_STACK_SEGS)
		return stack_chain;
	return malloc((size_t)need * sizeof(struct rte_mbuf));
}

/* flow_parse(), or with @general through flow_parse_mbuf() only */
static enum flow_class
flow_parse_segs(const struct flow_seg *segs, unsigned int nb_segs,
		struct flow_key *key, int general)
{
	struct rte_mbuf stack_chain[FLOW_PARSE_STACK_SEGS];
	struct rte_mbuf *chain;
	enum flow_class cls;
	uint32_t l3_off;

	chain = flow_parse_chain_mem(segs, nb_segs, stack_chain);
	if (chain == NULL) {
		memset(key, 0, sizeof(*key));
		errno = ENOMEM;
		return FLOW_CLASS_MALFORMED;
	}
	if (flow_parse_chain(chain, segs, nb_segs) == 0) {
		memset(key, 0, sizeof(*key));
		cls = FLOW_CLASS_MALFORMED;
	} else if (general) {
		cls = flow_parse_mbuf(chain, key, &l3_off);
	} else {
		cls = flow_parse_mbuf_inline(chain, key, &l3_off);
	}
	if (chain != stack_chain)
		free(chain);
	return cls;
}

enum flow_class
flow_parse(const struct flow_seg *segs, unsigned int nb_segs,
		struct flow_key *key)
{
	return flow_parse_segs(segs, nb_segs, key, 0);
}

enum flow_class
flow_parse_general(const struct flow_seg *segs, unsigned int nb_segs,
		struct flow_key *key)
{
	return flow_parse_segs(segs, nb_segs, key, 1);
}

int
flow_parse_fast_segs(const struct flow_seg *segs, unsigned int nb_segs,
		rte_be32_t *dst)
{
	struct rte_mbuf stack_chain[FLOW_PARSE_STACK_SEGS];
	struct rte_mbuf *chain;
	const uint8_t *p;
	int fast = 0;

	chain = flow_parse_chain_mem(segs, nb_segs, stack_chain);
	if (chain == NULL) {
		errno = ENOMEM;
		return 0;
	}
	if (flow_parse_chain(chain, segs, nb_segs) != 0) {
		p = rte_pktmbuf_mtod(chain, const uint8_t *);
		fast = flow_parse_is_fast(chain, p);
		if (fast)
			*dst = flow_parse_fast_dst(p);
	}
	if (chain != stack_chain)
		free(chain);
	return fast;
}

enum flow_class
flow_parse_buf(const void *data, uint32_t len, struct flow_key *key)
{
	struct flow_seg seg = { .data = data, .len = len };

	return flow_parse(&seg, 1, key);
}

int
flow_key_cmp(const struct flow_key *a, const struct flow_key *b)
{
	int r;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->proto != b->proto)
		return a->proto < b->proto ? -1 : 1;
	/* big-endian bytes: memcmp is numeric order; IPv4 pads with zeros */
	r = memcmp(a->src, b->src, sizeof(a->src));
	if (r != 0)
		return r;
	r = memcmp(a->dst, b->dst, sizeof(a->dst));
	if (r != 0)
		return r;
	if (a->sport != b->sport)
		return a->sport < b->sport ? -1 : 1;
	if (a->dport != b->dport)
		return a->dport < b->dport ? -1 : 1;
	return 0;
}

char *
flow_addr_format(uint8_t family, const uint8_t *addr, char *buf, size_t size)
{
	uint16_t g[8];
	int best = -1, best_len = 0, run = -1, run_len = 0;
	size_t pos = 0;
	int i, n;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (family == 4) {
		snprintf(buf, size, "%u.%u.%u.%u",
			addr[0], addr[1], addr[2], addr[3]);
		return buf;
	}
	for (i = 0; i < 8; i++)
		g[i] = (uint16_t)((addr[2 * i] << 8) | addr[2 * i + 1]);
	/* longest run of zero groups, first one on a tie, at least 2 long */
	for (i = 0; i < 8; i++) {
		if (g[i] == 0) {
			if (run < 0)
				run = i;
			run_len++;
			if (run_len > best_len) {
				best = run;
				best_len = run_len;
			}
		} else {
			run = -1;
			run_len = 0;
		}
	}
	if (best_len < 2)
		best = -1;
	for (i = 0; i < 8; i++) {
		if (i == best) {
			n = snprintf(buf + pos, size - pos, "::");
			i += best_len - 1;
		} else {
			n = snprintf(buf + pos, size - pos, "%s%x",
				(i > 0 && i != best + best_len) ? ":" : "",
				g[i]);
		}
		if (n < 0 || (size_t)n >= size - pos)
			return buf;
		pos += (size_t)n;
	}
	return buf;
}

int
flow_csv_row(const struct flow_key *key, uint64_t packets, uint64_t bytes,
		char *buf, size_t size)
{
	char src[FLOW_ADDR_STRLEN], dst[FLOW_ADDR_STRLEN];

	return snprintf(buf, size, "ipv%u,%u,%s,%s,%u,%u,%" PRIu64 ",%" PRIu64
		"\n", key->family, key->proto,
		flow_addr_format(key->family, key->src, src, sizeof(src)),
		flow_addr_format(key->family, key->dst, dst, sizeof(dst)),
		key->sport, key->dport, packets, bytes);
}

int
flow_csv_special_row(const char *name, uint64_t packets, uint64_t bytes,
		char *buf, size_t size)
{
	/* family, then proto, src, dst, sport and dport empty */
	return snprintf(buf, size, "%s,,,,,,%" PRIu64 ",%" PRIu64 "\n",
		name, packets, bytes);
}
