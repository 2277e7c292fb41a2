/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The chunk allocator and the percpu allocator in one translation unit:
 * a free crosses both (free_locked() -> pcpu_chunk_free_deferred()) and
 * the compiler inlines across them only here. pcpu_chunk.c is also built
 * on its own, without EAL, for the CUnit tests.
 */
#include "pcpu_chunk.c"
#include "pcpu.c"
