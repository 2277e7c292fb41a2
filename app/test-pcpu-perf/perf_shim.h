/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PERF_SHIM_H_
#define _PERF_SHIM_H_

/*
 * The C side of dpdk-test-pcpu-perf. The Google Benchmark main (C++) only
 * registers cases and copies results into counters; every measured body
 * is C behind this header: the runner and the statistics in perf_runner.c;
 * the library's bodies in perf_access.c (access), perf_alloc.c (the
 * allocator: seed table, allocation against pool gets, churn, reclaim),
 * perf_pools.c (cached pairs, initialisation modes, scaling),
 * perf_ops.c (the "pcpu" mempool ops beside ring_mp_mc),
 * perf_backing.c (a shared area beside a private one) and perf_owner.c
 * (what charging owners costs), sharing
 * perf_bodies.h; perf_alias.c (the cost of touching several lcores'
 * copies by unit layout, on its own mappings); the alternatives a DPDK
 * user would pick instead in baselines.c.
 *
 * How a case measures (the same for every case that times a loop): its
 * contenders (variants) take turns in interleaved rounds, A B C A B C ...,
 * each round giving one sample per variant, so that a busy moment of a
 * shared machine hits them all alike. A figure is the median of its
 * samples with their range (lowest and highest) beside it; a ratio is the
 * median of the per-round ratios, so that both sides of a ratio come from
 * the same moments. Nothing keeps the best sample.
 *
 * Counters follow one naming rule, read by devtools/bench_report.py: a
 * statistic X is written as X (median), X_lo and X_hi (range).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERF_MAX_COUNTERS 160
#define PERF_NAME_LEN 64
#define PERF_TEXT_LEN 320
/** Most lcores one case runs on. */
#define PERF_MAX_RUN_LCORES 16
/** Most variants one case interleaves. */
#define PERF_MAX_VARIANTS 10
/** Most rounds (samples) of one figure. */
#define PERF_MAX_ROUNDS 31

struct perf_counter {
	char name[PERF_NAME_LEN];
	double value;
};

struct perf_result {
	/** Seconds measured (Google Benchmark's manual time). */
	double seconds;
	unsigned int nb_counters;
	struct perf_counter counters[PERF_MAX_COUNTERS];
	/** Shown as the label: paired baselines and notes. */
	char label[PERF_TEXT_LEN];
	/** Non-zero: the case did not run; label says why. */
	int skipped;
	/** Non-zero: the case failed; label says why. */
	int error;
};

/** Run mode: 0 full, 1 smoke (every case, briefly). */
void perf_set_smoke(int smoke);
int perf_is_smoke(void);
/** Naive allocator's EAL memory budget, MiB (default 256). */
void perf_set_naive_budget_mb(unsigned int mb);

/** Interleaved rounds of a case (odd, so that the median is a sample). */
unsigned int perf_rounds(void);
/** Timed window of one variant in one round, ms. */
double perf_window_ms(void);
/** Untimed run just before each window (caches, TLB, branch state), ms. */
double perf_warmup_ms(void);

