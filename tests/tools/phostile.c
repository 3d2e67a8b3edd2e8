// SPDX-License-Identifier: GPL-2.0-only
/*
 * phostile - write the hostile streams of tests/hostile.bats to standard output, so no big
 * or hand-edited binary is committed: each kind reproduces one fault an audit found.
 *
 *   samples N          N samples of one event (a big, well-formed stream)
 *   ids N [STRIDE]     ATTR records carrying N event ids 0, STRIDE, 2*STRIDE... (default 1),
 *                      then a few samples that use them
 *   compressed2 [bad]  a COMPRESSED2 record (perf 6.15+) holding a COMM and three samples;
 *                      "bad": the second inner record has size 4
 *   compressed [bad]   the same in a COMPRESSED record
 *   newtypes           BPF_METADATA, SCHEDSTAT_CPU and SCHEDSTAT_DOMAIN records among samples
 *   short-comm         a COMM record of 8 bytes (no body)
 *   mmap2 PID PATH     an MMAP2 record of process PID naming PATH ("//anon": JIT code, named
 *                      from /tmp/perf-PID.map) at 0x7f0000000000, then samples of PID whose
 *                      call chains are inside it
 *   auxtrace MIB       an AUXTRACE record with a MIB MiB payload, then a sample
 *   tracepoint [bad]   a tracepoint event without TRACING_DATA ("bad": a damaged one)
 *   file-ok            a perf.data file with one attr, three samples and a build-id section
 *   file-wrap          ... whose data section offset + size wraps around 2^64
 *   file-past-end      ... whose data section runs far past the end of the file
 *   file-overlap-header   ... whose attrs section overlaps the file header
 *   file-overlap-data  ... whose build-id section overlaps the data section
 *   names EVENT [FIELD [SYSTEM]]
 *                      two tracepoint events of system SYSTEM (default "hostile"), both
 *                      named EVENT by EVENT_UPDATE records (none when EVENT is empty),
 *                      whose formats disagree on field "n" (a number, then text) and widen
 *                      field "big" (u64, then s64), with a third field named FIELD in the
 *                      format text (default "f"); then a sample of each, ev_a's big
 *                      2^63+5, ev_b's -5.  The names take the escapes \n \r \t \\ \xNN
 *                      (\x00 ends a name: what follows stays in the record)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../unit/build.h"
#include "lib/abi.h"
#include "lib/compat.h"

#define ATTR_SIZE 128
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void header(struct buf *b, uint32_t type, uint16_t size)
{
	put32(b, type);
	put16(b, 0);
	put16(b, size);
}

/* the attr body: a software or tracepoint event sampling id, tid and time */
static void attr_body(struct buf *b, uint32_t type, uint64_t config, uint64_t sample_type)
{
	unsigned char *a = grow(b, ATTR_SIZE);

	ps_put32(a + PS_ATTR_TYPE, type, false);
	ps_put32(a + PS_ATTR_SIZE, ATTR_SIZE, false);
	ps_put64(a + PS_ATTR_CONFIG, config, false);
	ps_put64(a + PS_ATTR_PERIOD, 1, false);
	ps_put64(a + PS_ATTR_SAMPLE_TYPE, sample_type, false);
	ps_put64(a + PS_ATTR_FLAGS, PS_ATTR_FLAG_SAMPLE_ID_ALL, false);
}

static void attr_record(struct buf *b, uint64_t first, uint64_t stride, size_t n)
{
	size_t i;

	header(b, PS_RECORD_HEADER_ATTR, (uint16_t)(8 + ATTR_SIZE + 8 * n));
	attr_body(b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, SAMPLE_TYPE);
	for (i = 0; i < n; i++)
		put64(b, first + i * stride);
}

static void sample(struct buf *b, uint64_t id, uint32_t tid, uint64_t time)
{
	header(b, PERF_RECORD_SAMPLE, 32);
	put64(b, id);
	put32(b, tid);
	put32(b, tid);
	put64(b, time);
}

