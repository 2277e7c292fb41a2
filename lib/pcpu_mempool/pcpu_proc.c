/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The process model: a DPDK secondary process reads the primary's percpu
 * memory (pcpu_proc.h).
 *
 * What a secondary reads, and where it lives:
 * - the copies: the area, a shared file mapped read-only at the primary's
 *   address (pcpu_arena_attach());
 * - where the area is, which lcores have memory and their NUMA nodes: the
 *   memzone PCPU_PROC_MZ (struct pcpu_proc_zone), reserved once by the
 *   primary and kept for the life of the process, valid while @c ready;
 *   @c generation tells one rte_pcpu_init() of the primary from the next;
 * - the pools: the EAL tailq of pools, in shared memory (pcpu_mempool.c);
 * - the allocator's statistics, dump and audit: the primary reads them,
 *   on request (pcpu_proc_remote.c).
 *
 * The lcore mask. rte_pcpu_shared.lcore_mask is per process; a secondary
 * copies the primary's when it attaches and never updates it. That is
 * exact in DPDK 22.11: the primary's lcores get memory in rte_pcpu_init(),
 * before the memzone is ready, and afterwards only a thread that calls
 * rte_thread_register() could arrive, which EAL refuses once a secondary
 * process has started (and a primary that registered one refuses
 * secondaries: rte_mp_disable()). So the inline readers keep their one
 * load of the mask, with no indirection.
 *
 * Messages, over EAL's multi-process channel (rte_mp):
 * - PCPU_PROC_MSG_ATTACH, secondary to primary, a request: the reply
 *   carries the area's file descriptors and the generation they belong to;
 * - PCPU_PROC_MSG_DETACH, secondary to primary: a secondary no longer
 *   reads the area (the primary may give memory back now, see
 *   pcpu_alloc_balance.c; a secondary that dies unannounced is noticed
 *   there too);
 * - PCPU_PROC_MSG_GONE, primary to every secondary: rte_pcpu_cleanup();
 *   each puts zero pages over its view, so that threads still reading old
 *   handles read zeros, and attaches again to the next generation.
 * Handlers run on EAL's multi-process thread, which also carries EAL's
 * own memory requests: they take no lock that a thread may hold while it
 * allocates EAL memory (only the state lock below, never held across an
 * allocation or a request).
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memzone.h>
#include <rte_string_fns.h>

#include "rte_pcpu.h"
#include "pcpu_alloc.h"
#include "pcpu_arena.h"
#include "pcpu_fault.h"
#include "pcpu_log.h"
#include "pcpu_proc.h"

#define PCPU_PROC_MZ "pcpu_mempool"
#define PCPU_PROC_MAGIC 0x70637075u   /* "pcpu" */
#define PCPU_PROC_VERSION 1u
#define PCPU_PROC_MSG_ATTACH "pcpu_mempool_attach"
#define PCPU_PROC_MSG_DETACH "pcpu_mempool_detach"
#define PCPU_PROC_MSG_GONE "pcpu_mempool_gone"
/* how long a secondary waits for the primary's answer */
#define PCPU_PROC_TIMEOUT_S 5
/* a secondary looks for the primary's allocator at most this often */
#define PCPU_PROC_RETRY_MS 100

/** The memzone: what a secondary reads without asking. */
struct pcpu_proc_zone {
	uint32_t magic;          /**< PCPU_PROC_MAGIC. */
	uint32_t version;        /**< PCPU_PROC_VERSION. */
	uint32_t ready;          /**< 1 while the allocator is set up. */
	uint32_t generation;     /**< One per rte_pcpu_init(). */
	int32_t primary_pid;     /**< For messages. */
	uint32_t reserved;
	struct pcpu_arena_desc area;             /**< The area. */
	uint64_t lcore_mask[RTE_PCPU_MASK_WORDS]; /**< Lcores with memory. */
	int16_t lcore_socket[RTE_MAX_LCORE];     /**< Their nodes, -1. */
};

/** The attach request and its reply. */
struct pcpu_proc_attach_msg {
	uint32_t version;        /**< PCPU_PROC_VERSION. */
	int32_t status;          /**< Reply: 0 or -errno. */
	uint32_t generation;     /**< Reply: of the files sent. */
};