/** Add (or overwrite) a named counter. */
void perf_result_set(struct perf_result *r, const char *name, double v);
/** Append to the label (printf style). */
void perf_result_label(struct perf_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** Mark the case failed (label: what, rte_errno); returns -1. */
int perf_fail(struct perf_result *r, const char *what);
/** Mark the case skipped (label: why); returns 0. */
int perf_skip(struct perf_result *r, const char *why);

/** Median and range of samples. */
struct perf_stat {
	double med;
	double lo;
	double hi;
	unsigned int n;
};

/** Statistics of @p n samples (@p v is not modified; n 0: all zero). */
void perf_stat_of(const double *v, unsigned int n, struct perf_stat *s);
/** Counters @p name, @p name_lo and @p name_hi. */
void perf_result_stat(struct perf_result *r, const char *name,
		const struct perf_stat *s);

/** Lcores the EAL has (main included) and distinct CPUs they may use. */
unsigned int perf_nb_lcores(void);
unsigned int perf_nb_cpus(unsigned int nb_lcores);

/**
 * Body run on each lcore of a measurement: do work until the TSC reaches
 * @p deadline; return the number of operations done. @p idx is the
 * lcore's index in the run (0 = main lcore).
 */
typedef uint64_t (perf_loop_fn)(void *arg, unsigned int idx,
		uint64_t deadline);

struct perf_lcores_res {
	unsigned int nb_lcores;
	unsigned int lcore_id[PERF_MAX_RUN_LCORES];
	uint64_t ops[PERF_MAX_RUN_LCORES];      /**< in the timed window */
	uint64_t warm_ops[PERF_MAX_RUN_LCORES]; /**< in the warm-up */
	uint64_t cycles[PERF_MAX_RUN_LCORES];   /**< TSC, timed window */
	uint64_t cpu_ns[PERF_MAX_RUN_LCORES];   /**< thread CPU time, same */
	double total_rate;    /**< all timed ops / wall seconds */
	/** Mean over lcores of each one's CPU time per op, ns. */
	double ns_per_op;
	/** Mean over lcores of the share of the window each was on a CPU. */
	double on_cpu;
	double seconds;       /**< start to the last lcore's end */
};

/**
 * CPU time of the calling thread, ns (CLOCK_THREAD_CPUTIME_ID: user and
 * system time, not the time other work held the CPU). Costs per-op
 * figures are measured with it, so that a shared machine's other work
 * slows a figure (caches, TLB) but does not add its own time to it.
 */
uint64_t perf_thread_cpu_ns(void);

/**
 * Run @p fn on the main lcore and the first @p nb_lcores - 1 workers (via
 * rte_eal_remote_launch), all starting together: @p warm_ms untimed, then
 * @p ms timed.
 */
int perf_run_lcores(unsigned int nb_lcores, perf_loop_fn *fn, void *arg,
		double warm_ms, double ms, struct perf_lcores_res *res);

/** One contender of a case. */
struct perf_variant {
	const char *name;   /**< counter prefix */
	perf_loop_fn *fn;   /**< NULL: not measured in this case */
	void *arg;
};

/** Samples of interleaved rounds. */
struct perf_rounds_res {
	unsigned int nb_variants;
	unsigned int nb_rounds;
	unsigned int nb_lcores;
	unsigned int nb_cpus;
	/** Per-lcore CPU ns per op (mean over the run's lcores). */
	double ns[PERF_MAX_VARIANTS][PERF_MAX_ROUNDS];
	/** All lcores' ops per second of wall time, millions. */
	double mops[PERF_MAX_VARIANTS][PERF_MAX_ROUNDS];
	/** Share of the window the lcores were on a CPU. */
	double on_cpu[PERF_MAX_VARIANTS][PERF_MAX_ROUNDS];
	/** Every op a variant did (warm-up included), per lcore index. */
	uint64_t ops[PERF_MAX_VARIANTS][PERF_MAX_RUN_LCORES];
	double seconds;
};

/**
 * perf_rounds() rounds; in each, every variant with a body runs once on
 * @p nb_lcores lcores (warm-up, then one window). Round k starts with
 * variant k (modulo their number) and goes on in the order given, so that
 * no variant always runs first or right after the same other one.
 */
int perf_rounds_run(unsigned int nb_lcores, const struct perf_variant *v,
		unsigned int nb_variants, struct perf_rounds_res *rr);

/**
 * Counters of every measured variant: NAME_ns (per-lcore CPU ns per op)
 * and NAME_Mops (total over wall time), each with _lo and _hi, and
 * NAME_on_cpu (median share of the window on a CPU); lcores, cpus,
 * oversubscribed.
 */
void perf_rounds_report(struct perf_result *r, const struct perf_rounds_res *rr,
		const struct perf_variant *v);

/** Counter NUM_over_DEN (+ _lo, _hi): median of the per-round ratios of
 * ns per op (cost ratio; above 1: NUM is slower). */
void perf_rounds_ratio(struct perf_result *r, const struct perf_rounds_res *rr,
		const struct perf_variant *v, unsigned int num, unsigned int den);

/* 1. Access: {packets, bytes} increment per object. */
enum perf_scheme {
	/** RTE_PCPU() on rte_pcpu_alloc handles, the handle read from the
	 * stream of flow entries */
	PERF_SCHEME_PCPU = 0,
	/** the same objects, the handle read from a side table indexed by
	 * object number (a second dependent load) */
	PERF_SCHEME_PCPU_SIDE,
	PERF_SCHEME_TLS,          /**< RTE_DEFINE_PER_LCORE, 1 object */
	PERF_SCHEME_STATIC,       /**< [RTE_MAX_LCORE][objs] in .bss */
	PERF_SCHEME_LCORE_VAR,    /**< rte_lcore_var layout on libc heap */
	PERF_SCHEME_ZMALLOC,      /**< rte_zmalloc_socket per lcore */
	PERF_SCHEME_VPP,          /**< per-thread vectors, index = object */
	PERF_SCHEME_ATOMIC,       /**< one shared block, atomic adds */
	PERF_SCHEME_MAX,
};

const char *perf_scheme_name(enum perf_scheme s);
/** Largest object count a scheme supports here (0: none). */
uint32_t perf_scheme_max_objs(enum perf_scheme s);

/** Every scheme on @p nb_objs objects in one case, interleaved. */
int perf_access(uint32_t nb_objs, int random, unsigned int nb_lcores,
		struct perf_result *r);

/* 2. Allocation: the seed table, and allocation against pool gets. */
int perf_seed_pcpu(size_t size, size_t align, struct perf_result *r);
int perf_seed_pcpu_huge(size_t size, struct perf_result *r);
int perf_seed_pcpu_huge_cached(size_t size, struct perf_result *r);
int perf_seed_naive(size_t size, struct perf_result *r);
int perf_alloc_vs_pool(size_t size, struct perf_result *r);

/* 3. Cached pairs: every kind beside rte_mempool, interleaved. */
enum perf_pair_kind {
	PERF_PAIR_RTE_MEMPOOL = 0,  /**< rte_mempool get+put (ring_mp_mc, cache 256) */
	PERF_PAIR_POOL_ZERO,        /**< rte_pcpu_mempool get+put, zero on get */
	PERF_PAIR_POOL_NO_ZERO,     /**< ... with RTE_PCPU_MEMPOOL_F_NO_ZERO */
	PERF_PAIR_PCPU_ALLOC,       /**< rte_pcpu_alloc+free via the caches */
	PERF_PAIR_PCPU_NOCACHE,     /**< rte_pcpu_alloc+free, F_NO_CACHE */
	PERF_PAIR_MAX,
};

const char *perf_pair_name(enum perf_pair_kind k);
/** The cached kinds (no_cache 0) or F_NO_CACHE alloc+free (no_cache 1),
 * each beside rte_mempool. */
int perf_pairs(int no_cache, size_t size, unsigned int nb_lcores,
		struct perf_result *r);

/* 4. Churn (bench bpf_ma). huge: 2 MiB pages; no_cache: F_NO_CACHE. */
int perf_churn(unsigned int producers, int huge, int no_cache,
		struct perf_result *r);

/* 5. Zeroing vs obj_init vs no init (pool, main lcore), interleaved. */
enum perf_init_mode {
	PERF_INIT_ZERO = 0,
	PERF_INIT_OBJ_INIT,
	PERF_INIT_NONE,
	PERF_INIT_MAX,
};

const char *perf_init_name(enum perf_init_mode m);
int perf_init(size_t size, struct perf_result *r);

/* 6. Reclaim: 11,000 groups of 10. */
int perf_reclaim(int huge, struct perf_result *r);

/* 7. Scaling: access, atomics, pairs on 1..8 lcores (no_cache: the
 * F_NO_CACHE alloc+free beside rte_mempool). */
int perf_scaling(int no_cache, unsigned int nb_lcores, struct perf_result *r);

/* 8. The "pcpu" mempool ops beside ring_mp_mc (perf_ops.c): get+put on
 * @p nb_lcores lcores; creating and freeing a pool of @p nb_objs. */
int perf_ops_pairs(unsigned int nb_lcores, struct perf_result *r);
int perf_ops_populate(unsigned int nb_objs, struct perf_result *r);

/* 9. Aliasing of lcores' copies by unit layout (perf_alias.c). */
enum perf_alias_op {
	PERF_ALIAS_ZERO = 0,  /**< 16-byte store of zeros per copy */
	PERF_ALIAS_SUM,       /**< 8-byte load per copy, summed */
	PERF_ALIAS_INC,       /**< 8-byte increment per copy */
	PERF_ALIAS_OP_MAX,
};

const char *perf_alias_op_name(enum perf_alias_op op);
/** One operation on @p nb_copies (2..8) copies of each object in turn,
 * every layout interleaved; @p huge: 2 MiB pages (skipped without). */
int perf_alias(enum perf_alias_op op, unsigned int nb_copies, int huge,
		struct perf_result *r);
/* 10. The area shared with secondary processes beside a private one, each
 * round setting the allocator up with each in turn (perf_backing.c):
 * RTE_PCPU() increments on @p nb_objs objects (TLS beside them for 1);
 * the readers rte_pcpu_sum_u64() and RTE_PCPU_FOREACH() (and their loops
 * without the attach check) over @p nb_objs objects; pool get+put; 2^20
 * allocations and frees (@p huge: 2 MiB pages). */
int perf_backing_access(uint32_t nb_objs, struct perf_result *r);
int perf_backing_readers(uint32_t nb_objs, struct perf_result *r);
int perf_backing_pool(struct perf_result *r);
int perf_backing_alloc(int huge, struct perf_result *r);

/* 11. Owners (perf_owner.c): alloc+free pairs charged to the root, to an
 * owner without a limit and to one with a limit, on @p nb_lcores lcores;
 * chunk utilisation of one workload without and with owners. */
int perf_owner_pairs(size_t size, unsigned int nb_lcores,
		struct perf_result *r);
int perf_owner_utilisation(struct perf_result *r);

/* Baselines (baselines.c) used by perf_bodies.c. */
struct perf_pair {
	uint64_t packets;
	uint64_t bytes;
};

/**
 * Objects of one access scheme. Every scheme reads, per update, one entry
 * of a stream in stream order: what a flow table entry of that scheme
 * carries (a handle or an index); only the side-table variant of RTE_PCPU
 * reads more.
 */
struct perf_access_ctx {
	enum perf_scheme scheme;
	uint32_t nb_objs;
	unsigned int nb_lcores;    /**< lcores of the run */
	const uint64_t *order;     /**< object number at each stream position,
					 in an 8-byte slot as a flow entry
					 holds it (the index schemes' stream) */
	void **handles;            /**< handle per object number */
	void **stream_h;           /**< handle per stream position */
	void **per_lcore;          /**< RTE_MAX_LCORE blocks (zmalloc, vpp) */
	void *shared;              /**< one block (atomic) */
	void *priv;                /**< scheme's own bookkeeping */
	uint64_t populated;        /**< bytes of memory the scheme uses */
};

/** Set up a baseline scheme's objects (not the RTE_PCPU schemes);
 * -1 on failure, 1 when the scheme cannot hold them here (label why). */
int perf_baseline_access_setup(struct perf_access_ctx *c, char *why,
		size_t why_len);
/** The loop body for a scheme (not the RTE_PCPU schemes). */
perf_loop_fn *perf_baseline_access_loop(enum perf_scheme s);
/** Sum of packets over all objects and lcores (TLS: the calling lcore). */
uint64_t perf_baseline_access_sum(struct perf_access_ctx *c);
void perf_baseline_access_free(struct perf_access_ctx *c);

/** Increments between two TSC reads in the access loops. */
#define PERF_ACCESS_BATCH 4096u

#ifndef __cplusplus
/*
 * The access loop every scheme shares (only ADDR and UPDATE differ):
 * position p walks the stream 0..n-1, each lcore of the run starting at
 * its own offset; ADDR turns entry e = STREAM[p] into the object's
 * address p, and UPDATE updates *p.
 *
 * Every update must stay a real load and store, or a compiler would add
 * up a TLS variable's increments in a register and store them once. The
 * address is made opaque to the compiler (an empty asm that may change the
 * register holding it; no instruction), so it can neither merge two
 * updates nor see that they hit the same object, and nothing else is
 * hidden: what a compiled burst loop keeps in registers (the lcore id, a
 * vector's base, RTE_PCPU()'s step) stays there, for every scheme alike.
 * A full compiler barrier here (earlier versions) made every scheme but
 * TLS reload those after each update, as if a call separated them, which
 * costs nothing to a TLS variable whose address is a constant.
 * Evaluates to the number of increments.
 */
#define PERF_ACCESS_LOOP(c, idx, deadline, STREAM, ADDR, UPDATE)	\
	__extension__ ({						\
		const uint32_t n_ = (c)->nb_objs;			\
		uint32_t p_ = (uint32_t)((uint64_t)n_ * (idx) /		\
			(c)->nb_lcores), k_;				\
		uint64_t ops_ = 0;					\
		do {							\
			for (k_ = 0; k_ < PERF_ACCESS_BATCH; k_++) {	\
				const __typeof__((STREAM)[0]) e =	\
					(STREAM)[p_];			\
				struct perf_pair *p = (ADDR);		\
									\
				RTE_SET_USED(e);			\
				__asm__ volatile("" : "+r" (p));	\
				UPDATE;					\
				if (++p_ == n_)				\
					p_ = 0;				\
			}						\
			ops_ += PERF_ACCESS_BATCH;			\
		} while (rte_rdtsc() < (deadline));			\
		ops_;							\
	})

/** The update of every scheme but the atomic one: one lcore writes *p. */
#define PERF_PAIR_INC(p) do {						\
		(p)->packets++;						\
		(p)->bytes += 64;					\
	} while (0)
#endif

/** Naive percpu allocator: one rte_zmalloc_socket per lcore per object. */
struct perf_naive;
struct perf_naive *perf_naive_create(unsigned int nb_objs, size_t size);
int perf_naive_alloc(struct perf_naive *na, unsigned int i);
void perf_naive_free(struct perf_naive *na, unsigned int i);
void perf_naive_destroy(struct perf_naive *na);

/** rte_mempool as a DPDK application creates it (rte_mempool_create():
 * ring_mp_mc ops, per-lcore cache of 256) and its get+put loop. */
void *perf_mempool_create(size_t size, unsigned int n);
void perf_mempool_free(void *mp);
/** Name of the mempool's ops (for the label). */
const char *perf_mempool_ops_name(void *mp);
perf_loop_fn perf_mempool_pair_loop;

#ifdef __cplusplus
}
#endif

#endif /* _PERF_SHIM_H_ */
