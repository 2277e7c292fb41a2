/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Reports of dpdk-flowcount (see fc_report.h). The table, the JSON line and
 * the dump each render one struct fc_snapshot; the telemetry commands take
 * their own, from the telemetry thread.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "pcpu_compat.h"

#include "fc_report.h"
#include "flow_parse.h"

/* flows in one /flowcount/flows answer (a telemetry reply holds 16 KiB) */
#define FC_TEL_MAX_FLOWS 50u

void
fc_snapshot_take(struct fc_snapshot *s, const struct fc_snapshot *prev,
		bool final, unsigned int nb_top, enum flow_scope top_scope,
		unsigned int rcu_id)
{
	const struct fc_lcore_stats *st;
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc();
	unsigned int lcore, p;

	memset(s, 0, sizeof(*s));
	s->final = final;
	s->secs = (double)(now - fc_start_tsc) / hz;
	s->interval = prev != NULL ? s->secs - prev->secs : s->secs;
	RTE_PCPU_FOREACH(lcore, st, fc_stats) {
		/* what became of the packets first, then what was received:
		 * a worker counts a burst as received before anything else
		 * of it (release), so a report never has more packets or
		 * bytes sent, dropped or in a bucket than received */
		for (p = 0; p < FC_MAX_PORTS; p++) {
			const struct fc_port_stats *ps = &st->port[p];
			struct fc_port_stats *d = &s->port[p];

			d->tx_pkts += fc_counter_load(&ps->tx_pkts);
			d->tx_drop += fc_counter_load(&ps->tx_drop);
			d->no_route += fc_counter_load(&ps->no_route);
			d->ttl_exceeded += fc_counter_load(&ps->ttl_exceeded);
			d->bad_ip += fc_counter_load(&ps->bad_ip);
		}
		s->non_ip_pkts += fc_counter_load(&st->non_ip_pkts);
		s->non_ip_bytes += fc_counter_load(&st->non_ip_bytes);
		s->malformed_pkts += fc_counter_load(&st->malformed_pkts);
		s->malformed_bytes += fc_counter_load(&st->malformed_bytes);
		s->overflow_pkts += fc_counter_load(&st->fw.overflow_pkts);
		s->overflow_bytes += fc_counter_load(&st->fw.overflow_bytes);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		for (p = 0; p < FC_MAX_PORTS; p++) {
			const struct fc_port_stats *ps = &st->port[p];
			uint64_t pkts = fc_counter_load(&ps->rx_pkts);
			uint64_t bytes = fc_counter_load(&ps->rx_bytes);

			s->port[p].rx_pkts += pkts;
			s->port[p].rx_bytes += bytes;
			s->lcore[lcore].rx_pkts += pkts;
			s->lcore[lcore].rx_bytes += bytes;
		}
		s->lcore[lcore].flows_created =
			fc_counter_load(&st->fw.flows_created);
		s->flows_created += s->lcore[lcore].flows_created;
		s->lcore[lcore].hash_lookups =
			fc_counter_load(&st->fw.hash_lookups);
		s->lcore[lcore].cpu_ns = fc_counter_load(&st->cpu_ns);
	}
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		uint64_t before = prev != NULL ? prev->lcore[lcore].rx_pkts : 0;

		if (s->interval > 0)
			s->lcore[lcore].mpps = (double)(s->lcore[lcore].rx_pkts -
				before) / s->interval / 1e6;
	}
	for (p = 0; p < FC_MAX_PORTS; p++) {
		const struct fc_port_stats *d = &s->port[p];

		s->total.rx_pkts += d->rx_pkts;
		s->total.rx_bytes += d->rx_bytes;
		s->total.tx_pkts += d->tx_pkts;
		s->total.tx_drop += d->tx_drop;
		s->total.no_route += d->no_route;
		s->total.ttl_exceeded += d->ttl_exceeded;
		s->total.bad_ip += d->bad_ip;
	}
	/* what the top list would cover (empty without a flow table) */
	s->top_scope = top_scope;
	if (fc_ftable != NULL) {
		flow_table_info(fc_ftable, &s->fi);
		/* aged packets whose key found no room in the totals */
		s->overflow_pkts += s->fi.totals_overflow_pkts;
		s->overflow_bytes += s->fi.totals_overflow_bytes;
		if (nb_top > 0 && !fc_opt.lookup_only && fc_opt.monitor)
			/* another process's table: no lock, no RCU */
			s->nb_top = flow_table_top_reader(fc_ftable, s->top,
				RTE_MIN(nb_top, (unsigned int)FC_MAX_TOP),
				top_scope);
		else if (nb_top > 0 && !fc_opt.lookup_only)
			s->nb_top = flow_table_top(fc_ftable, s->top,
				RTE_MIN(nb_top, (unsigned int)FC_MAX_TOP),
				top_scope, rcu_id);
	}
}

