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

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	q = ps_realloc_array(*p, n, size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static int rehash_names(struct ps_flame *f, size_t size)
{
	uint32_t *t = calloc(size, sizeof(*t));
	size_t i;

	if (!t)
		return -1;
	for (i = 0; i < f->nnames; i++) {
		size_t j = f->names[i].hash & (size - 1);

		while (t[j])
			j = (j + 1) & (size - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(f->name_tab);
	f->name_tab = t;
	f->name_tab_size = size;
	return 0;
}

static int rehash_children(struct ps_flame *f, size_t size)
{
	uint32_t *t = calloc(size, sizeof(*t));
	size_t i;

	if (!t)
		return -1;
	for (i = 1; i < f->nnodes; i++) {
		size_t j = child_hash(f->nodes[i].parent, f->nodes[i].name) & (size - 1);

		while (t[j])
			j = (j + 1) & (size - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(f->child_tab);
	f->child_tab = t;
	f->child_tab_size = size;
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
	f->nodes[0] =
	        (struct flame_node){ 0, FLAME_NONE, FLAME_NONE, FLAME_NONE, 0, PS_FRAME_ROOT, 0 };
	memset(f->name_tab, 0, f->name_tab_size * sizeof(*f->name_tab));
	memset(f->child_tab, 0, f->child_tab_size * sizeof(*f->child_tab));
	f->name_tab[f->names[0].hash & (f->name_tab_size - 1)] = 1;
	f->cut_stacks = 0;
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
	if (grow((void **)&f->nodes, &f->nodes_cap, 1024, sizeof(*f->nodes)) ||
	    grow((void **)&f->names, &f->names_cap, 1024, sizeof(*f->names)) ||
	    grow((void **)&f->chars, &f->chars_cap, 16384, 1))
		goto nomem;
	f->scratch_names = calloc(PS_FLAME_MAX_DEPTH, sizeof(*f->scratch_names));
	f->scratch_lens = calloc(PS_FLAME_MAX_DEPTH, sizeof(*f->scratch_lens));
	if (!f->scratch_names || !f->scratch_lens)
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

/* make room for @n more nodes and @bytes more name bytes, so adding cannot fail midway */
static int reserve(struct ps_flame *f, size_t n, size_t bytes, struct ps_error *err)
{
	if (f->nnodes + n > f->max_nodes)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "more than %zu distinct frames (stacks)", f->max_nodes);
	if (f->nchars + bytes > PS_FLAME_MAX_NAMES)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "more than %u bytes of distinct frame names",
		                     PS_FLAME_MAX_NAMES);
	if (grow((void **)&f->nodes, &f->nodes_cap, f->nnodes + n, sizeof(*f->nodes)) ||
	    grow((void **)&f->names, &f->names_cap, f->nnames + n, sizeof(*f->names)) ||
	    grow((void **)&f->chars, &f->chars_cap, f->nchars + bytes, 1))
		goto nomem;
	if ((f->nnames + n) * 2 > f->name_tab_size) {
		size_t size = f->name_tab_size;

		while ((f->nnames + n) * 2 > size)
			size *= 2;
		if (rehash_names(f, size))
			goto nomem;
	}
	if ((f->nnodes + n) * 2 > f->child_tab_size) {
		size_t size = f->child_tab_size;

		while ((f->nnodes + n) * 2 > size)
			size *= 2;
		if (rehash_children(f, size))
			goto nomem;
	}
	return 0;
nomem:
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "frame tree of %zu frames",
	                     f->nnodes);
}

static uint32_t intern(struct ps_flame *f, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len), i = find_name(f, s, len, h);
	size_t j;

	if (i != FLAME_NONE)
		return i;
	i = (uint32_t)f->nnames++;
	f->names[i] = (struct flame_name){ f->nchars, (uint32_t)len, h };
	memcpy(f->chars + f->nchars, s, len);
	f->nchars += len;
	j = h & (f->name_tab_size - 1);
	while (f->name_tab[j])
		j = (j + 1) & (f->name_tab_size - 1);
	f->name_tab[j] = i + 1;
	return i;
}

int ps_flame__add(struct ps_flame *f, const char *const *names, const size_t *lens,
                  const enum ps_frame_kind *kinds, size_t n, uint64_t count, struct ps_error *err)
{
	uint32_t cur = 0, child;
	size_t i, k, bytes = 0;

	/* the root holds the sum of every count: past 2^64 it would wrap, and the graph with it */
	if (count > UINT64_MAX - f->nodes[0].count)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "the sample counts add up to more than 2^64");
	if (n > PS_FLAME_MAX_DEPTH) {
		n = PS_FLAME_MAX_DEPTH;
		f->cut_stacks++;
	}
	/* the part of the path that exists already */
	for (i = 0; i < n; i++) {
		size_t len = lens[i] < PS_FLAME_MAX_NAME ? lens[i] : PS_FLAME_MAX_NAME;

		child = ps_flame__find_child(f, cur, names[i], len);
		if (child == FLAME_NONE)
			break;
		cur = child;
	}
	for (k = i; k < n; k++)
		bytes += lens[k] < PS_FLAME_MAX_NAME ? lens[k] : PS_FLAME_MAX_NAME;
	if (i < n && reserve(f, n - i, bytes, err))
		return -1;
	for (; i < n; i++) {
		size_t len = lens[i] < PS_FLAME_MAX_NAME ? lens[i] : PS_FLAME_MAX_NAME;
		uint32_t name = intern(f, names[i], len);
		struct flame_node *c;
		size_t j;

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
		f->nodes[cur].first_child = child;
		j = child_hash(cur, name) & (f->child_tab_size - 1);
		while (f->child_tab[j])
			j = (j + 1) & (f->child_tab_size - 1);
		f->child_tab[j] = child + 1;
		cur = child;
	}
	/* the counts, from the innermost frame up to the root */
	for (; cur != FLAME_NONE; cur = f->nodes[cur].parent)
		f->nodes[cur].count += count;
	return 0;
}

int ps_flame__add_folded(struct ps_flame *f, const char *line, size_t len, struct ps_error *err)
{
	const char **names = f->scratch_names;
	size_t *lens = f->scratch_lens;
	const char *p, *end, *sp;
	uint64_t count = 0;
	size_t n = 0;

	if (len && line[len - 1] == '\r')
		len--;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return 0;
	end = line + len;
	/* the count follows a space: a tab or a newline is part of no folded line's
	 * structure (pcount --folded writes them inside names as \x09 and \x0a), so a name
	 * that holds them cannot pass for a count */
	for (sp = end; sp > line && sp[-1] != ' '; sp--)
		;
	if (sp == end || sp == line)
		return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
		                     "no sample count after the stack ('a;b;c COUNT' expected)");
	for (p = sp; p < end; p++) {
		if (*p < '0' || *p > '9')
			return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
			                     "sample count '%.*s' is not a whole number",
			                     (int)(end - sp > 40 ? 40 : end - sp), sp);
		if (count > (UINT64_MAX - 9) / 10)
			return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
			                     "sample count too large");
		count = count * 10 + (uint64_t)(*p - '0');
	}
	while (sp > line && sp[-1] == ' ')
		sp--;
	if (sp == line)
		return ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET, "empty stack");
	if (!count)
		return 0;
	for (p = line; p < sp;) {
		const char *semi = memchr(p, ';', (size_t)(sp - p));
		const char *e = semi ? semi : sp;

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
	return ps_flame__add(f, names, lens, NULL, n, count, err);
}

