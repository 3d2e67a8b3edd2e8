/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flame_int.h - the frame tree's layout, shared by flame.c and flame_svg.c only.
 */
#ifndef PS_FLAME_INT_H
#define PS_FLAME_INT_H

#include <stdint.h>

#include "flame.h"

#define FLAME_NONE UINT32_MAX

struct flame_name {
	uint64_t off; /* into ps_flame.chars */
	uint32_t len;
	uint32_t hash;
};

struct flame_node {
	uint32_t name;   /* index into ps_flame.names */
	uint32_t parent; /* FLAME_NONE for the root */
	uint32_t first_child, next_sibling;
	uint32_t depth;
	uint8_t kind; /* enum ps_frame_kind */
	uint8_t self; /* a flame chart's mark: its parent's own samples, at this place in
	               * time (not drawn, never a caller) */
	uint64_t count;
};

struct ps_flame {
	struct flame_node *nodes;
	size_t nnodes, nodes_cap, max_nodes;
	struct flame_name *names;
	size_t nnames, names_cap;
	char *chars;
	size_t nchars, chars_cap;
	uint32_t *name_tab; /* open addressing: name index + 1, 0 empty */
	size_t name_tab_size;
	uint32_t *child_tab; /* open addressing: node index + 1, 0 empty; key (parent, name) */
	size_t child_tab_size;
	const char **scratch_names; /* a folded line split into frames */
	size_t *scratch_lens;
	const char **rev_names; /* PS_FLAME_REVERSE: a stack turned around */
	size_t *rev_lens;
	enum ps_frame_kind *rev_kinds;
	char *unescaped;     /* a TSV line's stack, unescaped */
	uint64_t cut_stacks; /* stacks deeper than PS_FLAME_MAX_DEPTH */
	uint64_t scale;      /* counts are in 1/scale samples: 10^decimals */
	unsigned int decimals;
	unsigned int mode; /* PS_FLAME_REVERSE, PS_FLAME_CHART */
	uint64_t merged;   /* frames merged into their callers (the cap) */
};

/**
 * flame__name() - the name of node @i (not NUL-terminated) and its length in @len.
 */
static inline const char *flame__name(const struct ps_flame *f, uint32_t i, size_t *len)
{
	const struct flame_name *n = &f->names[f->nodes[i].name];

	*len = n->len;
	return f->chars + n->off;
}

/**
 * ps_flame__find_child() - the child of @parent named @name in @f.
 * Return: its index, or FLAME_NONE.
 */
uint32_t ps_flame__find_child(const struct ps_flame *f, uint32_t parent, const char *name,
                              size_t len);

#endif