/* This process's side. */
static struct {
	/* state lock: the fields below; never held across an allocation of
	 * EAL memory or an rte_mp request */
	pthread_mutex_t lock;
	const struct rte_memzone *mz;
	struct pcpu_proc_zone *zone;
	/* primary */
	int published;
	/* secondary */
	int attached;
	uint32_t generation;       /* attached to */
	uint32_t failed_generation; /* last attach that failed: logged */
	int gone_registered;
	uint64_t next_try;         /* timer cycles: look again after */
	struct pcpu_arena view;    /* the area, read-only */
	/* serialises attaches (and their requests) */
	pthread_mutex_t attach_lock;
} proc = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.attach_lock = PTHREAD_MUTEX_INITIALIZER,
};

int pcpu_proc_primary_ready;

void
pcpu_proc_primary_set(int ready)
{
	__atomic_store_n(&pcpu_proc_primary_ready, ready, __ATOMIC_RELAXED);
}

int
pcpu_proc_refuse_slow(const char *what)
{
	if (!pcpu_proc_secondary())
		return 0;
	PCPU_LOG(ERR, "%s: not supported in a secondary process, which only "
		"reads the primary's percpu memory", what);
	rte_errno = ENOTSUP;
	return 1;
}

/* ---------------------------------------------------------------------- */
/* Primary. */

static int
proc_noop_action(const struct rte_mp_msg *msg __rte_unused,
		const void *peer __rte_unused)
{
	return 0;
}

int
pcpu_proc_can_share(void)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	/* EAL refuses actions without its multi-process channel */
	if (rte_mp_action_register(PCPU_PROC_MSG_ATTACH, proc_noop_action) != 0)
		return rte_errno == EEXIST;
	rte_mp_action_unregister(PCPU_PROC_MSG_ATTACH);
	return 1;
}

/* A secondary asks for the area's files. */
static int
proc_attach_action(const struct rte_mp_msg *msg, const void *peer)
{
	const struct pcpu_proc_attach_msg *req =
		(const struct pcpu_proc_attach_msg *)msg->param;
	struct pcpu_proc_attach_msg rep = { .version = PCPU_PROC_VERSION };
	struct rte_mp_msg reply;
	int fds[2];

	memset(&reply, 0, sizeof(reply));
	rte_strscpy(reply.name, msg->name, sizeof(reply.name));
	pthread_mutex_lock(&proc.lock);
	if (msg->len_param != sizeof(*req) ||
	    req->version != PCPU_PROC_VERSION) {
		rep.status = -EPROTO;
	} else if (!proc.published) {
		rep.status = -ENOENT;
	} else {
		rep.generation = proc.zone->generation;
		reply.num_fds = (int)pcpu_arena_fds(pcpu_alloc_arena(), fds);
		memcpy(reply.fds, fds, sizeof(int) * (size_t)reply.num_fds);
	}
	memcpy(reply.param, &rep, sizeof(rep));
	reply.len_param = sizeof(rep);
	/* the descriptors are duplicated into the message as it is sent */
	if (rte_mp_reply(&reply, peer) != 0)
		PCPU_LOG(ERR, "cannot answer a secondary process: %s",
			rte_strerror(rte_errno));
	pthread_mutex_unlock(&proc.lock);
	return 0;
}

/* A secondary stopped reading. */
static int
proc_detach_action(const struct rte_mp_msg *msg __rte_unused,
		const void *peer __rte_unused)
{
	/* from an alarm, not here: the allocator's mutex may be held by a
	 * thread that waits for EAL memory, which needs this very thread */
	pcpu_alloc_retry_deferred();
	return 0;
}

/* The zone, reserved once. */
static struct pcpu_proc_zone *
proc_zone_reserve(void)
{
	const struct rte_memzone *mz;

	mz = rte_memzone_lookup(PCPU_PROC_MZ);
	if (mz == NULL)
		mz = pcpu_fault_rte_memzone_reserve_aligned(PCPU_PROC_MZ,
			sizeof(struct pcpu_proc_zone), SOCKET_ID_ANY, 0,
			RTE_CACHE_LINE_SIZE);
	if (mz == NULL)
		return NULL;
	proc.mz = mz;
	return mz->addr;
}

