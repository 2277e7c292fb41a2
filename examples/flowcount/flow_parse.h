/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

#ifndef _FLOW_PARSE_H_
#define _FLOW_PARSE_H_

/**
 * @file
 * Flow key extraction for dpdk-flowcount, by the flow-key rules written out
 * in the sample application guide (doc/guides/sample_app_ug/flowcount.rst,
 * "Flow Key and Counting Rules").
 *
 * The parser reads a frame only through rte_pktmbuf_read(), which checks
 * every offset against the packet length and copies a field that spans
 * segments, so no byte outside the mbuf chain is ever touched. It needs
 * no EAL: the unit test and the fuzzer hand it chains of mbuf headers laid
 * over their own buffers (flow_parse(), flow_parse_buf()).
 */

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a frame is counted as. */
enum flow_class {
	FLOW_CLASS_FLOW = 0,     /**< IPv4/IPv6: counted in its flow. */
	FLOW_CLASS_NON_IP,       /**< Any other EtherType. */
	FLOW_CLASS_MALFORMED,    /**< Cut short or invalid header. */
};

/**
 * Flow key: one direction of an IPv4 or IPv6 5-tuple, 40 bytes.
 * Always fully written (padding and unused address bytes are zero), so it
 * can be hashed and compared as bytes. Ports are in host byte order.
 */
struct flow_key {
	uint8_t family;   /**< 4 or 6. */
	uint8_t proto;    /**< IP protocol / IPv6 upper-layer next header. */
	uint16_t sport;   /**< Source port, 0 when none. */
	uint16_t dport;   /**< Destination port, 0 when none. */
	uint16_t pad;     /**< Always 0. */
	uint8_t src[16];  /**< Source address; IPv4 uses the first 4 bytes. */
	uint8_t dst[16];  /**< Destination address; as src. */
};

/** One segment of a frame, for flow_parse(). */
struct flow_seg {
	const uint8_t *data;  /**< First byte; may be NULL when len is 0. */
	uint32_t len;         /**< Bytes readable at data. */
};

/**
 * The parser never looks at bytes beyond this offset of a frame (Ethernet,
 * two VLAN tags, IPv6 header, eight extension headers of the largest size
 * and 4 bytes of ports): 16,454 bytes.
 */
#define FLOW_PARSE_MAX_DEPTH (14u + 2u * 4u + 40u + 8u * 2048u + 4u)

/**
 * Classify one frame and extract its flow key.
 *
 * @param m
 *   The frame: a valid mbuf chain (pkt_len is the sum of the segments'
 *   data_len, as every PMD hands it over).
 * @param key
 *   Receives the key when the result is FLOW_CLASS_FLOW; zeroed otherwise.
 * @param l3_off
 *   Receives the offset of the IPv4 or IPv6 header when the result is
 *   FLOW_CLASS_FLOW (14, 18 or 22: after the VLAN tags); else 0.
 * @return
 *   The class of the frame.
 */
enum flow_class flow_parse_mbuf(const struct rte_mbuf *m,
		struct flow_key *key, uint32_t *l3_off);

/** First bytes of a frame that flow_parse_fast_key() reads: Ethernet,
 * a 20-byte IPv4 header and the 4 bytes of ports. */
#define FLOW_PARSE_FAST_LEN (RTE_ETHER_HDR_LEN + \
	(uint32_t)sizeof(struct rte_ipv4_hdr) + 4u)

/**
 * Whether the frame @p m, whose first byte is at @p p, is the inline parsers'
 * common case: untagged IPv4 without options, its first
 * FLOW_PARSE_FAST_LEN bytes in the first segment. Such a frame is always
 * FLOW_CLASS_FLOW, with its IPv4 header at RTE_ETHER_HDR_LEN.
 */
static inline int
flow_parse_is_fast(const struct rte_mbuf *m, const uint8_t *p)
{
	rte_be16_t etype;

	if (unlikely(m->data_len < FLOW_PARSE_FAST_LEN))
		return 0;
	/* read with memcpy: the IP header is 2-byte aligned in most mbufs */
	memcpy(&etype, p + offsetof(struct rte_ether_hdr, ether_type),
		sizeof(etype));
	return likely(etype == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
		p[RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv4_hdr,
			version_ihl)] == RTE_IPV4_VHL_DEF);
}

