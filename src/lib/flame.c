// SPDX-License-Identifier: GPL-2.0-only
/*
 * flame.c - the frame tree behind a flame graph, and the reader of folded stack lines
 * ("comm;outer;...;inner COUNT", as perf's stackcollapse and pcount --folded write).
 *
 * Names are interned once; a frame is found from its parent and name through one hash
 * table, so adding a stack costs one probe per frame.  Every array is capped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flame_int.h"
#include "xalloc.h"

#define MAX_LINE (1u << 20)

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static uint32_t child_hash(uint32_t parent, uint32_t name)
{
	uint64_t k = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(k >> 32);
}

/* index @i into the open-addressing table @t of @size slots (a power of two) at @hash */
static inline void tab_put(uint32_t *t, size_t size, size_t hash, uint32_t i)
{
	size_t j = hash & (size - 1);

	while (t[j])
		j = (j + 1) & (size - 1);
	t[j] = i + 1;
}

/* every name into the name table @t of @size slots */
static void put_names(const struct ps_flame *f, uint32_t *t, size_t size)
{
	size_t i;

	for (i = 0; i < f->nnames; i++)
		tab_put(t, size, f->names[i].hash, (uint32_t)i);
}

/* every node but the root and the self frames into the child table @t of @size slots */
static void put_children(const struct ps_flame *f, uint32_t *t, size_t size)
{
	size_t i;

	for (i = 1; i < f->nnodes; i++)
		if (!f->nodes[i].self)
			tab_put(t, size, child_hash(f->nodes[i].parent, f->nodes[i].name),
			        (uint32_t)i);
}

/* the name table (@children: the child table) made to hold @n entries at half load */
static int fit_table(struct ps_flame *f, bool children, size_t n)
{
	size_t old = children ? f->child_tab_size : f->name_tab_size, size = old;
	uint32_t *t;

	while (n * 2 > size)
		size *= 2;
	if (size == old)
		return 0;
	t = calloc(size, sizeof(*t));
	if (!t)
		return -1;
	if (children) {
		put_children(f, t, size);
		free(f->child_tab);
		f->child_tab = t;
		f->child_tab_size = size;
	} else {
		put_names(f, t, size);
		free(f->name_tab);
		f->name_tab = t;
		f->name_tab_size = size;
	}
	return 0;
}

static uint32_t find_name(const struct ps_flame *f, const char *s, size_t len, uint32_t h)
{
	size_t j = h & (f->name_tab_size - 1);

	while (f->name_tab[j]) {
		const struct flame_name *n = &f->names[f->name_tab[j] - 1];

		if (n->hash == h && n->len == len && memcmp(f->chars + n->off, s, len) == 0)
			return f->name_tab[j] - 1;
		j = (j + 1) & (f->name_tab_size - 1);
	}
	return FLAME_NONE;
}

static uint32_t find_child_id(const struct ps_flame *f, uint32_t parent, uint32_t name)
{
	size_t j = child_hash(parent, name) & (f->child_tab_size - 1);

	while (f->child_tab[j]) {
		const struct flame_node *c = &f->nodes[f->child_tab[j] - 1];

		if (c->parent == parent && c->name == name)
			return f->child_tab[j] - 1;
		j = (j + 1) & (f->child_tab_size - 1);
	}
	return FLAME_NONE;
}

uint32_t ps_flame__find_child(const struct ps_flame *f, uint32_t parent, const char *name,
                              size_t len)
{
	uint32_t n = find_name(f, name, len, hash_bytes(name, len));

	return n == FLAME_NONE ? FLAME_NONE : find_child_id(f, parent, n);
}

