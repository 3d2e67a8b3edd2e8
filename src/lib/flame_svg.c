// SPDX-License-Identifier: GPL-2.0-only
/*
 * flame_svg.c - a frame tree drawn as one self-contained, interactive SVG document:
 * one rectangle per frame, children sorted by name (as flamegraph.pl orders them), a
 * <title> "NAME (N samples, P%)" on each, and a small embedded script for zoom, search
 * and the details line.  Nothing is fetched from anywhere: no external script or font.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame_int.h"
#include "xalloc.h"

#define FONT_SIZE 12
#define FONT_WIDTH 0.59 /* average glyph width per font size (Verdana) */
#define XPAD 10

struct drawn {
	uint32_t node;
	uint32_t depth;
	uint64_t start; /* samples left of this frame */
	double before;  /* diff: the frame's share in the before graph */
};

struct layout {
	const struct ps_flame *f;
	const struct ps_flame_style *st;
	double scale; /* px per sample */
	struct drawn *d;
	size_t nd;
	uint32_t *stack; /* children lists of the frames on the current path */
	uint32_t maxdepth;
	uint64_t omitted, omitted_samples;
};

int ps_flame_palette__parse(const char *name)
{
	static const char *const names[PS_PALETTES] = { "hot", "cool", "mem", "gray" };
	int i;

	for (i = 0; i < PS_PALETTES; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	if (strcmp(name, "grey") == 0)
		return PS_PALETTE_GRAY;
	return -1;
}

/* per palette and kind: the darkest shade and how far the name's hash lightens it */
static const unsigned char palettes[PS_PALETTES][PS_FRAME_KINDS][6] = {
	[PS_PALETTE_HOT] = {
	        [PS_FRAME_USER] = { 205, 55, 40, 50, 80, 40 },
	        [PS_FRAME_KERNEL] = { 225, 165, 0, 30, 50, 50 },
	        [PS_FRAME_JIT] = { 50, 180, 50, 60, 60, 60 },
	        [PS_FRAME_UNKNOWN] = { 160, 160, 160, 40, 40, 40 },
	        [PS_FRAME_ROOT] = { 195, 180, 150, 25, 25, 25 },
	},
	[PS_PALETTE_COOL] = {
	        [PS_FRAME_USER] = { 70, 120, 210, 60, 60, 45 },
	        [PS_FRAME_KERNEL] = { 150, 100, 210, 50, 50, 45 },
	        [PS_FRAME_JIT] = { 40, 180, 170, 50, 40, 40 },
	        [PS_FRAME_UNKNOWN] = { 160, 160, 160, 40, 40, 40 },
	        [PS_FRAME_ROOT] = { 160, 180, 205, 25, 25, 25 },
	},
	[PS_PALETTE_MEM] = {
	        [PS_FRAME_USER] = { 0, 180, 0, 60, 50, 80 },
	        [PS_FRAME_KERNEL] = { 150, 170, 40, 40, 40, 40 },
	        [PS_FRAME_JIT] = { 40, 180, 200, 40, 40, 50 },
	        [PS_FRAME_UNKNOWN] = { 160, 160, 160, 40, 40, 40 },
	        [PS_FRAME_ROOT] = { 170, 200, 160, 25, 25, 25 },
	},
	[PS_PALETTE_GRAY] = {
	        [PS_FRAME_USER] = { 170, 170, 170, 40, 40, 40 },
	        [PS_FRAME_KERNEL] = { 120, 120, 120, 40, 40, 40 },
	        [PS_FRAME_JIT] = { 200, 200, 200, 40, 40, 40 },
	        [PS_FRAME_UNKNOWN] = { 225, 225, 225, 25, 25, 25 },
	        [PS_FRAME_ROOT] = { 195, 195, 195, 15, 15, 15 },
	},
};

/* the same name gets the same shade in every graph */
static void frame_colour(const struct ps_flame *f, uint32_t i, enum ps_flame_palette pal,
                         int rgb[3])
{
	const struct flame_name *n = &f->names[f->nodes[i].name];
	const unsigned char *c = palettes[pal][f->nodes[i].kind];
	uint32_t h = n->hash * 2654435761u;
	double v = (double)(h >> 24) / 255.0;
	int k;

	for (k = 0; k < 3; k++)
		rgb[k] = c[k] + (int)(c[k + 3] * v);
}

/* red for a grown share, blue for a shrunk one, white for the same */
static void diff_colour(double delta, double maxabs, int rgb[3])
{
	int c = 255;

	if (delta != 0 && maxabs > 0)
		c = 255 - (int)lround(210.0 * fabs(delta) / maxabs);
	if (delta > 0) {
		rgb[0] = 255;
		rgb[1] = rgb[2] = c;
	} else {
		rgb[0] = rgb[1] = c;
		rgb[2] = 255;
	}
}

static const struct ps_flame *sort_f;

static int cmp_names(const void *a, const void *b)
{
	size_t la, lb;
	const char *na = flame__name(sort_f, *(const uint32_t *)a, &la);
	const char *nb = flame__name(sort_f, *(const uint32_t *)b, &lb);
	int r = memcmp(na, nb, la < lb ? la : lb);

	return r ? r : (la > lb) - (la < lb);
}

static size_t subtree_size(const struct ps_flame *f, uint32_t i)
{
	size_t n = 1;
	uint32_t c;

	for (c = f->nodes[i].first_child; c != FLAME_NONE; c = f->nodes[c].next_sibling)
		if (!f->nodes[c].self)
			n += subtree_size(f, c);
	return n;
}

/* lay out frame @i and its children, depth first, children in name order */
static void place(struct layout *l, uint32_t i, uint64_t start, uint32_t bnode, size_t top)
{
	const struct ps_flame *f = l->f, *b = l->st->before;
	const struct flame_node *n = &f->nodes[i];
	struct drawn *d;
	size_t nkids = 0, k;
	uint32_t c;

	/* a flame chart's mark of its parent's own samples takes their place, undrawn */
	if (n->self)
		return;
	if (i && (double)n->count * l->scale < l->st->minwidth) {
		l->omitted += subtree_size(f, i);
		return;
	}
	d = &l->d[l->nd++];
	d->node = i;
	d->depth = n->depth;
	d->start = start;
	d->before = 0;
	if (b && bnode != FLAME_NONE && ps_flame__total(b))
		d->before = (double)b->nodes[bnode].count / (double)ps_flame__total(b);
	if (n->depth > l->maxdepth)
		l->maxdepth = n->depth;
	for (c = n->first_child; c != FLAME_NONE; c = f->nodes[c].next_sibling)
		l->stack[top + nkids++] = c;
	if (f->mode & PS_FLAME_CHART) {
		/* a flame chart keeps the order they came in: the list is newest first */
		for (k = 0; k < nkids / 2; k++) {
			uint32_t t = l->stack[top + k];

			l->stack[top + k] = l->stack[top + nkids - 1 - k];
			l->stack[top + nkids - 1 - k] = t;
		}
	} else {
		sort_f = f;
		qsort(l->stack + top, nkids, sizeof(*l->stack), cmp_names);
	}
	for (k = 0; k < nkids; k++) {
		uint32_t kid = l->stack[top + k], bkid = FLAME_NONE;

		if (b && bnode != FLAME_NONE) {
			size_t len;
			const char *name = flame__name(f, kid, &len);

			bkid = ps_flame__find_child(b, bnode, name, len);
		}
		place(l, kid, start, bkid, top + nkids);
		start += f->nodes[kid].count;
	}
}

/* XML text: escaped, invalid UTF-8 and control characters but the tab as '?' */
static void put_xml(FILE *fp, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = 0, k;

		if (c < 0x80) {
			switch (c) {
			case '&':
				fputs("&amp;", fp);
				break;
			case '<':
				fputs("&lt;", fp);
				break;
			case '>':
				fputs("&gt;", fp);
				break;
			case '"':
				fputs("&quot;", fp);
				break;
			case '\'':
				fputs("&apos;", fp);
				break;
			default:
				/* a tab is text (folded names keep theirs), other controls are not */
				putc((c < 0x20 && c != '\t') || c == 0x7f ? '?' : c, fp);
			}
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		for (k = 1; n && k <= n; k++)
			if (i + k >= len || ((unsigned char)s[i + k] & 0xc0) != 0x80)
				n = 0;
		/* overlong 3-byte forms, surrogates, above U+10FFFF, U+FFFE/FFFF */
		if (n == 2 && ((c == 0xe0 && (unsigned char)s[i + 1] < 0xa0) ||
		               (c == 0xed && (unsigned char)s[i + 1] >= 0xa0) ||
		               (c == 0xef && (unsigned char)s[i + 1] == 0xbf &&
		                (unsigned char)s[i + 2] >= 0xbe)))
			n = 0;
		if (n == 3 && ((c == 0xf0 && (unsigned char)s[i + 1] < 0x90) ||
		               (c == 0xf4 && (unsigned char)s[i + 1] >= 0x90)))
			n = 0;
		if (!n) {
			putc('?', fp);
			i++;
			continue;
		}
		fwrite(s + i, 1, n + 1, fp);
		i += n + 1;
	}
}

/* the label that fits in @w px: the name, or its start and "..", or nothing */
static void put_label(FILE *fp, const char *s, size_t len, double w)
{
	double fit = (w - 6) / (FONT_SIZE * FONT_WIDTH);
	size_t chars, i, n = 0;

	if (fit < 3)
		return;
	chars = (size_t)fit;
	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	if (n <= chars) {
		put_xml(fp, s, len);
		return;
	}
	/* cut at a character boundary, after chars - 2 characters */
	for (i = 0, n = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == chars - 2)
			break;
	}
	put_xml(fp, s, i);
	fputs("..", fp);
}