int
pcpu_proc_publish(void)
{
	struct pcpu_proc_zone *z;
	unsigned int l, w;

	/* not under the lock: it may allocate EAL memory */
	z = proc_zone_reserve();
	if (z == NULL) {
		PCPU_LOG(ERR, "cannot reserve the memzone %s: secondary "
			"processes cannot read percpu memory: %s", PCPU_PROC_MZ,
			rte_strerror(rte_errno));
		return -1;
	}
	pthread_mutex_lock(&proc.lock);
	proc.zone = z;
	z->magic = PCPU_PROC_MAGIC;
	z->version = PCPU_PROC_VERSION;
	z->primary_pid = (int32_t)getpid();
	pcpu_arena_describe(pcpu_alloc_arena(), &z->area);
	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		z->lcore_mask[w] = __atomic_load_n(&rte_pcpu_shared.lcore_mask[w],
			__ATOMIC_ACQUIRE);
	for (l = 0; l < RTE_MAX_LCORE; l++)
		z->lcore_socket[l] = (int16_t)pcpu_alloc_lcore_socket(l);
	z->generation++;
	proc.published = 1;
	__atomic_store_n(&z->ready, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&proc.lock);
	if (pcpu_proc_remote_start() != 0) {
		pcpu_proc_unpublish();
		return -1;
	}
	if ((pcpu_fault_rte_mp_action_register(PCPU_PROC_MSG_ATTACH,
			proc_attach_action) != 0 && rte_errno != EEXIST) ||
	    (pcpu_fault_rte_mp_action_register(PCPU_PROC_MSG_DETACH,
			proc_detach_action) != 0 && rte_errno != EEXIST)) {
		PCPU_LOG(ERR, "cannot answer secondary processes: %s",
			rte_strerror(rte_errno));
		pcpu_proc_unpublish();
		return -1;
	}
	return 0;
}

void
pcpu_proc_unpublish(void)
{
	struct rte_mp_msg msg;

	pthread_mutex_lock(&proc.lock);
	if (!proc.published) {
		pthread_mutex_unlock(&proc.lock);
		return;
	}
	proc.published = 0;
	__atomic_store_n(&proc.zone->ready, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&proc.lock);
	rte_mp_action_unregister(PCPU_PROC_MSG_ATTACH);
	rte_mp_action_unregister(PCPU_PROC_MSG_DETACH);
	pcpu_proc_remote_stop();
	/* every secondary: stop reading */
	memset(&msg, 0, sizeof(msg));
	rte_strscpy(msg.name, PCPU_PROC_MSG_GONE, sizeof(msg.name));
	if (rte_mp_sendmsg(&msg) != 0)
		PCPU_LOG(DEBUG, "cannot tell secondary processes that the "
			"allocator goes: %s", rte_strerror(rte_errno));
}

/* ---------------------------------------------------------------------- */
/* Secondary. */

/* Forget the primary's allocator: zero pages under readers still at
 * work. State lock held. */
static void
proc_drop_locked(void)
{
	unsigned int w;

	if (!proc.attached)
		return;
	__atomic_store_n(&rte_pcpu_shared.initialised, 0, __ATOMIC_RELEASE);
	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		__atomic_store_n(&rte_pcpu_shared.lcore_mask[w], 0,
			__ATOMIC_RELEASE);
	__atomic_fetch_add(&rte_pcpu_shared.lcore_gen, 1, __ATOMIC_RELEASE);
	pcpu_arena_detach(&proc.view, 1);
	proc.attached = 0;
}

/* The primary's rte_pcpu_cleanup(). */
static int
proc_gone_action(const struct rte_mp_msg *msg __rte_unused,
		const void *peer __rte_unused)
{
	pthread_mutex_lock(&proc.lock);
	proc_drop_locked();
	pthread_mutex_unlock(&proc.lock);
	return 0;
}

/* The primary's zone if it is ready, looked up at most every
 * PCPU_PROC_RETRY_MS until it exists. State lock held. */
static struct pcpu_proc_zone *
proc_zone_find_locked(void)
{
	const struct rte_memzone *mz;
	struct pcpu_proc_zone *z;
	uint64_t now;

	if (proc.zone == NULL) {
		now = rte_get_timer_cycles();
		if (now < proc.next_try)
			return NULL;
		proc.next_try = now + rte_get_timer_hz() / 1000 *
			PCPU_PROC_RETRY_MS;
		mz = rte_memzone_lookup(PCPU_PROC_MZ);
		if (mz == NULL)
			return NULL;
		z = mz->addr;
		if (z->magic != PCPU_PROC_MAGIC ||
		    z->version != PCPU_PROC_VERSION) {
			PCPU_LOG(ERR, "the primary process's %s is of another "
				"version of the library", PCPU_PROC_MZ);
			return NULL;
		}
		proc.mz = mz;
		proc.zone = z;
	}
	if (!__atomic_load_n(&proc.zone->ready, __ATOMIC_ACQUIRE))
		return NULL;
	return proc.zone;
}

