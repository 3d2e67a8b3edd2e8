// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracing.c - walk the TRACING_DATA blob (magic, version, byte order, header_page,
 * header_event, ftrace and event formats, kallsyms, printk formats, saved cmdlines) with
 * every length checked, and feed libtraceevent.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "compat.h"
#include "tracing.h"

#define MAX_FORMATS 100000

struct cursor {
	const unsigned char *p;
	size_t len, pos;
	bool swap;
	char *why;
	size_t whylen;
};

static bool need(struct cursor *c, size_t n, const char *what)
{
	if (c->len - c->pos >= n)
		return true;
	snprintf(c->why, c->whylen, "tracing data: %s runs past the end of the data (at byte %zu)",
	         what, c->pos);
	return false;
}

static bool get32(struct cursor *c, uint32_t *v, const char *what)
{
	if (!need(c, 4, what))
		return false;
	*v = ps_get32(c->p + c->pos, c->swap);
	c->pos += 4;
	return true;
}

static bool get64(struct cursor *c, uint64_t *v, const char *what)
{
	if (!need(c, 8, what))
		return false;
	*v = ps_get64(c->p + c->pos, c->swap);
	c->pos += 8;
	return true;
}

/* A NUL-terminated string inside the blob. */
static const char *getstr(struct cursor *c, const char *what)
{
	const unsigned char *nul = memchr(c->p + c->pos, 0, c->len - c->pos);
	const char *s;

	if (!nul) {
		snprintf(c->why, c->whylen, "tracing data: %s is not terminated", what);
		return NULL;
	}
	s = (const char *)c->p + c->pos;
	c->pos = (size_t)(nul - c->p) + 1;
	return s;
}

/* Copy @n bytes of text into a terminated buffer (libtraceevent wants char *). */
static char *gettext(struct cursor *c, uint64_t n, const char *what)
{
	char *t;

	if (n > c->len - c->pos) {
		snprintf(c->why, c->whylen,
		         "tracing data: %s of %llu bytes runs past the end of the data", what,
		         (unsigned long long)n);
		return NULL;
	}
	t = malloc((size_t)n + 1);
	if (!t) {
		snprintf(c->why, c->whylen, "out of memory");
		return NULL;
	}
	memcpy(t, c->p + c->pos, (size_t)n);
	t[n] = 0;
	c->pos += (size_t)n;
	return t;
}

/* Format text as tracefs writes it: printable ASCII, tabs and newlines. */
static bool plain_text(const char *t, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)t[i];

		if ((ch < 0x20 || ch > 0x7e) && ch != '\n' && ch != '\t')
			return false;
	}
	return true;
}

/*
 * Keep the printk format lines libtraceevent can take ("ADDR : \"text\""): cut at the
 * first NUL, drop lines without a colon or with bytes that are not plain text.
 * Return: true when something is left.
 */
static bool clean_printk(char *t)
{
	char *in = t, *out = t;
	bool any = false;

	while (*in) {
		char *nl = strchr(in, '\n');
		size_t len = nl ? (size_t)(nl - in) : strlen(in);

		if (memchr(in, ':', len) && plain_text(in, len)) {
			memmove(out, in, len);
			out += len;
			if (nl) /* never over the terminating NUL */
				*out++ = '\n';
			any = true;
		}
		in += len + (nl ? 1 : 0);
	}
	*out = 0;
	return any;
}

/*
 * The printk formats, "ADDR : FORMAT" per line.  libtraceevent 1.7's
 * tep_parse_printk_formats() reads past its copy of the text on a last line without
 * ": " and tep_register_print_string() reads before its copy of a format shorter than
 * three characters, so the lines are split here and only well-formed ones handed over.
 */
static void register_printk(struct tep_handle *tep, char *text)
{
	char *line, *next = NULL;

	for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
		char *colon = strchr(line, ':'), *fmt;
		unsigned long long addr;

		if (!colon)
			continue;
		*colon = 0;
		addr = strtoull(line, NULL, 16);
		fmt = colon + 1;
		if (*fmt == ' ')
			fmt++;
		if (strlen(fmt) < 3u + (*fmt == '"'))
			continue;
		tep_register_print_string(tep, fmt, addr);
	}
}

