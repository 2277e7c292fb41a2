/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * dpdk-flowcount: an l3fwd-style forwarder that counts packets and bytes of
 * every flow in percpu counters (rte_pcpu_mempool objects): a flow's
 * packets may arrive on any worker lcore, each lcore bumps only its own
 * copy, and the main lcore sums the copies for the periodic table, the
 * telemetry commands, aging and the final CSV dump.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include <rte_pcpu.h>
#include <rte_pcpu_mempool.h>

#include "flow_parse.h"
#include "flow_table.h"

#define APP "dpdk-flowcount"

#define MAX_PKT_BURST 32
#define MAX_RX_QUEUE_PER_LCORE 16
#define MAX_CONFIG (RTE_MAX_ETHPORTS * MAX_RX_QUEUE_PER_LCORE)
#define BURST_TX_DRAIN_US 100
#define NB_RXD 1024
#define NB_TXD 1024
#define MBUF_CACHE 256
#define FLOW_CACHE_DEFAULT 0
#define FLOW_CACHE_MAX (1u << 22)
#define MAX_SEGS 64
#define MAX_TOP 64
#define TEL_MAX_FLOWS 50
#define LPM_MAX_RULES 65536
#define LPM_TBL8S (1 << 8)

/* RCU thread ids: lcore ids, plus one for the telemetry thread */
#define RCU_TEL_ID RTE_MAX_LCORE
#define RCU_NB_IDS (RTE_MAX_LCORE + 1)

/* pseudo destination ports */
#define DST_NO_ROUTE UINT16_MAX
#define DST_NO_PORT (UINT16_MAX - 1)

/* One lcore's statistics; a percpu object, every lcore writes its copy. */
struct lcore_stats {
	uint64_t rx_pkts[RTE_MAX_ETHPORTS];   /* by RX port */
	uint64_t rx_bytes[RTE_MAX_ETHPORTS];
	uint64_t tx_pkts[RTE_MAX_ETHPORTS];   /* by TX port */
	uint64_t tx_drop[RTE_MAX_ETHPORTS];   /* TX queue full, by TX port */
	uint64_t no_route[RTE_MAX_ETHPORTS];  /* no route, by RX port */
	uint64_t no_port[RTE_MAX_ETHPORTS];   /* paired port missing, RX port */
	uint64_t non_ip_pkts;
	uint64_t non_ip_bytes;
	uint64_t malformed_pkts;
	uint64_t malformed_bytes;
	struct flow_worker_stats fw;
	uint64_t last_rx_tsc;                 /* last non-empty RX burst */
	uint64_t cpu_ns;                      /* worker thread CPU time */
};

struct lcore_conf {
	uint16_t n_rx;
	struct {
		uint16_t port;
		uint16_t queue;
	} rx[MAX_RX_QUEUE_PER_LCORE];
	uint16_t txq[RTE_MAX_ETHPORTS];
	struct rte_eth_dev_tx_buffer *txb[RTE_MAX_ETHPORTS];
	/* non-NULL when the TX queue is shared with other lcores */
	rte_spinlock_t *txlock[RTE_MAX_ETHPORTS];
} __rte_cache_aligned;

struct config_entry {
	uint16_t port;
	uint16_t queue;
	unsigned int lcore;
};

/* Options */
static uint32_t opt_portmask;
static bool opt_portmask_set;
static bool opt_promisc;
static const char *opt_route_file;
static uint32_t opt_max_flows = 65536;
static uint64_t opt_flow_timeout_ms = 30000;
static uint64_t opt_stats_ms = 1000;
static unsigned int opt_top = 5;
static const char *opt_dump_file;
static uint64_t opt_idle_ms;
static bool opt_no_count;
static bool opt_lookup_only;
static bool opt_no_defer;
static uint32_t opt_mbufs;
static uint32_t opt_flow_cache = FLOW_CACHE_DEFAULT;
static struct config_entry opt_config[MAX_CONFIG];
static unsigned int opt_nb_config;

/* State */
static volatile bool force_quit;
static volatile int quit_signal;
static struct lcore_conf lcore_conf[RTE_MAX_LCORE];
static uint16_t pair_port[RTE_MAX_ETHPORTS];
static uint16_t nb_rxq[RTE_MAX_ETHPORTS];
static uint16_t nb_txq[RTE_MAX_ETHPORTS];
static rte_spinlock_t txq_lock[RTE_MAX_ETHPORTS][RTE_MAX_LCORE];
static struct rte_lpm *lpm4;
static struct rte_lpm6 *lpm6;
static struct rte_mempool *pktmbuf_pool;
static struct rte_rcu_qsbr *qsbr;
static struct flow_table *ftable;
static RTE_PCPU_HANDLE(struct lcore_stats, stats);
static uint64_t start_tsc;
static const char *prgname = APP;

/* Telemetry callbacks run on other threads: they read under tel_lock and
 * only while tel_ready. */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tel_ready;

static inline void
counter_add(uint64_t *c, uint64_t v)
{
	/* the owning lcore is the only writer: a relaxed store is a plain
	 * store, and readers load it atomically */
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

static inline uint64_t
counter_load(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- usage */

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [-p PORTMASK] [-P]\n"
		"    [--config (port,queue,lcore)[,(port,queue,lcore)...]]\n"
		"    [--route FILE] [--max-flows N] [--flow-timeout MS]\n"
		"    [--stats-interval MS] [--top N] [--flow-dump FILE]\n"
		"    [--exit-on-idle MS] [--no-count] [--flow-cache N] [--mbufs N]\n"
		"    [--no-defer] [--lookup-only] [--help]\n"
		"\n"
		"Forwards IPv4/IPv6 packets like l3fwd and counts packets and bytes of\n"
		"every flow (outer 5-tuple, one direction) in per-lcore copies of\n"
		"percpu counters.\n"
		"\n"
		"  -p PORTMASK           hexadecimal mask of ports to use (default: all)\n"
		"  -P                    promiscuous mode on every port\n"
		"  --config LIST         (port,queue,lcore) RX queue to lcore mapping;\n"
		"                        default: the RX queues of every port spread\n"
		"                        over the worker lcores (one queue per rx_pcap\n"
		"                        of a net_pcap port). The main lcore only\n"
		"                        does control work (stats, aging, telemetry).\n"
		"  --route FILE          routes, one per line: PREFIX/LEN PORT (IPv4 or\n"
		"                        IPv6, '#' starts a comment), looked up with\n"
		"                        rte_lpm/rte_lpm6; packets without a route are\n"
		"                        dropped and counted (no-route). Without it,\n"
		"                        every IP packet goes out the paired port\n"
		"                        (port ^ 1); with a single port, back out of\n"
		"                        that port; a missing pair drops (no-port)\n"
		"  --max-flows N         flows tracked at once (default 65536); packets\n"
		"                        of further flows go to the overflow bucket\n"
		"  --flow-timeout MS     remove flows idle this long (default 30000,\n"
		"                        0 = never); their counts are kept for the dump\n"
		"                        (up to 2 x max-flows distinct flows, at least\n"
		"                        65536, at most 2097152; beyond, in overflow)\n"
		"  --stats-interval MS   print the statistics table every MS (default\n"
		"                        1000, 0 = off)\n"
		"  --top N               flows shown in the table by bytes (default 5,\n"
		"                        at most %u)\n"
		"  --flow-dump FILE      write every flow's counts as CSV at exit\n"
		"                        (family,proto,src,dst,sport,dport,packets,bytes;\n"
		"                        then non-ip, malformed, overflow rows)\n"
		"  --exit-on-idle MS     stop once every RX queue was empty for MS\n"
		"                        (for capture input; default 0 = never)\n"
		"  --no-count            forward without counting flows (speed baseline)\n"
		"  --flow-cache N        entries of each worker's flow cache in front\n"
		"                        of the flow table (64 bytes each; 0 = off, the\n"
		"                        default %u, or a power of two, 16 to %u)\n"
		"  --mbufs N             mbufs in the packet pool (default: from the\n"
		"                        queue sizes, 8192 to 65535); net_pcap with\n"
		"                        infinite_rx=1 keeps the whole file in mbufs\n"
		"  --no-defer            update a burst's flow counters right after its\n"
		"                        lookup (the default updates them after routing\n"
		"                        and sending the burst, so that the prefetch of\n"
		"                        the counter lines has time; speed comparison)\n"
		"  --lookup-only         speed test: look flows up and insert them but\n"
		"                        never update their counters (every flow counts\n"
		"                        0 packets; not with --flow-dump)\n"
		"  --help                this text\n"
		"\n"
		"Telemetry: /flowcount/stats, /flowcount/flows[,N].\n"
		"Example: %s -l 0-1 --no-huge -m 512 --no-pci \\\n"
		"    --vdev net_pcap0,rx_pcap=demo.pcap -- --exit-on-idle 200 \\\n"
		"    --flow-dump flows.csv\n",
		prog, MAX_TOP, FLOW_CACHE_DEFAULT, FLOW_CACHE_MAX, prog);
}