static void comm(struct buf *b, uint32_t tid, const char *name, uint64_t id, uint64_t time)
{
	header(b, PERF_RECORD_COMM, 8 + 8 + 16 + 24);
	put32(b, tid);
	put32(b, tid);
	memcpy(grow(b, 16), name, strnlen(name, 15));
	put32(b, tid); /* sample_id trailer: tid, time, id (IDENTIFIER last) */
	put32(b, tid);
	put64(b, time);
	put64(b, id);
}

static void emit(const struct buf *b)
{
	if (fwrite(b->p, 1, b->len, stdout) != b->len || fflush(stdout)) {
		perror("phostile: write");
		exit(1);
	}
}

static int gen_ids(uint64_t n, uint64_t stride)
{
	struct buf b = { 0 };
	uint64_t done = 0;
	int i;

	pipe_header(&b);
	while (done < n) {
		size_t k = n - done > 8000 ? 8000 : (size_t)(n - done);

		attr_record(&b, done * stride, stride, k);
		done += k;
	}
	for (i = 0; i < 16; i++)
		sample(&b, n ? ((uint64_t)i * 7919 % n) * stride : 0, 1000, 1000 + (uint64_t)i);
	emit(&b);
	return 0;
}

static int gen_samples(uint64_t n)
{
	struct buf b = { 0 };
	uint64_t i;

	pipe_header(&b);
	attr_record(&b, 7, 1, 1);
	comm(&b, 1000, "hostile", 7, 0);
	for (i = 0; i < n; i++) {
		sample(&b, 7, 1000, i + 1);
		if (b.len >= (1u << 20)) {
			emit(&b);
			b.len = 0;
		}
	}
	emit(&b);
	free(b.p);
	return 0;
}

static int gen_compressed(uint32_t type, bool bad)
{
	struct buf b = { 0 }, in = { 0 };
	size_t bound, zlen;
	unsigned char *z;

	pipe_header(&b);
	attr_record(&b, 7, 1, 1);
	comm(&in, 4242, "inner", 7, 100);
	if (bad) {
		header(&in, PERF_RECORD_SAMPLE, 4);
		put32(&in, 0);
	}
	sample(&in, 7, 4242, 101);
	sample(&in, 7, 4242, 102);
	sample(&in, 7, 4242, 103);
	bound = ZSTD_compressBound(in.len);
	z = malloc(bound);
	if (!z)
		return 1;
	zlen = ZSTD_compress(z, bound, in.p, in.len, 1);
	if (ZSTD_isError(zlen)) {
		fprintf(stderr, "phostile: %s\n", ZSTD_getErrorName(zlen));
		return 1;
	}
	if (type == PS_RECORD_COMPRESSED2) {
		header(&b, type, (uint16_t)(16 + PS_ALIGN8(zlen)));
		put64(&b, zlen);
		memcpy(grow(&b, PS_ALIGN8(zlen)), z, zlen);
	} else {
		header(&b, type, (uint16_t)(8 + zlen));
		memcpy(grow(&b, zlen), z, zlen);
	}
	sample(&b, 7, 4242, 104);
	emit(&b);
	free(z);
	return 0;
}

static int gen_newtypes(void)
{
	struct buf b = { 0 };
	uint32_t t;

	pipe_header(&b);
	attr_record(&b, 7, 1, 1);
	sample(&b, 7, 1, 100);
	for (t = PS_RECORD_BPF_METADATA; t <= PS_RECORD_SCHEDSTAT_DOMAIN; t++) {
		header(&b, t, 24);
		put64(&b, 0x1111111111111111ULL * t);
		put64(&b, t);
	}
	sample(&b, 7, 1, 101);
	emit(&b);
	return 0;
}

