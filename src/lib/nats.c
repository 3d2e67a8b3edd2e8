// SPDX-License-Identifier: GPL-2.0-only
/*
 * nats.c - a pipe stream through NATS JetStream: the stream per subject, the publisher
 * (batches, snapshots, a sending thread that retries), the subscriber (start anywhere,
 * acknowledgements).  The message layout is described in nats.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <nats/nats.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "compat.h"
#include "nats.h"
#include "session.h"
#include "sideband.h"
#include "xalloc.h"

#define MAX_HEADER_BYTES (64u << 20) /* header records kept for the snapshots */
#define PUB_WAIT_MS 3000             /* for the server's acknowledgement of one message */
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 5000
/*
 * One message per fetch: libnats up to 3.7 (_fetch() in js.c) takes a batch's messages
 * already waiting in the subscription, lowers the batch it asks the server for by their
 * number and then loops until it holds that lowered number, writing past the end of its
 * array of the whole batch: heap corruption whenever a fetch begins with some but fewer
 * messages waiting than the batch (seen after the server restarted under two feeds).
 * A batch of one cannot run past it.  Messages are batches of records themselves.
 */
#define FETCH_BATCH 1
#define MSG_MARGIN 1024 /* room for the headers within the server's largest message */
#define RECORD_MAX_PAYLOAD (1u << 30)

struct ps_nats {
	natsConnection *nc;
	jsCtx *js;
	char url[512];
};

static int nats_fail(struct ps_error *err, int code, const char *what, natsStatus s,
                     const char *detail)
{
	const char *last = nats_GetLastError(NULL);

	if (!detail)
		detail = last && *last ? last : natsStatus_GetText(s);
	return ps_error__set(err, code, NULL, PS_NO_OFFSET, "%s: %s", what, detail);
}

struct ps_nats *ps_nats__connect(const char *url, struct ps_error *err)
{
	struct ps_nats *n = calloc(1, sizeof(*n));
	natsOptions *o = NULL;
	jsAccountInfo *ai = NULL;
	jsErrCode jerr = 0;
	natsStatus s;

	if (!n) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	snprintf(n->url, sizeof(n->url), "%s", url ? url : PS_NATS_DEFAULT_URL);
	s = natsOptions_Create(&o);
	if (s == NATS_OK)
		s = natsOptions_SetURL(o, n->url);
	if (s == NATS_OK)
		s = natsOptions_SetTimeout(o, 2000);
	if (s == NATS_OK)
		s = natsOptions_SetMaxReconnect(o, -1);
	if (s == NATS_OK)
		s = natsOptions_SetReconnectWait(o, 250);
	if (s == NATS_OK)
		s = natsOptions_SetReconnectBufSize(o, 32 << 20);
	if (s != NATS_OK) {
		nats_fail(err, PS_EUSAGE, n->url, s, NULL);
		goto fail;
	}
	s = natsConnection_Connect(&n->nc, o);
	if (s != NATS_OK) {
		ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET,
		              "%s: no NATS server answers (%s); is nats-server -js running there?",
		              n->url, natsStatus_GetText(s));
		goto fail;
	}
	s = natsConnection_JetStream(&n->js, n->nc, NULL);
	if (s == NATS_OK)
		s = js_GetAccountInfo(&ai, n->js, NULL, &jerr);
	jsAccountInfo_Destroy(ai);
	if (s != NATS_OK) {
		ps_error__set(err, PS_EUNSUP, NULL, PS_NO_OFFSET,
		              "%s: the NATS server has no JetStream (%s): start it with -js",
		              n->url, natsStatus_GetText(s));
		goto fail;
	}
	natsOptions_Destroy(o);
	return n;
fail:
	natsOptions_Destroy(o);
	ps_nats__close(n);
	return NULL;
}

void ps_nats__close(struct ps_nats *n)
{
	if (!n)
		return;
	jsCtx_Destroy(n->js);
	natsConnection_Destroy(n->nc);
	free(n);
}

int ps_nats__stream_name(const char *subject, char *name, size_t len, struct ps_error *err)
{
	size_t i, n = strlen(subject), pre = strlen(PS_NATS_STREAM_PREFIX);

	if (!n || n + pre >= len || n + pre >= PS_NATS_NAME_MAX)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		                     "subject '%s': empty or longer than %d characters", subject,
		                     (int)(PS_NATS_NAME_MAX - pre - 1));
	for (i = 0; i < n; i++) {
		char c = subject[i];
		bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		            (c >= '0' && c <= '9') || c == '-' || c == '_';

		if (c == '.' && i > 0 && i + 1 < n && subject[i + 1] != '.')
			continue;
		if (!word)
			return ps_error__set(
			        err, PS_EUSAGE, NULL, PS_NO_OFFSET,
			        "subject '%s': a subject to publish to is tokens of "
			        "letters, digits, '-' and '_' joined by '.' (no wildcard)",
			        subject);
	}
	memcpy(name, PS_NATS_STREAM_PREFIX, pre);
	for (i = 0; i <= n; i++)
		name[pre + i] = subject[i] == '.' ? '_' : subject[i];
	return 0;
}