static void put_pct(FILE *fp, double frac)
{
	fprintf(fp, "%.2f%%", 100.0 * frac);
}

/* "1 sample", "12 samples", "2.5 samples": @count in units of 1/@scale */
static void put_samples(FILE *fp, uint64_t count, uint64_t scale)
{
	uint64_t frac = count % scale, digits = scale;

	fprintf(fp, "%llu", (unsigned long long)(count / scale));
	if (frac) {
		while (frac % 10 == 0) {
			frac /= 10;
			digits /= 10;
		}
		/* as many digits as the scale has zeros, less the ones dropped */
		fputc('.', fp);
		for (digits /= 10; digits > frac && digits > 1; digits /= 10)
			fputc('0', fp);
		fprintf(fp, "%llu", (unsigned long long)frac);
	}
	fputs(count == scale ? " sample" : " samples", fp);
}

static const char svg_style[] =
        "<style type=\"text/css\">\n"
        "text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: 12px; "
        "fill: rgb(0,0,0); }\n"
        "#title { font-size: 17px; text-anchor: middle; }\n"
        "#subtitle { text-anchor: middle; fill: rgb(90,90,90); }\n"
        "#frames > g { cursor: pointer; }\n"
        "#frames > g:hover > rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
        "#frames > g.parent > rect { opacity: 0.5; }\n"
        "#frames text { pointer-events: none; }\n"
        ".button { cursor: pointer; }\n"
        ".button:hover { fill: rgb(0,0,200); }\n"
        ".right { text-anchor: end; }\n"
        "#ignorecase.on { fill: rgb(0,0,200); font-weight: bold; }\n"
        "#unzoom.hidden { display: none; }\n"
        "</style>\n";