static int add_root(struct ps_flame *f)
{
	static const char all[] = "all";

	f->nnodes = 1;
	f->nnames = 1;
	f->nchars = sizeof(all) - 1;
	memcpy(f->chars, all, f->nchars);
	f->names[0] = (struct flame_name){ 0, 3, hash_bytes(all, 3) };
	f->nodes[0] = (struct flame_node){ .parent = FLAME_NONE,
		                           .first_child = FLAME_NONE,
		                           .next_sibling = FLAME_NONE,
		                           .kind = PS_FRAME_ROOT };
	memset(f->name_tab, 0, f->name_tab_size * sizeof(*f->name_tab));
	memset(f->child_tab, 0, f->child_tab_size * sizeof(*f->child_tab));
	f->name_tab[f->names[0].hash & (f->name_tab_size - 1)] = 1;
	f->cut_stacks = 0;
	f->scale = 1;
	f->decimals = 0;
	f->merged = 0;
	return 0;
}

struct ps_flame *ps_flame__new(size_t max_frames, struct ps_error *err)
{
	struct ps_flame *f = calloc(1, sizeof(*f));

	if (!f)
		goto nomem;
	f->max_nodes = max_frames ? max_frames : PS_FLAME_MAX_FRAMES;
	if (f->max_nodes >= FLAME_NONE)
		f->max_nodes = FLAME_NONE - 1;
	if (ps_grow((void **)&f->nodes, &f->nodes_cap, 1024, sizeof(*f->nodes), 64) ||
	    ps_grow((void **)&f->names, &f->names_cap, 1024, sizeof(*f->names), 64) ||
	    ps_grow((void **)&f->chars, &f->chars_cap, 16384, 1, 64))
		goto nomem;
	f->scratch_names = calloc(PS_FLAME_MAX_DEPTH, sizeof(*f->scratch_names));
	f->scratch_lens = calloc(PS_FLAME_MAX_DEPTH, sizeof(*f->scratch_lens));
	f->rev_names = calloc(PS_FLAME_MAX_DEPTH, sizeof(*f->rev_names));
	f->rev_lens = calloc(PS_FLAME_MAX_DEPTH, sizeof(*f->rev_lens));
	f->rev_kinds = calloc(PS_FLAME_MAX_DEPTH, sizeof(*f->rev_kinds));
	if (!f->scratch_names || !f->scratch_lens || !f->rev_names || !f->rev_lens || !f->rev_kinds)
		goto nomem;
	f->name_tab_size = f->child_tab_size = 4096;
	f->name_tab = calloc(f->name_tab_size, sizeof(*f->name_tab));
	f->child_tab = calloc(f->child_tab_size, sizeof(*f->child_tab));
	if (!f->name_tab || !f->child_tab)
		goto nomem;
	add_root(f);
	return f;
nomem:
	ps_flame__delete(f);
	ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "frame tree");
	return NULL;
}

void ps_flame__delete(struct ps_flame *f)
{
	if (!f)
		return;
	free(f->nodes);
	free(f->names);
	free(f->chars);
	free(f->name_tab);
	free(f->child_tab);
	free(f->scratch_names);
	free(f->scratch_lens);
	free(f->rev_names);
	free(f->rev_lens);
	free(f->rev_kinds);
	free(f->unescaped);
	free(f);
}

void ps_flame__reset(struct ps_flame *f)
{
	add_root(f);
}

uint64_t ps_flame__total(const struct ps_flame *f)
{
	return f->nodes[0].count;
}

size_t ps_flame__frames(const struct ps_flame *f)
{
	return f->nnodes;
}

uint64_t ps_flame__scale(const struct ps_flame *f)
{
	return f->scale;
}

uint64_t ps_flame__merged(const struct ps_flame *f)
{
	return f->merged;
}

void ps_flame__set_mode(struct ps_flame *f, unsigned int mode)
{
	f->mode = mode;
}

size_t ps_flame__label_len(const char *name, size_t len)
{
	if (len > 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kjiw", name[len - 2]) && name[len - 2])
		return len - 4;
	return len;
}

enum ps_frame_kind ps_flame__guess_kind(const char *name, size_t len)
{
	size_t i;

	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']') {
		if (name[len - 2] == 'k')
			return PS_FRAME_KERNEL;
		if (name[len - 2] == 'j')
			return PS_FRAME_JIT;
	}
	if (len == 9 && memcmp(name, "[unknown]", 9) == 0)
		return PS_FRAME_UNKNOWN;
	if (len > 2 && name[0] == '0' && name[1] == 'x') {
		for (i = 2; i < len; i++)
			if (!strchr("0123456789abcdefABCDEF", name[i]))
				return PS_FRAME_USER;
		return PS_FRAME_UNKNOWN;
	}
	return PS_FRAME_USER;
}

