/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * dpdk-pcpu-info: a DPDK secondary process that reports the percpu
 * allocator and pools of a running primary, as dpdk-proc-info reports its
 * ports and mempools: allocator statistics, per lcore and per NUMA node,
 * chunks, lcore caches and every pool, as text or as one JSON document.
 *
 * It only reads: the allocator's figures come from the primary (over
 * EAL's multi-process channel), the pools and the lcore mask from shared
 * memory. The primary gives no memory back while it runs (a second or
 * less).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>
#include <rte_pcpu_owner.h>

#define INFO_APP "dpdk-pcpu-info"

/* What to show (none given: all). */
enum {
	SHOW_STATS = 1 << 0,
	SHOW_LCORES = 1 << 1,
	SHOW_NODES = 1 << 2,
	SHOW_CHUNKS = 1 << 3,
	SHOW_CACHES = 1 << 4,
	SHOW_POOLS = 1 << 5,
	SHOW_OWNERS = 1 << 6,
	SHOW_ALL = (1 << 7) - 1,
};

static unsigned int info_show;
static bool info_json;
static bool info_dump;
static const char *info_pool;   /* --pool NAME: that pool only */

/* ---------------------------------------------------------------- JSON */

/* A minimal writer of one indented JSON document on stdout: containers
 * nest; each value knows whether a comma goes before it. */
static struct {
	unsigned int depth;
	bool first[16];
} js;

static void
js_sep(const char *key)
{
	if (js.depth > 0) {
		printf("%s\n%*s", js.first[js.depth] ? "" : ",",
			(int)js.depth * 2, "");
		js.first[js.depth] = false;
	}
	if (key != NULL)
		printf("\"%s\": ", key);
}

static void
js_open(const char *key, char c)
{
	js_sep(key);
	putchar(c);
	js.depth++;
	js.first[js.depth] = true;
}

static void
js_close(char c)
{
	bool empty = js.first[js.depth];

	js.depth--;
	if (!empty)
		printf("\n%*s", (int)js.depth * 2, "");
	putchar(c);
	if (js.depth == 0)
		putchar('\n');
}

static void
js_u64(const char *key, uint64_t v)
{
	js_sep(key);
	printf("%" PRIu64, v);
}

static void
js_int(const char *key, int64_t v)
{
	js_sep(key);
	printf("%" PRId64, v);
}

