/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * dpdk-flowcount: an l3fwd-style forwarder that counts the packets and
 * bytes of every flow in percpu counters. This file holds the options, the
 * ports and mbuf pools, the launch of the workers (fc_worker.c) and the
 * main lcore's loop: aging, periodic reports (fc_report.c), signals, and
 * the final summary and dump.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#include <rte_pcpu.h>

#include "fc_monitor.h"
#include "fc_report.h"
#include "fc_route.h"
#include "flow_table.h"
#include "flowcount.h"

#define FC_MAX_CONFIG (FC_MAX_PORTS * FC_MAX_RX_QUEUE_PER_LCORE)
#define FC_RX_DESC_DEFAULT 1024
#define FC_TX_DESC_DEFAULT 1024
#define FC_MEMPOOL_CACHE 256
#define FC_FLOW_CACHE_MAX (1u << 22)
#define FC_MAX_JUMBO_PKT_LEN 9600

struct fc_options fc_opt = {
	.numa = true,
	.nb_rxd = FC_RX_DESC_DEFAULT,
	.nb_txd = FC_TX_DESC_DEFAULT,
	.max_flows = 65536,
	.flow_timeout_ms = 30000,
	.stats_ms = 1000,
	.top = 5,
	.flow_cache = UINT32_MAX,   /* from --max-flows */
	.counters = FLOW_COUNTERS_PCPU,
};
volatile bool fc_force_quit;
volatile bool fc_worker_failed;
struct fc_lcore_conf fc_lcore_conf[RTE_MAX_LCORE];
RTE_PCPU_HANDLE(struct fc_lcore_stats, fc_stats);
struct flow_table *fc_ftable;
struct rte_rcu_qsbr *fc_qsbr;
uint64_t fc_start_tsc;
const char *fc_prgname = FC_APP;
struct fc_eth_rewrite fc_eth[FC_MAX_PORTS];
uint16_t fc_pair_port[FC_MAX_PORTS];

struct fc_config_entry {
	uint16_t port;
	uint16_t queue;
	unsigned int lcore;
};

static struct fc_config_entry fc_config[FC_MAX_CONFIG];
static unsigned int fc_nb_config;
static bool fc_eth_dest_set[FC_MAX_PORTS];
static uint16_t fc_nb_rxq[FC_MAX_PORTS];
static uint16_t fc_nb_txq[FC_MAX_PORTS];
static rte_spinlock_t fc_txq_lock[FC_MAX_PORTS][RTE_MAX_LCORE];
static struct rte_mempool *fc_pools[FC_MAX_PORTS][FC_NB_SOCKETS];
static FILE *fc_stats_out;
static volatile int fc_quit_signal;
static volatile bool fc_dump_request;

/* ---------------------------------------------------------------- usage */

static void
fc_usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [-p PORTMASK] [-P]\n"
		"    [--config (port,queue,lcore)[,(port,queue,lcore)...]]\n"
		"    [--rule_ipv4 FILE] [--rule_ipv6 FILE] [--eth-dest PORT,MAC]\n"
		"    [--max-pkt-len LEN] [--rx-queue-size N] [--tx-queue-size N]\n"
		"    [--parse-ptype] [--no-numa] [--per-port-pool]\n"
		"    [--max-flows N] [--flow-timeout MS] [--counters SCHEME]\n"
		"    [--stats-interval MS] [--stats-format table|json]\n"
		"    [--stats-file FILE] [--top N] [--flow-dump FILE|-]\n"
		"    [--exit-on-idle MS] [--no-count] [--lookup-only]\n"
		"    [--count-floor] [--flow-cache N] [--pipeline] [--mbufs N]\n"
		"    [--help]\n"
		"       %s --file-prefix PREFIX [-l LCORE] --no-pci\n"
		"    -- --monitor [--monitor-count N] [--stats-interval MS]\n"
		"    [--stats-format table|json] [--stats-file FILE] [--top N]\n"
		"    [--flow-dump FILE|-]\n"
		"\n"
		"Forwards IPv4/IPv6 packets as l3fwd does (LPM routes, MAC rewrite,\n"
		"TTL/hop limit) and counts the packets and bytes of every flow (outer\n"
		"5-tuple, one direction) in per-lcore copies of percpu counters.\n"
		"\n"
		"l3fwd's options, with l3fwd's meanings:\n"
		"  -p PORTMASK           hexadecimal mask of ports to use (default: all)\n"
		"  -P                    promiscuous mode on every port\n"
		"  --config LIST         (port,queue,lcore): which worker lcore polls\n"
		"                        which RX queue (the main lcore cannot: it does\n"
		"                        the control work). Default: every RX queue of\n"
		"                        every enabled port, spread round robin over the\n"
		"                        worker lcores (a worker may poll several); a\n"
		"                        port has the queues its driver was created with\n"
		"                        (net_pcap: one per rx_pcap), else one per worker\n"
		"                        up to the device's maximum\n"
		"  --rule_ipv4 FILE      IPv4 routes, l3fwd's LPM syntax: lines\n"
		"                        'R<prefix>/<depth> <port>', '#' comment lines;\n"
		"                        depth 0 (0.0.0.0/0) is the default route\n"
		"  --rule_ipv6 FILE      IPv6 routes, the same ('R::/0 <port>' default)\n"
		"                        Without rule files, each port sends to its pair\n"
		"                        (port ^ 1); a port whose pair is not enabled\n"
		"                        (a single port) forwards nothing. Packets\n"
		"                        without a route are dropped (no-route).\n"
		"  --eth-dest PORT,MAC   destination MAC of packets sent on PORT\n"
		"                        (default 02:00:00:00:00:<port>); PORT must\n"
		"                        exist and be enabled (-p)\n"
		"  --max-pkt-len LEN     largest frame, 64 to %u (sets the MTU)\n"
		"  --rx-queue-size N     RX descriptors per queue (default %u)\n"
		"  --tx-queue-size N     TX descriptors per queue (default %u)\n"
		"  --parse-ptype         accepted: frames are always classified in\n"
		"                        software, by the flow-key parser\n"
		"  --no-numa             all memory on socket 0\n"
		"  --per-port-pool       one mbuf pool per port (and socket)\n"
		"\n"
		"Flow counting:\n"
		"  --max-flows N         flows tracked at once (default 65536); packets\n"
		"                        of further flows go to the overflow bucket\n"
		"  --flow-timeout MS     remove flows idle this long (default 30000,\n"
		"                        0 = never); their counts are kept for the dump\n"
		"                        (up to 2 x max-flows distinct flows, at least\n"
		"                        65536, at most 2097152; beyond, in overflow)\n"
		"  --counters SCHEME     where per-flow counters live: pcpu (percpu\n"
		"                        objects of an rte_pcpu_mempool, the default),\n"
		"                        mempool (the same percpu objects from a stock\n"
		"                        rte_mempool with \"pcpu\" ops), atomic (one shared\n"
		"                        block per flow, atomic adds) or array (per-lcore\n"
		"                        arrays indexed by flow); for speed comparison\n"
		"  --stats-interval MS   report the statistics every MS (default 1000,\n"
		"                        0 = only the final summary)\n"
		"  --stats-format FMT    table (default) or json: one JSON object per\n"
		"                        line, per interval and for the summary\n"
		"  --stats-file FILE     write the statistics there (default stdout)\n"
		"  --top N               flows listed by bytes (default 5, at most %u)\n"
		"  --flow-dump FILE      write every flow's counts as CSV at exit and on\n"
		"                        SIGUSR1 ('-': stdout); checked before starting\n"
		"  --exit-on-idle MS     stop once every RX queue was empty for MS\n"
		"                        (for capture input; default 0 = never)\n"
		"  --no-count            forward without counting flows (speed baseline;\n"
		"                        not with the flow table's options)\n"
		"  --lookup-only         speed test: look flows up and insert them but\n"
		"                        never update their counters (not with\n"
		"                        --flow-dump)\n"
		"  --count-floor         speed test: no flow lookup (the table stays\n"
		"                        empty); each packet is added to the flow\n"
		"                        cache set its key hashes to (default one\n"
		"                        set per --max-flows): what counting costs\n"
		"                        at least (not with --flow-dump,\n"
		"                        --lookup-only, --counters, --flow-cache 0)\n"
		"  --flow-cache N        entries of each worker's flow cache in front\n"
		"                        of the flow table (16 bytes each, 4-way sets;\n"
		"                        0 = off, or a power of two, 16 to %u; default\n"
		"                        twice --max-flows rounded up, within the\n"
		"                        bounds; --count-floor: 4 per flow)\n"
		"  --pipeline            a full burst waits for the next burst's RX\n"
		"                        and parse before its flow lookup goes on (its\n"
		"                        prefetches get that time); with an input whose\n"
		"                        RX call blocks (a FIFO), it waits as long;\n"
		"                        counting only\n"
		"  --mbufs N             mbufs in each packet pool (default as l3fwd,\n"
		"                        from the queue sizes, at least 8192); net_pcap\n"
		"                        with infinite_rx=1 keeps the file in mbufs\n"
		"  --help                this text\n"
		"\n"
		"Monitor (a DPDK secondary process of a running dpdk-flowcount, whose\n"
		"hugepage EAL it needs: give its --file-prefix):\n"
		"  --monitor             print its statistics and top flows every\n"
		"                        --stats-interval (default 1000 ms) from its\n"
		"                        percpu counters, without a lock, RCU or a\n"
		"                        message to it; --flow-dump writes its flows\n"
		"                        as the monitor ends (the primary's own dump,\n"
		"                        once its traffic stopped)\n"
		"  --monitor-count N     end after N reports (default 0: when the\n"
		"                        primary stops, or on SIGINT/SIGTERM)\n"
		"\n"
		"Signals: SIGINT, SIGTERM, SIGHUP stop (summary, then the dump);\n"
		"SIGUSR1 prints the table and writes the dump now, and runs on.\n"
		"Telemetry: /flowcount/stats, /flowcount/flows[,N[,live|aged|all]].\n"
		"Example: %s -l 0-1 --no-huge -m 512 --no-pci \\\n"
		"    --vdev net_pcap0,rx_pcap=demo.pcap -- --exit-on-idle 200 \\\n"
		"    --flow-dump flows.csv\n",
		prog, prog, FC_MAX_JUMBO_PKT_LEN, FC_RX_DESC_DEFAULT,
		FC_TX_DESC_DEFAULT, FC_MAX_TOP, FC_FLOW_CACHE_MAX, prog);
}