static const char *
fc_scope_name(enum flow_scope scope)
{
	switch (scope) {
	case FLOW_SCOPE_AGED:
		return "aged";
	case FLOW_SCOPE_ALL:
		return "all";
	default:
		return "live";
	}
}

static void
fc_format_flow(const struct flow_key *k, char *buf, size_t size)
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

/* What the counter blocks' percpu memory costs, and who is charged. */
static void
fc_report_counters_owner(const struct fc_snapshot *s, FILE *out)
{
	const struct rte_pcpu_owner_stats *m = &s->fi.counters_mem;
	char limit[32];

	if (s->fi.counters_mem_errno != 0) {
		fprintf(out, "counters: owner %s: figures unavailable (%s)\n",
			s->fi.counters_owner,
			rte_strerror(s->fi.counters_mem_errno));
		return;
	}
	if (m->limit_bytes != 0)
		snprintf(limit, sizeof(limit), "%" PRIu64 " bytes",
			m->limit_bytes);
	else
		snprintf(limit, sizeof(limit), "none");
	fprintf(out, "counters: owner %s holds %" PRIu64 " bytes in %" PRIu64
		" allocations on %u lcores (%" PRIu64 " per lcore), peak %"
		PRIu64 ", limit %s, refused %" PRIu64 "\n",
		s->fi.counters_owner, m->live_bytes, m->nr_live, m->nr_lcores,
		m->live_copy_bytes, m->peak_bytes, limit, m->nr_fail);
}

