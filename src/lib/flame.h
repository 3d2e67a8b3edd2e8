/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flame.h - a tree of stack frames and its drawing as a flame graph.
 *
 * A stack is a path of frame names from the root (a comm, as perf's stackcollapse
 * roots its lines) to the innermost function; adding it with a count adds that count
 * to every frame on the path.  Frames with the same name under the same parent are
 * one frame.  The tree lives in a few growing arrays, capped: when a stack would make
 * more than the cap of distinct frames, the narrowest frames are merged into their callers
 * (their samples stay in the caller's width) to make room, and the tree counts them.
 *
 * Counts are whole numbers of 1/ps_flame__scale() samples: folded lines may carry
 * fractional counts (up to PS_FLAME_MAX_DECIMALS decimals), and the tree's unit shrinks
 * to hold them exactly.
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

#define PS_FLAME_MAX_FRAMES (1u << 20)  /* distinct frames in one tree */
#define PS_FLAME_MAX_DECIMALS 6         /* of a fractional count; more are dropped */
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

/* How stacks are added (ps_flame__set_mode()). */
#define PS_FLAME_REVERSE 1u /* callee first: each stack's frames turned around */
#define PS_FLAME_CHART \
	2u /* a flame chart: a frame merges only with its parent's newest
                             * child, and children are drawn in the order they came */

/** ps_flame__set_mode() - PS_FLAME_* flags for the stacks added from now on. */
void ps_flame__set_mode(struct ps_flame *f, unsigned int mode);

/**
 * ps_flame__add() - add @count samples of one stack.
 * @names: @n frame names, outermost (the root, e.g. the comm) first
 * @lens: the length of each name (names need not be NUL-terminated)
 * @kinds: the kind of each frame, or NULL to guess it from the name
 *         (ps_flame__guess_kind())
 * @count: in units of 1/ps_flame__scale()
 * @err: PS_ECAP when the counts would add up past 2^64 (or one stack does not fit in the
 *       cap even after merging), PS_ENOMEM
 * Return: 0 or -1.  On failure the tree's counts are unchanged.
 */
int ps_flame__add(struct ps_flame *f, const char *const *names, const size_t *lens,
                  const enum ps_frame_kind *kinds, size_t n, uint64_t count, struct ps_error *err);

/**
 * ps_flame__add_folded() - add one folded line, "root;outer;...;inner COUNT", or a
 * differential one, "STACK BEFORE AFTER" (as FlameGraph's difffolded.pl writes).
 * @before: where a differential line's BEFORE count goes (its AFTER goes to @f); NULL:
 *          a differential line is an error
 * @line: the line without its newline.  A final '\r' and spaces or tabs after the count
 *        are ignored.  The count is the last field: the bytes after the last space or
 *        tab, a whole or decimal number ("12", "0.25").  Exactly one space or tab
 *        separates it from the stack, which is every byte before that one, kept as it is
 *        (tabs, spaces, whitespace-only names).  When the field before the count is a
 *        number too, the line is differential.  When the separator is a tab, the line is a
 *        row of tab-separated values (ClickHouse's TSV): its stack is unescaped (\t \n \\
 *        ...).  A line that starts with '#' is a comment.
 * @err: PS_ECORRUPT (the line is malformed: detail says how), PS_ECAP (the counts add up
 *       past 2^64), PS_ENOMEM; the caller adds the input name and line number
 * Return: 2 for a differential line, 1 for a line with one count, 0 for an empty or
 * comment line, -1 on failure (then the trees are unchanged).
 */
int ps_flame__add_folded(struct ps_flame *f, struct ps_flame *before, const char *line, size_t len,
                         struct ps_error *err);

/* How ps_flame__read_folded() reads. */
struct ps_folded_opts {
	struct ps_flame *before; /* a differential input's BEFORE counts; NULL refuses one */
	/* a malformed line, skipped: @err says "line N: what", its input set */
	void (*skipped)(void *arg, const struct ps_error *err);
	void *arg;
};

/* What ps_flame__read_folded() read. */
struct ps_folded_stats {
	uint64_t lines;   /* with a stack and a count */
	uint64_t skipped; /* malformed, left out */
	bool differential;
};

/**
 * ps_flame__read_folded() - add every line of @fp.  A malformed line (PS_ECORRUPT from
 * ps_flame__add_folded(), or longer than 1 MiB) is skipped and reported to @o->skipped;
 * an input mixing differential and plain lines keeps those of its first line's kind.
 * @name: the input's name for messages
 * @o: NULL for no differential input and no report
 * @stats: filled (may be NULL)
 * @err: on failure "line N: what" in the detail, the input set to @name: a NUL byte (not
 *       text), the counts past 2^64, a differential input with no @o->before, a read error
 * Return: 0 or -1.
 */
int ps_flame__read_folded(struct ps_flame *f, FILE *fp, const char *name,
                          const struct ps_folded_opts *o, struct ps_folded_stats *stats,
                          struct ps_error *err);

/** ps_flame__scale() - the tree's counts are in units of 1/scale samples (1, 10, ...). */
uint64_t ps_flame__scale(const struct ps_flame *f);

/** ps_flame__merged() - frames merged into their callers to stay within the cap. */
uint64_t ps_flame__merged(const struct ps_flame *f);

/**
 * ps_flame__guess_kind() - the kind of a folded frame name: "_[k]" kernel, "_[j]" JIT
 * (flamegraph.pl's annotations), "[unknown]" and hex addresses unknown, else user.
 */
enum ps_frame_kind ps_flame__guess_kind(const char *name, size_t len);

/**
 * ps_flame__label_len() - the length of @name without flamegraph.pl's annotation suffix
 * ("_[k]", "_[j]", "_[i]", "_[w]"): the suffix picks the colour, the label shows the name.
 */
size_t ps_flame__label_len(const char *name, size_t len);

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
