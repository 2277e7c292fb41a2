/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * libFuzzer target: the dpdk-flowcount packet parser (flow_parse.c) on raw
 * frames.
 *
 * Input: byte 0 chooses how the frame (the rest of the input) is cut into
 * segments, as a multi-segment mbuf would hold it: 0 one segment, else
 * segments of (byte 0 % 61) + 1 bytes with an empty segment every fourth.
 * Every segment is copied into a heap buffer of exactly its length, so
 * AddressSanitizer reports any read past a segment.
 *
 * Checks: the class is in range; a flow key has family 4 or 6, zero
 * padding and (IPv4) zero address tails; any other class leaves the key
 * zeroed; the single-buffer parse and the segmented parse agree
 * exactly; a frame on the inline fast path is, by the general parser
 * alone, an IPv4 flow to the destination the datapath reads without a
 * key when it does not count (flow_parse_fast_segs()); key comparison,
 * address and CSV formatting stay in their buffers and are consistent.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow_parse.h"

#define MAX_SEGS 4096

static void
check(int cond)
{
	if (!cond)
		abort();
}

static int
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

/* A frame on the fast path (flow_parse_fast_segs()) is, by the general
 * parser alone, an IPv4 flow to the destination the datapath reads
 * without a key. */
static void
check_fast(const struct flow_seg *segs, unsigned int n)
{
	struct flow_key k;
	rte_be32_t dst;

	if (!flow_parse_fast_segs(segs, n, &dst))
		return;
	check(flow_parse_general(segs, n, &k) == FLOW_CLASS_FLOW);
	check(k.family == 4 && memcmp(k.dst, &dst, sizeof(dst)) == 0);
}

static void
check_key(enum flow_class c, const struct flow_key *k)
{
	char buf[FLOW_CSV_ROW_MAX], addr[FLOW_ADDR_STRLEN];
	int n;

	check(c == FLOW_CLASS_FLOW || c == FLOW_CLASS_NON_IP ||
		c == FLOW_CLASS_MALFORMED);
	if (c != FLOW_CLASS_FLOW) {
		check(all_zero(k, sizeof(*k)));
		return;
	}
	check(k->family == 4 || k->family == 6);
	check(k->pad == 0);
	if (k->family == 4)
		check(all_zero(&k->src[4], 12) && all_zero(&k->dst[4], 12));
	check(flow_key_cmp(k, k) == 0);
	flow_addr_format(k->family, k->src, addr, sizeof(addr));
	check(strlen(addr) < sizeof(addr));
	n = flow_csv_row(k, 1, 60, buf, sizeof(buf));
	check(n > 0 && (size_t)n < sizeof(buf));
	check(buf[n - 1] == '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct flow_seg segs[MAX_SEGS];
	struct flow_key k1, k2;
	enum flow_class c1, c2;
	const uint8_t *frame;
	uint8_t *copy;
	uint32_t len, off, seg_len;
	unsigned int n = 0, i;

	if (size < 1 || size > FLOW_PARSE_MAX_DEPTH + 4096)
		return 0;
	frame = data + 1;
	len = (uint32_t)(size - 1);

	/* one exact-size buffer */
	copy = malloc(len != 0 ? len : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, frame, len);
	memset(&k1, 0xa5, sizeof(k1));
	c1 = flow_parse_buf(len != 0 ? copy : NULL, len, &k1);
	check_key(c1, &k1);
	segs[0].data = len != 0 ? copy : NULL;
	segs[0].len = len;
	check_fast(segs, 1);
	free(copy);

	/* the same frame in segments, each its own exact-size buffer */
	seg_len = data[0] == 0 ? (len != 0 ? len : 1) : (data[0] % 61u) + 1u;
	for (off = 0; off < len && n < MAX_SEGS - 1; n++) {
		uint32_t l = (n % 4 == 3) ? 0 : (seg_len < len - off ? seg_len : len - off);
		uint8_t *b = l != 0 ? malloc(l) : NULL;

		if (l != 0 && b == NULL)
			goto out;
		if (l != 0)
			memcpy(b, frame + off, l);
		segs[n].data = b;
		segs[n].len = l;
		off += l;
	}
	if (off < len)
		goto out; /* too many segments: not comparable */
	memset(&k2, 0x5a, sizeof(k2));
	c2 = flow_parse(segs, n, &k2);
	check_key(c2, &k2);
	check(c1 == c2);
	check(memcmp(&k1, &k2, sizeof(k1)) == 0);
out:
	for (i = 0; i < n; i++)
		free((void *)(uintptr_t)segs[i].data);
	return 0;
}