static void
fc_report_table(const struct fc_snapshot *s, FILE *out)
{
	uint64_t drops;
	unsigned int lcore, p, i;

	fprintf(out, "\n=== flowcount %s%s %.3f s ===\n",
		fc_opt.monitor ? "monitor " : "", s->final ?
		"summary after" : "at", s->secs);
	fprintf(out, "%6s %14s %16s %10s %14s %12s%s\n", "lcore", "rx-pkts",
		"rx-bytes", "flows-new", "hash-lookups",
		s->final ? "avg-Mpps" : "Mpps",
		s->final ? "  Mpps/cpu-s" : "");
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		if (fc_lcore_conf[lcore].n_rx == 0)
			continue;
		fprintf(out, "%6u %14" PRIu64 " %16" PRIu64 " %10" PRIu64
			" %14" PRIu64 " %12.3f", lcore,
			s->lcore[lcore].rx_pkts, s->lcore[lcore].rx_bytes,
			s->lcore[lcore].flows_created,
			s->lcore[lcore].hash_lookups, s->lcore[lcore].mpps);
		if (s->final && s->lcore[lcore].cpu_ns > 0)
			fprintf(out, " %12.3f", s->lcore[lcore].rx_pkts * 1e3 /
				(double)s->lcore[lcore].cpu_ns);
		fprintf(out, "\n");
	}
	fprintf(out, "%6s %14s %14s %10s %10s %12s %10s\n", "port", "rx-pkts",
		"tx-pkts", "tx-drop", "no-route", "ttl-exceeded", "bad-ip");
	for (p = 0; p < FC_MAX_PORTS; p++) {
		const struct fc_port_stats *d = &s->port[p];

		if (!(fc_opt.portmask & (1u << p)))
			continue;
		fprintf(out, "%6u %14" PRIu64 " %14" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %12" PRIu64 " %10" PRIu64 "\n", p,
			d->rx_pkts, d->tx_pkts, d->tx_drop, d->no_route,
			d->ttl_exceeded, d->bad_ip);
	}
	drops = s->total.tx_drop + s->total.no_route + s->total.ttl_exceeded +
		s->total.bad_ip + s->non_ip_pkts + s->malformed_pkts;
	fprintf(out, "total: rx %" PRIu64 " pkts %" PRIu64 " bytes, tx %" PRIu64
		", drops %" PRIu64 " (tx %" PRIu64 ", no-route %" PRIu64
		", ttl-exceeded %" PRIu64 ", bad-ip %" PRIu64 ", non-ip %"
		PRIu64 ", malformed %" PRIu64 ")\n", s->total.rx_pkts,
		s->total.rx_bytes, s->total.tx_pkts, drops, s->total.tx_drop,
		s->total.no_route, s->total.ttl_exceeded, s->total.bad_ip,
		s->non_ip_pkts, s->malformed_pkts);
	fprintf(out, "buckets: non-ip %" PRIu64 " pkts %" PRIu64 " bytes, "
		"malformed %" PRIu64 " pkts %" PRIu64 " bytes, overflow %"
		PRIu64 " pkts %" PRIu64 " bytes\n", s->non_ip_pkts,
		s->non_ip_bytes, s->malformed_pkts, s->malformed_bytes,
		s->overflow_pkts, s->overflow_bytes);
	if (fc_ftable == NULL) {
		fprintf(out, "flows: not counted (--no-count)\n");
		return;
	}
	/* after the stop, the flows that were live are in the totals:
	 * "closed at stop", so that created = live + aged + closed */
	fprintf(out, "flows: live %" PRIu64 ", created %" PRIu64 ", aged %"
		PRIu64 ", waiting for RCU %" PRIu64 ", closed at stop %" PRIu64
		", max %" PRIu64 "\n", s->fi.live, s->flows_created, s->fi.aged,
		s->fi.pending, s->fi.closed, s->fi.max_flows);
	if (s->fi.counters_owner != NULL)
		fc_report_counters_owner(s, out);
	if (s->nb_top == 0)
		return;
	fprintf(out, "top %u flows by bytes (%s):\n", s->nb_top,
		s->top_scope == FLOW_SCOPE_ALL ? "all, aged included" :
		fc_scope_name(s->top_scope));
	for (i = 0; i < s->nb_top; i++) {
		char buf[160];

		fc_format_flow(&s->top[i].key, buf, sizeof(buf));
		fprintf(out, "  %-64s %10" PRIu64 " pkts %14" PRIu64
			" bytes\n", buf, s->top[i].packets, s->top[i].bytes);
	}
}

static void
fc_json_flow(FILE *out, const struct flow_stat *f)
{
	char a[FLOW_ADDR_STRLEN], b[FLOW_ADDR_STRLEN];

	fprintf(out, "{\"family\":\"ipv%u\",\"proto\":%u,\"src\":\"%s\","
		"\"dst\":\"%s\",\"sport\":%u,\"dport\":%u,\"packets\":%" PRIu64
		",\"bytes\":%" PRIu64 "}", f->key.family, f->key.proto,
		flow_addr_format(f->key.family, f->key.src, a, sizeof(a)),
		flow_addr_format(f->key.family, f->key.dst, b, sizeof(b)),
		f->key.sport, f->key.dport, f->packets, f->bytes);
}

