/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Flow key extraction (FLOWKEY.md). Every read goes through frame_read(),
 * which checks the offset against the total length of the segment chain
 * first, so no byte outside the given segments is ever touched.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "flow_parse.h"

#define ETH_HLEN 14u
#define ETYPE_IPV4 0x0800u
#define ETYPE_IPV6 0x86DDu
#define TPID_8021Q 0x8100u
#define TPID_8021AD 0x88A8u
#define TPID_QINQ_OLD 0x9100u
#define MAX_VLAN_TAGS 2
#define IPV4_MIN_HLEN 20u
#define IPV6_HLEN 40u
#define IPV6_MAX_EXT 8

#define PROTO_TCP 6
#define PROTO_UDP 17
#define PROTO_SCTP 132
#define NH_HOPOPTS 0
#define NH_ROUTING 43
#define NH_FRAGMENT 44
#define NH_AH 51
#define NH_DSTOPTS 60

/* A frame: its segments and their total length. */
struct frame {
	const struct flow_seg *segs;
	unsigned int nb_segs;
	uint64_t len;
};

/*
 * Copy @n bytes at offset @off of the frame into @dst.
 * Returns 0, or -1 (nothing read) when the frame is shorter than off + n.
 */
static int
frame_read(const struct frame *f, uint64_t off, void *dst, uint32_t n)
{
	uint8_t *d = dst;
	unsigned int i;

	if (off + n > f->len)
		return -1;
	/* common case: everything in the first segment */
	if (off + n <= f->segs[0].len) {
		memcpy(d, f->segs[0].data + off, n);
		return 0;
	}
	for (i = 0; i < f->nb_segs && n > 0; i++) {
		uint32_t slen = f->segs[i].len;
		uint32_t c;

		if (off >= slen) {
			off -= slen;
			continue;
		}
		c = slen - (uint32_t)off;
		if (c > n)
			c = n;
		memcpy(d, f->segs[i].data + off, c);
		d += c;
		n -= c;
		off = 0;
	}
	return 0;
}

static inline uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline int
proto_has_ports(uint8_t proto)
{
	return proto == PROTO_TCP || proto == PROTO_UDP || proto == PROTO_SCTP;
}

/* Ports at @off when @proto carries them and 4 bytes are there; else 0. */
static void
read_ports(const struct frame *f, uint64_t off, struct flow_key *key)
{
	uint8_t p[4];

	if (proto_has_ports(key->proto) && frame_read(f, off, p, 4) == 0) {
		key->sport = be16(p);
		key->dport = be16(p + 2);
	}
}

static enum flow_class
parse_ipv4(const struct frame *f, uint64_t off, struct flow_key *key)
{
	uint8_t h[IPV4_MIN_HLEN];
	uint32_t ihl;

	if (frame_read(f, off, h, sizeof(h)) != 0)
		return FLOW_CLASS_MALFORMED;
	ihl = (h[0] & 0x0Fu) * 4u;
	if ((h[0] >> 4) != 4 || ihl < IPV4_MIN_HLEN || off + ihl > f->len)
		return FLOW_CLASS_MALFORMED;
	key->family = 4;
	key->proto = h[9];
	memcpy(key->src, h + 12, 4);
	memcpy(key->dst, h + 16, 4);
	/* non-first fragment: no transport header, ports 0 */
	if ((be16(h + 6) & 0x1FFFu) == 0)
		read_ports(f, off + ihl, key);
	return FLOW_CLASS_FLOW;
}

static enum flow_class
parse_ipv6(const struct frame *f, uint64_t off, struct flow_key *key)
{
	uint8_t h[IPV6_HLEN];
	uint8_t ext[8];
	uint8_t nh;
	int first_fragment = 1;
	int i;

	if (frame_read(f, off, h, sizeof(h)) != 0 || (h[0] >> 4) != 6)
		return FLOW_CLASS_MALFORMED;
	nh = h[6];
	off += IPV6_HLEN;
	/* bounded walk of the extension header chain */
	for (i = 0; i < IPV6_MAX_EXT; i++) {
		uint32_t hlen;

		if (nh != NH_HOPOPTS && nh != NH_ROUTING && nh != NH_DSTOPTS &&
				nh != NH_AH && nh != NH_FRAGMENT)
			break;
		if (frame_read(f, off, ext, sizeof(ext)) != 0)
			return FLOW_CLASS_MALFORMED;
		if (nh == NH_AH) {
			hlen = ((uint32_t)ext[1] + 2u) * 4u;
		} else if (nh == NH_FRAGMENT) {
			hlen = 8;
			if ((be16(ext + 2) & 0xFFF8u) != 0)
				first_fragment = 0;
		} else {
			hlen = ((uint32_t)ext[1] + 1u) * 8u;
		}
		nh = ext[0];
		off += hlen;
		if (!first_fragment)
			break;
	}
	key->family = 6;
	key->proto = nh;
	memcpy(key->src, h + 8, 16);
	memcpy(key->dst, h + 24, 16);
	if (first_fragment)
		read_ports(f, off, key);
	return FLOW_CLASS_FLOW;
}

enum flow_class
flow_parse(const struct flow_seg *segs, unsigned int nb_segs,
		struct flow_key *key)
{
	struct frame f = { .segs = segs, .nb_segs = nb_segs, .len = 0 };
	enum flow_class cls;
	uint8_t b[4];
	uint64_t off;
	uint16_t etype;
	unsigned int i;
	int tags;

	memset(key, 0, sizeof(*key));
	for (i = 0; i < nb_segs; i++)
		f.len += segs[i].len;
	if (f.len < ETH_HLEN)
		return FLOW_CLASS_MALFORMED;
	frame_read(&f, 12, b, 2);
	etype = be16(b);
	off = ETH_HLEN;
	for (tags = 0; tags < MAX_VLAN_TAGS; tags++) {
		if (etype != TPID_8021Q && etype != TPID_8021AD &&
				etype != TPID_QINQ_OLD)
			break;
		/* tag control information, then the inner EtherType */
		if (frame_read(&f, off, b, 4) != 0)
			return FLOW_CLASS_MALFORMED;
		etype = be16(b + 2);
		off += 4;
	}
	if (etype == ETYPE_IPV4)
		cls = parse_ipv4(&f, off, key);
	else if (etype == ETYPE_IPV6)
		cls = parse_ipv6(&f, off, key);
	else
		cls = FLOW_CLASS_NON_IP;
	if (cls != FLOW_CLASS_FLOW)
		memset(key, 0, sizeof(*key));
	return cls;
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
		g[i] = be16(addr + 2 * i);
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
	return snprintf(buf, size, "%s,,,,,,%" PRIu64 ",%" PRIu64 "\n",
		name, packets, bytes);
}