/**
 * Of a frame for which flow_parse_is_fast() holds, whose first byte is at
 * @p p: the flow's destination address (network byte order). The rest of
 * what flow_parse_mbuf() gives such a frame is fixed: FLOW_CLASS_FLOW,
 * family 4, IPv4 header at RTE_ETHER_HDR_LEN. So a datapath that does not
 * count can forward it without building a key (the unit test and the
 * fuzzer check this on every frame against the general parser:
 * flow_parse_fast_segs(), flow_parse_general()).
 */
static inline rte_be32_t
flow_parse_fast_dst(const uint8_t *p)
{
	rte_be32_t dst;

	memcpy(&dst, p + RTE_ETHER_HDR_LEN +
		offsetof(struct rte_ipv4_hdr, dst_addr), sizeof(dst));
	return dst;
}

/**
 * Whether the key of a packet of IP protocol @p proto has ports: TCP, UDP
 * and SCTP (the flow-key rules). One load from a table, for the inline
 * parser's sake: three compares take several times the instructions.
 */
static inline int
flow_parse_has_ports(uint8_t proto)
{
	static const uint8_t with_ports[256] = {
		[IPPROTO_TCP] = 1,
		[IPPROTO_UDP] = 1,
		[IPPROTO_SCTP] = 1,
	};

	return with_ports[proto];
}

/**
 * Of a frame for which flow_parse_is_fast() holds, whose first byte is at
 * @p p: its flow key, as flow_parse_mbuf() gives it (with the class
 * FLOW_CLASS_FLOW and the IPv4 header at RTE_ETHER_HDR_LEN).
 */
static inline void
flow_parse_fast_key(const uint8_t *p, struct flow_key *key)
{
	const uint8_t *ip = p + RTE_ETHER_HDR_LEN;
	uint64_t w0, w1, w3;
	uint32_t src, dst, ports = 0;
	rte_be16_t frag;
	uint8_t proto;

	RTE_BUILD_BUG_ON(sizeof(*key) != 40 ||
		offsetof(struct flow_key, src) != 8 ||
		offsetof(struct flow_key, dst) != 24);
	proto = ip[offsetof(struct rte_ipv4_hdr, next_proto_id)];
	memcpy(&src, ip + offsetof(struct rte_ipv4_hdr, src_addr), 4);
	dst = flow_parse_fast_dst(p);
	memcpy(&frag, ip + offsetof(struct rte_ipv4_hdr, fragment_offset),
		sizeof(frag));
	/* ports of TCP, UDP and SCTP, but not of a non-first fragment:
	 * sport in the high half, dport in the low half */
	if (flow_parse_has_ports(proto) &&
			(frag & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) == 0) {
		memcpy(&ports, ip + sizeof(struct rte_ipv4_hdr), 4);
		ports = rte_be_to_cpu_32(ports);
	}
	/* The key is stored as five 64-bit words, as its hash reads it: a
	 * wider load of several narrow stores would wait for them all. */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	/* the halves swapped (one rotate): sport at bits 16-31, dport at
	 * 32-47 */
	w0 = 4u | (uint64_t)proto << 8 |
		(uint64_t)(ports >> 16 | ports << 16) << 16;
	w1 = src;
	w3 = dst;
#else
	w0 = (uint64_t)4u << 56 | (uint64_t)proto << 48 |
		(uint64_t)(ports >> 16) << 32 | (uint64_t)(ports & 0xffffu) << 16;
	w1 = (uint64_t)src << 32;
	w3 = (uint64_t)dst << 32;
#endif
	memcpy((uint8_t *)key, &w0, 8);
	memcpy((uint8_t *)key + 8, &w1, 8);
	memset((uint8_t *)key + 16, 0, 8);
	memcpy((uint8_t *)key + 24, &w3, 8);
	memset((uint8_t *)key + 32, 0, 8);
}

/**
 * flow_parse_mbuf() with its most common frame (flow_parse_is_fast())
 * handled inline by flow_parse_fast_key(). Every other frame goes to
 * flow_parse_mbuf(); the result is the same for every frame (flow_parse(),
 * which the unit test and the fuzzer use, goes through here, and the unit
 * test compares contiguous frames with the same frames cut into short
 * segments, which take flow_parse_mbuf()).
 *
 * Parameters and return value as flow_parse_mbuf().
 */
