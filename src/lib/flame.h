/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flame.h - a tree of stack frames and its drawing as a flame graph.
 *
 * A stack is a path of frame names from the root (a comm, as perf's stackcollapse
 * roots its lines) to the innermost function; adding it with a count adds that count
 * to every frame on the path.  Frames with the same name under the same parent are
 * one frame.  The tree lives in a few growing arrays, capped: adding a stack that
 * would make more than the cap of distinct frames fails with PS_ECAP.
 *
 * flame.c: the tree and the folded-line reader; flame_svg.c: the SVG writer.
 */
#ifndef PS_FLAME_H
#define PS_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* What a frame is: picks its colour's hue. */
enum ps_frame_kind {
	PS_FRAME_USER = 0,
	PS_FRAME_KERNEL,
	PS_FRAME_JIT,
	PS_FRAME_UNKNOWN,
	PS_FRAME_ROOT, /* the "all" frame and the comm roots */
	PS_FRAME_KINDS
};

#define PS_FLAME_MAX_FRAMES (4u << 20)  /* distinct frames in one tree */
#define PS_FLAME_MAX_NAMES (256u << 20) /* bytes of distinct frame names */
#define PS_FLAME_MAX_NAME 4096          /* one frame name, longer ones are cut */
#define PS_FLAME_MAX_DEPTH 1024         /* frames in one stack, deeper ones are cut */

struct ps_flame;

/**
 * ps_flame__new() - an empty tree (only its root, "all").
 * @max_frames: cap on distinct frames, 0 for PS_FLAME_MAX_FRAMES
 * @err: filled on failure
 * Return: the tree, or NULL (PS_ENOMEM).
 */
struct ps_flame *ps_flame__new(size_t max_frames, struct ps_error *err);

/** ps_flame__delete() - free @f (NULL is fine). */
void ps_flame__delete(struct ps_flame *f);

/** ps_flame__reset() - drop every stack, keep the allocations (for the next interval). */
void ps_flame__reset(struct ps_flame *f);

/**
 * ps_flame__add() - add @count samples of one stack.
 * @names: @n frame names, outermost (the root, e.g. the comm) first
 * @lens: the length of each name (names need not be NUL-terminated)
 * @kinds: the kind of each frame, or NULL to guess it from the name
 *         (ps_flame__guess_kind())
 * @err: PS_ECAP when the tree is full or the counts would add up past 2^64, PS_ENOMEM
 * Return: 0 or -1.  On failure the tree is unchanged.
 */
int ps_flame__add(struct ps_flame *f, const char *const *names, const size_t *lens,
                  const enum ps_frame_kind *kinds, size_t n, uint64_t count, struct ps_error *err);

/**
 * ps_flame__add_folded() - add one folded line, "root;outer;...;inner COUNT".
 * @line: the line without its newline; a final '\r' is ignored.  The count follows the
 *        last space: a tab is no separator, so a name holding a tab and digits is an
 *        error, never a count (pcount --folded writes control bytes as \xNN)
 * @err: PS_ECORRUPT (detail says what is wrong with the line), PS_ECAP, PS_ENOMEM;
 *       the caller adds the input name and line number
 * Return: 0 or -1.  An empty line is accepted and adds nothing.
 */
int ps_flame__add_folded(struct ps_flame *f, const char *line, size_t len, struct ps_error *err);

/**
 * ps_flame__read_folded() - add every line of @fp.
 * @name: the input's name for messages
 * @err: on failure "line N: what" in the detail, the input set to @name
 * Return: 0 or -1.
 */
int ps_flame__read_folded(struct ps_flame *f, FILE *fp, const char *name, struct ps_error *err);

/**
 * ps_flame__guess_kind() - the kind of a folded frame name: "_[k]" kernel, "_[j]" JIT
 * (flamegraph.pl's annotations), "[unknown]" and hex addresses unknown, else user.
 */
enum ps_frame_kind ps_flame__guess_kind(const char *name, size_t len);

/** ps_flame__total() - the samples in the tree (the root's count). */
uint64_t ps_flame__total(const struct ps_flame *f);

/** ps_flame__frames() - distinct frames in the tree, the root included. */
size_t ps_flame__frames(const struct ps_flame *f);

/* How to draw. */
enum ps_flame_palette {
	PS_PALETTE_HOT = 0, /* flamegraph.pl's warm colours */
	PS_PALETTE_COOL,    /* blues and greens */
	PS_PALETTE_MEM,     /* greens, as for memory profiles */
	PS_PALETTE_GRAY,    /* for printing */
	PS_PALETTES
};

/**
 * ps_flame_palette__parse() - "hot", "cool", "mem", "gray".
 * Return: the palette, or -1 for an unknown name.
 */
int ps_flame_palette__parse(const char *name);

struct ps_flame_style {
	const char *title;    /* NULL: "Flame Graph" (or "Icicle Graph") */
	const char *subtitle; /* NULL: none */
	unsigned int width;   /* of the image, px */
	unsigned int height;  /* of one frame, px */
	double minwidth;      /* frames narrower than this (px) are left out */
	bool icicle;          /* roots at the top, growing downwards */
	bool time_ns;         /* the counts are nanoseconds (off-CPU): titles in ms */
	enum ps_flame_palette palette;
	const struct ps_flame *before; /* non-NULL: a differential graph against it */
};

/**
 * ps_flame__write_svg() - draw @f as one self-contained interactive SVG document.
 * @fp: where to write
 * @name: the output's name for messages
 * @err: PS_EWRITE when writing fails, PS_ENOMEM
 * Return: 0 or -1.
 */
int ps_flame__write_svg(const struct ps_flame *f, const struct ps_flame_style *st, FILE *fp,
                        const char *name, struct ps_error *err);

#endif