/* One line; the schema is in the guide ("JSON Statistics"). */
static void
fc_report_json(const struct fc_snapshot *s, FILE *out)
{
	unsigned int lcore, p, i;
	const char *sep = "";

	fprintf(out, "{\"type\":\"%s\",\"time_s\":%.6f,\"interval_s\":%.6f,"
		"\"rx_pkts\":%" PRIu64 ",\"rx_bytes\":%" PRIu64 ",\"tx_pkts\":%"
		PRIu64 ",\"drops\":{\"tx\":%" PRIu64 ",\"no_route\":%" PRIu64
		",\"ttl_exceeded\":%" PRIu64 ",\"bad_ip\":%" PRIu64
		",\"non_ip\":%" PRIu64 ",\"malformed\":%" PRIu64 "}",
		s->final ? "summary" : "interval", s->secs, s->interval,
		s->total.rx_pkts, s->total.rx_bytes, s->total.tx_pkts,
		s->total.tx_drop, s->total.no_route, s->total.ttl_exceeded,
		s->total.bad_ip, s->non_ip_pkts, s->malformed_pkts);
	fprintf(out, ",\"buckets\":{\"non_ip\":{\"pkts\":%" PRIu64 ",\"bytes\":%"
		PRIu64 "},\"malformed\":{\"pkts\":%" PRIu64 ",\"bytes\":%"
		PRIu64 "},\"overflow\":{\"pkts\":%" PRIu64 ",\"bytes\":%" PRIu64
		"}}", s->non_ip_pkts, s->non_ip_bytes, s->malformed_pkts,
		s->malformed_bytes, s->overflow_pkts, s->overflow_bytes);
	if (fc_ftable != NULL)
		fprintf(out, ",\"flows\":{\"live\":%" PRIu64 ",\"created\":%"
			PRIu64 ",\"aged\":%" PRIu64 ",\"rcu_pending\":%" PRIu64
			",\"max\":%" PRIu64 "}", s->fi.live, s->flows_created,
			s->fi.aged, s->fi.pending, s->fi.max_flows);
	else
		fprintf(out, ",\"flows\":null");
	if (fc_ftable != NULL && s->fi.counters_owner != NULL &&
	    s->fi.counters_mem_errno != 0)
		fprintf(out, ",\"counters_owner\":{\"name\":\"%s\","
			"\"error\":\"%s\"}", s->fi.counters_owner,
			rte_strerror(s->fi.counters_mem_errno));
	else if (fc_ftable != NULL && s->fi.counters_owner != NULL)
		fprintf(out, ",\"counters_owner\":{\"name\":\"%s\","
			"\"allocations\":%" PRIu64 ",\"live_bytes\":%" PRIu64
			",\"peak_bytes\":%" PRIu64 ",\"limit_bytes\":%" PRIu64
			",\"refused\":%" PRIu64 ",\"lcores\":%u}",
			s->fi.counters_owner, s->fi.counters_mem.nr_live,
			s->fi.counters_mem.live_bytes,
			s->fi.counters_mem.peak_bytes,
			s->fi.counters_mem.limit_bytes,
			s->fi.counters_mem.nr_fail,
			s->fi.counters_mem.nr_lcores);
	else
		fprintf(out, ",\"counters_owner\":null");
	fprintf(out, ",\"lcores\":[");
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		if (fc_lcore_conf[lcore].n_rx == 0)
			continue;
		fprintf(out, "%s{\"lcore\":%u,\"rx_pkts\":%" PRIu64
			",\"rx_bytes\":%" PRIu64 ",\"flows_created\":%" PRIu64
			",\"hash_lookups\":%" PRIu64 ",\"mpps\":%.6f", sep,
			lcore, s->lcore[lcore].rx_pkts,
			s->lcore[lcore].rx_bytes, s->lcore[lcore].flows_created,
			s->lcore[lcore].hash_lookups, s->lcore[lcore].mpps);
		if (s->final)
			fprintf(out, ",\"cpu_s\":%.6f",
				s->lcore[lcore].cpu_ns / 1e9);
		fprintf(out, "}");
		sep = ",";
	}
	fprintf(out, "],\"ports\":[");
	sep = "";
	for (p = 0; p < FC_MAX_PORTS; p++) {
		const struct fc_port_stats *d = &s->port[p];

		if (!(fc_opt.portmask & (1u << p)))
			continue;
		fprintf(out, "%s{\"port\":%u,\"rx_pkts\":%" PRIu64
			",\"rx_bytes\":%" PRIu64 ",\"tx_pkts\":%" PRIu64
			",\"tx_drop\":%" PRIu64 ",\"no_route\":%" PRIu64
			",\"ttl_exceeded\":%" PRIu64 ",\"bad_ip\":%" PRIu64 "}",
			sep, p, d->rx_pkts, d->rx_bytes, d->tx_pkts,
			d->tx_drop, d->no_route, d->ttl_exceeded, d->bad_ip);
		sep = ",";
	}
	fprintf(out, "],\"top_scope\":\"%s\",\"top\":[",
		fc_scope_name(s->top_scope));
	for (i = 0; i < s->nb_top; i++) {
		if (i > 0)
			fputc(',', out);
		fc_json_flow(out, &s->top[i]);
	}
	fprintf(out, "]}\n");
}