static void
usage_hook(const char *prog)
{
	printf("\nApplication options (after --):\n");
	usage(prog);
}

static void __rte_noreturn
bad_option(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prgname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s [EAL options] -- --help'.\n", prgname);
	rte_eal_cleanup();
	exit(EXIT_FAILURE);
}

/* ------------------------------------------------------------- options */

static uint64_t
parse_u64(const char *name, const char *s, uint64_t max, int base)
{
	unsigned long long v;
	char *end;

	if (s == NULL || *s == '\0' || *s == '-')
		bad_option("%s needs a non-negative number, got '%s'", name,
			s ? s : "");
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno != 0 || *end != '\0')
		bad_option("%s: '%s' is not a number", name, s);
	if (v > max)
		bad_option("%s: %s is above the limit %" PRIu64, name, s, max);
	return v;
}

static void
parse_config(const char *s)
{
	const char *p = s;

	opt_nb_config = 0;
	while (*p != '\0') {
		unsigned long v[3];
		char *end;
		int i;

		while (*p == ' ')
			p++;
		if (*p != '(')
			bad_option("--config: expected '(' at '%s'", p);
		p++;
		for (i = 0; i < 3; i++) {
			errno = 0;
			v[i] = strtoul(p, &end, 0);
			if (end == p || errno != 0)
				bad_option("--config: bad number at '%s'", p);
			p = end;
			if (*p != (i < 2 ? ',' : ')'))
				bad_option("--config: expected '%c' at '%s'",
					i < 2 ? ',' : ')', p);
			p++;
		}
		if (v[0] >= RTE_MAX_ETHPORTS || v[1] > UINT16_MAX ||
				v[2] >= RTE_MAX_LCORE)
			bad_option("--config: (%lu,%lu,%lu) out of range",
				v[0], v[1], v[2]);
		if (opt_nb_config == MAX_CONFIG)
			bad_option("--config: more than %u entries",
				MAX_CONFIG);
		opt_config[opt_nb_config].port = (uint16_t)v[0];
		opt_config[opt_nb_config].queue = (uint16_t)v[1];
		opt_config[opt_nb_config].lcore = (unsigned int)v[2];
		opt_nb_config++;
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			bad_option("--config: unexpected '%s'", p);
	}
	if (opt_nb_config == 0)
		bad_option("--config: empty");
}

enum {
	OPT_CONFIG = 256,
	OPT_ROUTE,
	OPT_MAX_FLOWS,
	OPT_FLOW_TIMEOUT,
	OPT_STATS_INTERVAL,
	OPT_TOP,
	OPT_FLOW_DUMP,
	OPT_EXIT_ON_IDLE,
	OPT_NO_COUNT,
	OPT_LOOKUP_ONLY,
	OPT_NO_DEFER,
	OPT_MBUFS,
	OPT_FLOW_CACHE,
	OPT_HELP,
};

static void
parse_args(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "route", required_argument, NULL, OPT_ROUTE },
		{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
		{ "flow-timeout", required_argument, NULL, OPT_FLOW_TIMEOUT },
		{ "stats-interval", required_argument, NULL,
			OPT_STATS_INTERVAL },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "flow-dump", required_argument, NULL, OPT_FLOW_DUMP },
		{ "exit-on-idle", required_argument, NULL, OPT_EXIT_ON_IDLE },
		{ "no-count", no_argument, NULL, OPT_NO_COUNT },
		{ "lookup-only", no_argument, NULL, OPT_LOOKUP_ONLY },
		{ "no-defer", no_argument, NULL, OPT_NO_DEFER },
		{ "mbufs", required_argument, NULL, OPT_MBUFS },
		{ "flow-cache", required_argument, NULL, OPT_FLOW_CACHE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:Ph", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			opt_portmask = (uint32_t)parse_u64("-p", optarg,
				RTE_MAX_ETHPORTS >= 32 ? UINT32_MAX :
				(1u << RTE_MAX_ETHPORTS) - 1, 16);
			if (opt_portmask == 0)
				bad_option("-p: empty port mask");
			opt_portmask_set = true;
			break;
		case 'P':
			opt_promisc = true;
			break;
		case OPT_CONFIG:
			parse_config(optarg);
			break;
		case OPT_ROUTE:
			opt_route_file = optarg;
			break;
		case OPT_MAX_FLOWS:
			opt_max_flows = (uint32_t)parse_u64("--max-flows",
				optarg, 1u << 24, 10);
			if (opt_max_flows < 1)
				bad_option("--max-flows must be at least 1");
			break;
		case OPT_FLOW_TIMEOUT:
			opt_flow_timeout_ms = parse_u64("--flow-timeout",
				optarg, UINT32_MAX, 10);
			break;
		case OPT_STATS_INTERVAL:
			opt_stats_ms = parse_u64("--stats-interval", optarg,
				UINT32_MAX, 10);
			break;
		case OPT_TOP:
			opt_top = (unsigned int)parse_u64("--top", optarg,
				MAX_TOP, 10);
			break;
		case OPT_FLOW_DUMP:
			if (*optarg == '\0')
				bad_option("--flow-dump needs a file name");
			opt_dump_file = optarg;
			break;
		case OPT_EXIT_ON_IDLE:
			opt_idle_ms = parse_u64("--exit-on-idle", optarg,
				UINT32_MAX, 10);
			break;
		case OPT_NO_COUNT:
			opt_no_count = true;
			break;
		case OPT_LOOKUP_ONLY:
			opt_lookup_only = true;
			break;
		case OPT_NO_DEFER:
			opt_no_defer = true;
			break;
		case OPT_MBUFS:
			opt_mbufs = (uint32_t)parse_u64("--mbufs", optarg,
				1u << 24, 10);
			if (opt_mbufs < 1024)
				bad_option("--mbufs must be at least 1024");
			break;
		case OPT_FLOW_CACHE:
			opt_flow_cache = (uint32_t)parse_u64("--flow-cache",
				optarg, FLOW_CACHE_MAX, 10);
			if (opt_flow_cache != 0 && (opt_flow_cache < 16 ||
					!rte_is_power_of_2(opt_flow_cache)))
				bad_option("--flow-cache must be 0 or a power "
					"of two from 16 to %u", FLOW_CACHE_MAX);
			break;
		case 'h':
		case OPT_HELP:
			usage(prgname);
			rte_eal_cleanup();
			exit(EXIT_SUCCESS);
		case ':':
			bad_option("option '%s' needs an argument",
				argv[optind - 1]);
		default:
			bad_option("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_option("unexpected argument '%s'", argv[optind]);
	if (opt_no_count && opt_dump_file != NULL)
		bad_option("--flow-dump needs counting: drop --no-count");
	if (opt_lookup_only && opt_dump_file != NULL)
		bad_option("--flow-dump needs counting: drop --lookup-only");
}

