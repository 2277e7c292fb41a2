/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The pcpu_mempool authors
 */

/*
 * Unit test of flow_parse() against the reference counts of real and
 * malformed captures: every capture under the given folders is read with
 * libpcap, every frame is classified, the counts are aggregated and printed
 * in the flow-dump CSV form, and the result must equal the capture's
 * *.flows.csv byte for byte.
 *
 * Captures are prepared first, as pcap_prepare.py does for the app tests:
 * pcapng to pcap with editcap, as the oracle does; the header snapshot
 * length raised where a record is longer, since libpcap would cut the
 * record while the reference counts it whole.
 *
 * Every frame is also parsed as segment chains (1-byte, 5-byte and
 * 60-byte segments, and with empty segments in between) over an exact-size
 * heap copy, which must give the same result: the multi-segment path is
 * exact and, under AddressSanitizer, provably reads nothing past the data.
 * A frame on the inline fast path must be, by the general parser alone
 * (flow_parse_general()), an IPv4 flow whose destination is the one the
 * datapath reads without a key when it does not count
 * (flow_parse_fast_segs()); the run fails if no frame took that path.
 * Every flow key's flow_table_hash(), which the datapath computes inline,
 * must be rte_hash_crc()'s, the function of the table's rte_hash: else
 * every lookup would miss and every packet take the insert path, with
 * counts still right, so nothing else would notice.
 *
 * Usage: test_flow_parse DIR [DIR ...]
 * Exit: 0 all match, 1 a mismatch or error, 77 (skip) when the first DIR
 * does not exist.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "flow_parse.h"
#include "flow_table.h"

#define SKIP_EXIT 77

/* libpcap's largest snapshot length for Ethernet */
#define PCAP_MAX_SNAPLEN 262144u

struct agg_entry {
	struct flow_key key;
	uint64_t packets;
	uint64_t bytes;
	int used;
};

struct agg {
	struct agg_entry *tab;
	size_t cap;       /* power of two */
	size_t n;
	uint64_t special_pkts[3];
	uint64_t special_bytes[3];
};