/* Names here are pool names and fixed words: escape what JSON needs. */
static void
js_str(const char *key, const char *v)
{
	js_sep(key);
	putchar('"');
	for (; *v != '\0'; v++) {
		if (*v == '"' || *v == '\\')
			printf("\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			printf("\\u%04x", (unsigned char)*v);
		else
			putchar(*v);
	}
	putchar('"');
}

/* ---------------------------------------------------------------- text */

static void
text_title(const char *fmt, ...)
{
	va_list ap;

	printf("\n========== ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" ==========\n");
}

/* ------------------------------------------------------------- sections */

static void
show_stats(const struct rte_pcpu_stats *s)
{
	if (info_json) {
		js_open("allocator", '{');
		js_u64("base_addr", s->base_addr);
		js_u64("shared", s->shared);
		js_u64("readers", s->readers);
		js_u64("unit_stride", s->unit_stride);
		js_u64("chunk_size", s->chunk_size);
		js_u64("page_size", s->page_size);
		js_u64("max_populated", s->max_populated);
		js_u64("nr_lcores", s->nr_lcores);
		js_u64("nr_alloc", s->nr_alloc);
		js_u64("nr_dealloc", s->nr_dealloc);
		js_u64("nr_cur_alloc", s->nr_cur_alloc);
		js_u64("nr_max_alloc", s->nr_max_alloc);
		js_u64("nr_alloc_fail", s->nr_alloc_fail);
		js_u64("nr_chunks", s->nr_chunks);
		js_u64("nr_max_chunks", s->nr_max_chunks);
		js_u64("min_alloc_size", s->min_alloc_size);
		js_u64("max_alloc_size", s->max_alloc_size);
		js_u64("populated_bytes", s->populated_bytes);
		js_u64("max_populated_bytes", s->max_populated_bytes);
		js_u64("populated_pages", s->populated_pages);
		js_u64("empty_pop_pages", s->empty_pop_pages);
		js_u64("nr_huge_fallback", s->nr_huge_fallback);
		js_u64("cached_objs", s->cached_objs);
		js_u64("cached_bytes", s->cached_bytes);
		js_u64("nr_depop_deferred", s->nr_depop_deferred);
		js_close('}');
		return;
	}
	text_title("percpu allocator");
	printf("  area at %#" PRIx64 " (%s), %" PRIu64 " KiB per lcore, "
		"chunks of %" PRIu64 " KiB, %" PRIu64 " KiB pages, %u lcores "
		"with memory\n", s->base_addr, s->shared ? "shared" : "private",
		s->unit_stride >> 10, s->chunk_size >> 10, s->page_size >> 10,
		s->nr_lcores);
	/* the peak counts what caches held too (nr_max_alloc): not a peak
	 * of "live", which it may exceed */
	printf("  objects: %" PRIu64 " live (peak out of the chunks %" PRIu64
		"), %" PRIu64 " allocated, %" PRIu64 " freed, %" PRIu64
		" failed, sizes %"
		PRIu64 "..%" PRIu64 " B\n", s->nr_cur_alloc, s->nr_max_alloc,
		s->nr_alloc, s->nr_dealloc, s->nr_alloc_fail,
		s->min_alloc_size, s->max_alloc_size);
	printf("  chunks: %u (max %u)\n", s->nr_chunks, s->nr_max_chunks);
	printf("  populated: %" PRIu64 " B (max %" PRIu64 ", limit %" PRIu64
		"), %" PRIu64 " pages per lcore, %" PRIu64 " empty, %u hugepage "
		"fall-backs\n", s->populated_bytes, s->max_populated_bytes,
		s->max_populated, s->populated_pages, s->empty_pop_pages,
		s->nr_huge_fallback);
	printf("  lcore caches: %" PRIu64 " objects, %" PRIu64 " B per lcore\n",
		s->cached_objs, s->cached_bytes);
	printf("  secondary processes reading: %s; giving memory back "
		"deferred %" PRIu64 " times\n", s->readers ? "yes" : "no",
		s->nr_depop_deferred);
}

static void
show_nodes(const struct rte_pcpu_stats *s)
{
	unsigned int i, last = 0;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (s->populated_bytes_socket[i] != 0)
			last = i;
	if (info_json) {
		js_open("nodes", '[');
		for (i = 0; i <= last; i++) {
			js_open(NULL, '{');
			js_u64("node", i);
			js_u64("populated_bytes", s->populated_bytes_socket[i]);
			js_close('}');
		}
		js_close(']');
		return;
	}
	text_title("NUMA nodes");
	printf("  %4s %16s\n", "node", "populated-bytes");
	for (i = 0; i <= last; i++)
		printf("  %4u %16" PRIu64 "\n", i, s->populated_bytes_socket[i]);
}

/* The lcore's caches: held objects and bytes, over the classes. */
static int
lcore_cached(unsigned int l, uint64_t *objs, uint64_t *bytes)
{
	struct rte_pcpu_cache_stats cs;
	unsigned int c;

	*objs = 0;
	*bytes = 0;
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++) {
		if (rte_pcpu_cache_stats_get(l, c, &cs) != 0)
			return -1;
		*objs += cs.len;
		*bytes += (uint64_t)cs.len * cs.size;
	}
	return 0;
}

static void
show_caches_of(unsigned int l)
{
	struct rte_pcpu_cache_stats cs;
	unsigned int c;

	if (info_json)
		js_open("caches", '[');
	for (c = 0; c < RTE_PCPU_CACHE_NB_CLASSES; c++) {
		if (rte_pcpu_cache_stats_get(l, c, &cs) != 0)
			break;
		/* classes never used (or released and idle) */
		if (cs.high == 0 && cs.nr_alloc == 0 && cs.nr_free == 0)
			continue;
		if (!info_json) {
			printf("  %5u %5u %5u %5u %5u %5u %12" PRIu64 " %12"
				PRIu64 " %9" PRIu64 " %9" PRIu64 " %6" PRIu64
				" %6" PRIu64 "\n", l, cs.size, cs.len, cs.low,
				cs.high, cs.batch, cs.nr_alloc, cs.nr_free,
				cs.nr_refill, cs.nr_flush, cs.nr_grow,
				cs.nr_decay);
			continue;
		}
		js_open(NULL, '{');
		js_u64("class", c);
		js_u64("size", cs.size);
		js_u64("len", cs.len);
		js_u64("low", cs.low);
		js_u64("high", cs.high);
		js_u64("batch", cs.batch);
		js_u64("nr_alloc", cs.nr_alloc);
		js_u64("nr_free", cs.nr_free);
		js_u64("nr_refill", cs.nr_refill);
		js_u64("nr_flush", cs.nr_flush);
		js_u64("nr_grow", cs.nr_grow);
		js_u64("nr_decay", cs.nr_decay);
		js_close('}');
	}
	if (info_json)
		js_close(']');
}

static void
show_lcores(const struct rte_pcpu_stats *s, bool caches)
{
	uint64_t objs, bytes;
	unsigned int l;

	if (info_json)
		js_open("lcores", '[');
	else if (info_show & SHOW_LCORES) {
		text_title("lcores with memory");
		printf("  %5s %4s %16s %12s %12s\n", "lcore", "node",
			"populated-bytes", "cached-objs", "cached-bytes");
	}
	for (l = 0; l < RTE_MAX_LCORE && (info_show & SHOW_LCORES); l++) {
		if (!rte_pcpu_lcore_has_memory(l))
			continue;
		if (lcore_cached(l, &objs, &bytes) != 0)
			objs = bytes = 0;
		if (!info_json) {
			printf("  %5u %4d %16" PRIu64 " %12" PRIu64 " %12"
				PRIu64 "\n", l, rte_pcpu_lcore_socket_id(l),
				s->populated_pages * s->page_size, objs, bytes);
			continue;
		}
		js_open(NULL, '{');
		js_u64("lcore", l);
		js_int("node", rte_pcpu_lcore_socket_id(l));
		js_u64("populated_bytes", s->populated_pages * s->page_size);
		js_u64("cached_objs", objs);
		js_u64("cached_bytes", bytes);
		if (caches)
			show_caches_of(l);
		js_close('}');
	}
	if (info_json) {
		js_close(']');
		return;
	}
	if (!caches)
		return;
	text_title("lcore caches (size classes in use)");
	printf("  %5s %5s %5s %5s %5s %5s %12s %12s %9s %9s %6s %6s\n",
		"lcore", "size", "len", "low", "high", "batch", "allocs",
		"frees", "refills", "flushes", "grows", "decays");
	for (l = 0; l < RTE_MAX_LCORE; l++)
		if (rte_pcpu_lcore_has_memory(l))
			show_caches_of(l);
}

static const char *
chunk_list(int32_t slot)
{
	switch (slot) {
	case -1:
		return "sidelined";
	case -2:
		return "free";
	case -3:
		return "depopulating";
	default:
		return "active";
	}
}

static void
show_chunk(const struct rte_pcpu_chunk_stats *cs, void *arg __rte_unused)
{
	if (!info_json) {
		printf("  %5u %-12s %4d %8u %10u %10u %10u %10u %10u %6u/%-6u "
			"%6u\n", cs->index, chunk_list(cs->slot), cs->slot,
			cs->nr_alloc, cs->free_bytes, cs->contig_bytes,
			cs->sum_frag, cs->min_alloc, cs->max_alloc,
			cs->populated_pages, cs->nr_pages, cs->empty_pages);
		return;
	}
	js_open(NULL, '{');
	js_u64("index", cs->index);
	js_str("list", chunk_list(cs->slot));
	js_int("slot", cs->slot);
	js_u64("nr_alloc", cs->nr_alloc);
	js_u64("free_bytes", cs->free_bytes);
	js_u64("contig_bytes", cs->contig_bytes);
	js_u64("sum_frag", cs->sum_frag);
	js_u64("max_frag", cs->max_frag);
	js_u64("first_free", cs->first_free);
	js_u64("min_alloc", cs->min_alloc);
	js_u64("max_alloc", cs->max_alloc);
	js_u64("populated_pages", cs->populated_pages);
	js_u64("empty_pages", cs->empty_pages);
	js_u64("nr_pages", cs->nr_pages);
	js_close('}');
}

static int
show_chunks(void)
{
	int n;

	if (info_json)
		js_open("chunks", '[');
	else {
		text_title("chunks");
		printf("  %5s %-12s %4s %8s %10s %10s %10s %10s %10s %13s "
			"%6s\n", "index", "list", "slot", "objects", "free-B",
			"contig-B", "frag-B", "min-B", "max-B", "pages", "empty");
	}
	n = rte_pcpu_chunk_walk(show_chunk, NULL);
	if (info_json)
		js_close(']');
	return n < 0 ? -1 : 0;
}

static void
show_pool(struct rte_pcpu_mempool *mp, void *arg __rte_unused)
{
	static const char * const rcu[] = { "none", "dq", "sync" };
	const char *name = rte_pcpu_mempool_name(mp);
	struct rte_pcpu_mempool_stats st;
	struct rte_pcpu_mempool_info in;

	if (info_pool != NULL && strcmp(name, info_pool) != 0)
		return;
	if (rte_pcpu_mempool_info_get(mp, &in) != 0 ||
	    rte_pcpu_mempool_stats_get(mp, &st) != 0)
		return;
	if (info_dump) {
		rte_pcpu_mempool_dump(stdout, mp);
		return;
	}
	if (!info_json) {
		printf("  %-24s %8u %8" PRIu64 " %6u %8u %8u %8u %8u %12" PRIu64
			" %12" PRIu64 " %10" PRIu64 " %4s\n", name, in.n,
			in.elt_size, in.cache_size,
			rte_pcpu_mempool_in_use_count(mp),
			rte_pcpu_mempool_avail_count(mp), in.nb_objs,
			in.nb_caches, st.get_success, st.put, st.cache_misses,
			rcu[in.rcu < 3 ? in.rcu : 0]);
		return;
	}
	js_open(NULL, '{');
	js_str("name", name);
	js_u64("n", in.n);
	js_u64("elt_size", in.elt_size);
	js_u64("align", in.align);
	js_u64("cache_size", in.cache_size);
	js_u64("flags", in.flags);
	js_u64("in_use", rte_pcpu_mempool_in_use_count(mp));
	js_u64("avail", rte_pcpu_mempool_avail_count(mp));
	js_u64("objects", in.nb_objs);
	js_u64("free_shared", in.nb_free);
	js_u64("lcore_caches", in.nb_caches);
	js_u64("budget_bytes", in.max_bytes);
	js_u64("charged_bytes", st.charged_bytes);
	js_str("init", in.obj_init ? "obj_init" :
		(in.flags & RTE_PCPU_MEMPOOL_F_NO_ZERO) ? "none" : "zero_on_get");
	js_str("rcu", rcu[in.rcu < 3 ? in.rcu : 0]);
	js_u64("get_success", st.get_success);
	js_u64("get_fail", st.get_fail);
	js_u64("get_fail_budget", st.get_fail_budget);
	js_u64("put", st.put);
	js_u64("cache_hits", st.cache_hits);
	js_u64("cache_misses", st.cache_misses);
	js_u64("put_refused", st.put_refused);
	js_u64("rcu_pending", st.rcu_pending);
	js_close('}');
}

static void
show_pools(void)
{
	if (info_json)
		js_open("pools", '[');
	else if (!info_dump) {
		text_title("pools");
		printf("  %-24s %8s %8s %6s %8s %8s %8s %8s %12s %12s %10s "
			"%4s\n", "name", "n", "elt-B", "cache", "in-use",
			"avail", "objects", "caches", "gets", "puts", "misses",
			"rcu");
	}
	rte_pcpu_mempool_walk(show_pool, NULL);
	if (info_json)
		js_close(']');
}

/* Width of the text table's name column: 32, or the longest name. */
static int info_owner_name_width = 32;

static void
owner_name_width(struct rte_pcpu_owner *o, __rte_unused void *arg)
{
	int len = (int)strlen(rte_pcpu_owner_name(o));

	if (len > info_owner_name_width)
		info_owner_name_width = len;
}

static void
show_owner(struct rte_pcpu_owner *o, void *arg)
{
	struct rte_pcpu_owner_stats st;
	unsigned int i, last = 0;
	char limit[24];

	/* an owner freed since the list was taken is left out */
	if (rte_pcpu_owner_stats_get(o, &st) != 0)
		return;
	(*(unsigned int *)arg)++;
	if (!info_json) {
		if (st.limit_bytes != 0)
			snprintf(limit, sizeof(limit), "%" PRIu64,
				st.limit_bytes);
		else
			snprintf(limit, sizeof(limit), "none");
		printf("  %-*s %14" PRIu64 " %14" PRIu64 " %14s %10" PRIu64
			" %10" PRIu64 "\n", info_owner_name_width,
			rte_pcpu_owner_name(o), st.live_bytes, st.peak_bytes,
			limit, st.nr_live, st.nr_fail);
		return;
	}
	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (st.live_bytes_socket[i] != 0)
			last = i;
	js_open(NULL, '{');
	js_str("name", rte_pcpu_owner_name(o));
	js_u64("id", st.id);
	js_u64("live_bytes", st.live_bytes);
	js_u64("live_copy_bytes", st.live_copy_bytes);
	js_u64("peak_bytes", st.peak_bytes);
	js_u64("limit_bytes", st.limit_bytes);
	js_u64("nr_alloc", st.nr_alloc);
	js_u64("nr_free", st.nr_free);
	js_u64("nr_live", st.nr_live);
	js_u64("nr_fail", st.nr_fail);
	js_u64("nr_lcores", st.nr_lcores);
	js_open("live_bytes_socket", '[');
	for (i = 0; i <= last; i++) {
		js_sep(NULL);
		printf("%" PRIu64, st.live_bytes_socket[i]);
	}
	js_close(']');
	js_close('}');
}

/* The owners: who holds the memory (bytes over the lcores with memory). */
static int
show_owners(void)
{
	unsigned int n = 0;

	if (info_json)
		js_open("owners", '[');
	else {
		text_title("owners");
		/* names of up to RTE_PCPU_OWNER_NAMESIZE - 1 characters: the
		 * column is as wide as the longest, so the figures line up */
		rte_pcpu_owner_walk(owner_name_width, NULL);
		printf("  %-*s %14s %14s %14s %10s %10s\n",
			info_owner_name_width, "name", "live-B", "peak-B",
			"limit-B", "allocs", "refused");
	}
	rte_errno = 0;
	rte_pcpu_owner_walk(show_owner, &n);
	if (info_json)
		js_close(']');
	/* the root always exists: none means the primary did not answer */
	return n == 0 ? -1 : 0;
}

/* ------------------------------------------------------------- options */

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [--stats] [--lcores] [--nodes]\n"
		"    [--chunks] [--caches] [--pools] [--pool NAME] [--owners]\n"
		"    [--dump] [--json] [--help]\n"
		"\n"
		"Attaches to a running DPDK primary process (give its\n"
		"--file-prefix) as a secondary process and reports its percpu\n"
		"allocator and pools (librte_pcpu_mempool). --proc-type=secondary\n"
		"is added to the EAL options, --no-pci unless PCI options are\n"
		"given, and -l with one CPU unless lcores are given.\n"
		"\n"
		"  --stats       allocator statistics\n"
		"  --lcores      lcores with memory: node, memory, lcore caches\n"
		"  --nodes       memory per NUMA node\n"
		"  --chunks      every chunk: objects, free space, pages\n"
		"  --caches      every lcore's size-class caches in use\n"
		"  --pools       every pool (--pool NAME: that pool only)\n"
		"  --owners      every owner of percpu memory: what it holds,\n"
		"                its peak, limit, allocations and refusals\n"
		"  --dump        the library's own dumps (rte_pcpu_dump(),\n"
		"                rte_pcpu_mempool_dump()) instead of tables\n"
		"  --json        one JSON document on stdout\n"
		"Without a selection, everything is shown.\n", prog);
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "stats", no_argument, NULL, 's' },
		{ "lcores", no_argument, NULL, 'l' },
		{ "nodes", no_argument, NULL, 'n' },
		{ "chunks", no_argument, NULL, 'c' },
		{ "caches", no_argument, NULL, 'C' },
		{ "pools", no_argument, NULL, 'p' },
		{ "pool", required_argument, NULL, 'P' },
		{ "owners", no_argument, NULL, 'o' },
		{ "dump", no_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	/* leading ':': a missing argument is told from an unknown option */
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case 's': info_show |= SHOW_STATS; break;
		case 'l': info_show |= SHOW_LCORES; break;
		case 'n': info_show |= SHOW_NODES; break;
		case 'c': info_show |= SHOW_CHUNKS; break;
		case 'C': info_show |= SHOW_CACHES; break;
		case 'p': info_show |= SHOW_POOLS; break;
		case 'o': info_show |= SHOW_OWNERS; break;
		case 'P':
			info_show |= SHOW_POOLS;
			info_pool = optarg;
			break;
		case 'd': info_dump = true; break;
		case 'j': info_json = true; break;
		case 'h':
			usage(argv[0]);
			exit(EXIT_SUCCESS);
		case ':':
			fprintf(stderr, "%s: option '%s' needs an argument\n",
				INFO_APP, argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "%s: unknown option '%s'\n", INFO_APP,
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", INFO_APP,
			argv[optind]);
		return -1;
	}
	if (info_dump && info_json) {
		fprintf(stderr, "%s: --dump and --json exclude each other\n",
			INFO_APP);
		return -1;
	}
	if (info_show == 0)
		info_show = SHOW_ALL;
	return 0;
}