/*
 * Make room for @n more nodes and @bytes more name bytes, so adding cannot fail midway.
 * Return: 0, 1 when the cap is reached (nothing set in @err), -1 out of memory.
 */
static int reserve(struct ps_flame *f, size_t n, size_t bytes, struct ps_error *err)
{
	if (f->nnodes + n > f->max_nodes || f->nchars + bytes > PS_FLAME_MAX_NAMES)
		return 1;
	if (ps_grow((void **)&f->nodes, &f->nodes_cap, f->nnodes + n, sizeof(*f->nodes), 64) ||
	    ps_grow((void **)&f->names, &f->names_cap, f->nnames + n, sizeof(*f->names), 64) ||
	    ps_grow((void **)&f->chars, &f->chars_cap, f->nchars + bytes, 1, 64))
		goto nomem;
	if (fit_table(f, false, f->nnames + n) || fit_table(f, true, f->nnodes + n))
		goto nomem;
	return 0;
nomem:
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "frame tree of %zu frames",
	                     f->nnodes);
}

struct victim {
	uint64_t count;
	uint32_t depth, idx;
};

/* narrowest first; among equals the deepest, so a frame goes only after its callees */
static int cmp_victims(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return (x->idx < y->idx) - (x->idx > y->idx);
}

/*
 * The cap is reached: merge the narrowest half of the frames (at least enough for @need
 * new ones) into their callers.  A caller's count already holds its callees' samples, so
 * the graph keeps every sample: they show as the caller's own.  Nodes and names are
 * renumbered in place, keeping their order (a parent before its children, and the order
 * children came in, which a flame chart draws).
 * Return: 0, 1 when there is nothing to merge, -1 out of memory.
 */
static int compact(struct ps_flame *f, size_t need)
{
	size_t n = f->nnodes - 1, k = n / 2, i, nn = 0, nm = 0;
	uint64_t off = 0;
	struct victim *v;
	uint32_t *map, *nmap;

	if (f->nnodes + need > f->max_nodes && f->nnodes + need - f->max_nodes > k)
		k = f->nnodes + need - f->max_nodes;
	if (k > n)
		k = n;
	if (!k)
		return 1;
	v = ps_realloc_array(NULL, n, sizeof(*v));
	map = ps_realloc_array(NULL, f->nnodes, sizeof(*map));
	nmap = ps_realloc_array(NULL, f->nnames, sizeof(*nmap));
	if (!v || !map || !nmap) {
		free(v);
		free(map);
		free(nmap);
		return -1;
	}
	for (i = 1; i < f->nnodes; i++)
		v[i - 1] = (struct victim){ f->nodes[i].count, f->nodes[i].depth, (uint32_t)i };
	qsort(v, n, sizeof(*v), cmp_victims);
	memset(map, 0, f->nnodes * sizeof(*map));
	for (i = 0; i < k; i++)
		map[v[i].idx] = FLAME_NONE;
	free(v);
	for (i = 0; i < f->nnames; i++)
		nmap[i] = FLAME_NONE;
	/* the frames kept, renumbered: a parent comes before its children, so its new
	 * number is known when they come */
	for (i = 0; i < f->nnodes; i++) {
		struct flame_node node = f->nodes[i];

		if (map[i] == FLAME_NONE)
			continue;
		node.parent = i ? map[node.parent] : FLAME_NONE;
		node.first_child = node.next_sibling = FLAME_NONE;
		nmap[node.name] = 0;
		map[i] = (uint32_t)nn;
		f->nodes[nn++] = node;
	}
	/* the names still used, their bytes moved down (they are in name order) */
	for (i = 0; i < f->nnames; i++) {
		struct flame_name name = f->names[i];

		if (nmap[i] == FLAME_NONE)
			continue;
		memmove(f->chars + off, f->chars + name.off, name.len);
		name.off = off;
		off += name.len;
		f->names[nm] = name;
		nmap[i] = (uint32_t)nm++;
	}
	/* children lists rebuilt newest first, as they were */
	for (i = 0; i < nn; i++) {
		struct flame_node *c = &f->nodes[i];

		c->name = nmap[c->name];
		if (!i)
			continue;
		c->next_sibling = f->nodes[c->parent].first_child;
		f->nodes[c->parent].first_child = (uint32_t)i;
	}
	free(map);
	free(nmap);
	f->merged += f->nnodes - nn;
	f->nnodes = nn;
	f->nnames = nm;
	f->nchars = off;
	memset(f->name_tab, 0, f->name_tab_size * sizeof(*f->name_tab));
	put_names(f, f->name_tab, f->name_tab_size);
	memset(f->child_tab, 0, f->child_tab_size * sizeof(*f->child_tab));
	put_children(f, f->child_tab, f->child_tab_size);
	return 0;
}

