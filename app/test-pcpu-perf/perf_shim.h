/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _PERF_SHIM_H_
#define _PERF_SHIM_H_

/*
 * The C side of dpdk-test-pcpu-perf. The Google Benchmark main (C++) only
 * registers cases and copies results into counters; every measured body
 * is C behind this header: the library's in perf_bodies.c, the
 * alternatives a DPDK user would pick instead in baselines.c.
 *
 * Every case function runs its own repetitions (best kept) and fills a
 * struct perf_result: the time Google Benchmark reports, named counters
 * and a label naming the paired baseline.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERF_MAX_COUNTERS 64
#define PERF_NAME_LEN 40
#define PERF_TEXT_LEN 200
/** Most lcores one case runs on. */
#define PERF_MAX_RUN_LCORES 16

struct perf_counter {
	char name[PERF_NAME_LEN];
	double value;
};

struct perf_result {
	/** Seconds measured (Google Benchmark's manual time). */
	double seconds;
	unsigned int nb_counters;
	struct perf_counter counters[PERF_MAX_COUNTERS];
	/** Shown as the label: paired baseline and notes. */
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

/** Add (or overwrite) a named counter. */
void perf_result_set(struct perf_result *r, const char *name, double v);
/** Append to the label (printf style). */
void perf_result_label(struct perf_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Lcores the EAL has (main included) and distinct CPUs they may use. */
unsigned int perf_nb_lcores(void);
unsigned int perf_nb_cpus(unsigned int nb_lcores);

/* 1. Access: {packets, bytes} increment per object. */
enum perf_scheme {
	PERF_SCHEME_PCPU = 0,     /**< RTE_PCPU() on rte_pcpu_alloc handles */
	PERF_SCHEME_TLS,          /**< RTE_DEFINE_PER_LCORE, 1 object */
	PERF_SCHEME_STATIC,       /**< [objs][RTE_MAX_LCORE] cache-aligned */
	PERF_SCHEME_LCORE_VAR,    /**< rte_lcore_var layout on libc heap */
	PERF_SCHEME_ZMALLOC,      /**< rte_zmalloc_socket per lcore + table */
	PERF_SCHEME_VPP,          /**< per-lcore growable vectors */
	PERF_SCHEME_ATOMIC,       /**< one shared block, atomic adds */
	PERF_SCHEME_MAX,
};

const char *perf_scheme_name(enum perf_scheme s);
/** Largest object count a scheme supports here (0: none). */
uint32_t perf_scheme_max_objs(enum perf_scheme s);

int perf_access(enum perf_scheme s, uint32_t nb_objs, int random,
		unsigned int nb_lcores, struct perf_result *r);

/* 2. Allocation without caches: the seed table. */
int perf_seed_pcpu(size_t size, size_t align, struct perf_result *r);
int perf_seed_pcpu_huge(size_t size, struct perf_result *r);
int perf_seed_pcpu_huge_cached(size_t size, struct perf_result *r);
int perf_seed_naive(size_t size, struct perf_result *r);

/* 3. Cached. */
enum perf_pair_kind {
	PERF_PAIR_POOL_ZERO = 0,  /**< rte_pcpu_mempool get+put, zero on get */
	PERF_PAIR_POOL_NO_ZERO,   /**< ... with RTE_PCPU_MEMPOOL_F_NO_ZERO */
	PERF_PAIR_PCPU_ALLOC,     /**< rte_pcpu_alloc+free via the caches */
	PERF_PAIR_PCPU_NOCACHE,   /**< rte_pcpu_alloc+free, F_NO_CACHE */
	PERF_PAIR_RTE_MEMPOOL,    /**< rte_mempool get+put, cache 256 */
	PERF_PAIR_MAX,
};

const char *perf_pair_name(enum perf_pair_kind k);
int perf_pairs(enum perf_pair_kind k, size_t size, unsigned int nb_lcores,
		struct perf_result *r);

/* 4. Churn (bench bpf_ma). huge: 2 MiB pages; no_cache: F_NO_CACHE. */
int perf_churn(unsigned int producers, int huge, int no_cache,
		struct perf_result *r);

/* 5. Zeroing vs obj_init vs no init (pool, main lcore). */
enum perf_init_mode {
	PERF_INIT_ZERO = 0,
	PERF_INIT_OBJ_INIT,
	PERF_INIT_NONE,
	PERF_INIT_MAX,
};

const char *perf_init_name(enum perf_init_mode m);
int perf_init(enum perf_init_mode m, size_t size, struct perf_result *r);

/* 6. Reclaim: 11,000 groups of 10. */
int perf_reclaim(int huge, struct perf_result *r);

/* Runner shared by the bodies (perf_bodies.c). */

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
	uint64_t ops[PERF_MAX_RUN_LCORES];
	uint64_t cycles[PERF_MAX_RUN_LCORES];
	double total_rate;    /**< all ops / seconds */
	double seconds;       /**< start to the last lcore's end */
};

/**
 * Run @p fn on the main lcore and the first @p nb_lcores - 1 workers (via
 * rte_eal_remote_launch), all starting together, each for @p ms.
 */
int perf_run_lcores(unsigned int nb_lcores, perf_loop_fn *fn, void *arg,
		double ms, struct perf_lcores_res *res);

/** Put per-lcore rates, total and ns/op counters of @p lr into @p r. */
void perf_report_lcores(const struct perf_lcores_res *lr,
		struct perf_result *r);

/** Measurement time per repetition (ms) and repetitions for the mode. */
double perf_measure_ms(void);
unsigned int perf_repeats(void);

/* Baselines (baselines.c) used by perf_bodies.c. */
struct perf_pair {
	uint64_t packets;
	uint64_t bytes;
};

/** Objects of one access case, whatever the scheme. */
struct perf_access_ctx {
	enum perf_scheme scheme;
	uint32_t nb_objs;
	unsigned int nb_lcores;    /**< lcores of the run */
	const uint32_t *order;     /**< random order, NULL: sequential */
	void **handles;            /**< per object (pcpu, lcore_var) */
	void **per_lcore;          /**< RTE_MAX_LCORE blocks (zmalloc, vpp) */
	void *shared;              /**< one block (atomic) */
	void *priv;                /**< scheme's own bookkeeping */
	uint64_t populated;        /**< bytes of memory the scheme uses */
};

/** Set up a baseline scheme's objects (all but PERF_SCHEME_PCPU). */
int perf_baseline_access_setup(struct perf_access_ctx *c);
/** The loop body for a scheme (all but PERF_SCHEME_PCPU). */
perf_loop_fn *perf_baseline_access_loop(enum perf_scheme s, int random);
/** Sum of packets over all objects and lcores. */
uint64_t perf_baseline_access_sum(struct perf_access_ctx *c);
void perf_baseline_access_free(struct perf_access_ctx *c);

/** Increments between two TSC reads in the access loops. */
#define PERF_ACCESS_BATCH 4096u

#ifndef __cplusplus
/*
 * The access loop every scheme shares (only UPDATE differs): the object
 * index o walks 0..n-1 or the random order, each lcore of the run starting
 * at its own offset; one compiler barrier per increment keeps every
 * update a real load and store. Evaluates to the number of increments.
 */
#define PERF_ACCESS_LOOP(c, idx, deadline, rnd, UPDATE)			\
	__extension__ ({						\
		const uint32_t n_ = (c)->nb_objs;			\
		const uint32_t *ord_ = (c)->order;			\
		uint32_t cur_ = (uint32_t)((uint64_t)n_ * (idx) /	\
			(c)->nb_lcores), k_;				\
		uint64_t ops_ = 0;					\
		do {							\
			for (k_ = 0; k_ < PERF_ACCESS_BATCH; k_++) {	\
				uint32_t o = (rnd) ? ord_[cur_] : cur_;	\
				UPDATE;					\
				rte_compiler_barrier();			\
				if (++cur_ == n_)			\
					cur_ = 0;			\
			}						\
			ops_ += PERF_ACCESS_BATCH;			\
		} while (rte_rdtsc() < (deadline));			\
		ops_;							\
	})
#endif

/** Naive percpu allocator: one rte_zmalloc_socket per lcore per object. */
struct perf_naive;
struct perf_naive *perf_naive_create(unsigned int nb_objs, size_t size);
int perf_naive_alloc(struct perf_naive *na, unsigned int i);
void perf_naive_free(struct perf_naive *na, unsigned int i);
void perf_naive_destroy(struct perf_naive *na);

/** rte_mempool (cache 256) get+put loop. */
void *perf_mempool_create(size_t size, unsigned int n);
void perf_mempool_free(void *mp);
perf_loop_fn perf_mempool_pair_loop;

#ifdef __cplusplus
}
#endif

#endif /* _PERF_SHIM_H_ */
