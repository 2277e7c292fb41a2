/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * rte_pcpu_init() and rte_pcpu_cleanup(): the configuration's checks and
 * defaults, and the order in which the layers come and go (pcpu_init.h).
 *
 * The area is shared with secondary processes (pcpu_proc.h) when EAL has
 * hugepages and its multi-process channel, or when asked
 * (RTE_PCPU_F_SHARED); a secondary process's rte_pcpu_init(NULL) attaches
 * it and its rte_pcpu_cleanup() detaches it.
 */

#define _GNU_SOURCE /* process_vm_readv */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_tailq.h>

#include "rte_pcpu.h"
#include "pcpu_alloc.h"
#include "pcpu_arena.h"
#include "pcpu_cache.h"
#include "pcpu_fence.h"
#include "pcpu_init.h"
#include "pcpu_log.h"
#include "pcpu_owner.h"
#include "pcpu_proc.h"
#include "pcpu_util.h"

RTE_LOG_REGISTER_DEFAULT(pcpu_logtype, INFO);
RTE_DEFINE_PER_LCORE(unsigned int, pcpu_log_nr_err);

struct rte_pcpu_shared rte_pcpu_shared;
/* applications hold a copy of it of the size they were linked with */
static_assert(sizeof(struct rte_pcpu_shared) == RTE_PCPU_SHARED_SIZE,
	"struct rte_pcpu_shared must keep its size");
/* the inline accessors' step: the size and alignment of the uint64_t it
 * was (the same layout), and, where uint64_t is unsigned long, a type
 * that a store through a uint64_t * cannot alias (rte_pcpu_core.h) */
static_assert(sizeof(rte_pcpu_shared.unit_step) == sizeof(uint64_t) &&
	_Alignof(unsigned long long) == _Alignof(uint64_t),
	"rte_pcpu_shared.unit_step must keep the layout of a uint64_t");
#if ULONG_MAX == UINT64_MAX
static_assert(!__builtin_types_compatible_p(
	__typeof__(rte_pcpu_shared.unit_step), uint64_t),
	"rte_pcpu_shared.unit_step must not be of uint64_t's type");
#endif

/* Largest unit stride: 64 GiB per lcore. */
#define INIT_MAX_UNIT_STRIDE (UINT64_C(1) << 36)
/* Largest chunk: the bitmap counts bits in 32 bits. */
#define INIT_MAX_CHUNK_SIZE (UINT64_C(1) << 30)
/* The area ends below this: x86-64 user space without 5-level paging
 * (47 bits), and the same bound elsewhere. */
#define INIT_MAX_ADDR (UINT64_C(1) << 47)

static TAILQ_HEAD(pcpu_layer_list, pcpu_layer) init_layers =
	TAILQ_HEAD_INITIALIZER(init_layers);
/* serialises rte_pcpu_init() and rte_pcpu_cleanup() */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_done;

/*
 * Whether EAL is up: rte_eal_init() ran and rte_eal_cleanup() did not.
 *
 * DPDK 22.11 offers no call that says so. rte_lcore_count() stays as it
 * was after rte_eal_cleanup(), and everything that reads EAL's memory
 * configuration crashes then, because rte_eal_cleanup() unmaps it. So the
 * library registers a tailq, as DPDK's own libraries do: rte_eal_init()
 * points its head into EAL's shared memory configuration and writes its
 * name there. Before rte_eal_init() the head is NULL; after
 * rte_eal_cleanup() the configuration is unmapped (in the default mode,
 * where it is backed by the runtime directory's "config" file) and the
 * name can no longer be read. It is read with process_vm_readv(2), which
 * fails on unmapped memory instead of faulting.
 *
 * Not seen: rte_eal_cleanup() with --in-memory (EAL leaves its memory
 * mapped then, and the library's calls keep working) or with --no-shconf
 * without --in-memory (the configuration is a static variable that stays
 * readable, EAL's memory does not).
 */
static struct rte_tailq_elem init_eal_tailq = {
	.name = "RTE_PCPU_MEMPOOL",
};
EAL_REGISTER_TAILQ(init_eal_tailq)

int
pcpu_init_eal_running(void)
{
	const struct rte_tailq_head *head = init_eal_tailq.head;
	char name[RTE_TAILQ_NAMESIZE];
	struct iovec local = { .iov_base = name, .iov_len = sizeof(name) };
	struct iovec remote = {
		.iov_base = (void *)(uintptr_t)(head != NULL ? head->name : NULL),
		.iov_len = sizeof(name),
	};
	long page = sysconf(_SC_PAGESIZE);
	unsigned char vec;
	ssize_t n;

	if (head == NULL)
		return 0;
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n == (ssize_t)sizeof(name))
		return strncmp(name, init_eal_tailq.name, sizeof(name)) == 0;
	if (n >= 0 || errno == EFAULT)
		return 0;
	/* process_vm_readv(2) not allowed here (seccomp): whether the page
	 * is still mapped tells nearly as much */
	return mincore((void *)RTE_ALIGN_FLOOR((uintptr_t)head->name,
		(uintptr_t)page), 1, &vec) == 0;
}