static void
fc_usage_hook(const char *prog)
{
	printf("\nApplication options (after --):\n");
	fc_usage(prog);
}

/* EAL is initialised (a monitor's options are checked once before). */
static bool fc_eal_up;

/* After the line that named a bad option, file or setting: the hint to
 * --help, exit status 1. */
static void __rte_noreturn
fc_fail_hint(void)
{
	fprintf(stderr, "Try '%s [EAL options] -- --help'.\n", fc_prgname);
	if (fc_eal_up)
		rte_eal_cleanup();
	exit(EXIT_FAILURE);
}

/* A bad option, file or setting: one message, exit status 1. */
static void __rte_noreturn __rte_format_printf(1, 2)
fc_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", fc_prgname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fc_fail_hint();
}

/* ------------------------------------------------------------- options */

static uint64_t
fc_parse_u64(const char *name, const char *s, uint64_t min, uint64_t max,
		int base)
{
	uint64_t v;
	char *end;

	if (s == NULL || fc_strtou64(s, &end, base, &v) != 0 || *end != '\0') {
		if (s != NULL && errno == ERANGE)
			fc_fail("%s: %s is not within %" PRIu64 " to %" PRIu64,
				name, s, min, max);
		fc_fail("%s: '%s' is not a non-negative number", name,
			s != NULL ? s : "");
	}
	if (v < min || v > max)
		fc_fail("%s: %s is not within %" PRIu64 " to %" PRIu64, name,
			s, min, max);
	return v;
}

static void
fc_parse_config(const char *s)
{
	const char *p = s;

	fc_nb_config = 0;
	while (*p != '\0') {
		uint64_t v[3];
		char *end;
		int i;

		while (*p == ' ')
			p++;
		if (*p != '(')
			fc_fail("--config: expected '(' at '%s'", p);
		p++;
		for (i = 0; i < 3; i++) {
			while (isspace((unsigned char)*p))
				p++;
			if (fc_strtou64(p, &end, 0, &v[i]) != 0)
				fc_fail("--config: bad number at '%s'", p);
			/* "08": a leading 0 is octal, as l3fwd reads it */
			if (isdigit((unsigned char)*end))
				fc_fail("--config: bad number at '%s' (a leading "
					"0 means octal)", p);
			p = end;
			while (isspace((unsigned char)*p))
				p++;
			if (*p != (i < 2 ? ',' : ')'))
				fc_fail("--config: expected '%c' at '%s'",
					i < 2 ? ',' : ')', p);
			p++;
		}
		if (v[0] >= FC_MAX_PORTS || v[1] >= RTE_MAX_QUEUES_PER_PORT ||
				v[2] >= RTE_MAX_LCORE)
			fc_fail("--config: (%" PRIu64 ",%" PRIu64 ",%" PRIu64
				") out of range", v[0], v[1], v[2]);
		if (fc_nb_config == FC_MAX_CONFIG)
			fc_fail("--config: more than %u entries",
				FC_MAX_CONFIG);
		fc_config[fc_nb_config].port = (uint16_t)v[0];
		fc_config[fc_nb_config].queue = (uint16_t)v[1];
		fc_config[fc_nb_config].lcore = (unsigned int)v[2];
		fc_nb_config++;
		while (*p == ' ')
			p++;
		if (*p == ',') {
			p++;
			while (*p == ' ')
				p++;
			if (*p == '\0')
				fc_fail("--config: nothing after the last ','");
		} else if (*p != '\0') {
			fc_fail("--config: unexpected '%s'", p);
		}
	}
	if (fc_nb_config == 0)
		fc_fail("--config: empty");
}

/*
 * rte_eal_init() failed: say why in one line and exit 1. It leaves
 * rte_errno at 0 on some failures, a secondary process finding no
 * primary among them, so that case is told apart by asking whether a
 * primary holds the runtime directory's config file (the runtime
 * directory, which ends in the --file-prefix, is known by then). No
 * rte_eal_cleanup(): there is nothing set up to clean.
 */
static void
fc_eal_init_failed(void)
{
	int err = rte_errno;
	const char *dir = rte_eal_get_runtime_dir();
	const char *prefix = strrchr(dir, '/') != NULL ? strrchr(dir, '/') + 1 :
		dir;

	if (rte_eal_process_type() == RTE_PROC_SECONDARY) {
		if (!rte_eal_primary_proc_alive(NULL))
			fprintf(stderr, "%s: no primary process running with "
				"file prefix '%s' (start dpdk-flowcount with "
				"hugepages and this --file-prefix first)\n",
				fc_prgname, prefix);
		else
			fprintf(stderr, "%s: cannot attach to the primary "
				"process with file prefix '%s': %s (it needs "
				"hugepages, without --huge-unlink)\n",
				fc_prgname, prefix, err != 0 ? rte_strerror(err) :
				"see the EAL messages above");
	} else {
		fprintf(stderr, "%s: EAL initialisation failed: %s\n",
			fc_prgname, err != 0 ? rte_strerror(err) :
			"see the EAL messages above");
	}
	exit(EXIT_FAILURE);
}

