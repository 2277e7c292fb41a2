/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _TEST_PCPU_ALLOC_H_
#define _TEST_PCPU_ALLOC_H_

#include <rte_pcpu.h>

#include "test.h"
#include "test_pcpu_util.h"

/** Allocator cases, run as a sub-suite of pcpu_autotest. */
extern struct unit_test_suite pcpu_alloc_suite;

#endif /* _TEST_PCPU_ALLOC_H_ */