int
pcpu_init_eal_gone(const char *what)
{
	if (!pcpu_proc_secondary() &&
	    !__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE))
		return 0; /* nothing of EAL's to read */
	if (pcpu_init_eal_running())
		return 0;
	PCPU_LOG(ERR, "%s: EAL is not initialised, or was cleaned up (call "
		"rte_pcpu_cleanup() before rte_eal_cleanup())", what);
	rte_errno = EINVAL;
	return 1;
}

int
pcpu_init_refuse(const char *what)
{
	return pcpu_proc_refuse(what) || pcpu_init_eal_gone(what);
}

int
pcpu_init_not_set_up(const char *what)
{
	if (__atomic_load_n(&rte_pcpu_shared.initialised, __ATOMIC_ACQUIRE))
		return 0;
	PCPU_LOG(ERR, "%s: not set up", what);
	rte_errno = EALREADY;
	return 1;
}

void
pcpu_init_layer_register(struct pcpu_layer *l)
{
	TAILQ_INSERT_TAIL(&init_layers, l, next);
}

/* Check @p c and fill in its defaults; 0, or -1 with one log line. */
static int
init_conf_check(struct rte_pcpu_conf *c)
{
	if ((c->flags & ~(RTE_PCPU_F_NO_CACHE | RTE_PCPU_F_PRIVATE |
			RTE_PCPU_F_SHARED)) != 0) {
		PCPU_LOG(ERR, "init: flags %#x not supported", c->flags);
		return -1;
	}
	if ((c->flags & RTE_PCPU_F_PRIVATE) && (c->flags & RTE_PCPU_F_SHARED)) {
		PCPU_LOG(ERR, "init: RTE_PCPU_F_PRIVATE and RTE_PCPU_F_SHARED "
			"exclude each other");
		return -1;
	}
	if (c->page_policy > RTE_PCPU_PAGE_NORMAL) {
		PCPU_LOG(ERR, "init: bad page policy %d", (int)c->page_policy);
		return -1;
	}
	if (c->unit_stride == 0)
		c->unit_stride = RTE_PCPU_DEFAULT_UNIT_STRIDE;
	if (c->chunk_size == 0)
		c->chunk_size = RTE_MIN(RTE_PCPU_DEFAULT_CHUNK_SIZE,
			c->unit_stride);
	if (!pcpu_is_pow2(c->unit_stride) ||
	    c->unit_stride > INIT_MAX_UNIT_STRIDE) {
		PCPU_LOG(ERR, "init: unit stride %" PRIu64
			" not a power of two up to %" PRIu64,
			c->unit_stride, INIT_MAX_UNIT_STRIDE);
		return -1;
	}
	if (!pcpu_is_pow2(c->chunk_size) ||
	    c->chunk_size < RTE_PCPU_CHUNK_OBJ_MAX_SIZE ||
	    c->chunk_size > RTE_MIN(c->unit_stride, INIT_MAX_CHUNK_SIZE)) {
		PCPU_LOG(ERR, "init: chunk size %" PRIu64
			" not a power of two in %u..min(unit stride, %" PRIu64
			")", c->chunk_size, RTE_PCPU_CHUNK_OBJ_MAX_SIZE,
			INIT_MAX_CHUNK_SIZE);
		return -1;
	}
	if (c->empty_pages_reserve > c->unit_stride / PCPU_SMALL_PAGE_SIZE) {
		PCPU_LOG(ERR, "init: empty_pages_reserve %u above the pages of "
			"a unit", c->empty_pages_reserve);
		return -1;
	}
	if (c->page_policy == RTE_PCPU_PAGE_HUGE &&
	    c->chunk_size < PCPU_HUGE_PAGE_SIZE) {
		PCPU_LOG(ERR, "init: hugepages need chunks of at least 2 MiB");
		return -1;
	}
	if ((c->base_addr & (PCPU_HUGE_PAGE_SIZE - 1)) != 0 ||
	    c->base_addr > INIT_MAX_ADDR ||
	    INIT_MAX_ADDR - c->base_addr < pcpu_arena_span(c->unit_stride)) {
		PCPU_LOG(ERR, "init: base_addr %#" PRIx64 " not a multiple of "
			"2 MiB with the area (%" PRIu64 " bytes) below %#"
			PRIx64, c->base_addr, pcpu_arena_span(c->unit_stride),
			INIT_MAX_ADDR);
		return -1;
	}
	return 0;
}

/* Whether the area is shared: 1, 0, or -1 (logged) if it cannot be as
 * asked. */
static int
init_shared(const struct rte_pcpu_conf *c)
{
	if (c->flags & RTE_PCPU_F_PRIVATE)
		return 0;
	if (c->flags & RTE_PCPU_F_SHARED) {
		if (pcpu_proc_can_share())
			return 1;
		PCPU_LOG(ERR, "init: RTE_PCPU_F_SHARED needs EAL's "
			"multi-process channel (not --no-shconf, --in-memory)");
		return -1;
	}
	/* DPDK 22.11 gives a --no-huge primary no secondary processes */
	return rte_eal_has_hugepages() && pcpu_proc_can_share();
}