/* --eth-dest PORT,MAC */
static void
fc_parse_eth_dest(const char *s)
{
	struct rte_ether_addr mac;
	uint64_t port;
	char *end;

	if (fc_strtou64(s, &end, 10, &port) != 0 || *end != ',')
		fc_fail("--eth-dest: expected PORT,MAC, got '%s'", s);
	if (port >= FC_MAX_PORTS)
		fc_fail("--eth-dest: port %" PRIu64 " is not below %u", port,
			FC_MAX_PORTS);
	if (rte_ether_unformat_addr(end + 1, &mac) != 0)
		fc_fail("--eth-dest: '%s' is not a MAC address", end + 1);
	fc_eth[port].dst = mac;
	fc_eth_dest_set[port] = true;
}

enum {
	FC_OPT_CONFIG = 256,
	FC_OPT_RULE_IPV4,
	FC_OPT_RULE_IPV6,
	FC_OPT_ETH_DEST,
	FC_OPT_MAX_PKT_LEN,
	FC_OPT_RX_QUEUE_SIZE,
	FC_OPT_TX_QUEUE_SIZE,
	FC_OPT_PARSE_PTYPE,
	FC_OPT_NO_NUMA,
	FC_OPT_PER_PORT_POOL,
	FC_OPT_MAX_FLOWS,
	FC_OPT_FLOW_TIMEOUT,
	FC_OPT_COUNTERS,
	FC_OPT_STATS_INTERVAL,
	FC_OPT_STATS_FORMAT,
	FC_OPT_STATS_FILE,
	FC_OPT_TOP,
	FC_OPT_FLOW_DUMP,
	FC_OPT_EXIT_ON_IDLE,
	FC_OPT_NO_COUNT,
	FC_OPT_LOOKUP_ONLY,
	FC_OPT_COUNT_FLOOR,
	FC_OPT_PIPELINE,
	FC_OPT_MBUFS,
	FC_OPT_FLOW_CACHE,
	FC_OPT_MONITOR,
	FC_OPT_MONITOR_COUNT,
	FC_OPT_HELP,
};