void
fc_report_stats(const struct fc_snapshot *s, FILE *out)
{
	if (fc_opt.stats_format == FC_STATS_JSON)
		fc_report_json(s, out);
	else
		fc_report_table(s, out);
	fflush(out);
}

/* the mode a file created with open(0666) gets: read once, before the
 * workers start (umask() sets as it reads) */
static mode_t fc_dump_mode = 0644;

/*
 * Create the file a dump of @path is written to before it is renamed over
 * @path: a new file of its own in the same directory ("PATH.XXXXXX",
 * mkstemp()), never an existing one. A fixed name (PATH.tmp) would be
 * opened through a symbolic link or a FIFO someone put there, or would
 * truncate a file of that name. Returns the open stream and its name in
 * @tmp, or NULL with errno set.
 */
static FILE *
fc_dump_tmp_create(const char *path, char *tmp, size_t size)
{
	FILE *f;
	int fd;

	if (snprintf(tmp, size, "%s.XXXXXX", path) >= (int)size) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	/* mkstemp() makes it 0600; a dump is read as any other output */
	if (fchmod(fd, fc_dump_mode) != 0 ||
			(f = fdopen(fd, "w")) == NULL) {
		int err = errno;

		close(fd);
		unlink(tmp);
		errno = err;
		return NULL;
	}
	return f;
}

