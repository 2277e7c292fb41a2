/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * libFuzzer target for flow_parse().
 *
 * The first input byte picks a segment size (1..64); the rest is the frame,
 * cut into segments that each live in their own exact-size heap block, so
 * AddressSanitizer reports any read past a segment. The segmented result
 * must equal the result on the contiguous frame.
 *
 * Build and run (clang):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *       -I examples/flowcount examples/flowcount/flow_parse.c \
 *       examples/flowcount/test/fuzz_flow_parse.c -o fuzz_flow_parse
 *   ./fuzz_flow_parse -max_len=20000 CORPUS_DIR
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flow_parse.h"

#define MAX_SEGS 20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct flow_seg segs[MAX_SEGS];
	struct flow_key k1, k2;
	enum flow_class c1, c2;
	uint8_t *copy;
	uint32_t len, step, off;
	unsigned int n = 0, i;

	if (size < 1)
		return 0;
	step = (uint32_t)(data[0] % 64) + 1;
	len = (uint32_t)(size - 1);
	/* the contiguous frame, exact size */
	copy = malloc(len ? len : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 1, len);
	c1 = flow_parse_buf(copy, len, &k1);
	if (c1 == FLOW_CLASS_FLOW && k1.family != 4 && k1.family != 6)
		abort();
	if (c1 != FLOW_CLASS_FLOW) {
		static const struct flow_key zero;

		if (memcmp(&k1, &zero, sizeof(zero)) != 0)
			abort();
	}
	/* the same frame as a chain of separately allocated segments */
	for (off = 0; off < len && n < MAX_SEGS; off += step) {
		uint32_t l = len - off < step ? len - off : step;
		uint8_t *s = malloc(l);

		if (s == NULL)
			break;
		memcpy(s, copy + off, l);
		segs[n].data = s;
		segs[n].len = l;
		n++;
	}
	if (off >= len) {
		c2 = flow_parse(segs, n, &k2);
		if (c1 != c2 || memcmp(&k1, &k2, sizeof(k1)) != 0)
			abort();
	}
	for (i = 0; i < n; i++)
		free((void *)(uintptr_t)segs[i].data);
	free(copy);
	return 0;
}