static uint32_t intern(struct ps_flame *f, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len), i = find_name(f, s, len, h);

	if (i != FLAME_NONE)
		return i;
	i = (uint32_t)f->nnames++;
	f->names[i] = (struct flame_name){ f->nchars, (uint32_t)len, h };
	memcpy(f->chars + f->nchars, s, len);
	f->nchars += len;
	tab_put(f->name_tab, f->name_tab_size, h, i);
	return i;
}

/* a flame chart merges a frame only with its parent's newest child */
static uint32_t newest_child(const struct ps_flame *f, uint32_t parent, const char *name,
                             size_t len)
{
	uint32_t c = f->nodes[parent].first_child;
	size_t clen;
	const char *cname;

	if (c == FLAME_NONE || f->nodes[c].self)
		return FLAME_NONE;
	cname = flame__name(f, c, &clen);
	return clen == len && memcmp(cname, name, len) == 0 ? c : FLAME_NONE;
}

/* a flame chart's mark of @parent's own samples: a child of the root's name, in no
 * lookup table, never drawn (room for it was reserved) */
static uint32_t add_self_mark(struct ps_flame *f, uint32_t parent)
{
	uint32_t i = (uint32_t)f->nnodes++;
	struct flame_node *c = &f->nodes[i];

	c->name = 0;
	c->parent = parent;
	c->first_child = FLAME_NONE;
	c->next_sibling = f->nodes[parent].first_child;
	c->depth = f->nodes[parent].depth + 1;
	c->kind = f->nodes[parent].kind;
	c->self = 1;
	c->count = 0;
	f->nodes[parent].first_child = i;
	return i;
}

static size_t name_len(size_t len)
{
	return len < PS_FLAME_MAX_NAME ? len : PS_FLAME_MAX_NAME;
}

int ps_flame__add(struct ps_flame *f, const char *const *names, const size_t *lens,
                  const enum ps_frame_kind *kinds, size_t n, uint64_t count, struct ps_error *err)
{
	uint32_t cur, child;
	size_t i, k, bytes, tries = 0, self;
	int r;

	/* the root holds the sum of every count: past 2^64 it would wrap, and the graph with it */
	if (count > UINT64_MAX - f->nodes[0].count)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "the sample counts add up to more than 2^64");
	if (n > PS_FLAME_MAX_DEPTH) {
		n = PS_FLAME_MAX_DEPTH;
		f->cut_stacks++;
	}
	if (f->mode & PS_FLAME_REVERSE) {
		for (i = 0; i < n; i++) {
			size_t j = n - 1 - i;

			f->rev_names[i] = names[j];
			f->rev_lens[i] = lens[j];
			f->rev_kinds[i] = kinds ? kinds[j] :
			                  j == 0 ?
			                          PS_FRAME_ROOT :
			                          ps_flame__guess_kind(names[j], name_len(lens[j]));
		}
		names = f->rev_names;
		lens = f->rev_lens;
		kinds = f->rev_kinds;
	}