/* --------------------------------------------------------------- routes */

static void
load_routes(const char *path)
{
	char line[512];
	unsigned int lineno = 0, n4 = 0, n6 = 0;
	FILE *f;
	struct rte_lpm_config c4 = {
		.max_rules = LPM_MAX_RULES,
		.number_tbl8s = LPM_TBL8S,
	};
	struct rte_lpm6_config c6 = {
		.max_rules = LPM_MAX_RULES,
		.number_tbl8s = LPM_TBL8S,
	};

	f = fopen(path, "r");
	if (f == NULL)
		bad_option("--route: cannot open %s: %s", path,
			strerror(errno));
	lpm4 = rte_lpm_create("fc_lpm4", (int)rte_socket_id(), &c4);
	lpm6 = rte_lpm6_create("fc_lpm6", (int)rte_socket_id(), &c6);
	if (lpm4 == NULL || lpm6 == NULL)
		rte_exit(EXIT_FAILURE, "cannot create LPM tables: %s\n",
			rte_strerror(rte_errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *hash, *prefix, *port_s, *extra, *slash, *sp;
		unsigned long len, port;
		uint8_t addr[16];
		char *end;
		int ret;

		lineno++;
		hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		prefix = strtok_r(line, " \t\r\n", &sp);
		if (prefix == NULL)
			continue;
		port_s = strtok_r(NULL, " \t\r\n", &sp);
		extra = strtok_r(NULL, " \t\r\n", &sp);
		slash = strchr(prefix, '/');
		if (port_s == NULL || extra != NULL || slash == NULL)
			bad_option("%s:%u: expected 'PREFIX/LEN PORT'", path,
				lineno);
		*slash = '\0';
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (errno != 0 || *end != '\0' || end == slash + 1)
			bad_option("%s:%u: bad prefix length", path, lineno);
		port = strtoul(port_s, &end, 10);
		if (*end != '\0' || port >= RTE_MAX_ETHPORTS ||
				!(opt_portmask & (1u << port)))
			bad_option("%s:%u: port '%s' is not an enabled port",
				path, lineno, port_s);
		if (inet_pton(AF_INET, prefix, addr) == 1) {
			if (len > 32)
				bad_option("%s:%u: IPv4 prefix length %lu > 32",
					path, lineno, len);
			ret = rte_lpm_add(lpm4, rte_be_to_cpu_32(
				*(const rte_be32_t *)addr) &
				(len ? ~0u << (32 - len) : 0),
				(uint8_t)len, (uint32_t)port);
			n4++;
		} else if (inet_pton(AF_INET6, prefix, addr) == 1) {
			if (len > 128)
				bad_option("%s:%u: IPv6 prefix length %lu > 128",
					path, lineno, len);
			ret = rte_lpm6_add(lpm6, addr, (uint8_t)len,
				(uint32_t)port);
			n6++;
		} else {
			bad_option("%s:%u: '%s' is not an IPv4 or IPv6 address",
				path, lineno, prefix);
		}
		if (len == 0 && ret == -EINVAL)
			bad_option("%s:%u: a /0 route is not supported by "
				"rte_lpm; use two /1 routes", path, lineno);
		if (ret < 0)
			bad_option("%s:%u: cannot add route: %s", path, lineno,
				strerror(-ret));
	}
	fclose(f);
	printf("routes: %u IPv4, %u IPv6 from %s\n", n4, n6, path);
}

/* ------------------------------------------------------------- dataplane */

static inline enum flow_class
parse_mbuf(const struct rte_mbuf *m, struct flow_key *key)
{
	struct flow_seg segs[MAX_SEGS];
	uint32_t remain = rte_pktmbuf_pkt_len(m), covered = 0;
	unsigned int n = 0;

	if (likely(m->nb_segs == 1)) {
		segs[0].data = rte_pktmbuf_mtod(m, const uint8_t *);
		segs[0].len = RTE_MIN((uint32_t)m->data_len, remain);
		return flow_parse(segs, 1, key);
	}
	/* the parser never looks past FLOW_PARSE_MAX_DEPTH bytes */
	for (; m != NULL && n < MAX_SEGS && remain > 0 &&
			covered < FLOW_PARSE_MAX_DEPTH; m = m->next) {
		uint32_t l = RTE_MIN((uint32_t)m->data_len, remain);

		segs[n].data = rte_pktmbuf_mtod(m, const uint8_t *);
		segs[n].len = l;
		n++;
		covered += l;
		remain -= l;
	}
	return flow_parse(segs, n, key);
}

static inline uint16_t
route(const struct flow_key *k, uint16_t in_port)
{
	uint32_t nh;

	if (lpm4 == NULL)
		return pair_port[in_port];
	if (k->family == 4) {
		uint32_t dst = ((uint32_t)k->dst[0] << 24) |
			((uint32_t)k->dst[1] << 16) |
			((uint32_t)k->dst[2] << 8) | k->dst[3];

		if (rte_lpm_lookup(lpm4, dst, &nh) == 0)
			return (uint16_t)nh;
	} else if (rte_lpm6_lookup(lpm6, k->dst, &nh) == 0) {
		return (uint16_t)nh;
	}
	return DST_NO_ROUTE;
}

static inline void
send_pkt(struct lcore_conf *lc, struct lcore_stats *st, uint16_t port,
		struct rte_mbuf *m)
{
	uint16_t sent;

	if (lc->txlock[port] != NULL) {
		rte_spinlock_lock(lc->txlock[port]);
		sent = rte_eth_tx_buffer(port, lc->txq[port], lc->txb[port], m);
		rte_spinlock_unlock(lc->txlock[port]);
	} else {
		sent = rte_eth_tx_buffer(port, lc->txq[port], lc->txb[port], m);
	}
	if (sent)
		counter_add(&st->tx_pkts[port], sent);
}

static void
flush_tx(struct lcore_conf *lc, struct lcore_stats *st)
{
	uint16_t port, sent;

	RTE_ETH_FOREACH_DEV(port) {
		if (lc->txb[port] == NULL || lc->txb[port]->length == 0)
			continue;
		if (lc->txlock[port] != NULL)
			rte_spinlock_lock(lc->txlock[port]);
		sent = rte_eth_tx_buffer_flush(port, lc->txq[port],
			lc->txb[port]);
		if (lc->txlock[port] != NULL)
			rte_spinlock_unlock(lc->txlock[port]);
		if (sent)
			counter_add(&st->tx_pkts[port], sent);
	}
}

static void
process_burst(struct lcore_conf *lc, struct lcore_stats *st,
		struct flow_cache *fc, struct flow_defer *fd, uint16_t port,
		struct rte_mbuf **pkts,
		uint16_t nb, uint64_t now)
{
	struct flow_key keys[MAX_PKT_BURST];
	uint32_t lens[MAX_PKT_BURST];
	struct rte_mbuf *fwd[MAX_PKT_BURST];
	uint64_t bytes = 0;
	unsigned int nf = 0, i;

	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		enum flow_class cls;

		bytes += len;
		cls = parse_mbuf(m, &keys[nf]);
		if (likely(cls == FLOW_CLASS_FLOW)) {
			lens[nf] = len;
			fwd[nf++] = m;
			continue;
		}
		/* not forwarded: counted in its bucket */
		if (cls == FLOW_CLASS_NON_IP) {
			counter_add(&st->non_ip_pkts, 1);
			counter_add(&st->non_ip_bytes, len);
		} else {
			counter_add(&st->malformed_pkts, 1);
			counter_add(&st->malformed_bytes, len);
		}
		rte_pktmbuf_free(m);
	}
	counter_add(&st->rx_pkts[port], nb);
	counter_add(&st->rx_bytes[port], bytes);
	if (!opt_no_count)
		flow_table_count(ftable, fc, fd, keys, lens, nf, now,
			&st->fw);
	for (i = 0; i < nf; i++) {
		uint16_t dst = route(&keys[i], port);

		if (unlikely(dst >= DST_NO_PORT)) {
			if (dst == DST_NO_ROUTE)
				counter_add(&st->no_route[port], 1);
			else
				counter_add(&st->no_port[port], 1);
			rte_pktmbuf_free(fwd[i]);
			continue;
		}
		send_pkt(lc, st, dst, fwd[i]);
	}
	/* this burst's counter updates, whose lines were prefetched before
	 * the routing and TX above: nothing is held across the RX call
	 * (which may block, e.g. net_pcap on a FIFO) */
	flow_defer_flush(fd);
}