static void
fc_parse_args(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "config", required_argument, NULL, FC_OPT_CONFIG },
		{ "rule_ipv4", required_argument, NULL, FC_OPT_RULE_IPV4 },
		{ "rule_ipv6", required_argument, NULL, FC_OPT_RULE_IPV6 },
		{ "eth-dest", required_argument, NULL, FC_OPT_ETH_DEST },
		{ "max-pkt-len", required_argument, NULL, FC_OPT_MAX_PKT_LEN },
		{ "rx-queue-size", required_argument, NULL,
			FC_OPT_RX_QUEUE_SIZE },
		{ "tx-queue-size", required_argument, NULL,
			FC_OPT_TX_QUEUE_SIZE },
		{ "parse-ptype", no_argument, NULL, FC_OPT_PARSE_PTYPE },
		{ "no-numa", no_argument, NULL, FC_OPT_NO_NUMA },
		{ "per-port-pool", no_argument, NULL, FC_OPT_PER_PORT_POOL },
		{ "max-flows", required_argument, NULL, FC_OPT_MAX_FLOWS },
		{ "flow-timeout", required_argument, NULL, FC_OPT_FLOW_TIMEOUT },
		{ "counters", required_argument, NULL, FC_OPT_COUNTERS },
		{ "stats-interval", required_argument, NULL,
			FC_OPT_STATS_INTERVAL },
		{ "stats-format", required_argument, NULL,
			FC_OPT_STATS_FORMAT },
		{ "stats-file", required_argument, NULL, FC_OPT_STATS_FILE },
		{ "top", required_argument, NULL, FC_OPT_TOP },
		{ "flow-dump", required_argument, NULL, FC_OPT_FLOW_DUMP },
		{ "exit-on-idle", required_argument, NULL, FC_OPT_EXIT_ON_IDLE },
		{ "no-count", no_argument, NULL, FC_OPT_NO_COUNT },
		{ "lookup-only", no_argument, NULL, FC_OPT_LOOKUP_ONLY },
		{ "count-floor", no_argument, NULL, FC_OPT_COUNT_FLOOR },
		{ "pipeline", no_argument, NULL, FC_OPT_PIPELINE },
		{ "mbufs", required_argument, NULL, FC_OPT_MBUFS },
		{ "flow-cache", required_argument, NULL, FC_OPT_FLOW_CACHE },
		{ "monitor", no_argument, NULL, FC_OPT_MONITOR },
		{ "monitor-count", required_argument, NULL,
			FC_OPT_MONITOR_COUNT },
		{ "help", no_argument, NULL, FC_OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	/* the last option given that only the flow table reads */
	const char *table_opt = NULL;
	bool counters_set = false;
	bool monitor_count_set = false;
	const char *forwarding_opt = NULL; /* the first one a monitor lacks */
	int c, s, li;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:Ph", lopts, &li)) != -1) {
		switch (c) {
		case FC_OPT_MONITOR: case FC_OPT_MONITOR_COUNT:
		case FC_OPT_STATS_INTERVAL: case FC_OPT_STATS_FORMAT:
		case FC_OPT_STATS_FILE: case FC_OPT_TOP: case FC_OPT_FLOW_DUMP:
		case 'h': case ':': case '?':
			break;
		case 'p':
			forwarding_opt = forwarding_opt ? forwarding_opt : "-p";
			break;
		case 'P':
			forwarding_opt = forwarding_opt ? forwarding_opt : "-P";
			break;
		default:
			if (forwarding_opt == NULL)
				forwarding_opt = lopts[li].name;
		}
		switch (c) {
		case 'p':
			fc_opt.portmask = (uint32_t)fc_parse_u64("-p", optarg,
				1, FC_MAX_PORTS >= 32 ? UINT32_MAX :
				(1u << FC_MAX_PORTS) - 1, 16);
			fc_opt.portmask_set = true;
			break;
		case 'P':
			fc_opt.promisc = true;
			break;
		case FC_OPT_CONFIG:
			fc_parse_config(optarg);
			break;
		case FC_OPT_RULE_IPV4:
			fc_opt.rule_ipv4 = optarg;
			break;
		case FC_OPT_RULE_IPV6:
			fc_opt.rule_ipv6 = optarg;
			break;
		case FC_OPT_ETH_DEST:
			fc_parse_eth_dest(optarg);
			break;
		case FC_OPT_MAX_PKT_LEN:
			fc_opt.max_pkt_len = (uint32_t)fc_parse_u64(
				"--max-pkt-len", optarg, RTE_ETHER_MIN_LEN,
				FC_MAX_JUMBO_PKT_LEN, 10);
			break;
		case FC_OPT_RX_QUEUE_SIZE:
			fc_opt.nb_rxd = (uint16_t)fc_parse_u64(
				"--rx-queue-size", optarg, 1, UINT16_MAX, 10);
			break;
		case FC_OPT_TX_QUEUE_SIZE:
			fc_opt.nb_txd = (uint16_t)fc_parse_u64(
				"--tx-queue-size", optarg, 1, UINT16_MAX, 10);
			break;
		case FC_OPT_PARSE_PTYPE:
			fc_opt.parse_ptype = true;
			break;
		case FC_OPT_NO_NUMA:
			fc_opt.numa = false;
			break;
		case FC_OPT_PER_PORT_POOL:
			fc_opt.per_port_pool = true;
			break;
		case FC_OPT_MAX_FLOWS:
			table_opt = "--max-flows";
			fc_opt.max_flows = (uint32_t)fc_parse_u64("--max-flows",
				optarg, 1, 1u << 24, 10);
			break;
		case FC_OPT_FLOW_TIMEOUT:
			table_opt = "--flow-timeout";
			fc_opt.flow_timeout_ms = fc_parse_u64("--flow-timeout",
				optarg, 0, UINT32_MAX, 10);
			break;
		case FC_OPT_COUNTERS:
			s = flow_counters_scheme_parse(optarg);
			if (s < 0)
				fc_fail("--counters: '%s' is not pcpu, mempool, "
					"atomic or array", optarg);
			fc_opt.counters = (enum flow_counters_scheme)s;
			table_opt = "--counters";
			counters_set = true;
			break;
		case FC_OPT_STATS_INTERVAL:
			fc_opt.stats_ms = fc_parse_u64("--stats-interval",
				optarg, 0, UINT32_MAX, 10);
			break;
		case FC_OPT_STATS_FORMAT:
			if (strcmp(optarg, "table") == 0)
				fc_opt.stats_format = FC_STATS_TABLE;
			else if (strcmp(optarg, "json") == 0)
				fc_opt.stats_format = FC_STATS_JSON;
			else
				fc_fail("--stats-format: '%s' is not table or "
					"json", optarg);
			break;
		case FC_OPT_STATS_FILE:
			if (*optarg == '\0')
				fc_fail("--stats-file needs a file name");
			fc_opt.stats_file = optarg;
			break;
		case FC_OPT_TOP:
			fc_opt.top = (unsigned int)fc_parse_u64("--top", optarg,
				0, FC_MAX_TOP, 10);
			break;
		case FC_OPT_FLOW_DUMP:
			if (*optarg == '\0')
				fc_fail("--flow-dump needs a file name or '-'");
			fc_opt.dump_file = optarg;
			break;
		case FC_OPT_EXIT_ON_IDLE:
			fc_opt.idle_ms = fc_parse_u64("--exit-on-idle", optarg,
				0, UINT32_MAX, 10);
			break;
		case FC_OPT_NO_COUNT:
			fc_opt.no_count = true;
			break;
		case FC_OPT_LOOKUP_ONLY:
			table_opt = "--lookup-only";
			fc_opt.lookup_only = true;
			break;
		case FC_OPT_COUNT_FLOOR:
			table_opt = "--count-floor";
			fc_opt.count_floor = true;
			break;
		case FC_OPT_PIPELINE:
			fc_opt.pipeline = true;
			break;
		case FC_OPT_MBUFS:
			fc_opt.mbufs = (uint32_t)fc_parse_u64("--mbufs", optarg,
				1024, 1u << 24, 10);
			break;
		case FC_OPT_FLOW_CACHE:
			table_opt = "--flow-cache";
			fc_opt.flow_cache = (uint32_t)fc_parse_u64(
				"--flow-cache", optarg, 0, FC_FLOW_CACHE_MAX,
				10);
			if (fc_opt.flow_cache != 0 && (fc_opt.flow_cache < 16 ||
					!rte_is_power_of_2(fc_opt.flow_cache)))
				fc_fail("--flow-cache must be 0 or a power of "
					"two from 16 to %u", FC_FLOW_CACHE_MAX);
			break;
		case FC_OPT_MONITOR:
			fc_opt.monitor = true;
			break;
		case FC_OPT_MONITOR_COUNT:
			monitor_count_set = true;
			fc_opt.monitor_count = fc_parse_u64("--monitor-count",
				optarg, 0, UINT32_MAX, 10);
			break;
		case 'h':
		case FC_OPT_HELP:
			fc_usage(fc_prgname);
			if (fc_eal_up)
				rte_eal_cleanup();
			exit(EXIT_SUCCESS);
		case ':':
			fc_fail("option '%s' needs an argument",
				argv[optind - 1]);
		case '?':
			/* getopt_long() gives a long option that was given a
			 * value it does not take as its own value in optopt */
			if (optopt >= FC_OPT_CONFIG)
				fc_fail("option '%.*s' takes no argument",
					(int)strcspn(argv[optind - 1], "="),
					argv[optind - 1]);
			/* fall through */
		default:
			fc_fail("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		fc_fail("unexpected argument '%s'", argv[optind]);
	if (fc_eal_up && fc_opt.monitor !=
			(rte_eal_process_type() == RTE_PROC_SECONDARY))
		fc_fail(fc_opt.monitor ? "--monitor runs as a secondary "
			"process: leave out --proc-type (or give "
			"--proc-type=secondary) and give the running "
			"dpdk-flowcount's --file-prefix" :
			"a secondary process only monitors: add --monitor");
	if (monitor_count_set && !fc_opt.monitor)
		fc_fail("--monitor-count goes with --monitor");
	if (fc_opt.monitor && forwarding_opt != NULL)
		fc_fail("%s%s is an option of the forwarding process: --monitor "
			"takes --monitor-count, --stats-interval, --stats-format, "
			"--stats-file, --top and --flow-dump only",
			forwarding_opt[0] == '-' ? "" : "--", forwarding_opt);
	if (fc_opt.no_count && fc_opt.dump_file != NULL)
		fc_fail("--flow-dump needs counting: drop --no-count");
	if (fc_opt.lookup_only && fc_opt.dump_file != NULL)
		fc_fail("--flow-dump needs counting: drop --lookup-only");
	if (fc_opt.no_count && table_opt != NULL)
		fc_fail("--no-count keeps no flow table: drop %s", table_opt);
	if (fc_opt.count_floor && fc_opt.dump_file != NULL)
		fc_fail("--flow-dump needs counting: drop --count-floor");
	if (fc_opt.count_floor && fc_opt.lookup_only)
		fc_fail("--count-floor and --lookup-only are two speed tests: "
			"give one");
	if (fc_opt.count_floor && counters_set)
		fc_fail("--count-floor keeps no counters: drop --counters");
	if (fc_opt.count_floor && fc_opt.flow_cache == 0)
		fc_fail("--count-floor counts in the flow cache: drop "
			"--flow-cache 0");
	/* the floor's sets are its lines: one per flow, as counter blocks
	 * are (four entries a set); at least the 16 entries of a cache */
	if (fc_opt.flow_cache == UINT32_MAX)
		fc_opt.flow_cache = RTE_MAX(16u, RTE_MIN(
			rte_align32pow2(fc_opt.max_flows) *
			(fc_opt.count_floor ? FLOW_CACHE_WAYS : 2u),
			FC_FLOW_CACHE_MAX));
	/* without counting each packet goes out in one pass: no burst
	 * waits for anything */
	if (fc_opt.no_count && fc_opt.pipeline)
		fc_fail("--pipeline needs counting: drop --no-count");
}

/*
 * Refuse an output path that names a file a --vdev reads or writes (a
 * capture given as rx_pcap=, tx_pcap=...): the file is compared with the
 * value of every key=value of every device argument that exists as a file.
 */
static void
fc_check_not_vdev_file(const char *opt, const char *path)
{
	struct rte_devargs *da;
	struct stat a, b;

	if (stat(path, &a) != 0)
		return;         /* not there: no device uses it */
	RTE_EAL_DEVARGS_FOREACH(NULL, da) {
		char buf[1024], *kv, *sp = NULL;

		if (da->args == NULL)
			continue;
		snprintf(buf, sizeof(buf), "%s", da->args);
		for (kv = strtok_r(buf, ",", &sp); kv != NULL;
				kv = strtok_r(NULL, ",", &sp)) {
			const char *v = strchr(kv, '=');

			if (v != NULL && stat(v + 1, &b) == 0 &&
					a.st_dev == b.st_dev &&
					a.st_ino == b.st_ino)
				fc_fail("%s %s is a file of --vdev %s (%s)", opt,
					path, da->name, kv);
		}
	}
}

/*
 * Output files, before any port starts: a bad path costs no counts. The
 * statistics file is opened here but emptied only at the start
 * (fc_outputs_start()), so that a run refused later leaves it as it was.
 */
static void
fc_open_outputs(void)
{
	fc_stats_out = stdout;
	if (fc_opt.stats_file != NULL && strcmp(fc_opt.stats_file, "-") == 0)
		fc_opt.stats_file = NULL;       /* '-': stdout */
	if (fc_opt.stats_file != NULL)
		fc_check_not_vdev_file("--stats-file", fc_opt.stats_file);
	if (fc_opt.dump_file != NULL && strcmp(fc_opt.dump_file, "-") != 0)
		fc_check_not_vdev_file("--flow-dump", fc_opt.dump_file);
	if (fc_opt.stats_file != NULL) {
		/* not blocking: a FIFO nobody reads yet would hold the start
		 * here, where no signal can stop it (ENXIO instead) */
		int fd = open(fc_opt.stats_file, O_WRONLY | O_CREAT |
			O_NONBLOCK | O_CLOEXEC, 0666);

		if (fd < 0)
			fc_fail("--stats-file: cannot write %s: %s%s",
				fc_opt.stats_file, strerror(errno),
				errno == ENXIO ? " (a FIFO nobody reads)" : "");
		/* then blocking again, as stdout: a line is never cut */
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
				(fc_stats_out = fdopen(fd, "w")) == NULL)
			fc_fail("--stats-file: cannot write %s: %s",
				fc_opt.stats_file, strerror(errno));
		setvbuf(fc_stats_out, NULL, _IOLBF, 0);
	}
	/* the dump's rename would replace the statistics written so far */
	if (fc_opt.stats_file != NULL && fc_opt.dump_file != NULL &&
			strcmp(fc_opt.dump_file, "-") != 0) {
		struct stat a, b;

		if (fstat(fileno(fc_stats_out), &a) == 0 &&
				stat(fc_opt.dump_file, &b) == 0 &&
				a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			fc_fail("--flow-dump and --stats-file name the same "
				"file: %s", fc_opt.dump_file);
	}
	/* it says why in one line */
	if (fc_opt.dump_file != NULL &&
			fc_report_check_dump_path(fc_opt.dump_file) != 0)
		fc_fail_hint();
}

/* Every check passed, the run starts: empty a regular statistics file. */
static void
fc_outputs_start(void)
{
	struct stat st;

	if (fc_stats_out != stdout &&
			fstat(fileno(fc_stats_out), &st) == 0 &&
			S_ISREG(st.st_mode) &&
			ftruncate(fileno(fc_stats_out), 0) != 0)
		rte_exit(EXIT_FAILURE, "--stats-file: cannot empty %s: %s\n",
			fc_opt.stats_file, strerror(errno));
}

/* Whether the statistics written so far reached their file (or stdout):
 * says once why not. */
static bool
fc_stats_ok(void)
{
	static bool told;

	if (fflush(fc_stats_out) == 0 && !ferror(fc_stats_out))
		return true;
	if (!told)
		fprintf(stderr, "%s: cannot write the statistics to %s: %s\n",
			fc_prgname, fc_opt.stats_file != NULL ?
			fc_opt.stats_file : "stdout", strerror(errno));
	told = true;
	return false;
}

/* ------------------------------------------------------ lcores and queues */

static int
fc_lcore_socket(unsigned int lcore)
{
	return fc_opt.numa ? (int)rte_lcore_to_socket_id(lcore) : 0;
}

/*
 * Default --config: every RX queue of every enabled port, round robin over
 * the worker lcores. A port has the queues its driver was created with
 * (a vdev's devargs: net_pcap one per rx_pcap), or else one per worker, up
 * to its maximum.
 */
static void
fc_default_config(void)
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

		if (port >= FC_MAX_PORTS || !(fc_opt.portmask & (1u << port)))
			continue;
		if (rte_eth_dev_info_get(port, &info) != 0)
			continue;
		nq = info.nb_rx_queues > 0 ? info.nb_rx_queues :
			RTE_MIN(info.max_rx_queues, (uint16_t)nw);
		for (q = 0; q < nq; q++) {
			if (fc_nb_config == FC_MAX_CONFIG)
				fc_fail("more than %u RX queues: give --config",
					FC_MAX_CONFIG);
			fc_config[fc_nb_config].port = port;
			fc_config[fc_nb_config].queue = q;
			fc_config[fc_nb_config].lcore = workers[next++ % nw];
			fc_nb_config++;
		}
	}
}