again:
	/* the part of the path that exists already */
	cur = 0;
	for (i = 0; i < n; i++) {
		size_t len = name_len(lens[i]);

		child = (f->mode & PS_FLAME_CHART) ? newest_child(f, cur, names[i], len) :
		                                     ps_flame__find_child(f, cur, names[i], len);
		if (child == FLAME_NONE)
			break;
		cur = child;
	}
	for (bytes = 0, k = i; k < n; k++)
		bytes += name_len(lens[k]);
	/* a flame chart marks where in time a frame's own samples are: after the children
	 * that came before them, before those that come after */
	self = (f->mode & PS_FLAME_CHART) && n &&
	       !(i == n && f->nodes[cur].first_child != FLAME_NONE &&
	         f->nodes[f->nodes[cur].first_child].self);
	if (i < n || self) {
		r = reserve(f, n - i + self, bytes, err);
		if (r < 0)
			return -1;
		if (r > 0) {
			/* full: the narrowest frames make room (each time half of them) */
			r = tries++ < 64 ? compact(f, n - i + self) : 1;
			if (r < 0)
				return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET,
				                     "frame tree of %zu frames", f->nnodes);
			if (r == 0)
				goto again;
			return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
			                     "a stack of %zu frames does not fit in %zu", n,
			                     f->max_nodes);
		}
	}
	for (; i < n; i++) {
		size_t len = name_len(lens[i]);
		uint32_t name = intern(f, names[i], len);
		struct flame_node *c;

		child = (uint32_t)f->nnodes++;
		c = &f->nodes[child];
		c->name = name;
		c->parent = cur;
		c->first_child = FLAME_NONE;
		c->next_sibling = f->nodes[cur].first_child;
		c->depth = f->nodes[cur].depth + 1;
		c->kind = (uint8_t)(kinds ? kinds[i] : ps_flame__guess_kind(names[i], len));
		if (i == 0 && !kinds)
			c->kind = PS_FRAME_ROOT;
		c->count = 0;
		c->self = 0;
		f->nodes[cur].first_child = child;
		tab_put(f->child_tab, f->child_tab_size, child_hash(cur, name), child);
		cur = child;
	}
	if (f->mode & PS_FLAME_CHART) {
		uint32_t c = f->nodes[cur].first_child;

		if (c == FLAME_NONE || !f->nodes[c].self)
			c = add_self_mark(f, cur);
		cur = c;
	}
	/* the counts, from the innermost frame up to the root */
	for (; cur != FLAME_NONE; cur = f->nodes[cur].parent)
		f->nodes[cur].count += count;
	return 0;
}

/* ---- folded lines ---- */

struct count {
	uint64_t v;       /* the digits, without the point */
	unsigned int dec; /* how many of them follow the point */
};

/* "12", "12.", "0.25": 0, -1 not a number, -2 past 2^64 */
static int parse_count(const char *p, const char *end, struct count *c)
{
	bool dot = false;

	c->v = 0;
	c->dec = 0;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end; p++) {
		if (*p == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*p < '0' || *p > '9')
			return -1;
		if (dot && c->dec == PS_FLAME_MAX_DECIMALS)
			continue;
		if (c->v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -2;
		c->v = c->v * 10 + (uint64_t)(*p - '0');
		c->dec += dot;
	}
	return 0;
}

static uint64_t pow10u(unsigned int n)
{
	uint64_t m = 1;

	while (n--)
		m *= 10;
	return m;
}

/*
 * @c in @f's units once @f has at least @c's decimals: *@up is what @f's counts are
 * multiplied by first (1: none).  Nothing changes yet; -1 past 2^64.
 */
static int plan_units(const struct ps_flame *f, const struct count *c, uint64_t *up,
                      uint64_t *units, struct ps_error *err)
{
	unsigned int dec = c->dec > f->decimals ? c->dec : f->decimals;
	uint64_t m = pow10u(dec - c->dec);

	*up = pow10u(dec - f->decimals);
	if (f->nodes[0].count > UINT64_MAX / *up || c->v > UINT64_MAX / m ||
	    c->v * m > UINT64_MAX - f->nodes[0].count * *up)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "the sample counts add up to more than 2^64");
	*units = c->v * m;
	return 0;
}