int
fc_report_check_dump_path(const char *path)
{
	char tmp[PATH_MAX];
	struct stat sb;
	mode_t mask;
	FILE *f;
	int fd;

	if (strcmp(path, "-") == 0)
		return 0;
	mask = umask(0);
	umask(mask);
	fc_dump_mode = 0666 & ~mask;
	/* the directory takes a new file */
	f = fc_dump_tmp_create(path, tmp, sizeof(tmp));
	if (f == NULL) {
		fprintf(stderr, "%s: --flow-dump: cannot write a file beside "
			"%s: %s\n", fc_prgname, path, strerror(errno));
		return -1;
	}
	fclose(f);
	unlink(tmp);
	/* the dump is renamed over FILE at the end: a FILE that exists must
	 * be a regular file that can be replaced. Not a directory, and not a
	 * device, FIFO or symbolic link, which the rename would replace by a
	 * regular file (and opening a FIFO nobody reads would block here);
	 * not immutable: opened for appending, so that its content stays as
	 * it is */
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		fprintf(stderr, "%s: --flow-dump: cannot replace %s: %s\n",
			fc_prgname, path, S_ISDIR(sb.st_mode) ?
			strerror(EISDIR) : "not a regular file");
		return -1;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno != ENOENT) {
		fprintf(stderr, "%s: --flow-dump: cannot replace %s: %s\n",
			fc_prgname, path, strerror(errno));
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static void
fc_dump_rows(FILE *f, const struct flow_stat *v, int n,
		const struct fc_snapshot *s)
{
	char row[FLOW_CSV_ROW_MAX];
	int i;

	fprintf(f, "%s\n", FLOW_CSV_HEADER);
	for (i = 0; i < n; i++) {
		flow_csv_row(&v[i].key, v[i].packets, v[i].bytes, row,
			sizeof(row));
		fputs(row, f);
	}
	if (s->non_ip_pkts) {
		flow_csv_special_row("non-ip", s->non_ip_pkts, s->non_ip_bytes,
			row, sizeof(row));
		fputs(row, f);
	}
	if (s->malformed_pkts) {
		flow_csv_special_row("malformed", s->malformed_pkts,
			s->malformed_bytes, row, sizeof(row));
		fputs(row, f);
	}
	if (s->overflow_pkts) {
		flow_csv_special_row("overflow", s->overflow_pkts,
			s->overflow_bytes, row, sizeof(row));
		fputs(row, f);
	}
}

int
fc_report_dump(const char *path, const struct flow_stat *flows, int n,
		const struct fc_snapshot *s)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (strcmp(path, "-") == 0) {
		fc_dump_rows(stdout, flows, n, s);
		fflush(stdout);
		return 0;
	}
	/* write aside, then rename: a reader never sees half a dump */
	f = fc_dump_tmp_create(path, tmp, sizeof(tmp));
	if (f == NULL) {
		fprintf(stderr, "%s: cannot write a file beside %s: %s\n",
			fc_prgname, path, strerror(errno));
		return -1;
	}
	fc_dump_rows(f, flows, n, s);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "%s: error writing %s: %s\n", fc_prgname, path,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	printf("flow dump: %d flows written to %s\n", n, path);
	return 0;
}

/* ------------------------------------------------------------ telemetry */

/* The telemetry callbacks run on the telemetry thread: they read only
 * while fc_tel_ready, under fc_tel_lock. */
static pthread_mutex_t fc_tel_lock = PTHREAD_MUTEX_INITIALIZER;
static bool fc_tel_ready;

static void
fc_tel_flow(struct rte_tel_data *d, const struct flow_stat *s)
{
	char a[FLOW_ADDR_STRLEN];

	rte_tel_data_add_dict_string(d, "family",
		s->key.family == 4 ? "ipv4" : "ipv6");
	rte_tel_data_add_dict_uint(d, "proto", s->key.proto);
	rte_tel_data_add_dict_string(d, "src",
		flow_addr_format(s->key.family, s->key.src, a, sizeof(a)));
	rte_tel_data_add_dict_string(d, "dst",
		flow_addr_format(s->key.family, s->key.dst, a, sizeof(a)));
	rte_tel_data_add_dict_uint(d, "sport", s->key.sport);
	rte_tel_data_add_dict_uint(d, "dport", s->key.dport);
	rte_tel_data_add_dict_uint(d, "packets", s->packets);
	rte_tel_data_add_dict_uint(d, "bytes", s->bytes);
}

/* a reply {"error": "..."}: telemetry's own answer to a failed command is
 * a bare null */
static int
fc_tel_error(struct rte_tel_data *d, const char *msg)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", msg);
	return 0;
}

static void
fc_tel_port(struct rte_tel_data *d, const char *name,
		const struct fc_port_stats *ps)
{
	struct rte_tel_data *c = rte_tel_data_alloc();

	if (c == NULL)
		return;
	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_uint(c, "rx_pkts", ps->rx_pkts);
	rte_tel_data_add_dict_uint(c, "rx_bytes", ps->rx_bytes);
	rte_tel_data_add_dict_uint(c, "tx_pkts", ps->tx_pkts);
	rte_tel_data_add_dict_uint(c, "tx_drop", ps->tx_drop);
	rte_tel_data_add_dict_uint(c, "no_route", ps->no_route);
	rte_tel_data_add_dict_uint(c, "ttl_exceeded", ps->ttl_exceeded);
	rte_tel_data_add_dict_uint(c, "bad_ip", ps->bad_ip);
	if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
		rte_tel_data_free(c);
}

