// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_flame_svg.c - libFuzzer target for the flame graph's SVG: a tree is built from the
 * input's folded lines ("comm;outer;...;inner COUNT"; the lines before the first empty one
 * make the BEFORE tree of a differential graph when the style asks for one), drawn with a
 * style taken from the input's first four bytes (a flame chart, or --reverse, too) and a
 * title made of its first line, and
 * the document must be well-formed XML: every name from the input stays text (no '<' or
 * '&' of its own, no control byte, valid UTF-8), elements nest and close, attribute values
 * are quoted, CDATA and comments end.  A small checker of our own does this, so that the
 * target needs no XML library.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/flame.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEPTH 64
#define MAX_NAME 64

struct xml {
	const char *s;
	size_t n, i;
	char stack[MAX_DEPTH][MAX_NAME];
	int depth, roots;
};

static _Noreturn void bad(const struct xml *x, const char *why)
{
	size_t from = x->i > 60 ? x->i - 60 : 0;

	fprintf(stderr, "SVG not well-formed at byte %zu: %s\n...%.*s<<HERE>>%.*s...\n", x->i, why,
	        (int)(x->i - from), x->s + from, (int)(x->n - x->i < 60 ? x->n - x->i : 60),
	        x->s + x->i);
	abort();
}

static bool starts(const struct xml *x, const char *p)
{
	size_t l = strlen(p);

	return x->n - x->i >= l && memcmp(x->s + x->i, p, l) == 0;
}

/*
 * Unicode's table of well-formed UTF-8 (Table 3-7): a lead byte's range, the length of
 * its sequence and the range of the byte after it; the bytes after that are 80..BF.
 * Written from the table rather than by decoding, so the oracle does not share the
 * library's way of checking.
 */
static const struct {
	unsigned char lo, hi, len, lo2, hi2;
} well_formed[] = {
	{ 0xc2, 0xdf, 2, 0x80, 0xbf }, { 0xe0, 0xe0, 3, 0xa0, 0xbf }, { 0xe1, 0xec, 3, 0x80, 0xbf },
	{ 0xed, 0xed, 3, 0x80, 0x9f }, { 0xee, 0xef, 3, 0x80, 0xbf }, { 0xf0, 0xf0, 4, 0x90, 0xbf },
	{ 0xf1, 0xf3, 4, 0x80, 0xbf }, { 0xf4, 0xf4, 4, 0x80, 0x8f },
};