/* a u32 count of @what (formats, systems), at most MAX_FORMATS */
static bool get_count(struct cursor *c, uint32_t *n, const char *what)
{
	char name[32];

	snprintf(name, sizeof(name), "%s count", what);
	if (!get32(c, n, name))
		return false;
	if (*n > MAX_FORMATS) {
		snprintf(c->why, c->whylen, "tracing data: %u %ss is not possible", *n, what);
		return false;
	}
	return true;
}

static bool parse_formats(struct cursor *c, struct tep_handle *tep, const char *sys)
{
	uint32_t count, i;

	if (!get_count(c, &count, "format"))
		return false;
	for (i = 0; i < count; i++) {
		uint64_t len;
		char *text;

		if (!get64(c, &len, "format size"))
			return false;
		text = gettext(c, len, "event format");
		if (!text)
			return false;
		/* a format libtraceevent cannot parse is skipped, as perf does; one that is
		 * not plain text never reaches it (libtraceevent 1.7 crashes on some) */
		if (plain_text(text, (size_t)len))
			tep_parse_event(tep, text, (unsigned long)len, sys);
		free(text);
	}
	return true;
}

/* A header section's name, which must be @name, and its u64 size into @len. */
static bool header(struct cursor *c, const char *name, uint64_t *len)
{
	char what[32];
	const char *s;

	snprintf(what, sizeof(what), "%s name", name);
	s = getstr(c, what);
	if (!s)
		return false;
	if (strcmp(s, name) != 0) {
		snprintf(c->why, c->whylen, "tracing data: %s expected", name);
		return false;
	}
	snprintf(what, sizeof(what), "%s size", name);
	return get64(c, len, what);
}

static bool walk(struct cursor *c, struct tep_handle *tep, struct ps_tracing_info *info)
{
	static const unsigned char magic[] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
	};
	const char *version, *s;
	uint32_t nsys, u32, i;
	uint64_t len;
	char *text;

	if (!need(c, sizeof(magic), "magic") || memcmp(c->p, magic, sizeof(magic)) != 0) {
		snprintf(c->why, c->whylen, "tracing data: no tracing magic");
		return false;
	}
	c->pos = sizeof(magic);
	version = getstr(c, "version");
	if (!version)
		return false;
	snprintf(info->version, sizeof(info->version), "%s", version);
	if (!need(c, 2, "byte order"))
		return false;
	info->big_endian = c->p[c->pos] != 0;
	info->long_size = c->p[c->pos + 1];
	c->pos += 2;
	c->swap = info->big_endian != ps_host_is_big_endian();
	if (!get32(c, &u32, "page size"))
		return false;
	info->page_size = u32;
	tep_set_file_bigendian(tep, info->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, ps_host_is_big_endian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, (int)info->long_size);
	tep_set_page_size(tep, (int)info->page_size);

	if (!header(c, "header_page", &len))
		return false;
	text = gettext(c, len, "header_page");
	if (!text)
		return false;
	if (tep_parse_header_page(tep, text, (unsigned long)len, (int)info->long_size) == 0 &&
	    tep_get_header_page_size(tep))
		tep_set_long_size(tep, tep_get_header_page_size(tep));
	free(text);

	if (!header(c, "header_event", &len))
		return false;
	if (len > c->len - c->pos) {
		snprintf(c->why, c->whylen,
		         "tracing data: header_event runs past the end of the data");
		return false;
	}
	c->pos += (size_t)len;

	if (!parse_formats(c, tep, "ftrace"))
		return false;
	if (!get_count(c, &nsys, "system"))
		return false;
	for (i = 0; i < nsys; i++) {
		char *sys;

		s = getstr(c, "system name");
		if (!s)
			return false;
		sys = strdup(s);
		if (!sys || !parse_formats(c, tep, sys)) {
			free(sys);
			return false;
		}
		free(sys);
	}
	/* kallsyms */
	if (!get32(c, &u32, "kallsyms size"))
		return false;
	if (!need(c, u32, "kallsyms"))
		return false;
	c->pos += u32;
	/* printk formats */
	if (!get32(c, &u32, "printk formats size"))
		return false;
	text = gettext(c, u32, "printk formats");
	if (!text)
		return false;
	if (u32 && clean_printk(text))
		register_printk(tep, text);
	free(text);
	/* saved cmdlines, from version 0.6 */
	if (strcmp(info->version, "0.6") >= 0 && c->len - c->pos >= 8) {
		if (!get64(c, &len, "saved cmdlines size"))
			return false;
		text = gettext(c, len, "saved cmdlines");
		if (!text)
			return false;
		if (len)
			tep_parse_saved_cmdlines(tep, text);
		free(text);
	}
	return true;
}