static void
fc_check_config(void)
{
	unsigned int i, j;

	for (i = 0; i < fc_nb_config; i++) {
		const struct fc_config_entry *e = &fc_config[i];
		struct rte_eth_dev_info info;
		struct fc_lcore_conf *lc;

		if (!rte_eth_dev_is_valid_port(e->port) ||
				!(fc_opt.portmask & (1u << e->port)))
			fc_fail("--config: port %u is not enabled", e->port);
		if (!rte_lcore_is_enabled(e->lcore))
			fc_fail("--config: lcore %u is not enabled "
				"(EAL -l/--lcores)", e->lcore);
		if (e->lcore == rte_get_main_lcore())
			fc_fail("--config: lcore %u is the main lcore, which "
				"does the control work; use workers", e->lcore);
		if (rte_eth_dev_info_get(e->port, &info) != 0 ||
				e->queue >= info.max_rx_queues)
			fc_fail("--config: port %u has no RX queue %u (at most "
				"%u)", e->port, e->queue, info.max_rx_queues);
		for (j = 0; j < i; j++)
			if (fc_config[j].port == e->port &&
					fc_config[j].queue == e->queue)
				fc_fail("--config: port %u queue %u given twice",
					e->port, e->queue);
		lc = &fc_lcore_conf[e->lcore];
		if (lc->n_rx == FC_MAX_RX_QUEUE_PER_LCORE)
			fc_fail("--config: more than %u queues on lcore %u",
				FC_MAX_RX_QUEUE_PER_LCORE, e->lcore);
		lc->rx[lc->n_rx].port = e->port;
		lc->rx[lc->n_rx].queue = e->queue;
		lc->n_rx++;
		if (e->queue + 1 > fc_nb_rxq[e->port])
			fc_nb_rxq[e->port] = e->queue + 1;
	}
}

/* Routes: the rule files, then each worker's socket's tables; without
 * rule files, the paired ports. */
static void
fc_setup_routes(void)
{
	unsigned int lcore, nb_enabled = 0;
	uint16_t port;

	for (port = 0; port < FC_MAX_PORTS; port++)
		if (fc_opt.portmask & (1u << port))
			nb_enabled++;
	for (port = 0; port < FC_MAX_PORTS; port++) {
		uint16_t peer = port ^ 1;

		fc_pair_port[port] = FC_NO_PORT;
		if (nb_enabled > 1 && peer < FC_MAX_PORTS &&
				(fc_opt.portmask & (1u << peer)))
			fc_pair_port[port] = peer;
	}
	if (fc_opt.rule_ipv4 == NULL && fc_opt.rule_ipv6 == NULL)
		return;
	if ((fc_opt.rule_ipv4 != NULL && fc_routes_read(fc_opt.rule_ipv4, 4,
			fc_opt.portmask) != 0) ||
			(fc_opt.rule_ipv6 != NULL && fc_routes_read(
			fc_opt.rule_ipv6, 6, fc_opt.portmask) != 0)) {
		rte_eal_cleanup();
		exit(EXIT_FAILURE);
	}
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (fc_lcore_conf[lcore].n_rx == 0)
			continue;
		fc_lcore_conf[lcore].routes = fc_routes_get(
			fc_lcore_socket(lcore));
		if (fc_lcore_conf[lcore].routes == NULL) {
			rte_eal_cleanup();
			exit(EXIT_FAILURE);
		}
	}
}

/* ---------------------------------------------------------------- ports */

/* mbufs of the pool of @port (all ports without --per-port-pool), as
 * l3fwd's NB_MBUF(): the RX and TX rings full, a burst and a cache per
 * lcore; at least 8192; --mbufs overrides */
static unsigned int
fc_pool_size(uint16_t port, unsigned int nb_workers)
{
	unsigned int n, rxq = 0, ports = 0, lcores = rte_lcore_count();
	uint16_t p;

	if (fc_opt.mbufs != 0)
		return fc_opt.mbufs;
	for (p = 0; p < FC_MAX_PORTS; p++) {
		if (!(fc_opt.portmask & (1u << p)) ||
				(fc_opt.per_port_pool && p != port))
			continue;
		rxq += RTE_MAX(fc_nb_rxq[p], (uint16_t)1);
		ports++;
	}
	n = rxq * fc_opt.nb_rxd + ports * lcores * FC_MAX_PKT_BURST +
		ports * nb_workers * fc_opt.nb_txd + lcores * FC_MEMPOOL_CACHE;
	return RTE_MAX(n, 8192u);
}