/* Ask the primary for the area's files. 0 or -errno (logged). */
static int
proc_request_files(int *fds, unsigned int *nfds, uint32_t *generation)
{
	struct pcpu_proc_attach_msg req = { .version = PCPU_PROC_VERSION };
	struct timespec ts = { .tv_sec = PCPU_PROC_TIMEOUT_S };
	const struct pcpu_proc_attach_msg *rep;
	struct rte_mp_reply reply = { 0 };
	struct rte_mp_msg msg;
	int ret, i;

	memset(&msg, 0, sizeof(msg));
	rte_strscpy(msg.name, PCPU_PROC_MSG_ATTACH, sizeof(msg.name));
	memcpy(msg.param, &req, sizeof(req));
	msg.len_param = sizeof(req);
	if (pcpu_fault_rte_mp_request_sync(&msg, &reply, &ts) != 0 ||
	    reply.nb_received != 1) {
		/* logged by the caller, once per generation */
		ret = reply.nb_sent == 1 ? -ETIMEDOUT : -ENOTCONN;
		free(reply.msgs);
		return ret;
	}
	rep = (const struct pcpu_proc_attach_msg *)reply.msgs[0].param;
	if (reply.msgs[0].len_param != sizeof(*rep)) {
		ret = -EPROTO;
	} else if (rep->status != 0) {
		ret = rep->status;
	} else if (reply.msgs[0].num_fds < 1 || reply.msgs[0].num_fds > 2) {
		ret = -EPROTO;
	} else {
		*nfds = (unsigned int)reply.msgs[0].num_fds;
		memcpy(fds, reply.msgs[0].fds, sizeof(int) * *nfds);
		*generation = rep->generation;
		free(reply.msgs);
		return 0;
	}
	for (i = 0; i < reply.msgs[0].num_fds; i++)
		close(reply.msgs[0].fds[i]);
	free(reply.msgs);
	return ret;
}

/* Map the files of generation @p gen and fill rte_pcpu_shared. Takes the
 * descriptors. State lock held. 0 or -errno. */
static int
proc_map_locked(struct pcpu_proc_zone *z, uint32_t gen, int *fds,
		unsigned int nfds)
{
	unsigned int w, i;
	int ret;

	if (!__atomic_load_n(&z->ready, __ATOMIC_ACQUIRE) ||
	    z->generation != gen) {
		/* the primary went or came again meanwhile */
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -EAGAIN;
	}
	ret = pcpu_arena_attach(&proc.view, &z->area, fds, nfds);
	if (ret != 0)
		return ret;
	rte_pcpu_shared.base = proc.view.base;
	rte_pcpu_shared.unit_shift = proc.view.unit_shift;
	rte_pcpu_shared.unit_step = proc.view.unit_step;
	for (w = 0; w < RTE_PCPU_MASK_WORDS; w++)
		__atomic_store_n(&rte_pcpu_shared.lcore_mask[w],
			z->lcore_mask[w], __ATOMIC_RELAXED);
	__atomic_fetch_add(&rte_pcpu_shared.lcore_gen, 1, __ATOMIC_RELEASE);
	proc.generation = gen;
	proc.attached = 1;
	__atomic_store_n(&rte_pcpu_shared.initialised, 1, __ATOMIC_RELEASE);
	return 0;
}

static void
proc_log_failure(uint32_t gen, int ret, const struct pcpu_proc_zone *z)
{
	if (proc.failed_generation == gen)
		return;
	proc.failed_generation = gen;
	if (ret == -EADDRINUSE)
		PCPU_LOG(ERR, "attach: cannot map the primary's percpu area at "
			"%#" PRIxPTR " (%" PRIu64 " bytes): this process has "
			"something in that range; start the primary with "
			"another rte_pcpu_conf.base_addr (default %#" PRIx64
			")", z->area.base, z->area.span,
			RTE_PCPU_DEFAULT_BASE_ADDR);
	else if (ret == -ETIMEDOUT || ret == -ENOTCONN)
		PCPU_LOG(ERR, "attach: the primary process did not answer: %s",
			strerror(-ret));
	else
		PCPU_LOG(ERR, "attach: cannot read the primary's percpu area: "
			"%s", strerror(-ret));
}