static int gen_short_comm(void)
{
	struct buf b = { 0 };

	pipe_header(&b);
	attr_record(&b, 7, 1, 1);
	sample(&b, 7, 1, 100);
	header(&b, PERF_RECORD_COMM, 8);
	sample(&b, 7, 1, 101);
	emit(&b);
	return 0;
}

/* the user frames of gen_mmap2's samples; a JIT map naming them makes them known */
static const uint64_t mmap2_frames[] = { 0x7f0000001010, 0x7f0000001110 };

static int gen_mmap2(uint32_t pid, const char *path)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	                    PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	size_t name = (strlen(path) + 8) / 8 * 8;
	struct buf b = { 0 };
	uint64_t i;

	pipe_header(&b);
	header(&b, PS_RECORD_HEADER_ATTR, 8 + ATTR_SIZE + 8);
	attr_body(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, st);
	put64(&b, 7);
	comm(&b, pid, "jitted", 7, 1);
	header(&b, PERF_RECORD_MMAP2, (uint16_t)(8 + 64 + name + 24));
	b.p[b.len - 4] = PERF_RECORD_MISC_USER;
	put32(&b, pid);
	put32(&b, pid);
	put64(&b, 0x7f0000000000);
	put64(&b, 0x10000);
	put64(&b, 0);
	grow(&b, 24); /* maj, min, ino, ino_generation */
	put32(&b, 5); /* PROT_READ | PROT_EXEC */
	put32(&b, 2); /* MAP_PRIVATE */
	memcpy(grow(&b, name), path, strlen(path));
	put32(&b, pid); /* sample_id trailer */
	put32(&b, pid);
	put64(&b, 2);
	put64(&b, 7);
	for (i = 0; i < 4; i++) {
		header(&b, PERF_RECORD_SAMPLE, 8 + 8 + 8 + 8 + 8 + 8 + 3 * 8);
		b.p[b.len - 4] = PERF_RECORD_MISC_USER;
		put64(&b, 7);
		put64(&b, mmap2_frames[0]);
		put32(&b, pid);
		put32(&b, pid);
		put64(&b, 10 + i);
		put64(&b, 3);
		put64(&b, (uint64_t)PERF_CONTEXT_USER);
		put64(&b, mmap2_frames[0]);
		put64(&b, mmap2_frames[1]);
	}
	emit(&b);
	free(b.p);
	return 0;
}

static int gen_auxtrace(uint64_t mib)
{
	static unsigned char zero[1 << 16];
	struct buf b = { 0 };
	uint64_t left = mib << 20;

	pipe_header(&b);
	attr_record(&b, 7, 1, 1);
	sample(&b, 7, 1, 100);
	header(&b, PS_RECORD_AUXTRACE, 48);
	put64(&b, left); /* size */
	put64(&b, 0);    /* offset */
	put64(&b, 0);    /* reference */
	put32(&b, 0);    /* idx */
	put32(&b, 1);    /* tid */
	put32(&b, 0);    /* cpu */
	put32(&b, 0);
	emit(&b);
	while (left) {
		size_t n = left > sizeof(zero) ? sizeof(zero) : (size_t)left;

		if (fwrite(zero, 1, n, stdout) != n)
			return 1;
		left -= n;
	}
	b.len = 0;
	sample(&b, 7, 1, 101);
	emit(&b);
	return 0;
}

static int gen_tracepoint(bool bad)
{
	struct buf b = { 0 };

	pipe_header(&b);
	header(&b, PS_RECORD_HEADER_ATTR, 8 + ATTR_SIZE + 8);
	attr_body(&b, PERF_TYPE_TRACEPOINT, 300, SAMPLE_TYPE | PERF_SAMPLE_RAW);
	put64(&b, 7);
	if (bad) {
		/* a TRACING_DATA whose payload is not a tracing data blob */
		header(&b, PS_RECORD_HEADER_TRACING_DATA, 16);
		put32(&b, 64);
		put32(&b, 0);
		memcpy(grow(&b, 64), "not tracing data", 16);
	}
	for (int i = 0; i < 2; i++) {
		header(&b, PERF_RECORD_SAMPLE, 48);
		put64(&b, 7);
		put32(&b, 1);
		put32(&b, 1);
		put64(&b, 100 + (uint64_t)i);
		put32(&b, 12); /* raw size, then 12 bytes: common_type 300 ... */
		put16(&b, 300);
		grow(&b, 10);
	}
	emit(&b);
	return 0;
}