static void rescale(struct ps_flame *f, uint64_t up)
{
	size_t i;

	if (up == 1)
		return;
	for (i = 0; i < f->nnodes; i++)
		f->nodes[i].count *= up;
	while (up > 1) {
		up /= 10;
		f->decimals++;
	}
	f->scale = pow10u(f->decimals);
}

/* a TSV field's escapes (ClickHouse's TabSeparated): \t \n \r \b \f \0 \' \\ */
static size_t tsv_unescape(char *out, const char *s, size_t len)
{
	static const char from[] = "tnrbf0'\\", to[] = "\t\n\r\b\f\0'\\";
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		const char *e = i + 1 < len && s[i] == '\\' ? memchr(from, s[i + 1], 8) : NULL;

		if (e) {
			out[n++] = to[e - from];
			i++;
		} else {
			out[n++] = s[i];
		}
	}
	return n;
}

/* @want: 0 any line, 1 only one count, 2 only two */
static int add_folded(struct ps_flame *f, struct ps_flame *before, const char *line, size_t len,
                      int want, struct ps_error *err)
{
	const char **names = f->scratch_names;
	size_t *lens = f->scratch_lens;
	const char *p, *end, *sp, *sp2, *stack_end;
	struct count after, prev;
	uint64_t up_a = 1, up_b = 1, ua = 0, ub = 0;
	bool tsv, diff = false;
	size_t n = 0;
	int r;

	if (len && line[len - 1] == '\r')
		len--;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len || line[0] == '#')
		return 0;
	end = line + len;
	/* the count: after the last space or tab */
	for (sp = end; sp > line && sp[-1] != ' ' && sp[-1] != '\t'; sp--)
		;
	if (sp == line)
		return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
		                     "no sample count after the stack ('a;b;c COUNT' expected)");
	r = parse_count(sp, end, &after);
	if (r == -2)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "sample count '%.*s' is past 2^64",
		                     (int)(end - sp > 40 ? 40 : end - sp), sp);
	if (r < 0)
		return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
		                     "sample count '%.*s' is not a number",
		                     (int)(end - sp > 40 ? 40 : end - sp), sp);
	/* one separator: what is before it is the stack, spaces and tabs included */
	stack_end = sp - 1;
	tsv = *stack_end == '\t';
	/* a number before the count too: "STACK BEFORE AFTER" */
	for (sp2 = stack_end; sp2 > line && sp2[-1] != ' ' && sp2[-1] != '\t'; sp2--)
		;
	if (sp2 > line + 1) {
		r = parse_count(sp2, stack_end, &prev);
		if (r == -2)
			return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
			                     "sample count '%.*s' is past 2^64",
			                     (int)(stack_end - sp2 > 40 ? 40 : stack_end - sp2),
			                     sp2);
		if (r == 0) {
			diff = true;
			stack_end = sp2 - 1;
			tsv = tsv || *stack_end == '\t';
		}
	}
	if (diff && (want == 1 || !before))
		return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
		                     "two counts (a differential line, 'STACK BEFORE AFTER') "
		                     "among lines of one");
	if (!diff && want == 2)
		return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
		                     "one count in a differential input ('STACK BEFORE AFTER' "
		                     "expected)");
	if (stack_end == line)
		return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET, "empty stack");
	if (plan_units(f, &after, &up_a, &ua, err) ||
	    (diff && plan_units(before, &prev, &up_b, &ub, err)))
		return -1;
	if (tsv) {
		size_t slen = (size_t)(stack_end - line);

		if (!f->unescaped && !(f->unescaped = malloc(MAX_LINE)))
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "line buffer");
		if (slen > MAX_LINE)
			slen = MAX_LINE;
		slen = tsv_unescape(f->unescaped, line, slen);
		line = f->unescaped;
		stack_end = line + slen;
	}
	for (p = line; p < stack_end;) {
		const char *semi = memchr(p, ';', (size_t)(stack_end - p));
		const char *e = semi ? semi : stack_end;

		if (n == PS_FLAME_MAX_DEPTH) {
			f->cut_stacks++;
			break;
		}
		names[n] = p;
		lens[n++] = (size_t)(e - p);
		if (!semi)
			break;
		p = semi + 1;
	}
	rescale(f, up_a);
	if (diff) {
		rescale(before, up_b);
		if (ub && ps_flame__add(before, names, lens, NULL, n, ub, err))
			return -1;
	}
	if (ua && ps_flame__add(f, names, lens, NULL, n, ua, err))
		return -1;
	return diff ? 2 : 1;
}