int
pcpu_proc_attach(void)
{
	struct pcpu_proc_zone *z;
	unsigned int nfds = 0;
	uint32_t gen = 0;
	int fds[2], ret;

	if (!pcpu_proc_secondary()) {
		rte_errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&proc.attach_lock);
	pthread_mutex_lock(&proc.lock);
	z = proc_zone_find_locked();
	if (z != NULL && proc.attached && proc.generation == z->generation) {
		pthread_mutex_unlock(&proc.lock);
		pthread_mutex_unlock(&proc.attach_lock);
		return 0;
	}
	/* attached to a generation that is gone (the message may be late) */
	proc_drop_locked();
	pthread_mutex_unlock(&proc.lock);
	if (z == NULL) {
		pthread_mutex_unlock(&proc.attach_lock);
		PCPU_LOG(DEBUG, "attach: the primary process has no percpu "
			"allocator (yet)");
		rte_errno = ENOENT;
		return -1;
	}
	if (!proc.gone_registered) {
		if (pcpu_fault_rte_mp_action_register(PCPU_PROC_MSG_GONE,
				proc_gone_action) != 0 && rte_errno != EEXIST) {
			pthread_mutex_unlock(&proc.attach_lock);
			PCPU_LOG(ERR, "attach: cannot listen to the primary "
				"process: %s", rte_strerror(rte_errno));
			return -1;
		}
		proc.gone_registered = 1;
	}
	/* no lock held across the request: its answer comes through EAL's
	 * multi-process thread, which our own handler may hold up */
	ret = proc_request_files(fds, &nfds, &gen);
	pthread_mutex_lock(&proc.lock);
	if (ret == 0)
		ret = proc_map_locked(z, gen, fds, nfds);
	if (ret != 0 && ret != -ENOENT && ret != -EAGAIN)
		proc_log_failure(gen != 0 ? gen : z->generation, ret, z);
	if (ret != 0)
		proc.next_try = rte_get_timer_cycles() + rte_get_timer_hz() /
			1000 * PCPU_PROC_RETRY_MS;
	pthread_mutex_unlock(&proc.lock);
	pthread_mutex_unlock(&proc.attach_lock);
	if (ret == 0) {
		PCPU_LOG(DEBUG, "attached to the percpu area of process %d at "
			"%#" PRIxPTR, (int)z->primary_pid, z->area.base);
		return 0;
	}
	rte_errno = ret == -EAGAIN ? ENOENT : -ret;
	return -1;
}

int
pcpu_proc_detach(void)
{
	struct rte_mp_msg msg;
	int was;

	pthread_mutex_lock(&proc.attach_lock);
	pthread_mutex_lock(&proc.lock);
	was = proc.attached;
	proc_drop_locked();
	pthread_mutex_unlock(&proc.lock);
	pthread_mutex_unlock(&proc.attach_lock);
	if (!was) {
		/* not logged: the primary's cleanup or exit detaches every
		 * secondary, whose own cleanup then finds nothing to do */
		PCPU_LOG(DEBUG, "cleanup: not attached to a primary's "
			"allocator");
		rte_errno = EALREADY;
		return -1;
	}
	/* our lock on the file is gone: the primary may give memory back */
	memset(&msg, 0, sizeof(msg));
	rte_strscpy(msg.name, PCPU_PROC_MSG_DETACH, sizeof(msg.name));
	if (rte_mp_sendmsg(&msg) != 0)
		PCPU_LOG(DEBUG, "detach: cannot tell the primary process: %s",
			rte_strerror(rte_errno));
	return 0;
}

int
pcpu_proc_lcore_socket(unsigned int lcore_id)
{
	int s = -1;

	if (lcore_id >= RTE_MAX_LCORE || pcpu_proc_attach() != 0)
		return -1;
	pthread_mutex_lock(&proc.lock);
	if (proc.attached && proc.zone != NULL)
		s = proc.zone->lcore_socket[lcore_id];
	pthread_mutex_unlock(&proc.lock);
	return s;
}

void
__rte_pcpu_attach(void)
{
	int err = rte_errno;

	/* a primary's rte_pcpu_shared is set up by rte_pcpu_init() */
	if (pcpu_proc_secondary())
		pcpu_proc_attach();
	/* the inline readers' caller does not expect rte_errno to change */
	rte_errno = err;
}