/*
 * The embedded script.  It keeps each frame's drawn geometry, and redraws on zoom;
 * window.pflame is its interface (also for tests): zoom(frame, name or index), reset(),
 * search(regexp) -> {matches, samples, percent}, clear(), ignorecase([on]), details(),
 * view() (the address's #z=FRAME&s=REGEXP&i=1 that opens the same view).
 */
static const char svg_script[] =
        "(function () {\n"
        "'use strict';\n"
        "var cs = document.currentScript;\n"
        "var svg = (cs && cs.ownerSVGElement) || document.documentElement;\n"
        "var $ = function (s) { return svg.querySelector(s); };\n"
        "var P = JSON.parse($('#pflame-conf').textContent);\n"
        "var F = [], zoomed = null, icase = false, searched = '', gs = svg.querySelectorAll('#frames > g');\n"
        "function ns(t) {\n"
        "  var m = /\\(([0-9.]+) (samples?|ms)/.exec(t) || [0, 0, ''];\n"
        "  return m[2] === 'ms' ? Math.round(+m[1] * 1e6) : +m[1];\n"
        "}\n"
        "for (var i = 0; i < gs.length; i++) {\n"
        "  var g = gs[i], r = g.querySelector('rect'), ti = g.querySelector('title').textContent;\n"
        "  var k = ti.lastIndexOf(' (');\n"
        "  F.push({ g: g, r: r, t: g.querySelector('text'), title: ti, name: ti.substring(0, k),\n"
        "    n: ns(ti.substring(k)),\n"
        "    x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),\n"
        "    fill: r.getAttribute('fill') });\n"
        "  g.setAttribute('data-i', i);\n"
        "}\n"
        "function label(f, x, w) {\n"
        "  var m = Math.floor((w - 6) / (P.fs * P.fw)), s = f.name;\n"
        "  if (m < 3) s = ''; else if (s.length > m) s = s.substring(0, m - 2) + '..';\n"
        "  f.t.setAttribute('x', (x + 3).toFixed(2)); f.t.textContent = s;\n"
        "}\n"
        "function put(f, x, w) {\n"
        "  f.r.setAttribute('x', x.toFixed(2)); f.r.setAttribute('width', w.toFixed(2));\n"
        "  label(f, x, w);\n"
        "}\n"
        "function deeper(a, b) { return P.icicle ? a.y > b.y : a.y < b.y; }\n"
        "function under(f, z) {\n"
        "  var e = 0.02;\n"
        "  return f === z || (f.x >= z.x - e && f.x + f.w <= z.x + z.w + e && deeper(f, z));\n"
        "}\n"
        "/* the view in the address, so that a link opens it: #z=FRAME&s=REGEXP&i=1 */\n"
        "function keep() {\n"
        "  var q = [];\n"
        "  if (zoomed) q.push('z=' + F.indexOf(zoomed));\n"
        "  if (searched) q.push('s=' + encodeURIComponent(searched));\n"
        "  if (icase) q.push('i=1');\n"
        "  try { history.replaceState(null, '', q.length ? '#' + q.join('&') : location.pathname + location.search); } catch (x) {}\n"
        "}\n"
        "function find(what) {\n"
        "  if (typeof what === 'number') return F[what];\n"
        "  if (typeof what !== 'string') return F[+what.getAttribute('data-i')];\n"
        "  var best = null;\n"
        "  F.forEach(function (f) { if (f.name === what && (!best || f.n > best.n)) best = f; });\n"
        "  return best;\n"
        "}\n"
        "function zoom(what) {\n"
        "  var z = find(what), e = 0.02, avail = P.width - 2 * P.pad, shown = 0;\n"
        "  if (!z) return 0;\n"
        "  var s = avail / z.w;\n"
        "  F.forEach(function (f) {\n"
        "    var over = f.x <= z.x + e && f.x + f.w >= z.x + z.w - e;\n"
        "    if (f !== z && over && deeper(z, f)) {\n"
        "      f.g.style.display = ''; f.g.classList.add('parent'); put(f, P.pad, avail); shown++;\n"
        "    } else if (under(f, z)) {\n"
        "      f.g.style.display = ''; f.g.classList.remove('parent');\n"
        "      put(f, P.pad + (f.x - z.x) * s, f.w * s); shown++;\n"
        "    } else {\n"
        "      f.g.style.display = 'none';\n"
        "    }\n"
        "  });\n"
        "  zoomed = z; $('#unzoom').classList.remove('hidden');\n"
        "  if (searched) search(searched); else keep();\n"
        "  return shown;\n"
        "}\n"
        "function reset() {\n"
        "  F.forEach(function (f) {\n"
        "    f.g.style.display = ''; f.g.classList.remove('parent'); put(f, f.x, f.w);\n"
        "  });\n"
        "  zoomed = null; $('#unzoom').classList.add('hidden');\n"
        "  if (searched) search(searched); else keep();\n"
        "  return F.length;\n"
        "}\n"
        "function clear() {\n"
        "  F.forEach(function (f) { f.r.setAttribute('fill', f.fill); });\n"
        "  $('#matched').textContent = ' '; $('#search').textContent = 'Search';\n"
        "  searched = ''; keep();\n"
        "}\n"
        "/* the samples under the matched frames (a match inside a match counted once), as a share\n"
        " * of the whole graph, or of the zoomed frame when zoomed */\n"
        "function search(re) {\n"
        "  clear();\n"
        "  if (!re) return { matches: 0, samples: 0, percent: 0 };\n"
        "  var rx = new RegExp(re, icase ? 'i' : ''), hit = [];\n"
        "  F.forEach(function (f) {\n"
        "    if (rx.test(f.name)) { f.r.setAttribute('fill', 'rgb(230,0,230)'); hit.push(f); }\n"
        "  });\n"
        "  var whole = zoomed ? zoomed.n : P.total;\n"
        "  var counted = zoomed ? hit.filter(function (f) { return under(f, zoomed); }) : hit.slice();\n"
        "  counted.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
        "  var end = -1, n = 0;\n"
        "  counted.forEach(function (f) {\n"
        "    if (f.x >= end - 0.02) { n += f.n; end = f.x + f.w; }\n"
        "    else if (f.x + f.w > end) end = f.x + f.w;\n"
        "  });\n"
        "  var pct = whole ? Math.round(10000 * n / whole) / 100 : 0;\n"
        "  $('#matched').textContent = 'Matched: ' + pct.toFixed(2) + '%';\n"
        "  $('#search').textContent = 'Reset Search';\n"
        "  searched = re; keep();\n"
        "  return { matches: hit.length, samples: n, percent: pct };\n"
        "}\n"
        "function ignorecase(on) {\n"
        "  icase = on === undefined ? !icase : !!on;\n"
        "  $('#ignorecase').classList.toggle('on', icase);\n"
        "  if (searched) search(searched); else keep();\n"
        "  return icase;\n"
        "}\n"
        "function details(t) { $('#details').textContent = t || ' '; }\n"
        "svg.addEventListener('click', function (ev) {\n"
        "  var g = ev.target.closest && ev.target.closest('#frames > g');\n"
        "  if (g) zoom(g);\n"
        "});\n"
        "svg.addEventListener('mouseover', function (ev) {\n"
        "  var g = ev.target.closest && ev.target.closest('#frames > g');\n"
        "  details(g ? find(g).title : '');\n"
        "});\n"
        "$('#unzoom').addEventListener('click', reset);\n"
        "function ask() {\n"
        "  if ($('#search').textContent !== 'Search') { clear(); return; }\n"
        "  var re = window.prompt('Search for a regular expression', '');\n"
        "  if (re) { try { search(re); } catch (x) { details('bad expression: ' + x.message); } }\n"
        "}\n"
        "$('#search').addEventListener('click', ask);\n"
        "$('#ignorecase').addEventListener('click', function () { ignorecase(); });\n"
        "window.addEventListener('keydown', function (ev) {\n"
        "  if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') { ev.preventDefault(); ask(); }\n"
        "  else if ((ev.ctrlKey || ev.metaKey) && ev.key === 'i') { ev.preventDefault(); ignorecase(); }\n"
        "  else if (ev.key === 'Escape') { reset(); clear(); }\n"
        "});\n"
        "/* the view a link names */\n"
        "var h = {};\n"
        "(location.hash || '').replace(/^#/, '').split('&').forEach(function (kv) {\n"
        "  var j = kv.indexOf('=');\n"
        "  if (j > 0) h[kv.substring(0, j)] = decodeURIComponent(kv.substring(j + 1));\n"
        "});\n"
        "if (h.i === '1') ignorecase(true);\n"
        "if (h.z !== undefined && F[+h.z]) zoom(+h.z);\n"
        "if (h.s) { try { search(h.s); } catch (x) { details('bad expression: ' + x.message); } }\n"
        "/* a graph taller than the window opens at its roots (the bottom), not at empty sky */\n"
        "if (!P.icicle && !zoomed) {\n"
        "  var sc = function () {\n"
        "    var d = document.scrollingElement || document.documentElement;\n"
        "    if (d && d.scrollHeight > window.innerHeight) window.scrollTo(0, d.scrollHeight);\n"
        "  };\n"
        "  sc(); window.addEventListener('load', sc);\n"
        "}\n"
        "window.pflame = { zoom: zoom, reset: reset, search: search, clear: clear,\n"
        "  ignorecase: ignorecase,\n"
        "  frames: function () { return F.length; },\n"
        "  visible: function () { return F.filter(function (f) {\n"
        "    return f.g.style.display !== 'none'; }).length; },\n"
        "  zoomed: function () { return zoomed ? zoomed.name : null; },\n"
        "  details: function () { return $('#details').textContent; },\n"
        "  view: function () { return location.hash; } };\n"
        "})();\n";