int ps_flame__add_folded(struct ps_flame *f, struct ps_flame *before, const char *line, size_t len,
                         struct ps_error *err)
{
	return add_folded(f, before, line, len, 0, err);
}

static void skip_line(const struct ps_folded_opts *o, struct ps_folded_stats *st, const char *name,
                      uint64_t lineno, const struct ps_error *lerr)
{
	struct ps_error e = { 0 };

	st->skipped++;
	if (!o || !o->skipped)
		return;
	ps_error__set(&e, PS_ECORRUPT, name, PS_NO_OFFSET, "line %llu: %.200s",
	              (unsigned long long)lineno, lerr->detail);
	o->skipped(o->arg, &e);
}

int ps_flame__read_folded(struct ps_flame *f, FILE *fp, const char *name,
                          const struct ps_folded_opts *o, struct ps_folded_stats *stats,
                          struct ps_error *err)
{
	struct ps_folded_stats st = { 0 };
	struct ps_flame *before = o ? o->before : NULL;
	size_t cap = 4096, len = 0;
	char *line = malloc(cap);
	uint64_t lineno = 1;
	bool toolong = false;
	int c, rc = 0, want = before ? 0 : 1;

	if (!line)
		return ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET, "line buffer");
	for (;;) {
		c = getc_unlocked(fp);
		if (c == EOF || c == '\n') {
			struct ps_error lerr = { 0 };
			int r;

			if (c == EOF && ferror(fp)) {
				rc = ps_error__sys(err, PS_ESYS, name, "read");
				break;
			}
			if (toolong) {
				ps_error__set(&lerr, PS_ECORRUPT, NULL, PS_NO_OFFSET,
				              "longer than %u bytes", MAX_LINE);
				skip_line(o, &st, name, lineno, &lerr);
				r = 0;
			} else {
				r = add_folded(f, before, line, len, want, &lerr);
			}
			if (r < 0 && lerr.code == PS_ECORRUPT) {
				skip_line(o, &st, name, lineno, &lerr);
			} else if (r < 0) {
				if (err) {
					*err = lerr;
					snprintf(err->detail, sizeof(err->detail),
					         "line %llu: %.200s", (unsigned long long)lineno,
					         lerr.detail);
					err->input = name;
				}
				rc = -1;
				break;
			} else if (r > 0) {
				st.lines++;
				/* the first line says which kind of input this is */
				if (!want)
					want = r;
			}
			if (c == EOF)
				break;
			lineno++;
			len = 0;
			toolong = false;
			continue;
		}
		if (c == 0) {
			rc = ps_error__set(err, PS_ECORRUPT, name, PS_NO_OFFSET,
			                   "line %llu: a NUL byte: not folded stack lines%s",
			                   (unsigned long long)lineno,
			                   lineno == 1 ? " (a perf stream? drop --folded)" : "");
			break;
		}
		if (toolong)
			continue;
		if (len + 1 >= cap) {
			char *q;

			if (cap >= MAX_LINE) {
				toolong = true;
				continue;
			}
			q = realloc(line, cap * 2);
			if (!q) {
				rc = ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET,
				                   "line buffer");
				break;
			}
			line = q;
			cap *= 2;
		}
		line[len++] = (char)c;
	}
	free(line);
	st.differential = want == 2;
	if (stats)
		*stats = st;
	return rc;
}