static int
worker_main(__rte_unused void *arg)
{
	unsigned int lcore = rte_lcore_id();
	struct lcore_conf *lc = &lcore_conf[lcore];
	struct lcore_stats *st = RTE_PCPU_LCORE(lcore, stats);
	struct rte_mbuf *pkts[MAX_PKT_BURST];
	struct flow_cache *fc = NULL;
	struct flow_defer *fd = NULL;
	uint64_t drain_tsc = (rte_get_tsc_hz() + US_PER_S - 1) / US_PER_S *
		BURST_TX_DRAIN_US;
	uint64_t prev_tsc = 0, cur;
	struct rusage ru;
	unsigned int i;

	if (lc->n_rx == 0)
		return 0;
	for (i = 0; i < lc->n_rx; i++)
		printf("lcore %u: RX port %u queue %u\n", lcore,
			lc->rx[i].port, lc->rx[i].queue);
	rte_rcu_qsbr_thread_register(qsbr, lcore);
	rte_rcu_qsbr_thread_online(qsbr, lcore);
	if (ftable != NULL && opt_flow_cache != 0) {
		fc = flow_cache_create(ftable, opt_flow_cache,
			(int)rte_socket_id());
		if (fc == NULL)
			printf("lcore %u: no flow cache (%s), counting without\n",
				lcore, rte_strerror(rte_errno));
	}
	if (ftable != NULL && !opt_no_defer) {
		fd = flow_defer_create((int)rte_socket_id());
		if (fd == NULL)
			printf("lcore %u: no deferred updates (%s), updating "
				"counters in each burst\n", lcore,
				rte_strerror(rte_errno));
	}
	__atomic_store_n(&st->last_rx_tsc, rte_rdtsc(), __ATOMIC_RELAXED);

	while (!force_quit) {
		cur = rte_rdtsc();
		if (unlikely(cur - prev_tsc > drain_tsc)) {
			flush_tx(lc, st);
			prev_tsc = cur;
		}
		for (i = 0; i < lc->n_rx; i++) {
			uint16_t port = lc->rx[i].port;
			uint16_t nb = rte_eth_rx_burst(port, lc->rx[i].queue,
				pkts, MAX_PKT_BURST);

			if (nb == 0)
				continue;
			__atomic_store_n(&st->last_rx_tsc, cur,
				__ATOMIC_RELAXED);
			process_burst(lc, st, fc, fd, port, pkts, nb, cur);
		}
		/* process_burst() applied its deferred updates: no flow
		 * handle is held across this point (the flow
		 * cache's entries are checked against the aging epoch at
		 * the start of every burst, see flow_table.h) */
		rte_rcu_qsbr_quiescent(qsbr, lcore);
	}
	flush_tx(lc, st);
	rte_rcu_qsbr_thread_offline(qsbr, lcore);
	rte_rcu_qsbr_thread_unregister(qsbr, lcore);
	flow_cache_free(fc);
	flow_defer_free(fd);
	/* CPU time of this thread: rates per CPU second do not depend on
	 * other processes sharing the CPU */
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		counter_add(&st->cpu_ns, (uint64_t)(ru.ru_utime.tv_sec +
			ru.ru_stime.tv_sec) * NS_PER_S +
			(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
			1000);
	return 0;
}

/* --------------------------------------------------------------- setup */

static void
tx_drop_cb(struct rte_mbuf **pkts, uint16_t n, void *userdata)
{
	rte_pktmbuf_free_bulk(pkts, n);
	counter_add(userdata, n);
}

static void
default_config(void)
{
	unsigned int workers[RTE_MAX_LCORE], nw = 0, next = 0, l;
	uint16_t port;

	RTE_LCORE_FOREACH_WORKER(l)
		workers[nw++] = l;
	if (nw == 0)
		return;
	RTE_ETH_FOREACH_DEV(port) {
		struct rte_eth_dev_info info;
		uint16_t q, nq;

		if (!(opt_portmask & (1u << port)))
			continue;
		if (rte_eth_dev_info_get(port, &info) != 0)
			continue;
		nq = RTE_MIN(info.max_rx_queues, (uint16_t)nw);
		for (q = 0; q < nq && opt_nb_config < MAX_CONFIG; q++) {
			opt_config[opt_nb_config].port = port;
			opt_config[opt_nb_config].queue = q;
			opt_config[opt_nb_config].lcore = workers[next++ % nw];
			opt_nb_config++;
		}
	}
}

static void
check_config(void)
{
	unsigned int i, j;

	for (i = 0; i < opt_nb_config; i++) {
		const struct config_entry *e = &opt_config[i];
		struct rte_eth_dev_info info;
		struct lcore_conf *lc;

		if (!rte_eth_dev_is_valid_port(e->port) ||
				!(opt_portmask & (1u << e->port)))
			bad_option("--config: port %u is not enabled",
				e->port);
		if (!rte_lcore_is_enabled(e->lcore))
			bad_option("--config: lcore %u is not enabled "
				"(EAL -l/--lcores)", e->lcore);
		if (e->lcore == rte_get_main_lcore())
			bad_option("--config: lcore %u is the main lcore, "
				"which does the control work; use workers",
				e->lcore);
		if (rte_eth_dev_info_get(e->port, &info) != 0 ||
				e->queue >= info.max_rx_queues)
			bad_option("--config: port %u has no RX queue %u "
				"(at most %u)", e->port, e->queue,
				info.max_rx_queues);
		for (j = 0; j < i; j++)
			if (opt_config[j].port == e->port &&
					opt_config[j].queue == e->queue)
				bad_option("--config: port %u queue %u given "
					"twice", e->port, e->queue);
		lc = &lcore_conf[e->lcore];
		if (lc->n_rx == MAX_RX_QUEUE_PER_LCORE)
			bad_option("--config: more than %u queues on lcore "
				"%u", MAX_RX_QUEUE_PER_LCORE, e->lcore);
		lc->rx[lc->n_rx].port = e->port;
		lc->rx[lc->n_rx].queue = e->queue;
		lc->n_rx++;
		if (e->queue + 1 > nb_rxq[e->port])
			nb_rxq[e->port] = e->queue + 1;
	}
}

static void
setup_ports(unsigned int nb_workers)
{
	unsigned int nb_enabled = 0, nb_mbufs;
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port)
		if (opt_portmask & (1u << port))
			nb_enabled++;
	/* paired port: port ^ 1; a single port sends back out of itself */
	RTE_ETH_FOREACH_DEV(port) {
		uint16_t peer = port ^ 1;

		if (nb_enabled == 1)
			pair_port[port] = port;
		else if (peer < RTE_MAX_ETHPORTS &&
				rte_eth_dev_is_valid_port(peer) &&
				(opt_portmask & (1u << peer)))
			pair_port[port] = peer;
		else
			pair_port[port] = DST_NO_PORT;
	}

	nb_mbufs = nb_enabled * (MAX_RX_QUEUE_PER_LCORE * NB_RXD +
		nb_workers * NB_TXD) + rte_lcore_count() *
		(MAX_PKT_BURST + MBUF_CACHE);
	nb_mbufs = RTE_MAX(RTE_MIN(nb_mbufs, 65535u), 8192u);
	if (opt_mbufs != 0)
		nb_mbufs = opt_mbufs;
	pktmbuf_pool = rte_pktmbuf_pool_create("fc_mbufs", nb_mbufs,
		MBUF_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (pktmbuf_pool == NULL)
		rte_exit(EXIT_FAILURE, "cannot create the mbuf pool: %s\n",
			rte_strerror(rte_errno));

	RTE_ETH_FOREACH_DEV(port) {
		struct rte_eth_conf conf = { 0 };
		struct rte_eth_dev_info info;
		struct rte_eth_txconf txc;
		struct rte_eth_rxconf rxc;
		uint16_t nrxd = NB_RXD, ntxd = NB_TXD, q;
		char dst[48];
		int ret, socket;

		if (!(opt_portmask & (1u << port)))
			continue;
		ret = rte_eth_dev_info_get(port, &info);
		if (ret != 0)
			rte_exit(EXIT_FAILURE, "port %u: no device info: %s\n",
				port, strerror(-ret));
		if (nb_rxq[port] == 0)
			nb_rxq[port] = 1;   /* a TX-only port */
		nb_txq[port] = RTE_MIN((uint16_t)RTE_MAX(nb_workers, 1u),
			info.max_tx_queues);
		if (nb_rxq[port] > 1 && info.flow_type_rss_offloads != 0) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP &
				info.flow_type_rss_offloads;
		}
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
			conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		ret = rte_eth_dev_configure(port, nb_rxq[port], nb_txq[port],
			&conf);
		if (ret < 0)
			rte_exit(EXIT_FAILURE, "port %u: configure failed: "
				"%s\n", port, strerror(-ret));
		rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrxd, &ntxd);
		socket = rte_eth_dev_socket_id(port);
		if (socket < 0)
			socket = (int)rte_socket_id();
		rxc = info.default_rxconf;
		rxc.offloads = conf.rxmode.offloads;
		for (q = 0; q < nb_rxq[port]; q++) {
			ret = rte_eth_rx_queue_setup(port, q, nrxd,
				(unsigned int)socket, &rxc, pktmbuf_pool);
			if (ret < 0)
				rte_exit(EXIT_FAILURE, "port %u: RX queue %u: "
					"%s\n", port, q, strerror(-ret));
		}
		txc = info.default_txconf;
		txc.offloads = conf.txmode.offloads;
		for (q = 0; q < nb_txq[port]; q++) {
			ret = rte_eth_tx_queue_setup(port, q, ntxd,
				(unsigned int)socket, &txc);
			if (ret < 0)
				rte_exit(EXIT_FAILURE, "port %u: TX queue %u: "
					"%s\n", port, q, strerror(-ret));
			rte_spinlock_init(&txq_lock[port][q]);
		}
		if (opt_promisc) {
			ret = rte_eth_promiscuous_enable(port);
			if (ret != 0)
				printf("port %u: promiscuous mode: %s\n", port,
					strerror(-ret));
		}
		ret = rte_eth_dev_start(port);
		if (ret < 0)
			rte_exit(EXIT_FAILURE, "port %u: start failed: %s\n",
				port, strerror(-ret));
		if (lpm4 != NULL)
			snprintf(dst, sizeof(dst), "the routes");
		else if (pair_port[port] == DST_NO_PORT)
			snprintf(dst, sizeof(dst), "nowhere (no pair: drop)");
		else
			snprintf(dst, sizeof(dst), "port %u", pair_port[port]);
		printf("port %u: %s, %u RX / %u TX queues, sends to %s\n",
			port, info.driver_name, nb_rxq[port], nb_txq[port],
			dst);
	}

	/* TX: every worker gets a queue on every port; when a port has
	 * fewer queues than workers, lcores share queues under a lock */
	{
		unsigned int lcore, idx = 0;

		RTE_LCORE_FOREACH_WORKER(lcore) {
			struct lcore_conf *lc = &lcore_conf[lcore];
			struct lcore_stats *st = RTE_PCPU_LCORE(lcore, stats);

			if (lc->n_rx == 0)
				continue;
			RTE_ETH_FOREACH_DEV(port) {
				struct rte_eth_dev_tx_buffer *b;

				if (!(opt_portmask & (1u << port)))
					continue;
				b = rte_zmalloc_socket("fc_txbuf",
					RTE_ETH_TX_BUFFER_SIZE(MAX_PKT_BURST),
					0, rte_eth_dev_socket_id(port));
				if (b == NULL)
					rte_exit(EXIT_FAILURE, "no memory for "
						"TX buffers\n");
				rte_eth_tx_buffer_init(b, MAX_PKT_BURST);
				rte_eth_tx_buffer_set_err_callback(b,
					tx_drop_cb, &st->tx_drop[port]);
				lc->txb[port] = b;
				lc->txq[port] = (uint16_t)(idx % nb_txq[port]);
				lc->txlock[port] = nb_txq[port] < nb_workers ?
					&txq_lock[port][lc->txq[port]] : NULL;
			}
			idx++;
		}
	}
}