/* the largest blob remembered as one that survived */
#define SURVIVOR_MAX ((size_t)4 << 20)

/*
 * libtraceevent's format parser dies on some hostile formats: SIGFPE when it folds a
 * constant division by 0 ("__print_flags(REC->x & (1 / 0), ...)"), a NULL dereference
 * for __print_flags() or __print_symbolic() of a field the format does not have.  The
 * blob is parsed once in a child first; when the child does not exit normally, the blob
 * is refused like one that cannot be parsed.  Returns false only when the child died.
 */
static bool survives(const unsigned char *blob, size_t len)
{
	/* the last blob that survived, byte for byte: the pieces of one recording that pcat
	 * joins carry the same one, and a fork each cost more than the rest of their reading */
	static unsigned char *last;
	static size_t last_len;
	pid_t pid;
	int st;
	bool ok;

	if (last && len == last_len && memcmp(blob, last, len) == 0)
		return true;
	pid = fork();
	if (pid < 0)
		return true; /* cannot tell: parse it here as before */
	if (pid == 0) {
		struct ps_tracing_info info;
		char why[8];
		struct cursor c = { .p = blob, .len = len, .why = why, .whylen = sizeof(why) };
		struct tep_handle *tep;

		/* die quietly: the parent says what happened */
		signal(SIGFPE, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		alarm(10); /* a parser that loops for ever is refused too */
		tep = tep_alloc();
		if (tep)
			walk(&c, tep, &info);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return true;
	}
	ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (ok && len <= SURVIVOR_MAX) {
		unsigned char *copy = realloc(last, len ? len : 1);

		if (copy) {
			memcpy(copy, blob, len);
			last = copy;
			last_len = len;
		}
	}
	return ok;
}

struct tep_handle *ps_tracing__parse(const unsigned char *blob, size_t len,
                                     struct ps_tracing_info *info, char *why, size_t whylen)
{
	struct ps_tracing_info dummy;
	struct cursor c = { .p = blob, .len = len, .why = why, .whylen = whylen };
	struct tep_handle *tep;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	tep_set_loglevel(TEP_LOG_NONE);
	if (!survives(blob, len)) {
		snprintf(why, whylen, "tracing data: libtraceevent crashes on its event formats");
		return NULL;
	}
	tep = tep_alloc();
	if (!tep) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (!walk(&c, tep, info)) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

struct tep_format_field *ps_tracing__field(struct tep_event *event, const char *name)
{
	struct tep_format_field *f = tep_find_field(event, name);

	return f ? f : tep_find_common_field(event, name);
}

bool ps_tracing__swapped(const struct tep_event *event)
{
	return event && event->tep &&
	       tep_is_file_bigendian(event->tep) != tep_is_local_bigendian(event->tep);
}

int ps_tracing__number(const struct tep_format_field *f, bool swap, const void *raw, uint32_t size,
                       uint64_t *val)
{
	if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + (uint64_t)f->size > size)
		return -1;
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC))
		return -1;
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return -1;
	*val = ps_get_num((const unsigned char *)raw + f->offset, (unsigned int)f->size, swap);
	return 0;
}

int ps_tracing__read_u64(struct tep_format_field *f, const void *raw, uint32_t size, uint64_t *val)
{
	return ps_tracing__number(f, ps_tracing__swapped(f->event), raw, size, val);
}