/* XML 1.0's Char production over UTF-8: x->i moves past one character */
static void xml_char(struct xml *x)
{
	const unsigned char *p = (const unsigned char *)x->s + x->i;
	size_t left = x->n - x->i, k, w;

	if (p[0] < 0x80) {
		if (p[0] < 0x20 && p[0] != '\t' && p[0] != '\n' && p[0] != '\r')
			bad(x, "a control character");
		x->i++;
		return;
	}
	for (w = 0; w < sizeof(well_formed) / sizeof(well_formed[0]); w++)
		if (p[0] >= well_formed[w].lo && p[0] <= well_formed[w].hi)
			break;
	if (w == sizeof(well_formed) / sizeof(well_formed[0]))
		bad(x, "not UTF-8");
	if (well_formed[w].len > left)
		bad(x, "UTF-8 cut short");
	if (p[1] < well_formed[w].lo2 || p[1] > well_formed[w].hi2)
		bad(x, "not UTF-8");
	for (k = 2; k < well_formed[w].len; k++)
		if (p[k] < 0x80 || p[k] > 0xbf)
			bad(x, "not UTF-8");
	/* U+FFFE and U+FFFF are not XML characters */
	if (p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
		bad(x, "not an XML character");
	x->i += well_formed[w].len;
}

/* "&name;" or "&#N;" or "&#xH;" */
static void entity(struct xml *x)
{
	static const char *const names[] = { "amp;", "lt;", "gt;", "quot;", "apos;" };
	size_t k;

	x->i++;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (starts(x, names[k])) {
			x->i += strlen(names[k]);
			return;
		}
	if (starts(x, "#x")) {
		x->i += 2;
		if (x->i >= x->n || !strchr("0123456789abcdefABCDEF", x->s[x->i]) || !x->s[x->i])
			bad(x, "a character reference");
		while (x->i < x->n && x->s[x->i] && strchr("0123456789abcdefABCDEF", x->s[x->i]))
			x->i++;
	} else if (starts(x, "#")) {
		x->i++;
		if (x->i >= x->n || x->s[x->i] < '0' || x->s[x->i] > '9')
			bad(x, "a character reference");
		while (x->i < x->n && x->s[x->i] >= '0' && x->s[x->i] <= '9')
			x->i++;
	} else {
		bad(x, "'&' that starts no entity");
	}
	if (x->i >= x->n || x->s[x->i] != ';')
		bad(x, "a character reference without ';'");
	x->i++;
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

static size_t xml_name(struct xml *x, char *out)
{
	size_t start = x->i;

	if (x->i >= x->n || !name_char(x->s[x->i], true))
		bad(x, "a name expected");
	while (x->i < x->n && name_char(x->s[x->i], false))
		x->i++;
	if (x->i - start >= MAX_NAME)
		bad(x, "a name too long for the checker");
	if (out) {
		memcpy(out, x->s + start, x->i - start);
		out[x->i - start] = 0;
	}
	return x->i - start;
}

static void spaces(struct xml *x)
{
	while (x->i < x->n && strchr(" \t\r\n", x->s[x->i]) && x->s[x->i])
		x->i++;
}

/* up to and past @end, every character checked; @forbid may not appear before it */
static void until(struct xml *x, const char *end, const char *forbid)
{
	while (!starts(x, end)) {
		if (x->i >= x->n)
			bad(x, "no end");
		if (forbid && starts(x, forbid))
			bad(x, "a forbidden sequence");
		xml_char(x);
	}
	x->i += strlen(end);
}

static void start_tag(struct xml *x)
{
	char attrs[32][MAX_NAME], name[MAX_NAME];
	int nattrs = 0, k;

	x->i++;
	xml_name(x, name);
	for (;;) {
		bool sp = x->i < x->n && strchr(" \t\r\n", x->s[x->i]) && x->s[x->i];
		char q;

		spaces(x);
		if (starts(x, "/>")) {
			x->i += 2;
			if (!x->depth)
				x->roots++;
			return;
		}
		if (starts(x, ">")) {
			x->i++;
			if (x->depth == MAX_DEPTH)
				bad(x, "elements nested too deep for the checker");
			if (!x->depth)
				x->roots++;
			strcpy(x->stack[x->depth++], name);
			return;
		}
		if (!sp)
			bad(x, "an attribute not after a space");
		if (nattrs == 32)
			bad(x, "too many attributes for the checker");
		xml_name(x, attrs[nattrs]);
		for (k = 0; k < nattrs; k++)
			if (strcmp(attrs[k], attrs[nattrs]) == 0)
				bad(x, "an attribute twice");
		nattrs++;
		spaces(x);
		if (!starts(x, "="))
			bad(x, "'=' expected");
		x->i++;
		spaces(x);
		if (x->i >= x->n || (x->s[x->i] != '"' && x->s[x->i] != '\''))
			bad(x, "an attribute value not quoted");
		q = x->s[x->i++];
		while (x->i < x->n && x->s[x->i] != q) {
			if (x->s[x->i] == '<')
				bad(x, "'<' in an attribute value");
			if (x->s[x->i] == '&')
				entity(x);
			else
				xml_char(x);
		}
		if (x->i >= x->n)
			bad(x, "an attribute value without its end");
		x->i++;
	}
}

static void end_tag(struct xml *x)
{
	char name[MAX_NAME];

	x->i += 2;
	xml_name(x, name);
	spaces(x);
	if (!starts(x, ">"))
		bad(x, "'>' expected");
	if (!x->depth || strcmp(x->stack[x->depth - 1], name) != 0)
		bad(x, "an end tag that closes no open element");
	x->depth--;
	x->i++;
}

static void xml_check(const char *s, size_t n)
{
	static struct xml x;

	memset(&x, 0, sizeof(x));
	x.s = s;
	x.n = n;
	if (!starts(&x, "<?xml "))
		bad(&x, "no XML declaration");
	until(&x, "?>", NULL);
	while (x.i < x.n) {
		if (starts(&x, "<!--")) {
			x.i += 4;
			until(&x, "-->", "--");
		} else if (starts(&x, "<![CDATA[")) {
			if (!x.depth)
				bad(&x, "CDATA outside the root");
			x.i += 9;
			until(&x, "]]>", NULL);
		} else if (starts(&x, "<?")) {
			until(&x, "?>", NULL);
		} else if (starts(&x, "<!")) {
			bad(&x, "a declaration");
		} else if (starts(&x, "</")) {
			end_tag(&x);
		} else if (starts(&x, "<")) {
			if (x.roots && !x.depth)
				bad(&x, "a second root element");
			start_tag(&x);
		} else if (starts(&x, "&")) {
			if (!x.depth)
				bad(&x, "text outside the root");
			entity(&x);
		} else {
			if (starts(&x, "]]>"))
				bad(&x, "']]>' in text");
			if (!x.depth && !strchr(" \t\r\n", x.s[x.i]))
				bad(&x, "text outside the root");
			xml_char(&x);
		}
	}
	if (x.depth || x.roots != 1)
		bad(&x, "the root element is not closed, or missing");
}

static void add_lines(struct ps_flame *f, const char *s, size_t n)
{
	size_t start = 0, i;

	for (i = 0; i <= n; i++) {
		struct ps_error err = { 0 };

		if (i < n && s[i] != '\n')
			continue;
		ps_flame__add_folded(f, NULL, s + start, i - start, &err);
		start = i + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 4, *blank;
	struct ps_flame_style st = { 0 };
	struct ps_error err = { 0 };
	struct ps_flame *f, *before = NULL;
	size_t n, len = 0, tlen;
	char *out = NULL, *title;
	FILE *fp;

	if (size < 4 || size > 32768)
		return 0;
	n = size - 4;
	st.width = 100 + 8u * data[0];
	st.height = 1 + data[1] % 40;
	st.minwidth = data[2] / 16.0;
	st.icicle = data[3] & 1;
	st.palette = (enum ps_flame_palette)((data[3] >> 1) % PS_PALETTES);
	/* the title: the first line, up to a NUL too */
	tlen = memchr(s, '\n', n) ? (size_t)((const char *)memchr(s, '\n', n) - s) : n;
	title = strndup(s, tlen);
	if (!title)
		abort();
	if (data[3] & 8)
		st.title = title;
	if (data[3] & 16)
		st.subtitle = title;
	f = ps_flame__new(4096, &err);
	if (!f)
		abort();
	/* a flame chart, or callees first, when the style's last bits ask */
	if (!(data[3] & 32))
		ps_flame__set_mode(f, (data[3] & 64 ? PS_FLAME_CHART : 0) |
		                              (data[3] & 128 ? PS_FLAME_REVERSE : 0));
	blank = (data[3] & 32) ? memmem(s, n, "\n\n", 2) : NULL;
	if (blank) {
		before = ps_flame__new(4096, &err);
		if (!before)
			abort();
		add_lines(before, s, (size_t)(blank - s));
		st.before = before;
		add_lines(f, blank + 2, n - (size_t)(blank + 2 - s));
	} else {
		add_lines(f, s, n);
	}
	fp = open_memstream(&out, &len);
	if (!fp)
		abort();
	if (ps_flame__write_svg(f, &st, fp, "fuzz", &err) < 0)
		abort();
	fclose(fp);
	xml_check(out, len);
	free(out);
	free(title);
	ps_flame__delete(f);
	ps_flame__delete(before);
	return 0;
}
