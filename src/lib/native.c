// SPDX-License-Identifier: GPL-2.0-only
/*
 * native.c - a RowBinary batch as one Native block (native.h).
 *
 * One walk over the rows finds where each starts and reads its key values; the key
 * strings are ranked (few distinct values: a hash table, then the distinct ones sorted),
 * so that ordering the rows compares numbers only; then each column is written in turn,
 * every row's cursor moving past the value just copied.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "rowbinary.h"

#define MAX_KEY 8
#define MAX_ROWS (1u << 30)
#define FIRST_CAP_MAX (1u << 21) /* rows: the arrays of a batch's rows, at first */

struct str {
	const unsigned char *p; /* the bytes (after the length) */
	size_t len;
};

/* a varint at @p (@len bytes): its length, 0 when cut short or too long */
static int varint(const unsigned char *p, size_t len, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	for (int i = 0; i < 10 && (size_t)i < len; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

static uint64_t get_le(const unsigned char *p, unsigned int w)
{
	uint64_t v = 0;

	for (unsigned int i = w; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* a number as a u64 that orders as the number does (signed: the sign bit flipped) */
static uint64_t ordered(unsigned char code, const unsigned char *p, unsigned int w)
{
	uint64_t v = get_le(p, w < 8 ? w : 8);

	if (code >= PS_RB_I8 && w < 8) {
		/* sign-extend, then flip */
		uint64_t sign = 1ull << (8 * w - 1);

		v = (v ^ sign) - sign;
	}
	return code >= PS_RB_I8 ? v ^ (1ull << 63) : v;
}

/* ---- the ranks of a key column's strings ---- */

struct ranks {
	struct str *s;  /* the distinct strings */
	long last;      /* the index of the last one asked for, -1 none (rows repeat it) */
	uint32_t *slot; /* hash table: index + 1 into s, 0 empty */
	uint32_t *rank; /* of each distinct string, once sorted */
	size_t n, cap, nslot;
};

static uint64_t hash(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int str_cmp(const struct str *a, const struct str *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = n ? memcmp(a->p, b->p, n) : 0;

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* the index of @s among the distinct strings (added when new), or -1 out of memory */
static long ranks_add(struct ranks *r, const unsigned char *p, size_t len)
{
	size_t i;

	if (r->last >= 0 && r->s[r->last].len == len &&
	    (!len || memcmp(r->s[r->last].p, p, len) == 0))
		return r->last;
	if (2 * (r->n + 1) > r->nslot) {
		size_t ns = r->nslot ? 2 * r->nslot : 64;
		uint32_t *t = calloc(ns, sizeof(*t));

		if (!t)
			return -1;
		for (size_t k = 0; k < r->n; k++) {
			for (i = hash(r->s[k].p, r->s[k].len) & (ns - 1); t[i];
			     i = (i + 1) & (ns - 1))
				;
			t[i] = (uint32_t)k + 1;
		}
		free(r->slot);
		r->slot = t;
		r->nslot = ns;
	}
	for (i = hash(p, len) & (r->nslot - 1); r->slot[i]; i = (i + 1) & (r->nslot - 1)) {
		const struct str *s = &r->s[r->slot[i] - 1];

		if (s->len == len && (!len || memcmp(s->p, p, len) == 0))
			return r->last = (long)r->slot[i] - 1;
	}
	if (r->n == r->cap) {
		size_t nc = r->cap ? 2 * r->cap : 16;
		struct str *ns = realloc(r->s, nc * sizeof(*ns));

		if (!ns)
			return -1;
		r->s = ns;
		r->cap = nc;
	}
	r->s[r->n] = (struct str){ p, len };
	r->slot[i] = (uint32_t)r->n + 1;
	return r->last = (long)r->n++;
}

static const struct str *sort_base;

static int by_string(const void *a, const void *b)
{
	return str_cmp(&sort_base[*(const uint32_t *)a], &sort_base[*(const uint32_t *)b]);
}

/* rank[k]: the place of distinct string k in byte order */
static int ranks_sort(struct ranks *r)
{
	uint32_t *idx = malloc((r->n ? r->n : 1) * sizeof(*idx));

	r->rank = malloc((r->n ? r->n : 1) * sizeof(*r->rank));
	if (!idx || !r->rank) {
		free(idx);
		return -1;
	}
	for (size_t k = 0; k < r->n; k++)
		idx[k] = (uint32_t)k;
	sort_base = r->s;
	qsort(idx, r->n, sizeof(*idx), by_string);
	for (size_t k = 0; k < r->n; k++)
		r->rank[idx[k]] = (uint32_t)k;
	free(idx);
	return 0;
}

static void ranks_free(struct ranks *r)
{
	free(r->s);
	free(r->slot);
	free(r->rank);
}

/* ---- ordering the rows ---- */

struct order {
	const uint64_t *k; /* nk values per row */
	size_t nk;
};

static bool row_less(const struct order *o, uint32_t a, uint32_t b)
{
	const uint64_t *x = o->k + (size_t)a * o->nk, *y = o->k + (size_t)b * o->nk;

	for (size_t i = 0; i < o->nk; i++)
		if (x[i] != y[i])
			return x[i] < y[i];
	return false;
}

/* a stable merge sort of @perm (@n rows), @tmp as long */
static void merge_sort(const struct order *o, uint32_t *perm, uint32_t *tmp, size_t n)
{
	uint32_t *src = perm, *dst = tmp;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = row_less(o, src[j], src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		uint32_t *t = src;

		src = dst;
		dst = t;
	}
	if (src != perm)
		memcpy(perm, src, n * sizeof(*perm));
}

/*
 * The rows in order (@perm, the identity on entry): first by the leading string keys,
 * whose ranks are few, by counting (one pass, stable); then each run of rows equal in
 * those (mostly already in time order) merge-sorted only when it is not in order.
 * Return 0, or -1 when out of memory.
 */
static int group_sort(const struct order *o, const struct ranks *rk, const unsigned char *t,
                      const size_t *kcol, size_t nk, uint32_t *perm, size_t nrows)
{
	uint64_t groups = 1;
	size_t lead = 0, g, r;
	uint32_t *grp = NULL, *cnt = NULL, *tmp = malloc((nrows ? nrows : 1) * sizeof(*tmp));
	int ret = -1;

	if (!tmp)
		return -1;
	/* the leading string keys (their numbers come first in a row's key values) */
	while (lead < nk && t[kcol[lead]] == PS_RB_STRING &&
	       groups * (rk[lead].n ? rk[lead].n : 1) <= 4 * (uint64_t)nrows + 64) {
		groups *= rk[lead].n ? rk[lead].n : 1;
		lead++;
	}
	if (lead) {
		grp = malloc(nrows * sizeof(*grp));
		cnt = calloc(groups + 1, sizeof(*cnt));
		if (!grp || !cnt)
			goto out;
		for (r = 0; r < nrows; r++) {
			uint64_t v = 0;

			for (size_t k = 0; k < lead; k++)
				v = v * (rk[k].n ? rk[k].n : 1) + o->k[r * o->nk + k];
			grp[r] = (uint32_t)v;
			cnt[v + 1]++;
		}
		for (g = 0; g < groups; g++)
			cnt[g + 1] += cnt[g];
		for (r = 0; r < nrows; r++)
			perm[cnt[grp[r]]++] = (uint32_t)r;
		/* cnt[g] is now the end of group g */
		for (g = 0, r = 0; g < groups; r = cnt[g++]) {
			size_t n = cnt[g] - r, i;
			bool sorted = true;

			for (i = 1; i < n && sorted; i++)
				sorted = !row_less(o, perm[r + i], perm[r + i - 1]);
			if (!sorted)
				merge_sort(o, perm + r, tmp, n);
		}
	} else {
		merge_sort(o, perm, tmp, nrows);
	}
	ret = 0;
out:
	free(grp);
	free(cnt);
	free(tmp);
	return ret;
}

/* ---- the block ---- */

/* the length of the value of type @c at @p (@len bytes): 0 cut short, -1 malformed */
static inline long value_len(unsigned char c, unsigned int w, const unsigned char *p, size_t len)
{
	if (c == PS_RB_STRING && len && p[0] < 0x80)
		return len - 1 >= p[0] ? (long)p[0] + 1 : 0; /* a short string */
	if (w && !(c & PS_RB_ARRAY))
		return len >= w ? (long)w : 0;
	return ps_rowbinary__value(c, p, len);
}

static char *put_varint_at(char *d, uint64_t v)
{
	do {
		*d++ = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return d;
}

/*
 * @n bytes from @s to @d, n mostly small (a number, a short name): two overlapping moves
 * of a fixed size instead of a call, never a byte past @d + @n
 */
static inline void copy_value(char *d, const char *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n > 32) {
		memcpy(d, s, n);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

/* the block, written where @place says; @oom set when out of memory */
static long convert(const char *p, size_t len, const char *const *key, size_t nkey,
                    char *(*place)(void *arg, size_t size), void *arg, size_t *size, bool *oom)
{
	const unsigned char *u = (const unsigned char *)p;
	struct ps_rowbinary_types types = { 0 };
	struct ranks rk[MAX_KEY] = { 0 };
	size_t kcol[MAX_KEY], koff[MAX_KEY], nk = 0, nkv = 0, ncol, nrows = 0, cap = 0, i, r;
	char **names = NULL;
	size_t nnames = 0, total, minrow = 0, first_cap;
	size_t *cur = NULL;
	uint64_t *kv = NULL;
	uint32_t *perm = NULL;
	struct col {
		const char *type;
		size_t type_len;
		unsigned int w;
		bool key;
		uint64_t bytes, elems; /* the values' bytes (an Array's: its elements'); elements */
		char *offs, *data;     /* where they go in the block */
	} *cols = NULL;
	const char *nl, *tl;
	char *d, *start;
	long h, ret = -1;

	h = ps_rowbinary__parse_header(p, len, &types);
	if (h <= 0)
		return -1;
	ncol = types.n;
	for (size_t k = 0; k < MAX_KEY; k++)
		rk[k].last = -1;
	nl = memchr(p, '\n', len);
	if (ps_rowbinary__names(p, (size_t)(nl - p), &names, &nnames) < 0 || nnames != ncol)
		goto out;
	cols = calloc(ncol, sizeof(*cols));
	if (!cols) {
		*oom = true;
		goto out;
	}
	tl = nl + 1;
	for (i = 0; i < ncol; i++) {
		const char *end = memchr(tl, i + 1 < ncol ? ' ' : '\n', (size_t)(p + h - tl));

		if (!end)
			goto out;
		cols[i].type = tl;
		cols[i].type_len = (size_t)(end - tl);
		cols[i].w = ps_rowbinary__width(types.t[i]);
		tl = end + 1;
	}
	/* the key columns present (no arrays), and where their numbers go */
	for (size_t k = 0; k < nkey && nk < MAX_KEY; k++)
		for (i = 0; i < ncol; i++)
			if (strcmp(names[i], key[k]) == 0 && !(types.t[i] & PS_RB_ARRAY)) {
				cols[i].key = true;
				koff[nk] = nkv;
				kcol[nk++] = i;
				nkv += types.t[i] == PS_RB_D128 ? 2 : 1;
				break;
			}

	/* room for as many rows as the batch can hold (their smallest size tells; a row takes
	 * 4 KiB pages only when written): growing would copy the arrays, page after page */
	for (i = 0; i < ncol; i++)
		minrow += cols[i].w && !(types.t[i] & PS_RB_ARRAY) ? cols[i].w : 1;
	first_cap = ((size_t)(len - (size_t)h) / (minrow ? minrow : 1) + 1);
	if (first_cap > FIRST_CAP_MAX)
		first_cap = FIRST_CAP_MAX;
	/* the rows: where each starts, its key values, the columns' sizes */
	for (size_t at = (size_t)h; at < len; nrows++) {
		if (nrows == cap) {
			size_t nc = cap ? 2 * cap : first_cap;
			size_t *ncur;
			uint64_t *nkv2;

			if (nc > MAX_ROWS)
				goto out;
			ncur = realloc(cur, nc * sizeof(*ncur));
			if (ncur)
				cur = ncur;
			nkv2 = ncur ? realloc(kv, nc * (nkv ? nkv : 1) * sizeof(*nkv2)) : NULL;
			if (nkv2)
				kv = nkv2;
			if (!ncur || !nkv2) {
				*oom = true;
				goto out;
			}
			cap = nc;
		}
		cur[nrows] = at;
		for (i = 0; i < ncol; i++) {
			unsigned char c = types.t[i];
			long v = value_len(c, cols[i].w, u + at, len - at);

			if (v <= 0)
				goto out;
			if (c & PS_RB_ARRAY) {
				uint64_t n;
				int vl = varint(u + at, len - at, &n);

				cols[i].elems += n;
				cols[i].bytes += (uint64_t)v - (uint64_t)vl;
			} else {
				cols[i].bytes += (uint64_t)v;
			}
			for (size_t k = 0; cols[i].key && k < nk; k++) {
				uint64_t *dk = kv + nrows * nkv + koff[k];

				if (kcol[k] != i)
					continue;

				if (c == PS_RB_STRING) {
					uint64_t sl;
					int vl = varint(u + at, len - at, &sl);
					long id = ranks_add(&rk[k], u + at + vl, (size_t)sl);

					if (id < 0) {
						*oom = true;
						goto out;
					}
					*dk = (uint64_t)id;
				} else if (c == PS_RB_D128) {
					dk[0] = get_le(u + at + 8, 8) ^ (1ull << 63);
					dk[1] = get_le(u + at, 8);
				} else {
					dk[0] = ordered(c, u + at, cols[i].w);
				}
			}
			at += (size_t)v;
		}
	}

	/* the order */
	perm = malloc((nrows ? nrows : 1) * sizeof(*perm));
	if (!perm) {
		*oom = true;
		goto out;
	}
	for (r = 0; r < nrows; r++)
		perm[r] = (uint32_t)r;
	if (nk) {
		struct order o = { kv, nkv };
		bool sorted = true;

		for (size_t k = 0; k < nk; k++) {
			if (types.t[kcol[k]] != PS_RB_STRING)
				continue;
			if (ranks_sort(&rk[k]) < 0) {
				*oom = true;
				goto out;
			}
			for (r = 0; r < nrows; r++)
				kv[r * nkv + koff[k]] = rk[k].rank[kv[r * nkv + koff[k]]];
		}
		for (r = 1; r < nrows && sorted; r++)
			sorted = !row_less(&o, (uint32_t)r, (uint32_t)(r - 1));
		if (!sorted && group_sort(&o, rk, types.t, kcol, nk, perm, nrows) < 0) {
			*oom = true;
			goto out;
		}
	}

	/* the block, its size known: sizes, then per column name, type, values */
	total = 20;
	for (i = 0; i < ncol; i++)
		total += 20 + strlen(names[i]) + cols[i].type_len + cols[i].bytes +
		         (types.t[i] & PS_RB_ARRAY ? 8 * nrows : 0);
	start = d = place(arg, total);
	if (!d) {
		*oom = true;
		goto out;
	}
	d = put_varint_at(d, ncol);
	d = put_varint_at(d, nrows);
	for (i = 0; i < ncol; i++) {
		size_t nl2 = strlen(names[i]);

		d = put_varint_at(d, nl2);
		memcpy(d, names[i], nl2);
		d += nl2;
		d = put_varint_at(d, cols[i].type_len);
		memcpy(d, cols[i].type, cols[i].type_len);
		d += cols[i].type_len;
		if (types.t[i] & PS_RB_ARRAY) {
			cols[i].offs = d;
			d += 8 * nrows;
		}
		cols[i].data = d;
		d += cols[i].bytes;
	}
	/* each row read once, in the order, its values to their columns */
	for (r = 0; r < nrows; r++) {
		size_t at = cur[perm[r]];

		/* rows in key order are apart in the batch: ask for those soon needed */
		if (r + 8 < nrows) {
			__builtin_prefetch(u + cur[perm[r + 8]]);
			__builtin_prefetch(u + cur[perm[r + 8]] + 64);
			__builtin_prefetch(u + cur[perm[r + 8]] + 128);
		}
		for (i = 0; i < ncol; i++) {
			struct col *cl = &cols[i];
			unsigned char c = types.t[i];
			long v = value_len(c, cl->w, u + at, len - at);

			if (c & PS_RB_ARRAY) {
				uint64_t n;
				int vl = varint(u + at, len - at, &n);

				cl->elems = r ? cl->elems + n : n;
				for (int b = 0; b < 8; b++)
					*cl->offs++ = (char)(cl->elems >> (8 * b));
				copy_value(cl->data, p + at + vl, (size_t)v - (size_t)vl);
				cl->data += (size_t)v - (size_t)vl;
			} else {
				copy_value(cl->data, p + at, (size_t)v);
				cl->data += v;
			}
			at += (size_t)v;
		}
	}
	*size = (size_t)(d - start);
	ret = (long)nrows;
out:
	for (size_t k = 0; k < MAX_KEY; k++)
		ranks_free(&rk[k]);
	ps_rowbinary__names_free(names, nnames);
	free(types.t);
	free(cur);
	free(kv);
	free(perm);
	free(cols);
	return ret;
}

static char *place_in_buf(void *arg, size_t size)
{
	return ps_json_buf__room(arg, size);
}

long ps_native__from_rowbinary(const char *p, size_t len, const char *const *key, size_t nkey,
                               struct ps_json_buf *out)
{
	bool oom = false;
	size_t size = 0;
	long rows = convert(p, len, key, nkey, place_in_buf, out, &size, &oom);

	if (oom)
		out->failed = true;
	if (rows >= 0)
		out->len += size;
	return rows;
}

long ps_native__place(const char *p, size_t len, const char *const *key, size_t nkey,
                      char *(*place)(void *arg, size_t size), void *arg, size_t *size)
{
	bool oom = false;
	long rows;

	*size = 0;
	rows = convert(p, len, key, nkey, place, arg, size, &oom);
	return rows < 0 && oom ? -2 : rows;
}
