/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PCPU_UTIL_H_
#define _PCPU_UTIL_H_

/**
 * @file
 * @internal Arithmetic that DPDK 22.11 lacks for 64-bit values, and the
 * rule for the names of owners and pools.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_errno.h>

#include "pcpu_log.h"

/** Whether @p v is a power of two (64-bit: DPDK 22.11's
 * rte_is_power_of_2() takes 32 bits and would truncate strides). */
static inline int
pcpu_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/** The characters a name may hold, for the log lines that refuse one. */
#define PCPU_NAME_CHARS "printable ASCII (0x20 to 0x7e) but '\"' and '\\', " \
	"not starting or ending with a space"

/**
 * Where @p name (NUL-terminated) breaks the naming rule of owners and
 * pools, or -1 if it does not: the index of its first byte that is not
 * printable ASCII (a control character, DEL or a byte above 0x7f) or is
 * '"' or '\\', or a space at either end. Names travel into telemetry's
 * JSON, dpdk-pcpu-info and log lines; DPDK 22.11's telemetry writes
 * control bytes and bytes that are not UTF-8 as they are, which makes the
 * whole reply invalid JSON, and the two escaped characters are refused so
 * that no consumer has to escape at all. Spaces at the ends are invisible
 * in every table and log line: "root " would pass for "root".
 */
static inline ptrdiff_t
pcpu_name_bad_char(const char *name)
{
	const unsigned char *c;

	for (c = (const unsigned char *)name; *c != '\0'; c++)
		if (*c < 0x20 || *c > 0x7e || *c == '"' || *c == '\\' ||
		    (*c == ' ' && (c == (const unsigned char *)name ||
				   c[1] == '\0')))
			return (const char *)c - name;
	return -1;
}

/**
 * Check @p name against the naming rule (pcpu_name_bad_char()).
 * @param what What the name is for, to start the log line ("owner
 *   create", "mempool: create", ...).
 * @return 0, or -1 with rte_errno = EINVAL and one log line naming the
 *   byte.
 */
static inline int
pcpu_name_check(const char *what, const char *name)
{
	ptrdiff_t bad = pcpu_name_bad_char(name);

	if (bad < 0)
		return 0;
	PCPU_LOG(ERR, "%s: byte %#04x at %td of the name is not allowed: "
		"names are " PCPU_NAME_CHARS, what,
		(unsigned int)(unsigned char)name[bad], bad);
	rte_errno = EINVAL;
	return -1;
}

#endif /* _PCPU_UTIL_H_ */