/* ---------------------------------------------------------------- stats */

struct totals {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_drop, no_route, no_port;
	uint64_t non_ip_pkts, non_ip_bytes, malformed_pkts, malformed_bytes;
	uint64_t overflow_pkts, overflow_bytes, flows_created;
};

static void
sum_stats(struct totals *t)
{
	const struct lcore_stats *st;
	unsigned int lcore;
	uint16_t p;

	memset(t, 0, sizeof(*t));
	RTE_PCPU_FOREACH(lcore, st, stats) {
		for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
			t->rx_pkts += counter_load(&st->rx_pkts[p]);
			t->rx_bytes += counter_load(&st->rx_bytes[p]);
			t->tx_pkts += counter_load(&st->tx_pkts[p]);
			t->tx_drop += counter_load(&st->tx_drop[p]);
			t->no_route += counter_load(&st->no_route[p]);
			t->no_port += counter_load(&st->no_port[p]);
		}
		t->non_ip_pkts += counter_load(&st->non_ip_pkts);
		t->non_ip_bytes += counter_load(&st->non_ip_bytes);
		t->malformed_pkts += counter_load(&st->malformed_pkts);
		t->malformed_bytes += counter_load(&st->malformed_bytes);
		t->overflow_pkts += counter_load(&st->fw.overflow_pkts);
		t->overflow_bytes += counter_load(&st->fw.overflow_bytes);
		t->flows_created += counter_load(&st->fw.flows_created);
	}
}

