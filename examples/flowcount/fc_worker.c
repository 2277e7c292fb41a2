/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * The datapath of dpdk-flowcount: each worker lcore polls its RX queues
 * and, per burst, classifies every frame (flow_parse.c), routes each IP
 * packet (fc_route.c or the paired port), rewrites it as l3fwd does and
 * sends it, all in one pass over the burst (fc_burst_pass(), as
 * fc_burst_forward() with --no-count, or fc_burst_parse() when counting,
 * which also keeps each packet's flow key), ending in fc_forward_one().
 * Counting then looks the burst's flows up in stages (flow_table.c:
 * hashes and cache sets, then signatures and counter lines, then keys and
 * counts), so that the flow table's cache misses of the whole burst are
 * in flight together.
 *
 * The rewrite, for a packet that leaves on port P:
 * - destination MAC from --eth-dest for P (default 02:00:00:00:00:P),
 *   source MAC P's own address;
 * - IPv4: the RFC 1812 checks (the parser checked version and header
 *   length; here the total length must hold the header and the NIC must
 *   not have flagged the checksum bad), TTL decremented and the checksum
 *   updated incrementally (RFC 1624); a packet whose TTL is 1 or 0 is
 *   dropped and counted (ttl_exceeded), where l3fwd forwards it with TTL
 *   0 or 255;
 * - IPv6: the hop limit likewise.
 * Every frame received is counted exactly once: in its flow (when
 * counting) or else in the non-ip or malformed bucket (those are not
 * forwarded), and every frame not sent is counted in one drop counter.
 */

#define _GNU_SOURCE
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include "fc_route.h"
#include "flow_parse.h"
#include "flow_table.h"
#include "flowcount.h"

/* packets ahead whose first line is prefetched while parsing */
#define FC_PREFETCH_OFFSET 3

/*
 * IPv4 header checksum after the TTL went down by one. RFC 1624, eqn. 3:
 * HC' = ~(~HC + ~m + m'), where m is the 16-bit word holding TTL and
 * protocol and m' = m - 0x0100, which comes to HC + 0x0100 in ones'
 * complement: add, then fold the carry back in. A sum that reaches 0xFFFF
 * is folded too, so the result is the same as eqn. 3 for every checksum
 * and TTL (checked exhaustively when this was written). A ones' complement
 * sum of byte-swapped words is the byte-swapped sum, so the sum is taken
 * in network byte order, with no swap.
 */
static inline rte_be16_t
fc_cksum_ttl_dec(rte_be16_t hc)
{
	uint32_t s = (uint32_t)hc + RTE_BE16(0x0100);

	return (rte_be16_t)(s + (s >= 0xFFFFu));
}

/*
 * The IP part of the forwarding rewrite of @m, whose frame starts at @p
 * and whose IP header starts at @l3_off. Returns NULL to send it; else the
 * packet is to be dropped, and the return value is the drop counter of
 * @rx to bump.
 */