static int write_svg(const struct layout *l, FILE *fp)
{
	const struct ps_flame *f = l->f;
	const struct ps_flame_style *st = l->st;
	uint64_t total = ps_flame__total(f);
	unsigned int fh = st->height, w = st->width;
	double ypad1 = FONT_SIZE * 3 + (st->subtitle ? FONT_SIZE + 4 : 0);
	double ypad2 = FONT_SIZE * 2 + 10;
	double maxabs = 0, height, ynote;
	bool note = l->omitted || f->cut_stacks || f->merged;
	const char *title = st->title;
	size_t i;

	if (!title)
		title = st->before                 ? "Differential Flame Graph" :
		        st->time_ns                ? "Off-CPU Time Flame Graph" :
		        (f->mode & PS_FLAME_CHART) ? "Flame Chart" :
		        st->icicle                 ? "Icicle Graph" :
		                                     "Flame Graph";
	if (note)
		ypad2 += FONT_SIZE + 6;
	height = ypad1 + ypad2 + (double)(l->maxdepth + 1) * fh;
	ynote = height - 8;
	if (st->before) {
		for (i = 0; i < l->nd; i++) {
			double share = total ? (double)f->nodes[l->d[i].node].count / total : 0;

			if (fabs(share - l->d[i].before) > maxabs)
				maxabs = fabs(share - l->d[i].before);
		}
	}

	fprintf(fp,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
	        "<svg version=\"1.1\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" "
	        "xmlns=\"http://www.w3.org/2000/svg\">\n"
	        "<!-- drawn by pflame (pstream) -->\n",
	        w, height, w, height);
	fputs(svg_style, fp);
	fprintf(fp,
	        "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	        "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
	        "</linearGradient></defs>\n"
	        "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"url(#background)\"/>\n",
	        "#eeeeee", st->before ? "#e0e0ff" : "#eeeeb0", w, height);
	fprintf(fp, "<text id=\"title\" x=\"%.1f\" y=\"24\">", w / 2.0);
	put_xml(fp, title, strlen(title));
	fputs("</text>\n", fp);
	if (st->subtitle) {
		fprintf(fp, "<text id=\"subtitle\" x=\"%.1f\" y=\"%d\">", w / 2.0,
		        24 + FONT_SIZE + 4);
		put_xml(fp, st->subtitle, strlen(st->subtitle));
		fputs("</text>\n", fp);
	}
	/* the buttons on the right end there, so "Reset Search" is as whole as "Search" */
	fprintf(fp,
	        "<text id=\"unzoom\" class=\"button hidden\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
	        "<text id=\"search\" class=\"button right\" x=\"%d\" y=\"24\">Search</text>\n"
	        "<text id=\"ignorecase\" class=\"button right\" x=\"%d\" y=\"24\">"
	        "<title>search ignoring case</title>ic</text>\n"
	        "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n"
	        "<text id=\"matched\" class=\"right\" x=\"%d\" y=\"%.0f\"> </text>\n",
	        XPAD, (int)w - XPAD, (int)w - XPAD - 100, XPAD, height - ypad2 + FONT_SIZE + 10,
	        (int)w - XPAD, height - ypad2 + FONT_SIZE + 10);
	fputs("<g id=\"frames\">\n", fp);
	for (i = 0; i < l->nd; i++) {
		const struct drawn *d = &l->d[i];
		const struct flame_node *n = &f->nodes[d->node];
		double x = XPAD + d->start * l->scale, fw = n->count * l->scale;
		double y = st->icicle ? ypad1 + (double)d->depth * fh :
		                        height - ypad2 - (double)(d->depth + 1) * fh;
		double share = total ? (double)n->count / total : 0;
		const char *name;
		size_t len;
		int rgb[3];

		if (!total)
			fw = w - 2 * XPAD;
		name = flame__name(f, d->node, &len);
		if (st->before)
			diff_colour(share - d->before, maxabs, rgb);
		else
			frame_colour(f, d->node, st->palette, rgb);
		/* flamegraph.pl's "_[k]" and the like pick the colour, and are no part of
		 * the name shown */
		len = ps_flame__label_len(name, len);
		fputs("<g><title>", fp);
		put_xml(fp, name, len);
		if (st->time_ns) {
			fprintf(fp, " (%llu.%06llu ms, ", (unsigned long long)(n->count / 1000000),
			        (unsigned long long)(n->count % 1000000));
		} else {
			fputs(" (", fp);
			put_samples(fp, n->count, f->scale);
			fputs(", ", fp);
		}
		put_pct(fp, share);
		if (st->before) {
			fputs("; before ", fp);
			put_pct(fp, d->before);
			fprintf(fp, ", change %s", share - d->before >= 0 ? "+" : "-");
			put_pct(fp, fabs(share - d->before));
		}
		fprintf(fp,
		        ")</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%u\" "
		        "fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		        x, y, fw, fh > 1 ? fh - 1 : 1, rgb[0], rgb[1], rgb[2], x + 3,
		        y + fh / 2.0 + FONT_SIZE / 2.0 - 2);
		put_label(fp, name, len, fw);
		fputs("</text></g>\n", fp);
	}
	fputs("</g>\n", fp);
	if (note) {
		fprintf(fp, "<text id=\"note\" x=\"%d\" y=\"%.0f\">", XPAD, ynote);
		const char *sep = "";

		if (l->omitted) {
			fprintf(fp,
			        "%llu frame%s narrower than %g px left out (pflame -m 0 draws %s)",
			        (unsigned long long)l->omitted, l->omitted == 1 ? "" : "s",
			        st->minwidth, l->omitted == 1 ? "it" : "them");
			sep = "; ";
		}
		if (f->merged) {
			fprintf(fp, "%s%llu frames merged into their callers (more than %zu)", sep,
			        (unsigned long long)f->merged, f->max_nodes);
			sep = "; ";
		}
		if (f->cut_stacks)
			fprintf(fp, "%s%llu stacks cut at %u frames", sep,
			        (unsigned long long)f->cut_stacks, PS_FLAME_MAX_DEPTH);
		fputs("</text>\n", fp);
	}
	fprintf(fp,
	        "<script type=\"application/json\" id=\"pflame-conf\">{\"width\": %u, \"pad\": %d, "
	        "\"fs\": %d, \"fw\": %g, \"icicle\": %s, \"total\": %.17g}</script>\n",
	        w, XPAD, FONT_SIZE, FONT_WIDTH, st->icicle ? "true" : "false",
	        (double)total / (double)f->scale); /* in samples, as the titles */
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
	        svg_script);
	return 0;
}

int ps_flame__write_svg(const struct ps_flame *f, const struct ps_flame_style *st, FILE *fp,
                        const char *name, struct ps_error *err)
{
	struct layout l = { .f = f, .st = st };
	uint64_t total = ps_flame__total(f);
	int rc;

	l.scale = total ? (double)(st->width - 2 * XPAD) / (double)total : 0;
	l.d = ps_realloc_array(NULL, f->nnodes, sizeof(*l.d));
	l.stack = ps_realloc_array(NULL, f->nnodes + 1, sizeof(*l.stack));
	if (!l.d || !l.stack) {
		free(l.d);
		free(l.stack);
		return ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET, "drawing %zu frames",
		                     f->nnodes);
	}
	place(&l, 0, 0, st->before ? 0 : FLAME_NONE, 0);
	rc = write_svg(&l, fp);
	free(l.d);
	free(l.stack);
	if (rc || fflush(fp) || ferror(fp))
		return ps_error__sys(err, PS_EWRITE, name, "write");
	return 0;
}