static uint64_t
lcore_rx(unsigned int lcore)
{
	const struct lcore_stats *st = RTE_PCPU_LCORE(lcore, stats);
	uint64_t n = 0;
	uint16_t p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		n += counter_load(&st->rx_pkts[p]);
	return n;
}

static void
format_flow(const struct flow_key *k, char *buf, size_t size)
{
	char s[FLOW_ADDR_STRLEN], d[FLOW_ADDR_STRLEN];

	flow_addr_format(k->family, k->src, s, sizeof(s));
	flow_addr_format(k->family, k->dst, d, sizeof(d));
	if (k->family == 4)
		snprintf(buf, size, "ipv4 %3u %s:%u > %s:%u", k->proto, s,
			k->sport, d, k->dport);
	else
		snprintf(buf, size, "ipv6 %3u [%s]:%u > [%s]:%u", k->proto, s,
			k->sport, d, k->dport);
}

static void
print_top(const struct flow_stat *v, unsigned int n, const char *what)
{
	unsigned int i;

	if (n == 0)
		return;
	printf("top %u flows by bytes (%s):\n", n, what);
	for (i = 0; i < n; i++) {
		char buf[160];

		format_flow(&v[i].key, buf, sizeof(buf));
		printf("  %-64s %10" PRIu64 " pkts %14" PRIu64 " bytes\n", buf,
			v[i].packets, v[i].bytes);
	}
}

static void
print_tables(double secs, double interval, bool final)
{
	static uint64_t prev_rx[RTE_MAX_LCORE];
	const struct lcore_stats *st;
	struct flow_table_info fi = { 0 };
	struct totals t;
	unsigned int lcore;
	uint16_t port;

	sum_stats(&t);
	if (ftable != NULL)
		flow_table_info(ftable, &fi);
	printf("\n=== flowcount %s %.3f s ===\n", final ? "summary after" :
		"at", secs);
	printf("%6s %14s %16s %10s %12s%s\n", "lcore", "rx-pkts", "rx-bytes",
		"flows-new", final ? "avg-Mpps" : "Mpps",
		final ? "  Mpps/cpu-s" : "");
	RTE_PCPU_FOREACH(lcore, st, stats) {
		uint64_t rx = lcore_rx(lcore), by = 0;
		uint16_t p;
		double rate;

		if (lcore_conf[lcore].n_rx == 0)
			continue;
		for (p = 0; p < RTE_MAX_ETHPORTS; p++)
			by += counter_load(&st->rx_bytes[p]);
		rate = final ? (secs > 0 ? rx / secs / 1e6 : 0) :
			(interval > 0 ? (rx - prev_rx[lcore]) / interval / 1e6 :
			 0);
		prev_rx[lcore] = rx;
		printf("%6u %14" PRIu64 " %16" PRIu64 " %10" PRIu64 " %12.3f",
			lcore, rx, by, counter_load(&st->fw.flows_created),
			rate);
		if (final && counter_load(&st->cpu_ns) > 0)
			printf(" %12.3f", rx * 1e3 /
				(double)counter_load(&st->cpu_ns));
		printf("\n");
	}
	printf("%6s %14s %14s %10s %10s %10s\n", "port", "rx-pkts",
		"tx-pkts", "tx-drop", "no-route", "no-port");
	for (port = 0; port < RTE_MIN(RTE_MAX_ETHPORTS, 32); port++) {
		uint64_t rx = 0, tx = 0, td = 0, nr = 0, np = 0;

		/* enabled ports (they may be closed already at exit) */
		if (!(opt_portmask & (1u << port)))
			continue;
		RTE_PCPU_FOREACH(lcore, st, stats) {
			rx += counter_load(&st->rx_pkts[port]);
			tx += counter_load(&st->tx_pkts[port]);
			td += counter_load(&st->tx_drop[port]);
			nr += counter_load(&st->no_route[port]);
			np += counter_load(&st->no_port[port]);
		}
		printf("%6u %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %10"
			PRIu64 " %10" PRIu64 "\n", port, rx, tx, td, nr, np);
	}
	printf("total: rx %" PRIu64 " pkts %" PRIu64 " bytes, tx %" PRIu64
		", drops %" PRIu64 " (tx %" PRIu64 ", no-route %" PRIu64
		", no-port %" PRIu64 ", non-ip %" PRIu64 ", malformed %" PRIu64
		")\n", t.rx_pkts, t.rx_bytes, t.tx_pkts,
		t.tx_drop + t.no_route + t.no_port + t.non_ip_pkts +
		t.malformed_pkts, t.tx_drop, t.no_route, t.no_port,
		t.non_ip_pkts, t.malformed_pkts);
	printf("buckets: non-ip %" PRIu64 " pkts %" PRIu64 " bytes, malformed %"
		PRIu64 " pkts %" PRIu64 " bytes, overflow %" PRIu64 " pkts %"
		PRIu64 " bytes\n", t.non_ip_pkts, t.non_ip_bytes,
		t.malformed_pkts, t.malformed_bytes, t.overflow_pkts,
		t.overflow_bytes);
	if (opt_no_count) {
		printf("flows: not counted (--no-count)\n");
		return;
	}
	printf("flows: live %" PRIu64 ", created %" PRIu64 ", aged %" PRIu64
		", waiting for RCU %" PRIu64 ", max %" PRIu64 "\n",
		fi.live, t.flows_created, fi.aged, fi.pending,
		fi.max_flows);
	if (!final && opt_top > 0) {
		struct flow_stat top[MAX_TOP];
		unsigned int n;

		n = flow_table_top(ftable, top, opt_top, rte_lcore_id());
		print_top(top, n, "live");
	}
}

/* ------------------------------------------------------------ telemetry */

static void
tel_add_flow(struct rte_tel_data *d, const struct flow_stat *s)
{
	char a[FLOW_ADDR_STRLEN];

	rte_tel_data_add_dict_string(d, "family",
		s->key.family == 4 ? "ipv4" : "ipv6");
	rte_tel_data_add_dict_u64(d, "proto", s->key.proto);
	rte_tel_data_add_dict_string(d, "src",
		flow_addr_format(s->key.family, s->key.src, a, sizeof(a)));
	rte_tel_data_add_dict_string(d, "dst",
		flow_addr_format(s->key.family, s->key.dst, a, sizeof(a)));
	rte_tel_data_add_dict_u64(d, "sport", s->key.sport);
	rte_tel_data_add_dict_u64(d, "dport", s->key.dport);
	rte_tel_data_add_dict_u64(d, "packets", s->packets);
	rte_tel_data_add_dict_u64(d, "bytes", s->bytes);
}