static inline enum flow_class
flow_parse_mbuf_inline(const struct rte_mbuf *m, struct flow_key *key,
		uint32_t *l3_off)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	if (!flow_parse_is_fast(m, p))
		return flow_parse_mbuf(m, key, l3_off);
	flow_parse_fast_key(p, key);
	*l3_off = RTE_ETHER_HDR_LEN;
	return FLOW_CLASS_FLOW;
}

/**
 * flow_parse_mbuf() of a frame given as segments (pointer, length), as a
 * multi-segment mbuf holds it; for the unit test and the fuzzer. The
 * segments are described by a chain of mbuf headers (no EAL, no mempool);
 * a segment longer than an mbuf's 16-bit data_len is split, and the chain
 * stops once it covers FLOW_PARSE_MAX_DEPTH bytes, which gives the same
 * result.
 *
 * @param segs
 *   Segments of the frame, in order.
 * @param nb_segs
 *   Number of segments (0 is an empty frame: malformed).
 * @param key
 *   As flow_parse_mbuf().
 * @return
 *   The class of the frame; FLOW_CLASS_MALFORMED with errno ENOMEM when
 *   the chain of more than 32 headers cannot be allocated.
 */
enum flow_class flow_parse(const struct flow_seg *segs, unsigned int nb_segs,
		struct flow_key *key);

/** flow_parse() of a single contiguous buffer. */
enum flow_class flow_parse_buf(const void *data, uint32_t len,
		struct flow_key *key);

/**
 * flow_parse() through flow_parse_mbuf() only, never the inline fast path:
 * for the unit test and the fuzzer, which check the fast path against it.
 * Parameters and return value as flow_parse().
 */
enum flow_class flow_parse_general(const struct flow_seg *segs,
		unsigned int nb_segs, struct flow_key *key);

/**
 * flow_parse_is_fast() of a frame given as segments, as flow_parse() takes
 * them, and when it holds, flow_parse_fast_dst(); for the unit test and
 * the fuzzer, which check that flow_parse_general() gives such a frame an
 * IPv4 flow key with that destination.
 *
 * @param dst
 *   Receives the destination address when the result is 1.
 * @return
 *   1 when the frame takes the fast path, else 0 (also when the chain of
 *   more than 32 headers cannot be allocated: errno ENOMEM).
 */
int flow_parse_fast_segs(const struct flow_seg *segs, unsigned int nb_segs,
		rte_be32_t *dst);

/**
 * Total order of keys used for the CSV dump (the reference's order):
 * family, protocol, source address, destination address (numerically),
 * source port, destination port.
 *
 * @return <0, 0 or >0 as memcmp().
 */
int flow_key_cmp(const struct flow_key *a, const struct flow_key *b);

/** Longest text form of an address from flow_addr_format(), with NUL. */
#define FLOW_ADDR_STRLEN 46

/**
 * Text form of an address: dotted quad for IPv4, RFC 5952 for IPv6
 * (lowercase, no leading zeros, the longest run of two or more zero groups
 * shortened to "::", the first such run on a tie; no dotted IPv4 tail, as
 * Python's ipaddress module up to 3.12 prints it).
 *
 * @return @p buf.
 */
char *flow_addr_format(uint8_t family, const uint8_t *addr, char *buf,
		size_t size);

/** Header line of the CSV flow dump, without the newline. */
#define FLOW_CSV_HEADER "family,proto,src,dst,sport,dport,packets,bytes"

/** Longest CSV row from flow_csv_row(), with newline and NUL. */
#define FLOW_CSV_ROW_MAX 160

/**
 * Write one CSV row (with a trailing newline) for a flow.
 *
 * @return Characters written, as snprintf().
 */
int flow_csv_row(const struct flow_key *key, uint64_t packets,
		uint64_t bytes, char *buf, size_t size);

/**
 * Write the CSV row of a special bucket ("non-ip", "malformed",
 * "overflow"): the name in the family column, the five key columns empty,
 * then packets and bytes, eight columns as the header has.
 *
 * @return Characters written, as snprintf().
 */
int flow_csv_special_row(const char *name, uint64_t packets, uint64_t bytes,
		char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* _FLOW_PARSE_H_ */
