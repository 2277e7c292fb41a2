/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_ALLOC_H_
#define _TEST_PCPU_ALLOC_H_

#include <rte_pcpu.h>

#include "test.h"

/** Allocator cases, run as a sub-suite of pcpu_autotest. */
extern struct unit_test_suite pcpu_alloc_suite;

/** rte_pcpu_cleanup() (if set up) then rte_pcpu_init(@p conf). */
int pcpu_test_reinit(const struct rte_pcpu_conf *conf);

#endif /* _TEST_PCPU_ALLOC_H_ */