/* Take the layers down from @p last (excluded) backwards, then the caches,
 * the allocator and the owners. */
static uint64_t
init_unwind(struct pcpu_layer *last)
{
	struct pcpu_layer *l = last != NULL ?
		TAILQ_PREV(last, pcpu_layer_list, next) :
		TAILQ_LAST(&init_layers, pcpu_layer_list);
	uint64_t live;

	for (; l != NULL; l = TAILQ_PREV(l, pcpu_layer_list, next))
		if (l->cleanup != NULL)
			l->cleanup();
	pcpu_cache_cleanup();
	live = pcpu_alloc_cleanup();
	pcpu_owner_cleanup();
	return live;
}

/*
 * rte_pcpu_init(), or with @p implicit the set-up a first allocation or
 * pool does (pcpu_init_ensure()): there, another thread's set-up in the
 * meantime is not the caller's error, and is not logged. @p what names
 * the public call in the log line of a refusal.
 */
static int
init_setup(const struct rte_pcpu_conf *conf, bool implicit, const char *what)
{
	struct rte_pcpu_conf c = { 0 };
	struct pcpu_layer *l;
	int shared;

	if (conf != NULL)
		c = *conf;
	if (!pcpu_init_eal_running()) {
		PCPU_LOG(ERR, "%s: EAL is not initialised, or was cleaned up",
			what);
		rte_errno = EINVAL;
		return -1;
	}
	if (pcpu_proc_secondary()) {
		/* the primary's allocator, as it is */
		if (conf != NULL) {
			pcpu_proc_refuse("rte_pcpu_init with a configuration");
			return -1;
		}
		return pcpu_proc_attach();
	}
	if (init_conf_check(&c) != 0) {
		rte_errno = EINVAL;
		return -1;
	}
	shared = init_shared(&c);
	if (shared < 0) {
		rte_errno = ENOTSUP;
		return -1;
	}
	pthread_mutex_lock(&init_lock);
	if (init_done) {
		pthread_mutex_unlock(&init_lock);
		if (!implicit)
			PCPU_LOG(ERR, "init: already set up (rte_pcpu_cleanup() "
				"first, to set it up again)");
		rte_errno = EALREADY;
		return -1;
	}
	/* the fences first (the owners' stocks and the pools' caches use
	 * them), then the owners: the allocator charges them from its start */
	pcpu_fence_init();
	pcpu_owner_init();
	if (pcpu_alloc_init(&c, shared) != 0) {
		pcpu_owner_cleanup();
		pthread_mutex_unlock(&init_lock);
		return -1;
	}
	pcpu_cache_init(rte_pcpu_shared.base, c.unit_stride, c.chunk_size,
		(c.flags & RTE_PCPU_F_NO_CACHE) != 0);
	TAILQ_FOREACH(l, &init_layers, next) {
		if (l->init != NULL && l->init() != 0) {
			int err = rte_errno;

			init_unwind(l);
			pthread_mutex_unlock(&init_lock);
			rte_errno = err;
			return -1;
		}
	}
	/* last: a secondary may read as soon as this is done */
	if (shared && pcpu_proc_publish() != 0 &&
	    (c.flags & RTE_PCPU_F_SHARED)) {
		int err = rte_errno;

		init_unwind(NULL);
		pthread_mutex_unlock(&init_lock);
		rte_errno = err;
		return -1;
	}
	__atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
	pcpu_proc_primary_set(1);
	pthread_mutex_unlock(&init_lock);
	return 0;
}

int
pcpu_init_ensure(const char *what)
{
	if (likely(__atomic_load_n(&init_done, __ATOMIC_ACQUIRE)))
		return 0;
	if (init_setup(NULL, true, what) == 0 || rte_errno == EALREADY)
		return 0;
	return -1;
}

int
rte_pcpu_init(const struct rte_pcpu_conf *conf)
{
	return init_setup(conf, false, "init");
}

int
rte_pcpu_cleanup(void)
{
	uint64_t live;

	if (pcpu_init_eal_gone("cleanup"))
		return -1;
	if (pcpu_proc_secondary())
		return pcpu_proc_detach();
	pthread_mutex_lock(&init_lock);
	if (!init_done) {
		pthread_mutex_unlock(&init_lock);
		PCPU_LOG(ERR, "cleanup: not set up");
		rte_errno = EALREADY;
		return -1;
	}
	__atomic_store_n(&init_done, 0, __ATOMIC_RELEASE);
	pcpu_proc_primary_set(0);
	/* first: secondaries stop reading what goes away */
	pcpu_proc_unpublish();
	live = init_unwind(NULL);
	pthread_mutex_unlock(&init_lock);
	if (live != 0)
		PCPU_LOG(WARNING, "cleanup: %" PRIu64 " object%s still "
			"allocated became invalid", live, live == 1 ? "" : "s");
	return 0;
}