/* Whether the EAL options (before "--") have one of @p opts. */
static bool
has_option(int argc, char **argv, const char * const *opts)
{
	const char * const *o;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		for (o = opts; *o != NULL; o++)
			if (strncmp(argv[i], *o, strlen(*o)) == 0)
				return true;
	return false;
}

/* ---------------------------------------------------------------- main */

static int
report(void)
{
	struct rte_pcpu_stats s;

	if (rte_pcpu_stats_get(&s) != 0) {
		if (rte_errno == ENOENT)
			fprintf(stderr, "%s: the primary process has no percpu "
				"allocator (not set up yet, or its area is "
				"private: RTE_PCPU_F_PRIVATE, or EAL without "
				"hugepages)\n", INFO_APP);
		else
			fprintf(stderr, "%s: cannot read the primary's "
				"allocator: %s\n", INFO_APP,
				rte_strerror(rte_errno));
		return -1;
	}
	if (info_dump) {
		if ((info_show & ~SHOW_POOLS) != 0 &&
		    rte_pcpu_dump(stdout) != 0)
			return -1;
		if (info_show & SHOW_POOLS)
			show_pools();
		return 0;
	}
	if (info_json) {
		js_open(NULL, '{');
		js_str("library", "pcpu_mempool");
		js_str("dpdk", rte_version());
	}
	if (info_show & SHOW_STATS)
		show_stats(&s);
	if (info_show & SHOW_NODES)
		show_nodes(&s);
	if (info_show & (SHOW_LCORES | SHOW_CACHES))
		show_lcores(&s, (info_show & SHOW_CACHES) != 0);
	if ((info_show & SHOW_CHUNKS) && show_chunks() != 0) {
		fprintf(stderr, "%s: cannot read the chunks: %s\n", INFO_APP,
			rte_strerror(rte_errno));
		return -1;
	}
	if (info_show & SHOW_POOLS)
		show_pools();
	if ((info_show & SHOW_OWNERS) && show_owners() != 0) {
		fprintf(stderr, "%s: cannot read the owners: %s\n", INFO_APP,
			rte_strerror(rte_errno));
		return -1;
	}
	if (info_json)
		js_close('}');
	return 0;
}