/* @s with the escapes \n \r \t \\ \xNN decoded into @out (room for strlen(s) + 1); its length */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = { s[2], s[3], 0 };

			out[n++] = (char)strtoul(hex, NULL, 16);
			s += 4;
		} else if (s[0] == '\\' && s[1]) {
			out[n++] = s[1] == 'n' ? '\n' :
			           s[1] == 'r' ? '\r' :
			           s[1] == 't' ? '\t' :
			                         s[1];
			s += 2;
		} else {
			out[n++] = *s++;
		}
	}
	out[n] = 0;
	return n;
}

/* an attr record for tracepoint @config with id @id, and an EVENT_UPDATE that names it
 * (none when @len is 0) */
static void named_tp_attr(struct buf *b, uint64_t config, uint64_t id, const char *name, size_t len)
{
	size_t body = PS_ALIGN8(len + 1);

	header(b, PS_RECORD_HEADER_ATTR, 8 + ATTR_SIZE + 8);
	attr_body(b, PERF_TYPE_TRACEPOINT, config, SAMPLE_TYPE | PERF_SAMPLE_RAW);
	put64(b, id);
	if (!len)
		return;
	header(b, PS_RECORD_EVENT_UPDATE, (uint16_t)(8 + 16 + body));
	put64(b, PS_EVENT_UPDATE_NAME);
	put64(b, id);
	memcpy(grow(b, body), name, len);
}

/* a u64 length, then the text */
static void put_len_text(struct buf *b, const char *s, size_t len)
{
	put64(b, len);
	memcpy(grow(b, len), s, len);
}

/* the TRACING_DATA record of one system, @sys (@syslen bytes): @n formats */
static void tracing_data(struct buf *b, const char *sys, size_t syslen, const char *const *fmt,
                         const size_t *len, size_t n)
{
	static const unsigned char magic[] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
	};
	static const char page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	                           "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	                           "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	                           "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	size_t start = b->len, i;

	header(b, PS_RECORD_HEADER_TRACING_DATA, 16);
	put64(b, 0); /* the size of what follows, set below */
	memcpy(grow(b, sizeof(magic)), magic, sizeof(magic));
	memcpy(grow(b, 4), "0.6", 4);
	grow(b, 1);      /* little-endian */
	*grow(b, 1) = 8; /* long size */
	put32(b, 4096);  /* page size */
	memcpy(grow(b, 12), "header_page", 12);
	put_len_text(b, page, strlen(page));
	memcpy(grow(b, 13), "header_event", 13);
	put64(b, 0);
	put32(b, 0); /* ftrace formats */
	put32(b, 1); /* systems */
	memcpy(grow(b, syslen + 1), sys, syslen);
	put32(b, (uint32_t)n);
	for (i = 0; i < n; i++)
		put_len_text(b, fmt[i], len[i]);
	put32(b, 0); /* kallsyms */
	put32(b, 0); /* printk */
	put64(b, 0); /* saved cmdlines */
	grow(b, (8 - (b->len - start) % 8) % 8);
	ps_put32(b->p + start + 8, (uint32_t)(b->len - start - 16), false);
}