static uint64_t
key_hash(const struct flow_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static void agg_add(struct agg *a, const struct flow_key *k, uint64_t bytes);

static void
agg_grow(struct agg *a)
{
	struct agg_entry *old = a->tab;
	size_t old_cap = a->cap, i;

	a->cap = old_cap ? old_cap * 2 : 1024;
	a->tab = calloc(a->cap, sizeof(*a->tab));
	if (a->tab == NULL) {
		perror("calloc");
		exit(1);
	}
	a->n = 0;
	for (i = 0; i < old_cap; i++) {
		if (!old[i].used)
			continue;
		agg_add(a, &old[i].key, 0);
		/* agg_add counted one packet; set the real totals */
		{
			size_t j = key_hash(&old[i].key) & (a->cap - 1);

			while (memcmp(&a->tab[j].key, &old[i].key,
					sizeof(old[i].key)) != 0)
				j = (j + 1) & (a->cap - 1);
			a->tab[j].packets = old[i].packets;
			a->tab[j].bytes = old[i].bytes;
		}
	}
	free(old);
}

static void
agg_add(struct agg *a, const struct flow_key *k, uint64_t bytes)
{
	size_t j;

	if ((a->n + 1) * 2 > a->cap)
		agg_grow(a);
	j = key_hash(k) & (a->cap - 1);
	while (a->tab[j].used &&
			memcmp(&a->tab[j].key, k, sizeof(*k)) != 0)
		j = (j + 1) & (a->cap - 1);
	if (!a->tab[j].used) {
		a->tab[j].used = 1;
		a->tab[j].key = *k;
		a->n++;
	}
	a->tab[j].packets++;
	a->tab[j].bytes += bytes;
}

static int
entry_cmp(const void *x, const void *y)
{
	const struct agg_entry *a = *(const struct agg_entry * const *)x;
	const struct agg_entry *b = *(const struct agg_entry * const *)y;

	return flow_key_cmp(&a->key, &b->key);
}

/* The CSV text of the aggregate, as the flow dump writes it. */
static char *
agg_csv(const struct agg *a, size_t *len)
{
	static const char * const names[3] = { NULL, "non-ip", "malformed" };
	struct agg_entry **v;
	char *out, row[FLOW_CSV_ROW_MAX];
	size_t cap = (a->n + 4) * FLOW_CSV_ROW_MAX, pos = 0, i, k = 0;
	int c;

	out = malloc(cap);
	v = calloc(a->n + 1, sizeof(*v));
	if (out == NULL || v == NULL) {
		perror("malloc");
		exit(1);
	}
	for (i = 0; i < a->cap; i++)
		if (a->tab[i].used)
			v[k++] = &a->tab[i];
	qsort(v, k, sizeof(*v), entry_cmp);
	pos += (size_t)snprintf(out, cap, "%s\n", FLOW_CSV_HEADER);
	for (i = 0; i < k; i++) {
		flow_csv_row(&v[i]->key, v[i]->packets, v[i]->bytes, row,
			sizeof(row));
		memcpy(out + pos, row, strlen(row));
		pos += strlen(row);
	}
	for (c = FLOW_CLASS_NON_IP; c <= FLOW_CLASS_MALFORMED; c++) {
		if (a->special_pkts[c] == 0)
			continue;
		flow_csv_special_row(names[c], a->special_pkts[c],
			a->special_bytes[c], row, sizeof(row));
		memcpy(out + pos, row, strlen(row));
		pos += strlen(row);
	}
	out[pos] = '\0';
	free(v);
	*len = pos;
	return out;
}

static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static struct flow_seg *segs;
static size_t segs_cap;

/* Lay @data out as a chain of @step-byte segments in segs[], with an
 * empty segment after every one when @gaps; returns their number. */
static unsigned int
split(const uint8_t *data, uint32_t len, uint32_t step, int gaps)
{
	size_t n = 0;
	uint32_t off;

	for (off = 0; off < len; off += step) {
		if (n + 2 > segs_cap) {
			segs_cap = segs_cap ? segs_cap * 2 : 4096;
			segs = realloc(segs, segs_cap * sizeof(*segs));
			if (segs == NULL) {
				perror("realloc");
				exit(1);
			}
		}
		segs[n].data = data + off;
		segs[n].len = len - off < step ? len - off : step;
		n++;
		if (gaps) {
			segs[n].data = NULL;
			segs[n].len = 0;
			n++;
		}
	}
	return (unsigned int)n;
}

/* frames the fast path's claim was checked on */
static uint64_t fast_frames;
/* flow keys whose inline hash was checked */
static uint64_t hashed_keys;

/* Whether the fast path's claim is false for the frame in @n segments
 * of segs[]: it takes the fast path (flow_parse_fast_segs()), but the
 * general parser does not make it an IPv4 flow to that destination. */
static int
fast_differs(unsigned int n)
{
	struct flow_key key;
	rte_be32_t dst;

	if (!flow_parse_fast_segs(segs, n, &dst))
		return 0;
	fast_frames++;
	return flow_parse_general(segs, n, &key) != FLOW_CLASS_FLOW ||
		key.family != 4 || memcmp(key.dst, &dst, sizeof(dst)) != 0;
}

static int
check_chains(const uint8_t *pkt, uint32_t len, enum flow_class cls,
		const struct flow_key *key, uint64_t frame_no, const char *name)
{
	static const uint32_t steps[] = { 1, 5, 60 };
	struct flow_key k2;
	uint8_t *copy;
	unsigned int i;
	int bad = 0;

	copy = malloc(len ? len : 1);
	if (copy == NULL) {
		perror("malloc");
		exit(1);
	}
	memcpy(copy, pkt, len);
	if (fast_differs(split(copy, len, len ? len : 1, 0))) {
		fprintf(stderr, "%s: frame %" PRIu64 ": the fast path's "
			"destination differs\n", name, frame_no);
		bad = 1;
	}
	for (i = 0; i < 2 * sizeof(steps) / sizeof(steps[0]); i++) {
		uint32_t step = steps[i / 2];
		unsigned int n = split(copy, len, step, (int)(i & 1));
		enum flow_class c2;

		c2 = flow_parse(segs, n, &k2);
		if (c2 != cls || memcmp(&k2, key, sizeof(k2)) != 0) {
			fprintf(stderr, "%s: frame %" PRIu64
				": segmented parse (step %u%s) differs\n",
				name, frame_no, step,
				(i & 1) ? ", gaps" : "");
			bad = 1;
		}
	}
	free(copy);
	return bad;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int
run_editcap(const char *in, const char *out)
{
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp("editcap", "editcap", "-F", "pcap", in, out,
			(char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
			WEXITSTATUS(st) != 0)
		return -1;
	return 0;
}

static uint32_t
rd32(const uint8_t *p, int big)
{
	return big ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			(uint32_t)p[2] << 8 | p[3]) :
		((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
			(uint32_t)p[1] << 8 | p[0]);
}

/*
 * Make @path readable by libpcap as the oracle reads it (the same steps as
 * pcap_prepare.py): pcapng is converted with `editcap -F pcap`; when a
 * record is longer than the header's snapshot length (fuzzed files),
 * libpcap would cut it while the reference counts it whole, so a copy with
 * the snapshot length raised to 262144 is read instead. @out receives the
 * path to open. Returns 0 or -1.
 */
static int
prepare_capture(const char *path, const char *tmpdir, char *out, size_t size)
{
	char conv[4096];
	const char *src = path;
	uint32_t snaplen, longest = 0;
	size_t len, off;
	uint8_t *buf;
	int big;

	snprintf(out, size, "%s", path);
	if (ends_with(path, ".pcapng")) {
		snprintf(conv, sizeof(conv), "%s/conv.pcap", tmpdir);
		if (run_editcap(path, conv) != 0)
			return -1;
		src = conv;
		snprintf(out, size, "%s", conv);
	}
	buf = (uint8_t *)read_file(src, &len);
	if (buf == NULL)
		return -1;
	if (len < 24) {
		free(buf);
		return 0;
	}
	big = buf[0] == 0xa1;
	snaplen = rd32(buf + 16, big);
	for (off = 24; off + 16 <= len; ) {
		uint32_t caplen = rd32(buf + off + 8, big);

		if (caplen > longest)
			longest = caplen;
		off += 16 + (size_t)caplen;
	}
	if (longest > snaplen && snaplen < PCAP_MAX_SNAPLEN) {
		FILE *f;

		buf[16] = big ? 0 : (uint8_t)PCAP_MAX_SNAPLEN;
		buf[17] = (uint8_t)(PCAP_MAX_SNAPLEN >> (big ? 16 : 8));
		buf[18] = (uint8_t)(PCAP_MAX_SNAPLEN >> (big ? 8 : 16));
		buf[19] = big ? (uint8_t)PCAP_MAX_SNAPLEN : 0;
		snprintf(out, size, "%s/prepared.pcap", tmpdir);
		f = fopen(out, "wb");
		if (f == NULL || fwrite(buf, 1, len, f) != len) {
			if (f != NULL)
				fclose(f);
			free(buf);
			return -1;
		}
		fclose(f);
		fprintf(stderr, "%s: note: a record holds %u bytes, header "
			"snaplen %u: raised to %u\n", path, longest, snaplen,
			PCAP_MAX_SNAPLEN);
	}
	free(buf);
	return 0;
}


/* Returns 0 match, 1 mismatch, -1 error. */
static int
check_capture(const char *path, const char *tmpdir)
{
	char errbuf[PCAP_ERRBUF_SIZE], conv[4096], csv_path[4096];
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *input = path;
	struct agg a = { 0 };
	struct pcap_pkthdr *hdr;
	const u_char *data;
	uint64_t frames = 0;
	char *got, *want;
	size_t got_len, want_len;
	pcap_t *p;
	int ret, bad_chain = 0, bad_hash = 0, result;

	snprintf(csv_path, sizeof(csv_path), "%s.flows.csv", path);
	want = read_file(csv_path, &want_len);
	if (want == NULL) {
		fprintf(stderr, "%s: no reference %s\n", name, csv_path);
		return -1;
	}
	if (prepare_capture(path, tmpdir, conv, sizeof(conv)) != 0) {
		fprintf(stderr, "%s: cannot prepare the capture\n", name);
		free(want);
		return -1;
	}
	input = conv;
	p = pcap_open_offline(input, errbuf);
	if (p == NULL) {
		fprintf(stderr, "%s: %s\n", name, errbuf);
		free(want);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB)
		fprintf(stderr, "%s: link type %d is not Ethernet\n", name,
			pcap_datalink(p));
	while ((ret = pcap_next_ex(p, &hdr, &data)) == 1) {
		struct flow_key key;
		enum flow_class cls;

		frames++;
		cls = flow_parse_buf(data, hdr->caplen, &key);
		if (cls == FLOW_CLASS_FLOW) {
			agg_add(&a, &key, hdr->caplen);
			hashed_keys++;
			if (flow_table_hash(&key) !=
					rte_hash_crc(&key, sizeof(key), 0)) {
				fprintf(stderr, "%s: frame %" PRIu64 ": "
					"flow_table_hash() %08x, rte_hash_crc() "
					"%08x\n", name, frames,
					flow_table_hash(&key),
					rte_hash_crc(&key, sizeof(key), 0));
				bad_hash = 1;
			}
		} else {
			a.special_pkts[cls]++;
			a.special_bytes[cls] += hdr->caplen;
		}
		bad_chain |= check_chains(data, hdr->caplen, cls, &key,
			frames, name);
	}
	if (ret == -1)  /* truncated last record: the oracle stops too */
		fprintf(stderr, "%s: note: %s\n", name, pcap_geterr(p));
	pcap_close(p);

	got = agg_csv(&a, &got_len);
	if (got_len == want_len && memcmp(got, want, got_len) == 0 &&
			!bad_chain && !bad_hash) {
		printf("PASS %s: %" PRIu64 " frames, %zu flows\n", name,
			frames, a.n);
		result = 0;
	} else {
		/* show the first differing line */
		size_t k = 0, ls = 0;
		int line = 1;

		while (k < got_len && k < want_len && got[k] == want[k]) {
			if (got[k] == '\n') {
				line++;
				ls = k + 1;
			}
			k++;
		}
		printf("FAIL %s: %" PRIu64 " frames, %zu flows%s%s; first "
			"difference at line %d\n  got:  %.*s\n  want: %.*s\n",
			name, frames, a.n,
			bad_chain ? ", segmented parse differs" : "",
			bad_hash ? ", inline hash differs" : "", line,
			(int)strcspn(got + ls, "\n"), got + ls,
			(int)strcspn(want + ls, "\n"), want + ls);
		result = 1;
	}
	free(got);
	free(want);
	free(a.tab);
	return result;
}

static int
str_cmp(const void *x, const void *y)
{
	return strcmp(*(char * const *)x, *(char * const *)y);
}

int
main(int argc, char **argv)
{
	char tmpdir[] = "/tmp/flowparse.XXXXXX";
	unsigned int pass = 0, fail = 0;
	struct stat st;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [DIR ...]\n", argv[0]);
		return 1;
	}
	if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
		printf("SKIP: %s not found\n", argv[1]);
		return SKIP_EXIT;
	}
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		struct dirent *de;
		char **names = NULL;
		size_t n = 0, j;
		DIR *d = opendir(argv[i]);

		if (d == NULL) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			fail++;
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			if (!ends_with(de->d_name, ".pcap") &&
					!ends_with(de->d_name, ".pcapng"))
				continue;
			names = realloc(names, (n + 1) * sizeof(*names));
			if (names == NULL) {
				perror("realloc");
				return 1;
			}
			if (asprintf(&names[n], "%s/%s", argv[i],
					de->d_name) < 0)
				return 1;
			n++;
		}
		closedir(d);
		qsort(names, n, sizeof(*names), str_cmp);
		for (j = 0; j < n; j++) {
			if (check_capture(names[j], tmpdir) == 0)
				pass++;
			else
				fail++;
			free(names[j]);
		}
		free(names);
	}
	{
		char conv[sizeof(tmpdir) + 16];

		snprintf(conv, sizeof(conv), "%s/prepared.pcap", tmpdir);
		unlink(conv);
		snprintf(conv, sizeof(conv), "%s/conv.pcap", tmpdir);
		unlink(conv);
		rmdir(tmpdir);
	}
	printf("%u of %u captures match exactly; the fast path's destination "
		"checked on %" PRIu64 " frames, the inline hash on %" PRIu64
		" keys\n", pass, pass + fail, fast_frames, hashed_keys);
	free(segs);
	return fail == 0 && pass > 0 && fast_frames > 0 && hashed_keys > 0 ?
		0 : 1;
}