static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	const struct lcore_stats *st;
	struct flow_table_info fi = { 0 };
	struct totals t;
	unsigned int lcore;
	uint16_t port;

	pthread_mutex_lock(&tel_lock);
	if (!tel_ready) {
		pthread_mutex_unlock(&tel_lock);
		return -EAGAIN;
	}
	sum_stats(&t);
	if (ftable != NULL)
		flow_table_info(ftable, &fi);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "uptime_ms",
		(rte_rdtsc() - start_tsc) * 1000 / rte_get_tsc_hz());
	rte_tel_data_add_dict_u64(d, "rx_pkts", t.rx_pkts);
	rte_tel_data_add_dict_u64(d, "rx_bytes", t.rx_bytes);
	rte_tel_data_add_dict_u64(d, "tx_pkts", t.tx_pkts);
	rte_tel_data_add_dict_u64(d, "tx_drop", t.tx_drop);
	rte_tel_data_add_dict_u64(d, "no_route", t.no_route);
	rte_tel_data_add_dict_u64(d, "no_port", t.no_port);
	rte_tel_data_add_dict_u64(d, "non_ip_pkts", t.non_ip_pkts);
	rte_tel_data_add_dict_u64(d, "non_ip_bytes", t.non_ip_bytes);
	rte_tel_data_add_dict_u64(d, "malformed_pkts", t.malformed_pkts);
	rte_tel_data_add_dict_u64(d, "malformed_bytes", t.malformed_bytes);
	rte_tel_data_add_dict_u64(d, "overflow_pkts", t.overflow_pkts);
	rte_tel_data_add_dict_u64(d, "overflow_bytes", t.overflow_bytes);
	rte_tel_data_add_dict_u64(d, "counting", !opt_no_count);
	rte_tel_data_add_dict_u64(d, "flows_live", fi.live);
	rte_tel_data_add_dict_u64(d, "flows_created", t.flows_created);
	rte_tel_data_add_dict_u64(d, "flows_aged", fi.aged);
	rte_tel_data_add_dict_u64(d, "flows_rcu_pending", fi.pending);
	rte_tel_data_add_dict_u64(d, "max_flows", fi.max_flows);
	RTE_PCPU_FOREACH(lcore, st, stats) {
		struct rte_tel_data *c;
		char name[32];
		uint64_t by = 0;

		if (lcore_conf[lcore].n_rx == 0)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		for (port = 0; port < RTE_MAX_ETHPORTS; port++)
			by += counter_load(&st->rx_bytes[port]);
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "rx_pkts", lcore_rx(lcore));
		rte_tel_data_add_dict_u64(c, "rx_bytes", by);
		rte_tel_data_add_dict_u64(c, "flows_created",
			counter_load(&st->fw.flows_created));
		snprintf(name, sizeof(name), "lcore_%u", lcore);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	RTE_ETH_FOREACH_DEV(port) {
		struct rte_tel_data *c;
		uint64_t v[5] = { 0 };
		char name[32];

		if (!(opt_portmask & (1u << port)))
			continue;
		RTE_PCPU_FOREACH(lcore, st, stats) {
			v[0] += counter_load(&st->rx_pkts[port]);
			v[1] += counter_load(&st->tx_pkts[port]);
			v[2] += counter_load(&st->tx_drop[port]);
			v[3] += counter_load(&st->no_route[port]);
			v[4] += counter_load(&st->no_port[port]);
		}
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "rx_pkts", v[0]);
		rte_tel_data_add_dict_u64(c, "tx_pkts", v[1]);
		rte_tel_data_add_dict_u64(c, "tx_drop", v[2]);
		rte_tel_data_add_dict_u64(c, "no_route", v[3]);
		rte_tel_data_add_dict_u64(c, "no_port", v[4]);
		snprintf(name, sizeof(name), "port_%u", port);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

static int
tel_flows(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct flow_stat top[TEL_MAX_FLOWS];
	unsigned int n = opt_top ? opt_top : 10, i, cnt;

	if (params != NULL && *params != '\0') {
		char *end;
		unsigned long v = strtoul(params, &end, 10);

		if (*end != '\0' || v == 0)
			return -EINVAL;
		n = (unsigned int)v;
	}
	n = RTE_MIN(n, (unsigned int)TEL_MAX_FLOWS);
	pthread_mutex_lock(&tel_lock);
	if (!tel_ready || ftable == NULL) {
		pthread_mutex_unlock(&tel_lock);
		return -EAGAIN;
	}
	cnt = flow_table_top(ftable, top, n, RCU_TEL_ID);
	pthread_mutex_unlock(&tel_lock);
	/* 22.11 arrays hold only array containers: a dict of flow_1..N */
	rte_tel_data_start_dict(d);
	for (i = 0; i < cnt; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[32];

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		tel_add_flow(c, &top[i]);
		snprintf(name, sizeof(name), "flow_%u", i + 1);
		if (rte_tel_data_add_dict_container(d, name, c, 0) != 0) {
			rte_tel_data_free(c);
			break;
		}
	}
	return 0;
}

/* ------------------------------------------------------------- the dump */

static int
write_dump(const char *path, const struct flow_stat *v, int n,
		const struct totals *t, const struct flow_table_info *fi)
{
	char row[FLOW_CSV_ROW_MAX];
	FILE *f = fopen(path, "w");
	int i;

	if (f == NULL) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prgname, path,
			strerror(errno));
		return -1;
	}
	fprintf(f, "%s\n", FLOW_CSV_HEADER);
	for (i = 0; i < n; i++) {
		flow_csv_row(&v[i].key, v[i].packets, v[i].bytes, row,
			sizeof(row));
		fputs(row, f);
	}
	if (t->non_ip_pkts) {
		flow_csv_special_row("non-ip", t->non_ip_pkts, t->non_ip_bytes,
			row, sizeof(row));
		fputs(row, f);
	}
	if (t->malformed_pkts) {
		flow_csv_special_row("malformed", t->malformed_pkts,
			t->malformed_bytes, row, sizeof(row));
		fputs(row, f);
	}
	if (t->overflow_pkts || fi->totals_overflow_pkts) {
		flow_csv_special_row("overflow",
			t->overflow_pkts + fi->totals_overflow_pkts,
			t->overflow_bytes + fi->totals_overflow_bytes,
			row, sizeof(row));
		fputs(row, f);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "%s: error writing %s\n", prgname, path);
		return -1;
	}
	printf("flow dump: %d flows written to %s\n", n, path);
	return 0;
}

/* ---------------------------------------------------------------- main */

static void
signal_handler(int signum)
{
	quit_signal = signum;
	force_quit = true;
}