#define NAMES_COMMON                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static int gen_names(const char *event, const char *field, const char *system)
{
	struct buf b = { 0 };
	char *ev = malloc(strlen(event) + 1), *fd = malloc(strlen(field) + 1), *fmt[2];
	char *sys = malloc(strlen(system) + 1);
	size_t evlen, fdlen, syslen, len[2];
	int i;

	if (!ev || !fd || !sys)
		return 1;
	evlen = unescape(event, ev);
	fdlen = unescape(field, fd);
	syslen = unescape(system, sys);
	for (i = 0; i < 2; i++) {
		const char *a = i ? "name: ev_b\nID: 501\nformat:\n" NAMES_COMMON
		                    "\tfield:s64 big;\toffset:8;\tsize:8;\tsigned:1;\n"
		                    "\tfield:char n[8];\toffset:16;\tsize:8;\tsigned:0;\n"
		                    "\tfield:int " :
		                    "name: ev_a\nID: 500\nformat:\n" NAMES_COMMON
		                    "\tfield:u64 big;\toffset:8;\tsize:8;\tsigned:0;\n"
		                    "\tfield:int n;\toffset:16;\tsize:4;\tsigned:1;\n"
		                    "\tfield:int ";
		const char *z =
		        i ? ";\toffset:24;\tsize:4;\tsigned:1;\n\nprint fmt: \"big=%lld\", REC->big\n" :
		            ";\toffset:20;\tsize:4;\tsigned:1;\n\nprint fmt: \"big=%llu\", REC->big\n";

		len[i] = strlen(a) + fdlen + strlen(z);
		fmt[i] = malloc(len[i]);
		if (!fmt[i])
			return 1;
		memcpy(fmt[i], a, strlen(a));
		memcpy(fmt[i] + strlen(a), fd, fdlen);
		memcpy(fmt[i] + strlen(a) + fdlen, z, strlen(z));
	}
	pipe_header(&b);
	named_tp_attr(&b, 500, 7, ev, evlen);
	named_tp_attr(&b, 501, 8, ev, evlen);
	tracing_data(&b, sys, syslen, (const char *const *)fmt, len, 2);
	for (i = 0; i < 2; i++) {
		/* id, tid, time, raw: 4 + 28 bytes (common 8, big 8, n, FIELD) */
		header(&b, PERF_RECORD_SAMPLE, 8 + 24 + 4 + 28);
		put64(&b, i ? 8 : 7);
		put32(&b, 1);
		put32(&b, 1);
		put64(&b, 100 + (uint64_t)i);
		put32(&b, 28);
		put16(&b, (uint16_t)(500 + i));
		grow(&b, 2);
		put32(&b, 1);
		put64(&b, i ? (uint64_t)-5 : (1ULL << 63) + 5);
		if (i) {
			memcpy(grow(&b, 8), "text", 4);
		} else {
			put32(&b, 42);
			put32(&b, 43);
		}
		put32(&b, 44);
	}
	emit(&b);
	free(fmt[0]);
	free(fmt[1]);
	free(ev);
	free(fd);
	free(sys);
	free(b.p);
	return 0;
}

enum file_kind {
	FILE_OK,
	FILE_WRAP,
	FILE_PAST_END,
	FILE_OVERLAP_HEADER,
	FILE_OVERLAP_DATA
};

/*
 * header (104) | attr entry (attr + ids section) | ids (8) | data: 3 samples | feature
 * index (one entry: build-id) | build-id section (one entry)
 */