int ps_flame__read_folded(struct ps_flame *f, FILE *fp, const char *name, struct ps_error *err)
{
	size_t cap = 4096, len = 0;
	char *line = malloc(cap);
	uint64_t lineno = 1;
	int c, rc = 0;

	if (!line)
		return ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET, "line buffer");
	for (;;) {
		c = getc_unlocked(fp);
		if (c == EOF || c == '\n') {
			if (c == EOF && ferror(fp)) {
				rc = ps_error__sys(err, PS_ESYS, name, "read");
				break;
			}
			if (ps_flame__add_folded(f, line, len, err)) {
				char detail[sizeof(err->detail)];

				if (err) {
					snprintf(detail, sizeof(detail), "line %llu: %.200s",
					         (unsigned long long)lineno, err->detail);
					memcpy(err->detail, detail, sizeof(detail));
					err->input = name;
				}
				rc = -1;
				break;
			}
			if (c == EOF)
				break;
			lineno++;
			len = 0;
			continue;
		}
		if (c == 0) {
			rc = ps_error__set(err, PS_ECORRUPT, name, PS_NO_OFFSET,
			                   "line %llu: a NUL byte: not folded stack lines%s",
			                   (unsigned long long)lineno,
			                   lineno == 1 ? " (a perf stream? drop --folded)" : "");
			break;
		}
		if (len + 1 >= cap) {
			char *q;

			if (cap >= MAX_LINE) {
				rc = ps_error__set(err, PS_ECAP, name, PS_NO_OFFSET,
				                   "line %llu: longer than %u bytes",
				                   (unsigned long long)lineno, MAX_LINE);
				break;
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
	return rc;
}