int
main(int argc, char **argv)
{
	unsigned int lcore, nb_workers = 0;
	uint64_t hz, now, last_stats, last_age, age_period = 0;
	uint64_t stats_tsc, idle_tsc, timeout_tsc;
	uint16_t port;
	size_t sz;
	int ret, exit_code = EXIT_SUCCESS;

	prgname = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	/* the table is read by people and scripts as it comes */
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, signal_handler);
	signal(SIGTERM, signal_handler);
	rte_set_application_usage_hook(usage_hook);

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t)prgname;
	parse_args(argc, argv);

	if (rte_eth_dev_count_avail() == 0)
		bad_option("no Ethernet ports: give a NIC or a --vdev "
			"(e.g. net_pcap0,rx_pcap=FILE)");
	if (!opt_portmask_set)
		RTE_ETH_FOREACH_DEV(port)
			opt_portmask |= 1u << port;
	for (port = 0; port < 32 && port < RTE_MAX_ETHPORTS; port++)
		if ((opt_portmask & (1u << port)) &&
				!rte_eth_dev_is_valid_port(port))
			bad_option("-p: port %u does not exist (%u ports)",
				port, rte_eth_dev_count_avail());
	if (opt_route_file != NULL)
		load_routes(opt_route_file);
	if (opt_nb_config == 0)
		default_config();
	check_config();
	RTE_LCORE_FOREACH_WORKER(lcore)
		if (lcore_conf[lcore].n_rx > 0)
			nb_workers++;
	if (nb_workers == 0)
		bad_option("no worker lcore has an RX queue: give at least two "
			"lcores (EAL -l 0-1) and check --config");

	/* percpu statistics: every lcore has its own copy */
	if (RTE_PCPU_ALLOC(stats) == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate percpu statistics: "
			"%s\n", rte_strerror(rte_errno));

	sz = rte_rcu_qsbr_get_memsize(RCU_NB_IDS);
	qsbr = rte_zmalloc("fc_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (qsbr == NULL || rte_rcu_qsbr_init(qsbr, RCU_NB_IDS) != 0)
		rte_exit(EXIT_FAILURE, "cannot set up RCU\n");
	rte_rcu_qsbr_thread_register(qsbr, rte_get_main_lcore());
	rte_rcu_qsbr_thread_register(qsbr, RCU_TEL_ID);

	if (!opt_no_count) {
		struct flow_table_conf fc = {
			.max_flows = opt_max_flows,
			/* distinct keys kept for the dump (aged + live) */
			.max_totals = RTE_MIN(RTE_MAX(opt_max_flows * 2u,
				1u << 16), 1u << 21),
			.qsbr = qsbr,
			.socket_id = (int)rte_socket_id(),
			.lookup_only = opt_lookup_only,
		};

		ftable = flow_table_create(&fc);
		if (ftable == NULL)
			rte_exit(EXIT_FAILURE, "cannot create the flow table: "
				"%s\n", rte_strerror(rte_errno));
	}
	setup_ports(nb_workers);

	rte_telemetry_register_cmd("/flowcount/stats", tel_stats,
		"Packet, drop and flow counters. No parameters.");
	rte_telemetry_register_cmd("/flowcount/flows", tel_flows,
		"Top live flows by bytes, as flow_1..flow_N. Parameter: N.");
	pthread_mutex_lock(&tel_lock);
	tel_ready = true;
	pthread_mutex_unlock(&tel_lock);

	printf("flowcount: %u worker lcore(s), counting %s, max flows %u, "
		"flow timeout %" PRIu64 " ms\n", nb_workers,
		opt_no_count ? "off" : opt_lookup_only ?
		"lookup only (counters not updated)" : "on", opt_max_flows,
		opt_flow_timeout_ms);
	start_tsc = rte_rdtsc();
	RTE_LCORE_FOREACH_WORKER(lcore)
		if (lcore_conf[lcore].n_rx > 0)
			rte_eal_remote_launch(worker_main, NULL, lcore);

	hz = rte_get_tsc_hz();
	stats_tsc = opt_stats_ms * hz / 1000;
	idle_tsc = opt_idle_ms * hz / 1000;
	timeout_tsc = opt_flow_timeout_ms * hz / 1000;
	if (timeout_tsc != 0)
		age_period = RTE_MAX(RTE_MIN(timeout_tsc / 4, hz), hz / 1000);
	last_stats = last_age = start_tsc;
	while (!force_quit) {
		rte_delay_us_sleep(1000);
		now = rte_rdtsc();
		if (ftable != NULL) {
			if (timeout_tsc != 0 && now - last_age >= age_period) {
				flow_table_age(ftable, now, timeout_tsc,
					rte_get_main_lcore());
				last_age = now;
			} else {
				flow_table_reclaim(ftable);
			}
		}
		if (stats_tsc != 0 && now - last_stats >= stats_tsc) {
			print_tables((double)(now - start_tsc) / hz,
				(double)(now - last_stats) / hz, false);
			last_stats = now;
			fflush(stdout);
		}
		if (idle_tsc != 0) {
			uint64_t latest = start_tsc;

			RTE_LCORE_FOREACH_WORKER(lcore) {
				uint64_t t;

				if (lcore_conf[lcore].n_rx == 0)
					continue;
				t = counter_load(&RTE_PCPU_LCORE(lcore,
					stats)->last_rx_tsc);
				if (t > latest)
					latest = t;
			}
			if (now > latest && now - latest >= idle_tsc) {
				printf("\nevery RX queue idle for %" PRIu64
					" ms: stopping\n", opt_idle_ms);
				break;
			}
		}
	}
	if (quit_signal != 0)
		printf("\nsignal %d received: stopping\n", quit_signal);
	force_quit = true;
	rte_eal_mp_wait_lcore();
	now = rte_rdtsc();

	/* telemetry must not read what is freed from here on */
	pthread_mutex_lock(&tel_lock);
	tel_ready = false;
	pthread_mutex_unlock(&tel_lock);

	RTE_ETH_FOREACH_DEV(port) {
		if (!(opt_portmask & (1u << port)))
			continue;
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}

	print_tables((double)(now - start_tsc) / hz, 0, true);
	if (ftable != NULL) {
		struct flow_table_info fi;
		struct flow_stat *v = NULL;
		struct totals t;
		int n;

		flow_table_finish(ftable);
		flow_table_info(ftable, &fi);
		sum_stats(&t);
		n = flow_table_totals(ftable, &v);
		if (n < 0) {
			fprintf(stderr, "%s: no memory for the dump\n",
				prgname);
			exit_code = EXIT_FAILURE;
		} else {
			printf("flows: %d distinct flows counted", n);
			if (fi.totals_overflow_pkts)
				printf(" (%" PRIu64 " pkts of aged flows not "
					"kept: totals full)",
					fi.totals_overflow_pkts);
			printf("\n");
			if (opt_top > 0 && n > 0) {
				struct flow_stat top[MAX_TOP];
				unsigned int cnt = 0, k, j;

				for (j = 0; j < (unsigned int)n; j++) {
					/* insertion into a small sorted set */
					if (cnt == opt_top &&
						v[j].bytes <= top[cnt - 1].bytes)
						continue;
					k = cnt < opt_top ? cnt++ : cnt - 1;
					while (k > 0 &&
						top[k - 1].bytes < v[j].bytes) {
						top[k] = top[k - 1];
						k--;
					}
					top[k] = v[j];
				}
				print_top(top, cnt, "all, aged included");
			}
			if (opt_dump_file != NULL &&
					write_dump(opt_dump_file, v, n, &t,
						&fi) != 0)
				exit_code = EXIT_FAILURE;
		}
		free(v);
		flow_table_free(ftable);
		ftable = NULL;
	}
	fflush(stdout);

	rte_pcpu_free(stats);
	rte_free(qsbr);
	rte_lpm_free(lpm4);
	rte_lpm6_free(lpm6);
	rte_mempool_free(pktmbuf_pool);
	rte_pcpu_cleanup();
	rte_eal_cleanup();
	return exit_code;
}