/* The pool RX queues of @port polled by an lcore of @socket take mbufs
 * from, made on first use: one per socket, or per port and socket. */
static struct rte_mempool *
fc_pool(uint16_t port, int socket, unsigned int nb_workers)
{
	unsigned int idx = fc_opt.per_port_pool ? port : 0;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int n;

	if (fc_pools[idx][socket] != NULL)
		return fc_pools[idx][socket];
	n = fc_pool_size(port, nb_workers);
	snprintf(name, sizeof(name), "fc_mbufs_%u_%d", idx, socket);
	fc_pools[idx][socket] = rte_pktmbuf_pool_create(name, n,
		FC_MEMPOOL_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (fc_pools[idx][socket] == NULL)
		rte_exit(EXIT_FAILURE, "cannot create the mbuf pool %s (%u "
			"mbufs on socket %d, %u MiB): %s%s\n", name, n, socket,
			(unsigned int)(((uint64_t)n * (RTE_MBUF_DEFAULT_BUF_SIZE +
			sizeof(struct rte_mbuf)) >> 20) + 1),
			rte_strerror(rte_errno), rte_errno == ENOMEM ?
			" (give EAL more memory with -m, or fewer mbufs with "
			"--mbufs)" : "");
	printf("mbuf pool %s: %u mbufs on socket %d\n", name, n, socket);
	return fc_pools[idx][socket];
}

static void
fc_tx_drop_cb(struct rte_mbuf **pkts, uint16_t n, void *userdata)
{
	rte_pktmbuf_free_bulk(pkts, n);
	fc_counter_add(userdata, n);
}

/* The lcore polling RX queue @q of @port (the queue exists in the config
 * or is set up but not polled: then the main lcore's socket). */
static unsigned int
fc_rx_lcore(uint16_t port, uint16_t q)
{
	unsigned int i;

	for (i = 0; i < fc_nb_config; i++)
		if (fc_config[i].port == port && fc_config[i].queue == q)
			return fc_config[i].lcore;
	return rte_get_main_lcore();
}

/* Does --config poll any RX queue of @port? (else it only sends) */
static bool
fc_port_polled(uint16_t port)
{
	unsigned int i;

	for (i = 0; i < fc_nb_config; i++)
		if (fc_config[i].port == port)
			return true;
	return false;
}

static void
fc_setup_port(uint16_t port, unsigned int nb_workers)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	struct rte_eth_rxconf rxc;
	uint16_t nrxd = fc_opt.nb_rxd, ntxd = fc_opt.nb_txd, q;
	char mac[RTE_ETHER_ADDR_FMT_SIZE], dmac[RTE_ETHER_ADDR_FMT_SIZE];
	int ret, socket;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "port %u: no device info: %s\n", port,
			strerror(-ret));
	if (fc_nb_rxq[port] == 0)
		fc_nb_rxq[port] = 1;   /* a TX-only port */
	fc_nb_txq[port] = RTE_MIN((uint16_t)RTE_MAX(nb_workers, 1u),
		info.max_tx_queues);
	if (fc_nb_rxq[port] > 1 && info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP &
			info.flow_type_rss_offloads;
	}
	/* the IPv4 checksum check where the NIC offers it (l3fwd asks for
	 * it unconditionally), and multi-segment frames */
	conf.rxmode.offloads = (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_RX_OFFLOAD_SCATTER) & info.rx_offload_capa;
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS &
		info.tx_offload_capa;
	if (fc_opt.max_pkt_len != 0) {
		uint32_t overhead = (info.max_mtu != UINT16_MAX &&
			info.max_rx_pktlen > info.max_mtu) ?
			info.max_rx_pktlen - info.max_mtu :
			RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;

		conf.rxmode.mtu = fc_opt.max_pkt_len - overhead;
	}
	ret = rte_eth_dev_configure(port, fc_nb_rxq[port], fc_nb_txq[port],
		&conf);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: configure failed (%u RX, %u "
			"TX queues%s): %s\n", port, fc_nb_rxq[port],
			fc_nb_txq[port], fc_opt.max_pkt_len ?
			", --max-pkt-len" : "", strerror(-ret));
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrxd, &ntxd);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: descriptors: %s\n", port,
			strerror(-ret));
	rxc = info.default_rxconf;
	rxc.offloads = conf.rxmode.offloads;
	for (q = 0; q < fc_nb_rxq[port]; q++) {
		socket = fc_lcore_socket(fc_rx_lcore(port, q));
		ret = rte_eth_rx_queue_setup(port, q, nrxd,
			(unsigned int)socket, &rxc,
			fc_pool(port, socket, nb_workers));
		if (ret < 0)
			rte_exit(EXIT_FAILURE, "port %u: RX queue %u: %s\n",
				port, q, strerror(-ret));
	}
	txc = info.default_txconf;
	txc.offloads = conf.txmode.offloads;
	socket = rte_eth_dev_socket_id(port);
	if (socket < 0 || !fc_opt.numa)
		socket = 0;
	for (q = 0; q < fc_nb_txq[port]; q++) {
		ret = rte_eth_tx_queue_setup(port, q, ntxd,
			(unsigned int)socket, &txc);
		if (ret < 0)
			rte_exit(EXIT_FAILURE, "port %u: TX queue %u: %s\n",
				port, q, strerror(-ret));
		rte_spinlock_init(&fc_txq_lock[port][q]);
	}
	if (rte_eth_macaddr_get(port, &fc_eth[port].src) != 0)
		memset(&fc_eth[port].src, 0, sizeof(fc_eth[port].src));
	if (!fc_eth_dest_set[port]) {
		/* l3fwd's default: 02:00:00:00:00:<port> */
		memset(&fc_eth[port].dst, 0, sizeof(fc_eth[port].dst));
		fc_eth[port].dst.addr_bytes[0] = 0x02;
		fc_eth[port].dst.addr_bytes[5] = (uint8_t)port;
	}
	if (fc_opt.promisc) {
		ret = rte_eth_promiscuous_enable(port);
		if (ret != 0)
			printf("port %u: promiscuous mode: %s\n", port,
				strerror(-ret));
	}
	ret = rte_eth_dev_start(port);
	if (ret < 0)
		rte_exit(EXIT_FAILURE, "port %u: start failed: %s\n", port,
			strerror(-ret));
	rte_ether_format_addr(mac, sizeof(mac), &fc_eth[port].src);
	rte_ether_format_addr(dmac, sizeof(dmac), &fc_eth[port].dst);
	printf("port %u: %s, %u RX / %u TX queues, MAC %s, sends to %s\n",
		port, info.driver_name, fc_nb_rxq[port], fc_nb_txq[port], mac,
		dmac);
}

static void
fc_setup_ports(unsigned int nb_workers)
{
	unsigned int lcore, idx = 0, i;
	uint16_t port;

	for (port = 0; port < FC_MAX_PORTS; port++) {
		if (!(fc_opt.portmask & (1u << port)))
			continue;
		fc_setup_port(port, nb_workers);
		if (!fc_port_polled(port))
			printf("port %u: not in --config: it only sends, its "
				"RX queue is not read\n", port);
		for (i = 0; i < fc_nb_rxq[port]; i++)
			if (fc_port_polled(port) &&
					fc_rx_lcore(port, i) == rte_get_main_lcore())
				printf("port %u: RX queue %u is not polled "
					"(not in --config)\n", port, i);
	}
	if (fc_opt.rule_ipv4 == NULL && fc_opt.rule_ipv6 == NULL)
		for (port = 0; port < FC_MAX_PORTS; port++)
			if ((fc_opt.portmask & (1u << port)) &&
					fc_pair_port[port] == FC_NO_PORT)
				printf("port %u: no paired port (port ^ 1) and "
					"no rule files: its IP packets are "
					"counted, not forwarded (no-route)\n",
					port);

	/* TX: every worker gets a queue on every port; when a port has
	 * fewer queues than workers, lcores share queues under a lock */
	RTE_LCORE_FOREACH_WORKER(lcore) {
		struct fc_lcore_conf *lc = &fc_lcore_conf[lcore];
		struct fc_lcore_stats *st = RTE_PCPU_LCORE(lcore, fc_stats);

		if (lc->n_rx == 0)
			continue;
		for (port = 0; port < FC_MAX_PORTS; port++) {
			struct rte_eth_dev_tx_buffer *b;

			if (!(fc_opt.portmask & (1u << port)))
				continue;
			b = rte_zmalloc_socket("fc_txbuf",
				RTE_ETH_TX_BUFFER_SIZE(FC_MAX_PKT_BURST), 0,
				fc_lcore_socket(lcore));
			if (b == NULL)
				rte_exit(EXIT_FAILURE, "no memory for TX "
					"buffers\n");
			rte_eth_tx_buffer_init(b, FC_MAX_PKT_BURST);
			rte_eth_tx_buffer_set_err_callback(b, fc_tx_drop_cb,
				&st->port[port].tx_drop);
			lc->txb[port] = b;
			lc->txq[port] = (uint16_t)(idx % fc_nb_txq[port]);
			lc->txlock[port] = fc_nb_txq[port] < nb_workers ?
				&fc_txq_lock[port][lc->txq[port]] : NULL;
		}
		idx++;
	}
}