static int
fc_tel_stats(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	static struct fc_snapshot s;   /* under fc_tel_lock */
	unsigned int lcore, p;
	char name[32];

	if (params != NULL && *params != '\0')
		return fc_tel_error(d, "/flowcount/stats takes no parameter");
	pthread_mutex_lock(&fc_tel_lock);
	if (!fc_tel_ready) {
		pthread_mutex_unlock(&fc_tel_lock);
		return fc_tel_error(d, "not running");
	}
	fc_snapshot_take(&s, NULL, false, 0, FLOW_SCOPE_LIVE, FC_RCU_TEL_ID);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_uint(d, "uptime_ms", (uint64_t)(s.secs * 1e3));
	rte_tel_data_add_dict_uint(d, "rx_pkts", s.total.rx_pkts);
	rte_tel_data_add_dict_uint(d, "rx_bytes", s.total.rx_bytes);
	rte_tel_data_add_dict_uint(d, "tx_pkts", s.total.tx_pkts);
	rte_tel_data_add_dict_uint(d, "tx_drop", s.total.tx_drop);
	rte_tel_data_add_dict_uint(d, "no_route", s.total.no_route);
	rte_tel_data_add_dict_uint(d, "ttl_exceeded", s.total.ttl_exceeded);
	rte_tel_data_add_dict_uint(d, "bad_ip", s.total.bad_ip);
	rte_tel_data_add_dict_uint(d, "non_ip_pkts", s.non_ip_pkts);
	rte_tel_data_add_dict_uint(d, "non_ip_bytes", s.non_ip_bytes);
	rte_tel_data_add_dict_uint(d, "malformed_pkts", s.malformed_pkts);
	rte_tel_data_add_dict_uint(d, "malformed_bytes", s.malformed_bytes);
	rte_tel_data_add_dict_uint(d, "overflow_pkts", s.overflow_pkts);
	rte_tel_data_add_dict_uint(d, "overflow_bytes", s.overflow_bytes);
	rte_tel_data_add_dict_uint(d, "counting", fc_ftable != NULL);
	rte_tel_data_add_dict_uint(d, "flows_live", s.fi.live);
	rte_tel_data_add_dict_uint(d, "flows_created", s.flows_created);
	rte_tel_data_add_dict_uint(d, "flows_aged", s.fi.aged);
	rte_tel_data_add_dict_uint(d, "flows_rcu_pending", s.fi.pending);
	rte_tel_data_add_dict_uint(d, "max_flows", s.fi.max_flows);
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++) {
		struct rte_tel_data *c;

		if (fc_lcore_conf[lcore].n_rx == 0)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_uint(c, "rx_pkts", s.lcore[lcore].rx_pkts);
		rte_tel_data_add_dict_uint(c, "rx_bytes",
			s.lcore[lcore].rx_bytes);
		rte_tel_data_add_dict_uint(c, "flows_created",
			s.lcore[lcore].flows_created);
		rte_tel_data_add_dict_uint(c, "hash_lookups",
			s.lcore[lcore].hash_lookups);
		snprintf(name, sizeof(name), "lcore_%u", lcore);
		if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
			rte_tel_data_free(c);
	}
	for (p = 0; p < FC_MAX_PORTS; p++) {
		if (!(fc_opt.portmask & (1u << p)))
			continue;
		snprintf(name, sizeof(name), "port_%u", p);
		fc_tel_port(d, name, &s.port[p]);
	}
	pthread_mutex_unlock(&fc_tel_lock);
	return 0;
}