static inline uint64_t *
fc_rewrite_ip(const struct rte_mbuf *m, uint8_t *p, uint8_t family,
		uint32_t l3_off, struct fc_port_stats *rx)
{
	if (family == 4) {
		struct rte_ipv4_hdr *ip;

		/* headers are rewritten in place: they must be in the first
		 * segment, as every PMD puts them */
		if (unlikely(l3_off + sizeof(*ip) > m->data_len))
			return &rx->bad_ip;
		ip = (struct rte_ipv4_hdr *)(p + l3_off);
		if (unlikely(rte_be_to_cpu_16(ip->total_length) <
				rte_ipv4_hdr_len(ip) ||
				(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
				RTE_MBUF_F_RX_IP_CKSUM_BAD))
			return &rx->bad_ip;
		if (unlikely(ip->time_to_live <= 1))
			return &rx->ttl_exceeded;
		ip->time_to_live--;
		ip->hdr_checksum = fc_cksum_ttl_dec(ip->hdr_checksum);
	} else {
		struct rte_ipv6_hdr *ip;

		if (unlikely(l3_off + sizeof(*ip) > m->data_len))
			return &rx->bad_ip;
		ip = (struct rte_ipv6_hdr *)(p + l3_off);
		if (unlikely(ip->hop_limits <= 1))
			return &rx->ttl_exceeded;
		ip->hop_limits--;
	}
	return NULL;
}

/* Where an IPv4 packet to @dst (network byte order) received on @port
 * goes: a port, or FC_ROUTE_NONE. */
static inline uint16_t
fc_route4(const struct fc_routes *r, rte_be32_t dst, uint16_t port)
{
	if (r == NULL)
		return fc_pair_port[port];
	return fc_route_ipv4(r, rte_be_to_cpu_32(dst));
}

/* Where a packet of flow @k received on @port goes: a port, or
 * FC_ROUTE_NONE. */
static inline uint16_t
fc_route(const struct fc_routes *r, const struct flow_key *k, uint16_t port)
{
	rte_be32_t dst;

	if (k->family == 4) {
		memcpy(&dst, k->dst, sizeof(dst));
		return fc_route4(r, dst, port);
	}
	if (r == NULL)
		return fc_pair_port[port];
	return fc_route_ipv6(r, k->dst);
}

/*
 * Queue @n packets for @port (a run of one burst), sending every full
 * buffer, as rte_eth_tx_buffer() of each would: but the buffer's length is
 * read and written once per run, not once per packet (a chain of loads
 * and stores through memory), and the lock taken once.
 */
static inline void
fc_send(struct fc_lcore_conf *lc, struct fc_lcore_stats *st, uint16_t port,
		struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_eth_dev_tx_buffer *txb = lc->txb[port];
	uint16_t txq = lc->txq[port];
	uint32_t sent = 0;

	if (lc->txlock[port] != NULL)
		rte_spinlock_lock(lc->txlock[port]);
	while (n > 0) {
		uint16_t len = txb->length;
		unsigned int k = RTE_MIN(n, (unsigned int)(txb->size - len));

		memcpy(&txb->pkts[len], pkts, k * sizeof(*pkts));
		txb->length = (uint16_t)(len + k);
		pkts += k;
		n -= k;
		if (txb->length >= txb->size)
			sent += rte_eth_tx_buffer_flush(port, txq, txb);
	}
	if (lc->txlock[port] != NULL)
		rte_spinlock_unlock(lc->txlock[port]);
	if (sent)
		fc_counter_add(&st->port[port].tx_pkts, sent);
}

static void
fc_flush_tx(struct fc_lcore_conf *lc, struct fc_lcore_stats *st)
{
	uint16_t port, sent;

	for (port = 0; port < FC_MAX_PORTS; port++) {
		if (lc->txb[port] == NULL || lc->txb[port]->length == 0)
			continue;
		if (lc->txlock[port] != NULL)
			rte_spinlock_lock(lc->txlock[port]);
		sent = rte_eth_tx_buffer_flush(port, lc->txq[port],
			lc->txb[port]);
		if (lc->txlock[port] != NULL)
			rte_spinlock_unlock(lc->txlock[port]);
		if (sent)
			fc_counter_add(&st->port[port].tx_pkts, sent);
	}
}

/*
 * Counts of one burst's frames that are not forwarded (non-ip,
 * malformed), added to the lcore's counters after the burst's RX bytes:
 * see fc_rx_begin().
 */
struct fc_buckets {
	uint64_t non_ip_pkts, non_ip_bytes;
	uint64_t malformed_pkts, malformed_bytes;
};

/* A frame that is not forwarded: counted in its bucket, and freed. */
static inline void
fc_bucket_drop(struct fc_buckets *b, struct rte_mbuf *m, enum flow_class cls,
		uint32_t len)
{
	if (cls == FLOW_CLASS_NON_IP) {
		b->non_ip_pkts++;
		b->non_ip_bytes += len;
	} else {
		b->malformed_pkts++;
		b->malformed_bytes += len;
	}
	rte_pktmbuf_free(m);
}

/*
 * A burst of @nb packets is counted as received before anything else of
 * it, so that a report (fc_snapshot_take(), which reads the other way
 * round) never shows more sent, dropped or put in a bucket than received:
 * the packets here, at the start...
 */
static inline void
fc_rx_begin(struct fc_port_stats *rx, uint16_t nb)
{
	fc_counter_add(&rx->rx_pkts, nb);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/* ...the bytes at the end, before the buckets' bytes. */
static inline void
fc_rx_end(struct fc_lcore_stats *st, struct fc_port_stats *rx,
		uint64_t bytes, const struct fc_buckets *b)
{
	fc_counter_add(&rx->rx_bytes, bytes);
	if (likely(b->non_ip_pkts == 0 && b->malformed_pkts == 0))
		return;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	fc_counter_add(&st->non_ip_pkts, b->non_ip_pkts);
	fc_counter_add(&st->non_ip_bytes, b->non_ip_bytes);
	fc_counter_add(&st->malformed_pkts, b->malformed_pkts);
	fc_counter_add(&st->malformed_bytes, b->malformed_bytes);
}

/*
 * The packets of one burst that go out, compacted in place over the
 * burst's array (packets sent keep their order), and sent as runs to one
 * port, each as soon as it ends.
 */
struct fc_tx_runs {
	struct rte_mbuf **pkts;
	unsigned int n;         /* packets kept */
	unsigned int run;       /* first packet of the current run */
	uint16_t run_port;      /* its port, FC_ROUTE_NONE before the first */
};

/*
 * What becomes of packet @m (frame at @p, IP header at @l3_off, received
 * on the port whose counters are @rx) once routed to @d: it is dropped and
 * counted (no route, or fc_rewrite_ip() refuses it), or rewritten and
 * added to @t, which sends the run that this packet ends.
 */
static __rte_always_inline void
fc_forward_one(struct fc_lcore_conf *lc, struct fc_lcore_stats *st,
		struct fc_port_stats *rx, struct fc_tx_runs *t,
		struct rte_mbuf *m, uint8_t *p, uint16_t d, uint8_t family,
		uint32_t l3_off)
{
	uint64_t *drop;

	if (unlikely(d == FC_ROUTE_NONE)) {
		fc_counter_add(&rx->no_route, 1);
		rte_pktmbuf_free(m);
		return;
	}
	drop = fc_rewrite_ip(m, p, family, l3_off, rx);
	if (unlikely(drop != NULL)) {
		fc_counter_add(drop, 1);
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(p, &fc_eth[d], sizeof(fc_eth[d]));
	if (unlikely(d != t->run_port)) {
		if (t->n > t->run)
			fc_send(lc, st, t->run_port, &t->pkts[t->run],
				t->n - t->run);
		t->run = t->n;
		t->run_port = d;
	}
	t->pkts[t->n++] = m;
}

/* Send the last run of @t. */
static __rte_always_inline void
fc_runs_end(struct fc_lcore_conf *lc, struct fc_lcore_stats *st,
		struct fc_tx_runs *t)
{
	if (t->n > t->run)
		fc_send(lc, st, t->run_port, &t->pkts[t->run], t->n - t->run);
}

/*
 * A burst's flows between its parse, where its packets were forwarded and
 * the first stage of its flow lookup started, and their counting. With
 * --pipeline, a full burst's flows wait here during the next RX call and
 * parse, so that the cache sets the first stage prefetched have arrived:
 * it holds keys, hashes and lengths, no flow handle (the flow lookup goes
 * on at flow_burst_count()), so the worker's RCU quiescent states are
 * unaffected. A burst that is not full is counted at once, and so is a
 * waiting one after a round without traffic. But an RX call that blocks
 * (net_pcap reading a FIFO) keeps a waiting burst uncounted as long as it
 * blocks, so flows do not age as the traffic says: hence off by default.
 */
struct fc_held {
	struct flow_burst *fb;
	const struct flow_cache *fc;    /* the worker's, or NULL */
	uint32_t len[FC_MAX_PKT_BURST];
	hash_sig_t sig[FC_MAX_PKT_BURST];
	struct flow_key keys[FC_MAX_PKT_BURST];
};

/* Keep packet @nf's length and hash, and prefetch its flow cache set. */
static __rte_always_inline void
fc_held_add(struct fc_held *h, unsigned int nf, uint32_t len)
{
	hash_sig_t sig = flow_table_hash(&h->keys[nf]);

	h->len[nf] = len;
	h->sig[nf] = sig;
	flow_cache_prefetch(h->fc, sig);
}

/*
 * One pass over a burst: each packet is parsed, routed, rewritten and
 * queued, as l3fwd does, with nothing kept between the stages but, when
 * flows are counted (@h not NULL), the packet's flow key with the first
 * stage of its lookup: its hash, and the prefetch of its flow cache set,
 * whose miss has the rest of the burst's work to complete before
 * fc_burst_count(). The common frame (flow_parse_is_fast()) is routed
 * from its header, with its family and header offset known, and its key
 * is built from the header too (flow_parse_fast_key()), so that its hash
 * needs no load; any other takes flow_parse_mbuf(). Inlined into one
 * function for each case, so that forwarding alone keeps no key.
 */
static __rte_always_inline void
fc_burst_pass(struct fc_lcore_conf *lc, struct fc_lcore_stats *st,
		uint16_t port, struct rte_mbuf **pkts, uint16_t nb,
		struct fc_held *h)
{
	const struct fc_routes *routes = lc->routes;
	struct fc_port_stats *rx = &st->port[port];
	struct fc_tx_runs t = { .pkts = pkts, .run_port = FC_ROUTE_NONE };
	struct fc_buckets b = { 0 };
	uint64_t bytes = 0;
	unsigned int nf = 0, i;

	fc_rx_begin(rx, nb);
	for (i = 0; i < nb && i < FC_PREFETCH_OFFSET; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		uint32_t len = rte_pktmbuf_pkt_len(m);
		struct flow_key local;
		struct flow_key *key = h != NULL ? &h->keys[nf] : &local;
		uint32_t l3_off;
		enum flow_class cls;

		if (i + FC_PREFETCH_OFFSET < nb)
			rte_prefetch0(rte_pktmbuf_mtod(
				pkts[i + FC_PREFETCH_OFFSET], void *));
		bytes += len;
		if (likely(flow_parse_is_fast(m, p))) {
			if (h != NULL) {
				flow_parse_fast_key(p, key);
				fc_held_add(h, nf++, len);
			}
			fc_forward_one(lc, st, rx, &t, m, p,
				fc_route4(routes, flow_parse_fast_dst(p), port),
				4, RTE_ETHER_HDR_LEN);
			continue;
		}
		cls = flow_parse_mbuf(m, key, &l3_off);
		if (unlikely(cls != FLOW_CLASS_FLOW)) {
			fc_bucket_drop(&b, m, cls, len);
			continue;
		}
		if (h != NULL)
			fc_held_add(h, nf++, len);
		fc_forward_one(lc, st, rx, &t, m, p,
			fc_route(routes, key, port), key->family, l3_off);
	}
	fc_runs_end(lc, st, &t);
	if (h != NULL && nf > 0)
		flow_burst_add_bulk(h->fb, h->keys, h->sig, h->len, nf);
	fc_rx_end(st, rx, bytes, &b);
}

/* A burst when flows are not counted (--no-count). */
static void
fc_burst_forward(struct fc_lcore_conf *lc, struct fc_lcore_stats *st,
		uint16_t port, struct rte_mbuf **pkts, uint16_t nb)
{
	fc_burst_pass(lc, st, port, pkts, nb, NULL);
}

/* A burst when flows are counted: its flows wait in @h for
 * fc_burst_count(). */
static void
fc_burst_parse(struct fc_held *h, struct fc_lcore_conf *lc,
		struct fc_lcore_stats *st, uint16_t port, struct rte_mbuf **pkts,
		uint16_t nb)
{
	fc_burst_pass(lc, st, port, pkts, nb, h);
}

/* The rest of the flow lookup, and the counting: no flow handle is held
 * past this point. */
static void
fc_burst_count(struct fc_held *h, struct fc_lcore_stats *st, uint64_t now)
{
	flow_burst_count(h->fb, now, &st->fw);
}

/*
 * The calling worker's flow state when counting: its flow cache (@fcp,
 * NULL when --flow-cache is 0, or when it cannot be made and the
 * worker counts without) and its two bursts (@heldp). Returns 0, or -1
 * after one line saying why, with nothing left allocated.
 */
static int
fc_worker_flow_state(unsigned int lcore, struct flow_cache **fcp,
		struct fc_held **heldp)
{
	struct flow_cache *fc = NULL;
	struct fc_held *held;
	unsigned int i;

	if (fc_opt.flow_cache != 0) {
		fc = flow_cache_create(fc_ftable, fc_opt.flow_cache,
			(int)rte_socket_id());
		if (fc == NULL && fc_opt.count_floor) {
			printf("lcore %u: --count-floor counts in a flow cache, "
				"which could not be made: %s\n", lcore,
				rte_strerror(rte_errno));
			return -1;
		}
		if (fc == NULL)
			printf("lcore %u: no flow cache (%s), counting "
				"without\n", lcore, rte_strerror(rte_errno));
	}
	held = rte_zmalloc_socket("fc_held", 2 * sizeof(*held),
		RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (held == NULL) {
		printf("lcore %u: no memory for bursts\n", lcore);
		flow_cache_free(fc);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		held[i].fc = fc;
		held[i].fb = flow_burst_create(fc_ftable, fc,
			(int)rte_socket_id());
		if (held[i].fb == NULL) {
			printf("lcore %u: no burst state for the flow table: "
				"%s\n", lcore, rte_strerror(rte_errno));
			flow_burst_free(held[0].fb);
			rte_free(held);
			flow_cache_free(fc);
			return -1;
		}
	}
	*fcp = fc;
	*heldp = held;
	return 0;
}

int
fc_worker_main(__rte_unused void *arg)
{
	unsigned int lcore = rte_lcore_id();
	struct fc_lcore_conf *lc = &fc_lcore_conf[lcore];
	struct fc_lcore_stats *st = RTE_PCPU_LCORE(lcore, fc_stats);
	struct rte_mbuf *pkts[FC_MAX_PKT_BURST];
	struct flow_cache *fc = NULL;
	struct fc_held *held = NULL, *pending = NULL;
	unsigned int next = 0;
	bool got;
	uint64_t drain_tsc = (rte_get_tsc_hz() + US_PER_S - 1) / US_PER_S *
		FC_BURST_TX_DRAIN_US;
	uint64_t prev_tsc = 0, cur;
	struct rusage ru;
	unsigned int i;

	if (lc->n_rx == 0)
		return 0;
	for (i = 0; i < lc->n_rx; i++)
		printf("lcore %u: RX port %u queue %u\n", lcore,
			lc->rx[i].port, lc->rx[i].queue);
	rte_rcu_qsbr_thread_register(fc_qsbr, lcore);
	rte_rcu_qsbr_thread_online(fc_qsbr, lcore);
	/* counting: the flow cache, and two bursts, one waiting
	 * (--pipeline), one being parsed; fc_burst_forward() keeps nothing.
	 * Without them the run stops (every worker), and fails. */
	if (fc_ftable != NULL &&
			fc_worker_flow_state(lcore, &fc, &held) != 0) {
		fc_worker_failed = true;
		fc_force_quit = true;
	}
	__atomic_store_n(&st->last_rx_tsc, rte_rdtsc(), __ATOMIC_RELAXED);

	while (!fc_force_quit) {
		cur = rte_rdtsc();
		if (unlikely(cur - prev_tsc > drain_tsc)) {
			fc_flush_tx(lc, st);
			prev_tsc = cur;
		}
		got = false;
		for (i = 0; i < lc->n_rx; i++) {
			uint16_t port = lc->rx[i].port;
			uint16_t nb = rte_eth_rx_burst(port, lc->rx[i].queue,
				pkts, FC_MAX_PKT_BURST);
			struct fc_held *h;

			if (nb == 0)
				continue;
			got = true;
			__atomic_store_n(&st->last_rx_tsc, cur,
				__ATOMIC_RELAXED);
			if (held == NULL) {
				fc_burst_forward(lc, st, port, pkts, nb);
				continue;
			}
			h = &held[next];
			next ^= 1;
			fc_burst_parse(h, lc, st, port, pkts, nb);
			if (pending != NULL) {
				fc_burst_count(pending, st, cur);
				pending = NULL;
			}
			if (nb == FC_MAX_PKT_BURST && fc_opt.pipeline)
				pending = h;
			else
				fc_burst_count(h, st, cur);
		}
		/* a round without traffic: nothing waits for more */
		if (pending != NULL && !got) {
			fc_burst_count(pending, st, cur);
			pending = NULL;
		}
		/* no flow handle is held across this point (a waiting burst
		 * has none; the flow cache's entries are checked against the
		 * aging epoch at the start of every burst, see flow_table.h) */
		rte_rcu_qsbr_quiescent(fc_qsbr, lcore);
	}
	if (pending != NULL)
		fc_burst_count(pending, st, rte_rdtsc());
	fc_flush_tx(lc, st);
	rte_rcu_qsbr_thread_offline(fc_qsbr, lcore);
	rte_rcu_qsbr_thread_unregister(fc_qsbr, lcore);
	for (i = 0; i < 2 && held != NULL; i++)
		flow_burst_free(held[i].fb);
	rte_free(held);
	flow_cache_free(fc);
	/* CPU time of this thread: rates per CPU second do not depend on
	 * other processes sharing the CPU */
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		fc_counter_add(&st->cpu_ns, (uint64_t)(ru.ru_utime.tv_sec +
			ru.ru_stime.tv_sec) * NS_PER_S +
			(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
			1000);
	return 0;
}