/* ------------------------------------------------------------- reports */

/* The periodic or SIGUSR1 report; the dump only on SIGUSR1. */
static void
fc_report_now(struct fc_snapshot *prev, bool dump)
{
	static struct fc_snapshot s;
	unsigned int main_id = rte_get_main_lcore();

	fc_snapshot_take(&s, prev, false, fc_opt.top, FLOW_SCOPE_LIVE,
		main_id);
	fc_report_stats(&s, fc_stats_out);
	fc_stats_ok();
	if (dump && fc_opt.dump_file != NULL && fc_ftable != NULL) {
		struct flow_stat *v = NULL;
		int n = flow_table_flows(fc_ftable, &v, main_id);

		if (n < 0)
			fprintf(stderr, "%s: no memory for the dump\n",
				fc_prgname);
		else
			fc_report_dump(fc_opt.dump_file, v, n, &s);
		free(v);
	}
	*prev = s;
}

/* ---------------------------------------------------------------- main */

static void
fc_signal_handler(int signum)
{
	if (signum == SIGUSR1) {
		fc_dump_request = true;
		return;
	}
	fc_quit_signal = signum;
	fc_force_quit = true;
}

static void
fc_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fc_signal_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

/* Has every RX queue been empty for @idle_tsc? */
static bool
fc_all_idle(uint64_t now, uint64_t idle_tsc)
{
	uint64_t latest = fc_start_tsc;
	unsigned int lcore;

	RTE_LCORE_FOREACH_WORKER(lcore) {
		uint64_t t;

		if (fc_lcore_conf[lcore].n_rx == 0)
			continue;
		t = fc_counter_load(&RTE_PCPU_LCORE(lcore,
			fc_stats)->last_rx_tsc);
		latest = RTE_MAX(latest, t);
	}
	return now > latest && now - latest >= idle_tsc;
}

/* The main lcore while the workers run: aging, reports, signals. */
static void
fc_main_loop(void)
{
	static struct fc_snapshot prev;
	unsigned int main_id = rte_get_main_lcore();
	uint64_t hz = rte_get_tsc_hz(), now, last_stats, last_age;
	uint64_t stats_tsc = fc_opt.stats_ms * hz / 1000;
	uint64_t idle_tsc = fc_opt.idle_ms * hz / 1000;
	uint64_t timeout_tsc = fc_opt.flow_timeout_ms * hz / 1000;
	uint64_t age_period = 0;

	if (timeout_tsc != 0)
		age_period = RTE_MAX(RTE_MIN(timeout_tsc / 4, hz), hz / 1000);
	memset(&prev, 0, sizeof(prev));
	last_stats = last_age = fc_start_tsc;
	while (!fc_force_quit) {
		rte_delay_us_sleep(1000);
		now = rte_rdtsc();
		if (fc_ftable != NULL) {
			if (timeout_tsc != 0 && now - last_age >= age_period) {
				flow_table_age(fc_ftable, now, timeout_tsc,
					main_id);
				last_age = now;
			} else {
				flow_table_reclaim(fc_ftable);
			}
		}
		if (fc_dump_request) {
			fc_dump_request = false;
			printf("\nSIGUSR1: report and dump\n");
			fc_report_now(&prev, true);
			last_stats = now;
		} else if (stats_tsc != 0 && now - last_stats >= stats_tsc) {
			fc_report_now(&prev, false);
			last_stats = now;
		}
		if (idle_tsc != 0 && fc_all_idle(now, idle_tsc)) {
			printf("\nevery RX queue idle for %" PRIu64
				" ms: stopping\n", fc_opt.idle_ms);
			break;
		}
	}
	if (fc_quit_signal != 0)
		printf("\nsignal %d (%s) received: stopping\n", fc_quit_signal,
			strsignal(fc_quit_signal));
}

/* After the workers stopped: final summary and dump. Returns the exit
 * status. */
static int
fc_finish(void)
{
	static struct fc_snapshot s;
	unsigned int main_id = rte_get_main_lcore();
	struct flow_stat *v = NULL;
	int n, ret = EXIT_SUCCESS;

	if (fc_ftable == NULL) {
		fc_snapshot_take(&s, NULL, true, 0, FLOW_SCOPE_ALL, main_id);
		fc_report_stats(&s, fc_stats_out);
		return ret;
	}
	/* the live flows join the totals: every flow is in one place */
	flow_table_finish(fc_ftable);
	fc_snapshot_take(&s, NULL, true, fc_opt.top, FLOW_SCOPE_ALL, main_id);
	fc_report_stats(&s, fc_stats_out);
	n = flow_table_flows(fc_ftable, &v, main_id);
	if (n < 0) {
		fprintf(stderr, "%s: no memory for the dump\n", fc_prgname);
		return EXIT_FAILURE;
	}
	printf("flows: %d distinct flows counted", n);
	if (s.fi.totals_overflow_pkts)
		printf(" (%" PRIu64 " pkts of aged flows not kept: totals "
			"full)", s.fi.totals_overflow_pkts);
	printf("\n");
	if (fc_opt.dump_file != NULL &&
			fc_report_dump(fc_opt.dump_file, v, n, &s) != 0)
		ret = EXIT_FAILURE;
	free(v);
	return ret;
}

/* The index of the "--" that starts the application options when they
 * hold --monitor; 0 when they do not (or there are none). */
static int
fc_monitor_sep(int argc, char **argv)
{
	int i, sep;

	for (sep = 1; sep < argc; sep++)
		if (strcmp(argv[sep], "--") == 0)
			break;
	for (i = sep + 1; i < argc; i++)
		if (strcmp(argv[i], "--monitor") == 0)
			return sep;
	return 0;
}

/*
 * A monitor is always a secondary process: when the application options
 * (after "--") hold --monitor and the EAL options no --proc-type, give EAL
 * --proc-type=secondary, as dpdk-pcpu-info does. Without it, EAL would try
 * to start a second primary on the running one's --file-prefix and fail
 * with a message about EAL, not about the monitor. Returns the argument
 * vector to give rte_eal_init() (@p argv itself when nothing is added;
 * never freed: EAL keeps pointers into it).
 */
static char **
fc_monitor_eal_args(int *argc, char **argv)
{
	static char proc_flag[] = "--proc-type=secondary";
	int i, sep = fc_monitor_sep(*argc, argv);
	char **v;

	if (sep == 0)
		return argv;
	for (i = 1; i < sep; i++)
		if (strncmp(argv[i], "--proc-type", 11) == 0)
			return argv;
	v = calloc((size_t)*argc + 2, sizeof(*v));
	if (v == NULL)
		return argv;
	v[0] = argv[0];
	v[1] = proc_flag;
	for (i = 1; i < *argc; i++)
		v[i + 1] = argv[i];
	(*argc)++;
	return v;
}