/* "N" or "N,SCOPE": how many flows and which; errors in @err */
static int
fc_tel_flows_params(const char *params, unsigned int *n,
		enum flow_scope *scope, char *err, size_t size)
{
	char buf[64], *comma, *end;
	uint64_t v;

	*n = fc_opt.top > 0 ? RTE_MIN(fc_opt.top, FC_TEL_MAX_FLOWS) : 10;
	*scope = FLOW_SCOPE_LIVE;
	if (params == NULL || *params == '\0')
		return 0;
	if (strlen(params) >= sizeof(buf)) {
		snprintf(err, size, "parameters too long");
		return -1;
	}
	strcpy(buf, params);
	comma = strchr(buf, ',');
	if (comma != NULL) {
		*comma = '\0';
		/* an empty SCOPE is its default, as an empty N is */
		if (comma[1] == '\0' || strcmp(comma + 1, "live") == 0)
			*scope = FLOW_SCOPE_LIVE;
		else if (strcmp(comma + 1, "aged") == 0)
			*scope = FLOW_SCOPE_AGED;
		else if (strcmp(comma + 1, "all") == 0)
			*scope = FLOW_SCOPE_ALL;
		else {
			snprintf(err, size, "scope must be live, aged or all, "
				"got '%.20s'", comma + 1);
			return -1;
		}
	}
	if (buf[0] == '\0' && comma != NULL)
		return 0;   /* ",SCOPE": the default count */
	if (fc_strtou64(buf, &end, 10, &v) != 0 || *end != '\0' ||
			v < 1 || v > FC_TEL_MAX_FLOWS) {
		snprintf(err, size, "N must be a number from 1 to %u, got "
			"'%.20s'", FC_TEL_MAX_FLOWS, buf);
		return -1;
	}
	*n = (unsigned int)v;
	return 0;
}

static int
fc_tel_flows(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	static struct flow_stat top[FC_TEL_MAX_FLOWS];  /* under the lock */
	enum flow_scope scope;
	unsigned int n, i, cnt;
	char err[128];

	if (fc_tel_flows_params(params, &n, &scope, err, sizeof(err)) != 0)
		return fc_tel_error(d, err);
	pthread_mutex_lock(&fc_tel_lock);
	if (!fc_tel_ready || fc_ftable == NULL) {
		pthread_mutex_unlock(&fc_tel_lock);
		return fc_tel_error(d, fc_ftable == NULL ?
			"flows are not counted (--no-count)" : "not running");
	}
	cnt = flow_table_top(fc_ftable, top, n, scope, FC_RCU_TEL_ID);
	/* 22.11 arrays hold only array containers: a dict of flow_1..N */
	rte_tel_data_start_dict(d);
	for (i = 0; i < cnt; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[32];

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		fc_tel_flow(c, &top[i]);
		snprintf(name, sizeof(name), "flow_%u", i + 1);
		if (rte_tel_data_add_dict_container(d, name, c, 0) != 0) {
			rte_tel_data_free(c);
			break;
		}
	}
	pthread_mutex_unlock(&fc_tel_lock);
	return 0;
}

void
fc_telemetry_start(void)
{
	rte_telemetry_register_cmd("/flowcount/stats", fc_tel_stats,
		"Packet, drop and flow counters. No parameters.");
	rte_telemetry_register_cmd("/flowcount/flows", fc_tel_flows,
		"Top flows by bytes, as flow_1..flow_N. Parameters: "
		"N (1-50), then optionally ,live (default) ,aged or ,all.");
	pthread_mutex_lock(&fc_tel_lock);
	fc_tel_ready = true;
	pthread_mutex_unlock(&fc_tel_lock);
}

void
fc_telemetry_stop(void)
{
	pthread_mutex_lock(&fc_tel_lock);
	fc_tel_ready = false;
	pthread_mutex_unlock(&fc_tel_lock);
}