int
main(int argc, char **argv)
{
	static const char * const lcore_opts[] = { "-l", "-c", "--lcores",
		NULL };
	static const char * const pci_opts[] = { "-a", "-b", "--allow",
		"--block", "--no-pci", NULL };
	static const char * const proc_opts[] = { "--proc-type", NULL };
	char proc_flag[] = "--proc-type=secondary";
	char log_flag[] = "--log-level=lib.eal:warning";
	char pci_flag[] = "--no-pci";
	char l_flag[] = "-l";
	char cpu[16];
	char **eargv, **argv0;
	int eargc = 0, i, ret;
	cpu_set_t set;

	/* the tool's own options (after "--") need no primary: checked
	 * before EAL attaches to one, so that a mistake in them is told as
	 * such (and --help answers) whether or not a primary runs */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	if (i < argc) {
		char *dashes = argv[i];

		/* the program's name in place of "--", as getopt wants */
		argv[i] = argv[0];
		ret = parse_args(argc - i, argv + i);
		argv[i] = dashes;
	} else {
		ret = parse_args(1, argv);
	}
	if (ret != 0) {
		/* one line said what; the usage is one option away */
		fprintf(stderr, "Try '%s [EAL options] -- --help'.\n",
			INFO_APP);
		return EXIT_FAILURE;
	}
	if (has_option(argc, argv, proc_opts)) {
		fprintf(stderr, "%s: it attaches to the primary as a secondary "
			"process: leave out --proc-type\n", INFO_APP);
		return EXIT_FAILURE;
	}
	eargv = calloc((size_t)argc + 6, sizeof(*eargv));
	if (eargv == NULL)
		return EXIT_FAILURE;
	eargv[eargc++] = argv[0];
	eargv[eargc++] = proc_flag;
	eargv[eargc++] = log_flag;
	/* no device of the primary is needed, unless the user says so */
	if (!has_option(argc, argv, pci_opts))
		eargv[eargc++] = pci_flag;
	if (!has_option(argc, argv, lcore_opts)) {
		/* one lcore, on a CPU this process may use */
		CPU_ZERO(&set);
		ret = 0;
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			for (i = 0; i < CPU_SETSIZE; i++)
				if (CPU_ISSET(i, &set)) {
					ret = i;
					break;
				}
		snprintf(cpu, sizeof(cpu), "%d", ret);
		eargv[eargc++] = l_flag;
		eargv[eargc++] = cpu;
	}
	for (i = 1; i < argc; i++)
		eargv[eargc++] = argv[i];
	argv0 = eargv;
	ret = rte_eal_init(eargc, eargv);
	if (ret < 0) {
		/* rte_eal_init() does not always set rte_errno */
		fprintf(stderr, "%s: cannot attach to a primary process: %s "
			"(is one running with this --file-prefix, with "
			"hugepages and without --huge-unlink?)\n", INFO_APP,
			rte_errno != 0 ? rte_strerror(rte_errno) :
			"EAL initialisation failed");
		free(argv0);
		return EXIT_FAILURE;
	}
	if (!rte_eal_primary_proc_alive(NULL)) {
		fprintf(stderr, "%s: no primary process is running\n",
			INFO_APP);
		ret = -1;
		goto out;
	}
	if (info_pool != NULL && rte_pcpu_mempool_lookup(info_pool) == NULL) {
		fprintf(stderr, "%s: --pool %s: %s\n", INFO_APP, info_pool,
			rte_errno == ENOENT ? "no such pool in the primary" :
			rte_strerror(rte_errno));
		ret = -1;
		goto out;
	}
	ret = report();
	fflush(stdout);
	/* detach: the primary may give memory back at once */
	rte_pcpu_cleanup();
out:
	rte_eal_cleanup();
	free(argv0);
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