/*
 * A monitor's options, checked before EAL attaches to a primary, as
 * dpdk-pcpu-info checks its own: a mistake in them is told as such with
 * or without a primary (EAL's initialisation would first fail for want
 * of one). A monitor takes no option that needs EAL; they are parsed
 * again, the same way, once EAL runs. Nothing when not a monitor.
 */
static void
fc_monitor_precheck(int argc, char **argv)
{
	struct fc_options saved = fc_opt;
	int i, n, sep = fc_monitor_sep(argc, argv);
	char **v;

	if (sep == 0)
		return;
	/* getopt_long() permutes what it is given: a copy */
	v = calloc((size_t)(argc - sep) + 1, sizeof(*v));
	if (v == NULL)
		return;
	v[0] = argv[0];
	for (i = sep + 1, n = 1; i < argc; i++)
		v[n++] = argv[i];
	fc_parse_args(n, v);
	free(v);
	fc_opt = saved;
}

int
main(int argc, char **argv)
{
	unsigned int lcore, nb_workers = 0;
	uint16_t port;
	size_t sz;
	int ret, exit_code;

	fc_prgname = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 :
		argv[0];
	/* the table is read by people and scripts as it comes */
	setvbuf(stdout, NULL, _IOLBF, 0);
	fc_signals();
	rte_set_application_usage_hook(fc_usage_hook);

	fc_monitor_precheck(argc, argv);
	argv = fc_monitor_eal_args(&argc, argv);
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		fc_eal_init_failed();
	fc_eal_up = true;
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t)fc_prgname;
	fc_parse_args(argc, argv);
	fc_open_outputs();
	if (fc_opt.monitor) {
		fc_outputs_start();
		exit_code = fc_monitor_main(fc_stats_out);
		if (!fc_stats_ok())
			exit_code = EXIT_FAILURE;
		if (fc_stats_out != stdout)
			fclose(fc_stats_out);
		rte_eal_cleanup();
		return exit_code;
	}

	if (rte_eth_dev_count_avail() == 0)
		fc_fail("no Ethernet ports: give a NIC or a --vdev "
			"(e.g. net_pcap0,rx_pcap=FILE)");
	if (!fc_opt.portmask_set)
		RTE_ETH_FOREACH_DEV(port)
			if (port < FC_MAX_PORTS)
				fc_opt.portmask |= 1u << port;
	for (port = 0; port < FC_MAX_PORTS; port++)
		if ((fc_opt.portmask & (1u << port)) &&
				!rte_eth_dev_is_valid_port(port))
			fc_fail("-p: port %u does not exist (%u port%s)", port,
				rte_eth_dev_count_avail(),
				rte_eth_dev_count_avail() == 1 ? "" : "s");
	/* a destination for a port that sends nothing is a mistake in the
	 * command line (l3fwd keeps it silently) */
	for (port = 0; port < FC_MAX_PORTS; port++) {
		if (!fc_eth_dest_set[port])
			continue;
		if (!rte_eth_dev_is_valid_port(port))
			fc_fail("--eth-dest: port %u does not exist (%u "
				"port%s)", port, rte_eth_dev_count_avail(),
				rte_eth_dev_count_avail() == 1 ? "" : "s");
		if (!(fc_opt.portmask & (1u << port)))
			fc_fail("--eth-dest: port %u is not enabled (-p %#x)",
				port, fc_opt.portmask);
	}
	if (fc_opt.parse_ptype)
		printf("--parse-ptype: frames are always classified in "
			"software (the flow-key parser)\n");
	if (fc_nb_config == 0)
		fc_default_config();
	fc_check_config();
	RTE_LCORE_FOREACH_WORKER(lcore)
		if (fc_lcore_conf[lcore].n_rx > 0)
			nb_workers++;
	if (nb_workers == 0)
		fc_fail("no worker lcore has an RX queue: give at least two "
			"lcores (EAL -l 0-1) and check --config");
	fc_setup_routes();

	/* percpu statistics: every lcore has its own copy */
	if (RTE_PCPU_ALLOC(fc_stats) == NULL)
		rte_exit(EXIT_FAILURE, "cannot allocate percpu statistics: "
			"%s\n", rte_strerror(rte_errno));

	sz = rte_rcu_qsbr_get_memsize(FC_RCU_NB_IDS);
	fc_qsbr = rte_zmalloc("fc_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (fc_qsbr == NULL || rte_rcu_qsbr_init(fc_qsbr, FC_RCU_NB_IDS) != 0)
		rte_exit(EXIT_FAILURE, "cannot set up RCU\n");
	rte_rcu_qsbr_thread_register(fc_qsbr, rte_get_main_lcore());
	rte_rcu_qsbr_thread_register(fc_qsbr, FC_RCU_TEL_ID);

	if (!fc_opt.no_count) {
		struct flow_table_conf fc = {
			.max_flows = fc_opt.max_flows,
			/* distinct keys kept for the dump (aged + live) */
			.max_totals = RTE_MIN(RTE_MAX(fc_opt.max_flows * 2u,
				1u << 16), 1u << 21),
			.qsbr = fc_qsbr,
			.socket_id = fc_lcore_socket(rte_get_main_lcore()),
			.scheme = fc_opt.counters,
			.lookup_only = fc_opt.lookup_only,
			.count_floor = fc_opt.count_floor,
		};

		fc_ftable = flow_table_create(&fc);
		if (fc_ftable == NULL)
			rte_exit(EXIT_FAILURE, "cannot create the flow table "
				"of --max-flows %u: %s%s\n", fc_opt.max_flows,
				rte_strerror(rte_errno), rte_errno == ENOMEM ?
				" (give EAL more memory, -m, or fewer flows)" :
				"");
	}
	fc_setup_ports(nb_workers);
	fc_telemetry_start();

	if (fc_opt.no_count)
		printf("flowcount: %u worker lcore(s), counting off\n",
			nb_workers);
	else if (fc_opt.count_floor)
		printf("flowcount: %u worker lcore(s), counting floor (speed "
			"test: each packet added to its flow cache set, %u "
			"entries; the flow table stays empty)\n", nb_workers,
			fc_opt.flow_cache);
	else
		printf("flowcount: %u worker lcore(s), counting %s, counters "
			"%s, max flows %u, flow timeout %" PRIu64 " ms\n",
			nb_workers, fc_opt.lookup_only ?
			"lookup only (counters not updated)" : "on",
			flow_counters_scheme_name(fc_opt.counters),
			fc_opt.max_flows, fc_opt.flow_timeout_ms);
	fc_outputs_start();
	fc_start_tsc = rte_rdtsc();
	/* a monitor (--monitor) may read from now on */
	fc_monitor_publish();
	RTE_LCORE_FOREACH_WORKER(lcore)
		if (fc_lcore_conf[lcore].n_rx > 0)
			rte_eal_remote_launch(fc_worker_main, NULL, lcore);
	fc_main_loop();
	fc_force_quit = true;
	rte_eal_mp_wait_lcore();
	fc_monitor_unpublish();

	/* telemetry must not read what is freed from here on */
	fc_telemetry_stop();
	for (port = 0; port < FC_MAX_PORTS; port++) {
		if (!(fc_opt.portmask & (1u << port)))
			continue;
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
	exit_code = fc_finish();
	if (!fc_stats_ok() || fc_worker_failed)
		exit_code = EXIT_FAILURE;
	if (fc_stats_out != stdout)
		fclose(fc_stats_out);
	fflush(stdout);

	flow_table_free(fc_ftable);
	fc_ftable = NULL;
	rte_pcpu_free(fc_stats);
	rte_free(fc_qsbr);
	fc_routes_free();
	for (port = 0; port < FC_MAX_PORTS; port++) {
		int s;

		for (s = 0; s < FC_NB_SOCKETS; s++)
			rte_mempool_free(fc_pools[port][s]);
	}
	rte_pcpu_cleanup();
	rte_eal_cleanup();
	return exit_code;
}