static int gen_file(enum file_kind kind)
{
	struct buf b = { 0 };
	uint64_t attrs_off = PS_FILE_HEADER_SIZE, ids_off, data_off, data_size, idx_off, bid_off;
	unsigned char *fh;

	grow(&b, PS_FILE_HEADER_SIZE);
	attr_body(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, SAMPLE_TYPE);
	ids_off = attrs_off + ATTR_SIZE + 16;
	put64(&b, ids_off);
	put64(&b, 8);
	put64(&b, 7);
	data_off = b.len;
	sample(&b, 7, 1, 100);
	sample(&b, 7, 1, 101);
	sample(&b, 7, 1, 102);
	data_size = b.len - data_off;
	idx_off = b.len;
	grow(&b, 16);
	bid_off = b.len;
	/* build-id entry: header (type 0 in files), pid, build_id[24], filename */
	header(&b, 0, 8 + 4 + 24 + 16);
	put32(&b, UINT32_MAX);
	memset(grow(&b, 24), 0xab, 20);
	memcpy(grow(&b, 16), "/bin/hostile", 12);
	ps_put64(b.p + idx_off, kind == FILE_OVERLAP_DATA ? data_off + 8 : bid_off, false);
	ps_put64(b.p + idx_off + 8, b.len - bid_off, false);

	fh = b.p;
	ps_put64(fh, PS_MAGIC, false);
	ps_put64(fh + 8, PS_FILE_HEADER_SIZE, false);
	ps_put64(fh + PS_FH_ATTR_SIZE, ATTR_SIZE + 16, false);
	ps_put64(fh + PS_FH_ATTRS, kind == FILE_OVERLAP_HEADER ? 64 : attrs_off, false);
	ps_put64(fh + PS_FH_ATTRS + 8, ATTR_SIZE + 16, false);
	ps_put64(fh + PS_FH_DATA, data_off, false);
	if (kind == FILE_WRAP)
		data_size = UINT64_MAX - data_off + 1 + data_size;
	else if (kind == FILE_PAST_END)
		data_size = 1ULL << 40;
	ps_put64(fh + PS_FH_DATA + 8, data_size, false);
	ps_put64(fh + PS_FH_FEATURES, 1ULL << PS_FEAT_BUILD_ID, false);
	/* idx_off must follow the data section as written; the wrapped size keeps it so */
	emit(&b);
	return 0;
}

int main(int argc, char **argv)
{
	const char *k = argc > 1 ? argv[1] : "";
	bool bad = argc > 2 && strcmp(argv[2], "bad") == 0;

	if (strcmp(k, "ids") == 0 && argc > 2)
		return gen_ids(strtoull(argv[2], NULL, 0),
		               argc > 3 ? strtoull(argv[3], NULL, 0) : 1);
	if (strcmp(k, "samples") == 0 && argc > 2)
		return gen_samples(strtoull(argv[2], NULL, 0));
	if (strcmp(k, "compressed2") == 0)
		return gen_compressed(PS_RECORD_COMPRESSED2, bad);
	if (strcmp(k, "compressed") == 0)
		return gen_compressed(PS_RECORD_COMPRESSED, bad);
	if (strcmp(k, "newtypes") == 0)
		return gen_newtypes();
	if (strcmp(k, "mmap2") == 0 && argc > 3)
		return gen_mmap2((uint32_t)strtoul(argv[2], NULL, 0), argv[3]);
	if (strcmp(k, "short-comm") == 0)
		return gen_short_comm();
	if (strcmp(k, "auxtrace") == 0 && argc > 2)
		return gen_auxtrace(strtoull(argv[2], NULL, 0));
	if (strcmp(k, "tracepoint") == 0)
		return gen_tracepoint(bad);
	if (strcmp(k, "names") == 0 && argc > 2)
		return gen_names(argv[2], argc > 3 ? argv[3] : "f", argc > 4 ? argv[4] : "hostile");
	if (strcmp(k, "file-ok") == 0)
		return gen_file(FILE_OK);
	if (strcmp(k, "file-wrap") == 0)
		return gen_file(FILE_WRAP);
	if (strcmp(k, "file-past-end") == 0)
		return gen_file(FILE_PAST_END);
	if (strcmp(k, "file-overlap-header") == 0)
		return gen_file(FILE_OVERLAP_HEADER);
	if (strcmp(k, "file-overlap-data") == 0)
		return gen_file(FILE_OVERLAP_DATA);
	fputs("usage: phostile KIND [ARGS] > stream (see the comment at the top of phostile.c)\n",
	      stderr);
	return 2;
}