bool ps_nats__subject_match(const char *pattern, const char *subject)
{
	const char *p = pattern, *s = subject;

	for (;;) {
		size_t pl = strcspn(p, "."), sl = strcspn(s, ".");

		if (pl == 1 && *p == '>')
			return *s != 0;
		if (!*s && !*p)
			return true;
		if (!*s || !*p)
			return false;
		if (!(pl == 1 && *p == '*') && (pl != sl || memcmp(p, s, pl) != 0))
			return false;
		p += pl;
		s += sl;
		if ((*p == '.') != (*s == '.'))
			return false;
		if (*p)
			p++, s++;
		else
			return !*s;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ps_nats__find(struct ps_nats *n, const char *pattern, char ***subjects, int *count,
                  struct ps_error *err)
{
	jsStreamInfoList *list = NULL;
	jsErrCode jerr = 0;
	natsStatus s;
	char **out;
	int i, k = 0;

	*subjects = NULL;
	*count = 0;
	s = js_Streams(&list, n->js, NULL, &jerr);
	if (s == NATS_NOT_FOUND)
		return 0;
	if (s != NATS_OK)
		return nats_fail(err, PS_ESYS, "listing the JetStream streams", s, NULL);
	out = calloc((size_t)list->Count + 1, sizeof(*out));
	if (!out) {
		jsStreamInfoList_Destroy(list);
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	}
	for (i = 0; i < list->Count; i++) {
		const jsStreamConfig *c = list->List[i]->Config;

		if (!c || !c->Name || c->SubjectsLen != 1 ||
		    strncmp(c->Name, PS_NATS_STREAM_PREFIX, strlen(PS_NATS_STREAM_PREFIX)) != 0 ||
		    !ps_nats__subject_match(pattern, c->Subjects[0]))
			continue;
		out[k] = strdup(c->Subjects[0]);
		if (!out[k]) {
			while (k--)
				free(out[k]);
			free(out);
			jsStreamInfoList_Destroy(list);
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		}
		k++;
	}
	jsStreamInfoList_Destroy(list);
	qsort(out, (size_t)k, sizeof(*out), cmp_str);
	*subjects = out;
	*count = k;
	return 0;
}

int ps_nats__resolve(struct ps_nats *n, char *const *patterns, int k, char ***out,
                     struct ps_error *err)
{
	char **all = NULL;
	int i, nall = 0;

	*out = NULL;
	for (i = 0; i < k; i++) {
		const char *a = patterns[i];
		char **found = NULL, **grown;
		int nf = 0, j, m;

		if (!strpbrk(a, "*>")) {
			found = malloc(sizeof(*found));
			if (!found || !(found[0] = strdup(a))) {
				free(found);
				goto nomem;
			}
			nf = 1;
		} else if (ps_nats__find(n, a, &found, &nf, err) < 0) {
			goto fail;
		} else if (!nf) {
			free(found);
			ps_error__set(err, PS_EEMPTY, NULL, PS_NO_OFFSET,
			              "%s: no subject matches (nothing was published there)", a);
			goto fail;
		}
		grown = realloc(all, (size_t)(nall + nf) * sizeof(*all));
		if (!grown) {
			for (j = 0; j < nf; j++)
				free(found[j]);
			free(found);
			goto nomem;
		}
		all = grown;
		for (j = 0; j < nf; j++) {
			for (m = 0; m < nall && strcmp(all[m], found[j]) != 0; m++)
				continue;
			if (m < nall)
				free(found[j]);
			else
				all[nall++] = found[j];
		}
		free(found);
	}
	*out = all;
	return nall;
nomem:
	ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
fail:
	for (i = 0; i < nall; i++)
		free(all[i]);
	free(all);
	return -1;
}

/* ---- publishing ---- */

enum kind {
	K_DATA,
	K_SNAP,
	K_END
};
static const char *const kind_names[] = { "data", "snap", "end" };

struct qmsg {
	struct qmsg *next;
	enum kind kind;
	unsigned int part, parts;
	uint64_t index;
	size_t len;
	unsigned char data[];
};

struct ps_nats_pub {
	struct ps_nats *n;
	struct ps_nats_pub_config cfg;
	char subject[PS_NATS_NAME_MAX], stream[PS_NATS_NAME_MAX];
	char rec_id[17];
	const struct ps_session *s;
	bool swap;
	size_t max_msg; /* payload bytes per message */
	struct ps_sideband *sb;
	struct ps_bytes hdr, batch, snap;
	unsigned int data_since_snap;
	bool snapped;             /* the first snapshot is queued */
	uint64_t next_index;      /* main thread */
	struct qmsg *head, *tail; /* the queue, under @mu */
	size_t queued;
	bool closing, abort, failed, thread_up, thread_done, full_said;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	struct ps_error terr; /* the sending thread's failure */
	/* the sending thread's own */
	uint64_t begin_seq, snap_seq, pending_snap;
	struct ps_nats_pub_stats st; /* under @mu */
};

static void pub_notice(struct ps_nats_pub *p, const char *fmt, ...) PS_PRINTF(2, 3);
static void pub_notice(struct ps_nats_pub *p, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	if (!p->cfg.notice)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	p->cfg.notice(p->cfg.arg, text);
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void deadline_ts(struct timespec *ts, int64_t at_ms)
{
	ts->tv_sec = at_ms / 1000;
	ts->tv_nsec = (long)(at_ms % 1000) * 1000000;
}

/* Create the subject's stream, or check and update the one there. */
static int stream_ensure(struct ps_nats_pub *p, struct ps_error *err)
{
	const char *subjects[1] = { p->subject };
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	jsStreamConfig c;
	natsStatus s;

	s = js_GetStreamInfo(&si, p->n->js, p->stream, NULL, &jerr);
	if (s == NATS_OK) {
		const jsStreamConfig *old = si->Config;

		if (old->SubjectsLen != 1 || strcmp(old->Subjects[0], p->subject) != 0) {
			ps_error__set(err, PS_EMISMATCH, NULL, PS_NO_OFFSET,
			              "the JetStream stream %s is there but does not keep exactly "
			              "the subject %s: not made by pstream-nats",
			              p->stream, p->subject);
			jsStreamInfo_Destroy(si);
			return -1;
		}
		if (p->cfg.max_bytes || p->cfg.max_age_ns || p->cfg.dup_window_ns) {
			c = *old;
			if (p->cfg.max_bytes)
				c.MaxBytes = p->cfg.max_bytes;
			if (p->cfg.max_age_ns)
				c.MaxAge = p->cfg.max_age_ns;
			if (p->cfg.dup_window_ns)
				c.Duplicates = p->cfg.dup_window_ns;
			jsStreamInfo_Destroy(si);
			si = NULL;
			s = js_UpdateStream(&si, p->n->js, &c, NULL, &jerr);
			jsStreamInfo_Destroy(si);
			if (s != NATS_OK)
				return nats_fail(err, PS_ESYS, p->stream, s, NULL);
			return 0;
		}
		jsStreamInfo_Destroy(si);
		return 0;
	}
	if (jerr != JSStreamNotFoundErr)
		return nats_fail(err, PS_ESYS, p->stream, s, NULL);
	jsStreamConfig_Init(&c);
	c.Name = p->stream;
	c.Subjects = subjects;
	c.SubjectsLen = 1;
	c.Storage = js_FileStorage;
	c.Discard = js_DiscardOld;
	if (p->cfg.max_bytes)
		c.MaxBytes = p->cfg.max_bytes;
	c.MaxAge = p->cfg.max_age_ns;
	if (p->cfg.dup_window_ns)
		c.Duplicates = p->cfg.dup_window_ns;
	c.AllowDirect = true;
	s = js_AddStream(&si, p->n->js, &c, NULL, &jerr);
	jsStreamInfo_Destroy(si);
	if (s != NATS_OK)
		return nats_fail(err, PS_ESYS, p->stream, s, NULL);
	return 0;
}

static int set_header(natsMsg *m, const char *key, const char *fmt, ...) PS_PRINTF(3, 4);
static int set_header(natsMsg *m, const char *key, const char *fmt, ...)
{
	char v[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	return natsMsgHeader_Set(m, key, v) == NATS_OK ? 0 : -1;
}

/*
 * One publish of @q: NATS_OK with the stream sequence in *@seq, or the failure (the caller
 * tries again: the message id makes a second store of the same message a duplicate).
 */
static natsStatus publish_once(struct ps_nats_pub *p, const struct qmsg *q, uint64_t *seq,
                               bool *dup, char *why, size_t whylen)
{
	char id[64];
	jsPubOptions po;
	jsPubAck *pa = NULL;
	jsErrCode jerr = 0;
	natsMsg *m = NULL;
	natsStatus s;

	snprintf(id, sizeof(id), "%s:%" PRIu64, p->rec_id, q->index);
	s = natsMsg_Create(&m, p->subject, NULL, (const char *)q->data, (int)q->len);
	if (s != NATS_OK)
		goto out;
	if (set_header(m, "Pstream-Rec", "%s", p->rec_id) < 0 ||
	    set_header(m, "Pstream-Index", "%" PRIu64, q->index) < 0 ||
	    set_header(m, "Pstream-Kind", "%s", kind_names[q->kind]) < 0 ||
	    (q->parts > 1 && (set_header(m, "Pstream-Part", "%u", q->part) < 0 ||
	                      set_header(m, "Pstream-Parts", "%u", q->parts) < 0)) ||
	    (q->kind != K_SNAP && p->snap_seq &&
	     set_header(m, "Pstream-Snap", "%" PRIu64, p->snap_seq) < 0) ||
	    (p->begin_seq && set_header(m, "Pstream-Begin", "%" PRIu64, p->begin_seq) < 0)) {
		s = NATS_NO_MEMORY;
		goto out;
	}
	jsPubOptions_Init(&po);
	po.MsgId = id;
	po.MaxWait = PUB_WAIT_MS;
	po.ExpectStream = p->stream;
	s = js_PublishMsg(&pa, p->n->js, m, &po, &jerr);
	if (s == NATS_OK) {
		*seq = pa->Sequence;
		*dup = pa->Duplicate;
	}
out:
	if (s != NATS_OK) {
		const char *last = nats_GetLastError(NULL);

		snprintf(why, whylen, "%s", last && *last ? last : natsStatus_GetText(s));
	}
	jsPubAck_Destroy(pa);
	natsMsg_Destroy(m);
	return s;
}

/* The sending thread: each queued message in turn, tried again until stored. */
static void *pub_thread(void *arg)
{
	struct ps_nats_pub *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		unsigned int attempts = 0, backoff = BACKOFF_FIRST_MS;
		struct qmsg *q;
		uint64_t seq = 0;
		bool dup = false;
		char why[256];

		while (!p->head && !p->closing && !p->abort)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->head || p->abort)
			break;
		q = p->head;
		for (;;) {
			natsStatus s;
			struct timespec ts;

			pthread_mutex_unlock(&p->mu);
			s = publish_once(p, q, &seq, &dup, why, sizeof(why));
			pthread_mutex_lock(&p->mu);
			if (s == NATS_OK)
				break;
			attempts++;
			p->st.retries++;
			if (attempts == 1 || attempts % 10 == 0)
				pub_notice(
				        p,
				        "%s: the server does not store (%s): trying again, %zu KiB "
				        "held%s",
				        p->subject, why, (p->queued + 1023) / 1024,
				        attempts > 1 ? " (still)" : "");
			deadline_ts(&ts, wall_ms() + backoff);
			while (!p->abort &&
			       pthread_cond_timedwait(&p->cv, &p->mu, &ts) != ETIMEDOUT)
				continue;
			if (p->abort)
				goto out;
			backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
		}
		if (attempts)
			pub_notice(p, "%s: stored again after %u attempts", p->subject,
			           attempts + 1);
		if (q->index == 0)
			p->begin_seq = seq;
		if (q->kind == K_SNAP && q->part == 0)
			p->pending_snap = seq;
		if (q->kind == K_SNAP && q->part + 1 == q->parts)
			p->snap_seq = p->pending_snap;
		p->st.messages++;
		p->st.bytes += q->len;
		p->st.duplicates += dup;
		p->head = q->next;
		if (!p->head)
			p->tail = NULL;
		p->queued -= q->len;
		free(q);
		pthread_cond_broadcast(&p->cv);
	}
out:
	p->thread_done = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Queue @len bytes at @data as messages of kind @kind (split at the message size). */
static int pub_queue(struct ps_nats_pub *p, enum kind kind, const unsigned char *data, size_t len,
                     struct ps_error *err)
{
	unsigned int parts = len ? (unsigned int)((len + p->max_msg - 1) / p->max_msg) : 1, i;

	for (i = 0; i < parts; i++) {
		size_t off = (size_t)i * p->max_msg,
		       n = len - off < p->max_msg ? len - off : p->max_msg;
		struct qmsg *q = malloc(sizeof(*q) + (n ? n : 1));

		if (!len)
			n = 0;
		if (!q)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		q->next = NULL;
		q->kind = kind;
		q->part = i;
		q->parts = parts;
		q->index = p->next_index++;
		q->len = n;
		if (n)
			memcpy(q->data, data + off, n);
		pthread_mutex_lock(&p->mu);
		while (p->head && p->queued + n > p->cfg.buffer && !p->abort && !p->thread_done) {
			if (!p->full_said) {
				p->full_said = true;
				pub_notice(
				        p,
				        "%s: %zu KiB held, the buffer is full: reading stops until "
				        "the server stores again",
				        p->subject, p->queued / 1024);
			}
			pthread_cond_wait(&p->cv, &p->mu);
		}
		if (p->abort || p->thread_done) {
			pthread_mutex_unlock(&p->mu);
			free(q);
			return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET,
			                     "%s: the sending thread stopped", p->subject);
		}
		if (p->queued < p->cfg.buffer / 2)
			p->full_said = false;
		if (p->tail)
			p->tail->next = q;
		else
			p->head = q;
		p->tail = q;
		p->queued += n;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	return 0;
}

static int snap_emit(void *arg, const void *data, size_t len)
{
	return ps_bytes__add(arg, data, len, SIZE_MAX);
}

/* A snapshot: the pipe header, the header records, the side-band state as of now. */
static int pub_snapshot(struct ps_nats_pub *p, struct ps_error *err)
{
	unsigned char h[16];

	p->snap.len = 0;
	ps_put64(h, PS_MAGIC, p->swap);
	ps_put64(h + 8, 16, p->swap);
	if (ps_bytes__add(&p->snap, h, sizeof(h), SIZE_MAX) < 0 ||
	    ps_bytes__add(&p->snap, p->hdr.p, p->hdr.len, SIZE_MAX) < 0 ||
	    ps_sideband__replay_all(p->sb, snap_emit, &p->snap) < 0)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	p->data_since_snap = 0;
	p->snapped = true;
	pthread_mutex_lock(&p->mu);
	p->st.snapshots++;
	pthread_mutex_unlock(&p->mu);
	return pub_queue(p, K_SNAP, p->snap.p, p->snap.len, err);
}

static int pub_send_batch(struct ps_nats_pub *p, struct ps_error *err)
{
	if (!p->batch.len)
		return 0;
	if (pub_queue(p, K_DATA, p->batch.p, p->batch.len, err) < 0)
		return -1;
	p->data_since_snap++;
	p->batch.len = 0;
	return 0;
}

struct ps_nats_pub *ps_nats_pub__open(struct ps_nats *n, const struct ps_nats_pub_config *cfg,
                                      const struct ps_session *s, bool swap, struct ps_error *err)
{
	struct ps_nats_pub *p = calloc(1, sizeof(*p));
	unsigned char rnd[8];
	int64_t maxp;
	size_t i;

	if (!p || !(p->sb = ps_sideband__new(s))) {
		free(p);
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	p->n = n;
	p->cfg = *cfg;
	p->s = s;
	p->swap = swap;
	snprintf(p->subject, sizeof(p->subject), "%s", cfg->subject);
	p->cfg.subject = p->subject;
	if (!p->cfg.snap_every)
		p->cfg.snap_every = 64;
	if (!p->cfg.batch)
		p->cfg.batch = 256 << 10;
	if (!p->cfg.buffer)
		p->cfg.buffer = 64 << 20;
	maxp = natsConnection_GetMaxPayload(n->nc);
	p->max_msg = maxp > 2 * MSG_MARGIN ? (size_t)maxp - MSG_MARGIN : 64 << 10;
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		uint64_t t = (uint64_t)wall_ms() ^ ((uint64_t)getpid() << 32);

		memcpy(rnd, &t, sizeof(rnd));
	}
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(p->rec_id + 2 * i, 3, "%02x", rnd[i]);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (ps_nats__stream_name(p->subject, p->stream, sizeof(p->stream), err) < 0 ||
	    stream_ensure(p, err) < 0) {
		ps_nats_pub__close(p);
		return NULL;
	}
	if (pthread_create(&p->th, NULL, pub_thread, p) != 0) {
		ps_nats_pub__close(p);
		ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "cannot start a thread");
		return NULL;
	}
	p->thread_up = true;
	return p;
}

static bool is_header(uint32_t type)
{
	return ps_record_type_class(type) == PS_CLASS_HEADER || type == PS_RECORD_FINISHED_INIT;
}

int ps_nats_pub__record(struct ps_nats_pub *p, const struct ps_record *rec, struct ps_error *err)
{
	struct ps_sideband_info info;

	if (rec->type == PS_RECORD_COMPRESSED || rec->type == PS_RECORD_COMPRESSED2)
		return 0; /* delivered decompressed */
	if (p->batch.len && p->batch.len + rec->len > p->cfg.batch && pub_send_batch(p, err) < 0)
		return -1;
	/* a snapshot is the state before the first record of the batch that follows it */
	if (!p->batch.len && (!p->snapped || p->data_since_snap >= p->cfg.snap_every) &&
	    pub_snapshot(p, err) < 0)
		return -1;
	if (is_header(rec->type)) {
		if (p->hdr.len + rec->len > MAX_HEADER_BYTES)
			return ps_error__set(err, PS_ECAP, NULL, rec->offset,
			                     "more than %u MiB of header records",
			                     MAX_HEADER_BYTES >> 20);
		if (ps_bytes__add(&p->hdr, rec->data, rec->len, SIZE_MAX) < 0)
			return ps_error__set(err, PS_ENOMEM, NULL, rec->offset, "out of memory");
	} else if (ps_record_type_class(rec->type) == PS_CLASS_SIDEBAND &&
	           ps_sideband__apply(p->sb, rec, &info) < 0) {
		return ps_error__set(err, PS_ENOMEM, NULL, rec->offset, "out of memory");
	}
	if (ps_bytes__add(&p->batch, rec->data, rec->len, SIZE_MAX) < 0)
		return ps_error__set(err, PS_ENOMEM, NULL, rec->offset, "out of memory");
	pthread_mutex_lock(&p->mu);
	p->st.records++;
	pthread_mutex_unlock(&p->mu);
	return 0;
}

int ps_nats_pub__flush(struct ps_nats_pub *p, struct ps_error *err)
{
	return pub_send_batch(p, err);
}

int ps_nats_pub__finish(struct ps_nats_pub *p, int give_up_ms, struct ps_error *err)
{
	int64_t end = give_up_ms < 0 ? INT64_MAX : wall_ms() + give_up_ms;
	size_t left_bytes = 0;
	unsigned int left = 0;
	struct qmsg *q;

	if (pub_send_batch(p, err) < 0)
		return -1;
	if (!p->snapped && pub_snapshot(p, err) < 0)
		return -1;
	if (pub_queue(p, K_END, NULL, 0, err) < 0)
		return -1;
	pthread_mutex_lock(&p->mu);
	p->closing = true;
	pthread_cond_broadcast(&p->cv);
	while (p->head && !p->thread_done) {
		struct timespec ts;

		if (end == INT64_MAX) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		deadline_ts(&ts, end);
		if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT)
			break;
	}
	for (q = p->head; q; q = q->next) {
		left++;
		left_bytes += q->len;
	}
	p->abort = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	p->thread_up = false;
	if (left)
		return ps_error__set(
		        err, PS_ESYS, NULL, PS_NO_OFFSET,
		        "%s: %u messages (%zu bytes of records) not stored: the server "
		        "did not store them in time",
		        p->subject, left, left_bytes);
	return 0;
}

void ps_nats_pub__stats(struct ps_nats_pub *p, struct ps_nats_pub_stats *st)
{
	pthread_mutex_lock(&p->mu);
	*st = p->st;
	pthread_mutex_unlock(&p->mu);
}

void ps_nats_pub__close(struct ps_nats_pub *p)
{
	struct qmsg *q;

	if (!p)
		return;
	if (p->thread_up) {
		pthread_mutex_lock(&p->mu);
		p->abort = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
	}
	while ((q = p->head)) {
		p->head = q->next;
		free(q);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	ps_sideband__delete(p->sb);
	free(p->hdr.p);
	free(p->batch.p);
	free(p->snap.p);
	free(p);
}

/* ---- subscribing ---- */

struct ps_nats_sub {
	struct ps_nats *n;
	struct ps_nats_sub_config cfg;
	char subject[PS_NATS_NAME_MAX], stream[PS_NATS_NAME_MAX], durable[PS_NATS_NAME_MAX];
	natsSubscription *sub;
	natsMsgList list;
	int next; /* in @list */
	/* the messages handed out and not acknowledged yet: their reply subjects, oldest
	 * first, with when they were handed out (CLOCK_MONOTONIC ms) */
	struct held {
		struct held *next;
		int64_t ms;
		uint64_t seq; /* its stream sequence */
		char reply[];
	} * held, *held_tail;
	size_t nheld;
	struct ps_bytes out, unit;
	/* the recording being read */
	bool in_rec, ended, swap, want_snap;
	bool read_to_end; /* ps_nats_sub__read_to_end() */
	char rec[32];
	uint64_t last_index;
	/* ps_nats_sub__position(): the message whose payload ends the bytes handed out last */
	uint64_t pos_seq;
	size_t pos_at;
	uint64_t start_seq;
	unsigned int snap_left; /* parts of the first snapshot still to write in full */
	struct ps_nats_sub_stats st;
};

struct meta {
	const char *rec, *kind;
	uint64_t index, snap, begin, seq;
	unsigned int part, parts;
};

static uint64_t header_u64(natsMsg *m, const char *key)
{
	const char *v = NULL;

	if (natsMsgHeader_Get(m, key, &v) != NATS_OK || !v)
		return 0;
	return strtoull(v, NULL, 10);
}

/* The stream sequence of @m, delivered or got by sequence. */
static uint64_t msg_seq(natsMsg *m)
{
	jsMsgMetaData *md = NULL;
	uint64_t seq;

	if (natsMsg_GetMetaData(&md, m) != NATS_OK)
		return natsMsg_GetSequence(m);
	seq = md->Sequence.Stream;
	jsMsgMetaData_Destroy(md);
	return seq;
}

/* The pstream headers of @m; false when it has none. */
static bool msg_meta(natsMsg *m, struct meta *mt)
{
	memset(mt, 0, sizeof(*mt));
	if (natsMsgHeader_Get(m, "Pstream-Rec", &mt->rec) != NATS_OK ||
	    natsMsgHeader_Get(m, "Pstream-Kind", &mt->kind) != NATS_OK || !mt->rec || !mt->kind)
		return false;
	mt->index = header_u64(m, "Pstream-Index");
	mt->snap = header_u64(m, "Pstream-Snap");
	mt->begin = header_u64(m, "Pstream-Begin");
	mt->part = (unsigned int)header_u64(m, "Pstream-Part");
	mt->parts = (unsigned int)header_u64(m, "Pstream-Parts");
	if (!mt->parts)
		mt->parts = 1;
	mt->seq = msg_seq(m);
	return mt->part < mt->parts;
}

static int out_add(struct ps_nats_sub *sub, const void *data, size_t len, struct ps_error *err)
{
	if (ps_bytes__add(&sub->out, data, len, SIZE_MAX) < 0)
		return ps_error__set(err, PS_ENOMEM, sub->subject, PS_NO_OFFSET, "out of memory");
	return 0;
}

/* The message's own payload: its place in the bytes handed out is kept. */
static int payload_add(struct ps_nats_sub *sub, uint64_t seq, const void *data, size_t len,
                       struct ps_error *err)
{
	sub->pos_seq = seq;
	sub->pos_at = sub->out.len;
	return out_add(sub, data, len, err);
}

/*
 * The records of a data unit that a stream starting later needs: all but the samples (and
 * the records that count lost samples).  @b is whole records in the recording's order.
 */
static int out_add_sideband(struct ps_nats_sub *sub, const unsigned char *b, size_t len,
                            uint64_t seq, struct ps_error *err)
{
	size_t off = 0;

	while (off + 8 <= len) {
		uint32_t type = ps_get32(b + off, sub->swap);
		size_t size = ps_get16(b + off + 6, sub->swap), all = size;
		enum ps_record_class cl = ps_record_type_class(type);

		if (size < 8 || off + size > len)
			break;
		if (type == PS_RECORD_HEADER_TRACING_DATA && size >= 12)
			all += ps_get32(b + off + 8, sub->swap);
		else if (type == PS_RECORD_AUXTRACE && size >= 16) {
			uint64_t pl = ps_get64(b + off + 8, sub->swap);

			all = pl > RECORD_MAX_PAYLOAD ? SIZE_MAX : size + (size_t)pl;
		}
		if (all > len - off)
			break;
		if ((cl == PS_CLASS_HEADER || cl == PS_CLASS_SIDEBAND ||
		     type == PS_RECORD_FINISHED_INIT) &&
		    type != PERF_RECORD_LOST && type != PERF_RECORD_LOST_SAMPLES &&
		    out_add(sub, b + off, all, err) < 0)
			return -1;
		off += all;
	}
	if (off != len)
		return ps_error__set(err, PS_ECORRUPT, sub->subject, PS_NO_OFFSET,
		                     "message %" PRIu64 ": a record runs past the message's end",
		                     seq);
	return 0;
}

/* The start of a recording: the first bytes of a snapshot are the pipe header. */
static int begin_rec(struct ps_nats_sub *sub, const struct meta *mt, const unsigned char *d,
                     size_t len, struct ps_error *err)
{
	if (len < 16 || (ps_get64(d, false) != PS_MAGIC && ps_get64(d, false) != PS_MAGIC_SWAPPED))
		return ps_error__set(err, PS_EMAGIC, sub->subject, PS_NO_OFFSET,
		                     "message %" PRIu64 ": a snapshot that does not start with a "
		                     "pipe header",
		                     mt->seq);
	sub->swap = ps_get64(d, false) == PS_MAGIC_SWAPPED;
	snprintf(sub->rec, sizeof(sub->rec), "%s", mt->rec);
	sub->in_rec = true;
	sub->want_snap = false;
	return 0;
}

/*
 * A reader that starts at the data message @mt: the snapshot the message names, then the
 * side-band of the messages between, fetched by sequence.  Return: 1 when the stream can
 * start here, 0 when it cannot (the snapshot is gone: wait for the next one), -1 on error.
 */
static int catch_up(struct ps_nats_sub *sub, const struct meta *mt, struct ps_error *err)
{
	bool in_snap = false;
	uint64_t q;

	if (!mt->snap || mt->snap >= mt->seq)
		return 0;
	sub->unit.len = 0;
	for (q = mt->snap; q < mt->seq; q++) {
		const unsigned char *d;
		jsErrCode jerr = 0;
		natsMsg *m = NULL;
		struct meta gm;
		natsStatus s;
		size_t len;

		s = js_GetMsg(&m, sub->n->js, sub->stream, q, NULL, &jerr);
		if (s != NATS_OK) {
			if (jerr == JSNoMessageFoundErr || s == NATS_NOT_FOUND) {
				if (q == mt->snap)
					return 0; /* discarded by the retention limits */
				sub->st.lost++;
				continue;
			}
			return nats_fail(err, PS_ESYS, sub->subject, s, NULL);
		}
		if (!msg_meta(m, &gm) || strcmp(gm.rec, mt->rec) != 0) {
			natsMsg_Destroy(m);
			continue;
		}
		gm.seq = q;
		d = (const unsigned char *)natsMsg_GetData(m);
		len = (size_t)natsMsg_GetDataLength(m);
		if (q == mt->snap) {
			if (strcmp(gm.kind, "snap") != 0 || gm.part != 0 ||
			    begin_rec(sub, &gm, d, len, err) < 0) {
				natsMsg_Destroy(m);
				return err->code ? -1 : 0;
			}
			in_snap = true;
		}
		if (in_snap && strcmp(gm.kind, "snap") == 0) {
			if (out_add(sub, d, len, err) < 0) {
				natsMsg_Destroy(m);
				return -1;
			}
			in_snap = gm.part + 1 < gm.parts;
		} else if (strcmp(gm.kind, "data") == 0) {
			in_snap = false;
			if (ps_bytes__add(&sub->unit, d, len, SIZE_MAX) < 0) {
				natsMsg_Destroy(m);
				return ps_error__set(err, PS_ENOMEM, sub->subject, PS_NO_OFFSET,
				                     "out of memory");
			}
			if (gm.part + 1 == gm.parts) {
				if (out_add_sideband(sub, sub->unit.p, sub->unit.len, q, err) < 0) {
					natsMsg_Destroy(m);
					return -1;
				}
				sub->unit.len = 0;
			}
		}
		natsMsg_Destroy(m);
	}
	return 1;
}

/*
 * What message @m adds to the stream (in @sub->out).  Return: 0, 1 at the end of the
 * recording, -1 on error.
 */
static int sub_take(struct ps_nats_sub *sub, natsMsg *m, struct ps_error *err)
{
	const unsigned char *d = (const unsigned char *)natsMsg_GetData(m);
	size_t len = (size_t)natsMsg_GetDataLength(m);
	struct meta mt;
	int r;

	sub->st.messages++;
	if (!msg_meta(m, &mt)) {
		sub->st.skipped++;
		return 0;
	}
	if (sub->in_rec && strcmp(mt.rec, sub->rec) != 0) {
		if (mt.index == 0 && !strcmp(mt.kind, "snap")) {
			/* a new recording: the one read ended without its end mark */
			sub->st.lost++;
			sub->in_rec = false;
			if (!sub->cfg.follow)
				return 1;
		} else {
			sub->st.skipped++;
			return 0;
		}
	}
	if (!sub->in_rec) {
		if (!strcmp(mt.kind, "snap") && mt.part == 0) {
			if (begin_rec(sub, &mt, d, len, err) < 0)
				return -1;
			sub->last_index = mt.index;
			sub->snap_left = mt.parts - 1;
			return payload_add(sub, mt.seq, d, len, err);
		}
		if (strcmp(mt.kind, "data") != 0 || mt.part != 0) {
			sub->st.skipped++;
			return 0;
		}
		r = catch_up(sub, &mt, err);
		if (r < 0)
			return -1;
		if (r == 0) {
			sub->out.len = 0;
			sub->in_rec = false;
			sub->st.lost++;
			return 0;
		}
		sub->last_index = mt.index;
		sub->snap_left = 0;
		return payload_add(sub, mt.seq, d, len, err);
	}
	if (mt.index <= sub->last_index) {
		sub->st.skipped++; /* delivered again */
		return 0;
	}
	sub->st.lost += mt.index - sub->last_index - 1;
	sub->last_index = mt.index;
	if (!strcmp(mt.kind, "data"))
		return payload_add(sub, mt.seq, d, len, err);
	if (!strcmp(mt.kind, "snap")) {
		if (sub->snap_left) {
			sub->snap_left--;
			return payload_add(sub, mt.seq, d, len, err);
		}
		return 0;
	}
	if (!strcmp(mt.kind, "end")) {
		sub->in_rec = false;
		return sub->cfg.follow ? 0 : 1;
	}
	sub->st.skipped++;
	return 0;
}

static bool name_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* The consumer @ci acknowledged every message of the subject, and the last one ends a
 * recording. */
static bool acked_to_end(struct ps_nats_sub *sub, const jsConsumerInfo *ci)
{
	natsMsg *last = NULL;
	jsErrCode jerr = 0;
	struct meta mt;
	bool end;

	if (ci->NumPending || ci->NumAckPending)
		return false;
	if (js_GetLastMsg(&last, sub->n->js, sub->stream, sub->subject, NULL, &jerr) != NATS_OK)
		return false;
	end = msg_meta(last, &mt) && !strcmp(mt.kind, "end") &&
	      natsMsg_GetSequence(last) <= ci->AckFloor.Stream;
	natsMsg_Destroy(last);
	return end;
}

/*
 * The durable consumer @ci was handed messages that it did not acknowledge (its reader
 * was killed): the server would give those again only after its ack wait, and meanwhile
 * the ones after them, whose acknowledgement (AckAll) would count for them too.  It is made
 * again, the same but starting right after what was acknowledged: everything not
 * acknowledged comes again at once, in order.
 */
static int restart(struct ps_nats_sub *sub, const jsConsumerInfo *ci, struct ps_error *err)
{
	jsConsumerConfig cc = *ci->Config;
	jsConsumerInfo *made = NULL;
	jsErrCode jerr = 0;
	natsStatus s;

	if (ci->AckFloor.Stream) {
		cc.DeliverPolicy = js_DeliverByStartSequence;
		cc.OptStartSeq = ci->AckFloor.Stream + 1;
		cc.OptStartTime = 0;
	}
	s = js_DeleteConsumer(sub->n->js, sub->stream, sub->durable, NULL, &jerr);
	if (s == NATS_OK)
		s = js_AddConsumer(&made, sub->n->js, sub->stream, &cc, NULL, &jerr);
	jsConsumerInfo_Destroy(made);
	if (s != NATS_OK)
		return nats_fail(err, PS_ESYS, sub->subject, s, NULL);
	return 0;
}

uint64_t ps_nats_sub__start_seq(const struct ps_nats_sub *sub)
{
	return sub->start_seq;
}

bool ps_nats_sub__read_to_end(const struct ps_nats_sub *sub)
{
	return sub->read_to_end;
}

struct ps_nats_sub *ps_nats_sub__open(struct ps_nats *n, const struct ps_nats_sub_config *cfg,
                                      struct ps_error *err)
{
	struct ps_nats_sub *sub = calloc(1, sizeof(*sub));
	jsConsumerInfo *ci = NULL;
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	jsSubOptions so;
	natsStatus s;
	bool bind = false;

	if (!sub) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	sub->n = n;
	sub->cfg = *cfg;
	snprintf(sub->subject, sizeof(sub->subject), "%s", cfg->subject);
	sub->cfg.subject = sub->subject;
	if (ps_nats__stream_name(sub->subject, sub->stream, sizeof(sub->stream), err) < 0)
		goto fail;
	if (cfg->durable) {
		if (!*cfg->durable || strlen(cfg->durable) >= sizeof(sub->durable) ||
		    !name_ok(cfg->durable)) {
			ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
			              "durable name '%s': letters, digits, '-' and '_' only",
			              cfg->durable);
			goto fail;
		}
		snprintf(sub->durable, sizeof(sub->durable), "%s", cfg->durable);
		sub->cfg.durable = sub->durable;
	}
	s = js_GetStreamInfo(&si, n->js, sub->stream, NULL, &jerr);
	if (s != NATS_OK) {
		if (jerr == JSStreamNotFoundErr)
			ps_error__set(err, PS_EEMPTY, sub->subject, PS_NO_OFFSET,
			              "nothing was published there (no JetStream stream %s)",
			              sub->stream);
		else
			nats_fail(err, PS_ESYS, sub->subject, s, NULL);
		goto fail;
	}
	jsSubOptions_Init(&so);
	so.Stream = sub->stream;
	so.Config.AckPolicy = js_AckAll;
	if (cfg->durable &&
	    js_GetConsumerInfo(&ci, n->js, sub->stream, sub->durable, NULL, &jerr) == NATS_OK) {
		bind = true; /* it goes on where it was acknowledged */
		so.Consumer = sub->durable;
		sub->start_seq =
		        ci->AckFloor.Stream ? ci->AckFloor.Stream + 1 :
		        ci->Config && ci->Config->DeliverPolicy == js_DeliverByStartSequence ?
		                              ci->Config->OptStartSeq :
		                              1;
		sub->read_to_end = acked_to_end(sub, ci);
		if (!sub->read_to_end && ci->Delivered.Stream > ci->AckFloor.Stream &&
		    restart(sub, ci, err) < 0) {
			jsConsumerInfo_Destroy(ci);
			goto fail;
		}
		jsConsumerInfo_Destroy(ci);
	} else if (cfg->start == PS_NATS_NEW) {
		so.Config.DeliverPolicy = js_DeliverNew;
	} else if (cfg->start == PS_NATS_SINCE) {
		so.Config.DeliverPolicy = js_DeliverByStartTime;
		so.Config.OptStartTime = cfg->since_ns;
	} else if (si->State.Msgs) {
		/* the start of the latest recording, or the first message still kept of it */
		natsMsg *last = NULL;
		uint64_t begin = 0;

		if (js_GetLastMsg(&last, n->js, sub->stream, sub->subject, NULL, &jerr) ==
		    NATS_OK) {
			struct meta mt;

			if (msg_meta(last, &mt))
				begin = mt.index == 0 ? natsMsg_GetSequence(last) : mt.begin;
			natsMsg_Destroy(last);
		}
		if (begin < si->State.FirstSeq)
			begin = si->State.FirstSeq;
		so.Config.DeliverPolicy = js_DeliverByStartSequence;
		so.Config.OptStartSeq = begin;
		sub->start_seq = begin;
	}
	jsStreamInfo_Destroy(si);
	si = NULL;
	s = js_PullSubscribe(&sub->sub, n->js, sub->subject, bind ? NULL : cfg->durable, NULL, &so,
	                     &jerr);
	if (s != NATS_OK) {
		nats_fail(err, PS_ESYS, sub->subject, s, NULL);
		goto fail;
	}
	return sub;
fail:
	jsStreamInfo_Destroy(si);
	ps_nats_sub__close(sub);
	return NULL;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Keep what acknowledges @m later: its reply subject (a message without one, got by
 * sequence, has nothing to acknowledge). */
static void hold(struct ps_nats_sub *sub, natsMsg *m, uint64_t seq)
{
	const char *r = natsMsg_GetReply(m);
	size_t len = r ? strlen(r) : 0;
	struct held *h = malloc(sizeof(*h) + len + 1);

	if (!h)
		return; /* acknowledged with a later one */
	h->next = NULL;
	h->ms = mono_ms();
	h->seq = seq;
	memcpy(h->reply, r ? r : "", len + 1);
	if (sub->held_tail)
		sub->held_tail->next = h;
	else
		sub->held = h;
	sub->held_tail = h;
	sub->nheld++;
}

int ps_nats_sub__read(struct ps_nats_sub *sub, const unsigned char **data, size_t *len,
                      int timeout_ms, struct ps_error *err)
{
	for (;;) {
		jsErrCode jerr = 0;
		natsStatus s;
		natsMsg *m;
		int r;

		if (sub->ended)
			return 0;
		if (sub->next < sub->list.Count) {
			m = sub->list.Msgs[sub->next];
			sub->list.Msgs[sub->next++] = NULL;
			sub->out.len = 0;
			sub->pos_seq = 0;
			r = sub_take(sub, m, err);
			hold(sub, m, msg_seq(m));
			natsMsg_Destroy(m);
			if (r < 0)
				return -1;
			if (r == 1)
				sub->ended = true;
			if (sub->out.len) {
				sub->st.bytes += sub->out.len;
				*data = sub->out.p;
				*len = sub->out.len;
				return 1;
			}
			continue;
		}
		natsMsgList_Destroy(&sub->list);
		memset(&sub->list, 0, sizeof(sub->list));
		sub->next = 0;
		s = natsSubscription_Fetch(&sub->list, sub->sub, FETCH_BATCH,
		                           timeout_ms > 0 ? timeout_ms : 1, &jerr);
		if (s == NATS_OK)
			continue;
		if (s == NATS_TIMEOUT)
			return PS_NATS_IDLE;
		/* the server gone for a while: the connection comes back on its own */
		if (s == NATS_CONNECTION_CLOSED || s == NATS_INVALID_SUBSCRIPTION)
			return nats_fail(err, PS_ESYS, sub->subject, s, NULL);
		{
			struct timespec ts = { 0, 200 * 1000000L };

			nanosleep(&ts, NULL);
		}
		return PS_NATS_IDLE;
	}
}

int ps_nats_sub__ack(struct ps_nats_sub *sub, struct ps_error *err)
{
	return ps_nats_sub__ack_before(sub, INT64_MAX, err);
}

int ps_nats_sub__ack_before(struct ps_nats_sub *sub, int64_t ms, struct ps_error *err)
{
	struct held *h, *last = NULL, *stop;
	natsStatus s;

	for (h = sub->held; h && h->ms <= ms; h = h->next)
		last = h;
	if (!last)
		return 0;
	/* AckAll: acknowledging one message acknowledges those before it */
	s = *last->reply ? natsConnection_Publish(sub->n->nc, last->reply, "+ACK", 4) : NATS_OK;
	stop = last->next;
	while (sub->held != stop) {
		h = sub->held;
		sub->held = h->next;
		sub->nheld--;
		free(h);
	}
	if (!sub->held)
		sub->held_tail = NULL;
	if (s != NATS_OK)
		return nats_fail(err, PS_ESYS, sub->subject, s, NULL);
	return 0;
}

int ps_nats_sub__ack_upto(struct ps_nats_sub *sub, uint64_t seq, struct ps_error *err)
{
	struct held *h, *last = NULL;
	natsStatus s = NATS_OK;

	/* AckAll acknowledges by stream sequence: the newest held at or below @seq does it
	 * for all (a message delivered again may be held after later ones) */
	for (h = sub->held; h; h = h->next)
		if (h->seq <= seq && (!last || h->seq > last->seq))
			last = h;
	if (!last)
		return 0;
	if (*last->reply)
		s = natsConnection_Publish(sub->n->nc, last->reply, "+ACK", 4);
	for (struct held **pp = &sub->held; *pp;) {
		h = *pp;
		if (h->seq <= seq) {
			*pp = h->next;
			sub->nheld--;
			free(h);
		} else {
			pp = &h->next;
		}
	}
	sub->held_tail = sub->held;
	while (sub->held_tail && sub->held_tail->next)
		sub->held_tail = sub->held_tail->next;
	if (s != NATS_OK)
		return nats_fail(err, PS_ESYS, sub->subject, s, NULL);
	return 0;
}

uint64_t ps_nats_sub__position(const struct ps_nats_sub *sub, size_t *at)
{
	*at = sub->pos_at;
	return sub->pos_seq;
}

size_t ps_nats_sub__unacked(const struct ps_nats_sub *sub)
{
	return sub->nheld;
}

void ps_nats_sub__stats(const struct ps_nats_sub *sub, struct ps_nats_sub_stats *st)
{
	*st = sub->st;
}

void ps_nats_sub__close(struct ps_nats_sub *sub)
{
	if (!sub)
		return;
	natsMsgList_Destroy(&sub->list);
	while (sub->held) {
		struct held *h = sub->held;

		sub->held = h->next;
		free(h);
	}
	if (sub->sub) {
		if (!sub->cfg.durable)
			natsSubscription_Unsubscribe(sub->sub);
		natsSubscription_Destroy(sub->sub);
	}
	free(sub->out.p);
	free(sub->unit.p);
	free(sub);
}
