/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter_int.h - what the filter's lexer, parser, checker and evaluator share: tokens, the
 * tree, and the per-event bindings.  Not part of the library's API.
 */
#ifndef PS_FILTER_INT_H
#define PS_FILTER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "filter.h"
#include "xalloc.h"

struct tep_format_field;

/* ---- lexer (filter_lex.c) ---- */

enum ftok {
	TK_END,
	TK_LPAREN,
	TK_RPAREN,
	TK_LBRACK,
	TK_RBRACK,
	TK_COMMA,
	TK_AND,
	TK_OR,
	TK_NOT,
	TK_EQ,
	TK_NE,
	TK_LT,
	TK_LE,
	TK_GT,
	TK_GE,
	TK_BITAND,
	TK_GLOB,
	TK_CONTAINS,
	TK_STARTSWITH,
	TK_ENDSWITH,
	TK_IN,
	TK_EXISTS,
	TK_NAME,   /* a field name, possibly qualified: sys:event.field */
	TK_NUMBER, /* digits, as an array index */
	TK_VALUE,  /* a value: quoted, or a bare word */
};

/* what the parser expects next: an operator or name, or a value */
enum fmode {
	LEX_NORMAL,
	LEX_VALUE,
};

/**
 * struct ftoken - one token.
 * @pos, @len: where it is in the source text
 * @text, @text_len: TK_NAME, TK_NUMBER and TK_VALUE: the decoded text (escapes applied),
 *                   malloc'ed and NUL-terminated; the parser takes ownership
 * @quoted: a TK_VALUE that was written in quotes
 */
struct ftoken {
	enum ftok kind;
	size_t pos, len;
	char *text;
	size_t text_len;
	bool quoted;
};

struct flexer {
	const char *src;
	size_t len, pos;
};

/* Return: 0 with @t filled, -1 with @err filled. */
int ps_flex_next(struct flexer *lx, enum fmode mode, struct ftoken *t, struct ps_filter_error *err);

/* Fill @err (when not NULL) with @pos in @text and the message.  Return: -1. */
int ps_filter_seterr(struct ps_filter_error *err, const char *text, size_t pos, const char *fmt,
                     ...) PS_PRINTF(4, 5);

/* ---- the tree (filter_parse.c) ---- */

enum fop {
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_BITAND,
	OP_CONTAINS,
	OP_STARTSWITH,
	OP_ENDSWITH,
	OP_GLOB,
	OP_IN,
	OP_EXISTS,
};

/* the fields of the sample itself; FF_TP is a tracepoint's field */
enum ffield {
	FF_EVENT,
	FF_COMM,
	FF_PID,
	FF_TID,
	FF_CPU,
	FF_TIME,
	FF_PERIOD,
	FF_IP,
	FF_ADDR,
	FF_STREAM_ID,
	FF_SYSCALL,
	FF_ERRNO,
	FF_SYM,   /* the function of the sample's ip (symbols.h) */
	FF_DSO,   /* its object */
	FF_STACK, /* any function of the callchain */
	FF_INPUT, /* a merged stream's input: its name, or its number from 1 */
	FF_TP,
};

/* what a field holds */
enum ftype {
	FT_NUM,
	FT_STR,
	FT_SYSCALL, /* a name when compared with a name, a number when compared with a number */
	FT_ERRNO,   /* the same, for the error of a failed syscall exit */
};

struct fsample_field {
	const char *name;
	enum ffield id;
	enum ftype type;
	bool is_signed;
	uint64_t need; /* PERF_SAMPLE_* bit the attr must have, 0 for none */
};

/* The sample's own fields, in the order error messages list them. */
extern const struct fsample_field ps_filter_sample_fields[];
extern const size_t ps_filter_nr_sample_fields;

/**
 * struct fvalue - one constant.
 * @text, @len: as written, unquoted and unescaped
 * @pos: where it is in the source text
 * @is_num, @num, @neg: the number it spells, when it is one
 * @sysnr: for the syscall field, the number of the syscall named @text; for errno, the
 *         error number named @text (-1 unknown)
 */
struct fvalue {
	char *text;
	size_t len;
	size_t pos;
	bool quoted;
	bool is_num;
	bool neg;
	uint64_t num;
	long sysnr;
};

/* how a condition reads its field in the events of one attr */
enum fbind_kind {
	BK_ABSENT,
	BK_SAMPLE,  /* a field of the sample record (FF_PID ...) */
	BK_EVENT,   /* the event's name */
	BK_INPUT,   /* the event's input in a merged stream; @offset: its number */
	BK_COMM,    /* the thread's name */
	BK_SYMBOL,  /* sym, dso, stack: named by the filter's symbol table */
	BK_TP_NUM,  /* a number in the raw data: @offset, @size, @is_signed */
	BK_TP_STR,  /* a char array in the raw data: @offset, @size */
	BK_TP_DYN,  /* a __data_loc string: the u32 at @offset locates it */
	BK_TP_REL,  /* a __rel_loc string: like BK_TP_DYN, from the end of the field */
	BK_SYS_RAW, /* raw_syscalls: the number is the field at @offset, the name from the table */
	BK_SYS_NAMED, /* syscalls:sys_enter_NAME: @sysname, the number at @offset */
	BK_ERRNO,     /* a syscall exit's "ret" at @offset, @size: -ret when it failed */
	BK_DUR        /* a duration field (durations.h), enum ps_dur_field @offset */
};

struct fbind {
	enum fbind_kind kind;
	bool is_signed;
	bool symbolic; /* BK_TP_NUM printed through symbols or flags: words compare its text */
	uint32_t offset, size;
	char sysname[40];
};

/**
 * struct fcond - one comparison.
 * @field, @name: which field; @sys and @event for a qualified tracepoint field
 * @has_index, @index: "name[index]" for an element of an array field
 * @src, @fpos, @flen: the operand text and the field's place in it
 * @op, @oppos, @oplen: the operator and its place
 * @values, @nvalues: the constants (none for exists, several for in)
 * @bind, @nbind: how to read the field, per attr index
 */
struct fcond {
	enum ffield field;
	char *name;
	char *sys, *event;
	bool has_index;
	uint32_t index;
	const char *src;
	size_t fpos, flen;
	enum fop op;
	size_t oppos, oplen;
	struct fvalue *values;
	size_t nvalues;
	struct fbind *bind;
	size_t nbind;
	/* comm conditions: the last answer, for this tid while the session's names stayed
	 * the same (ps_session__comm_gen()); reset when the filter is bound */
	bool memo_valid, memo_result;
	uint32_t memo_tid;
	uint64_t memo_gen;
};

enum fnode_kind {
	FN_AND,
	FN_OR,
	FN_NOT,
	FN_COND,
};

struct fnode {
	enum fnode_kind kind;
	struct fnode *a, *b; /* FN_NOT uses @a */
	struct fcond *cond;
};

struct ps_filter {
	struct fnode *root; /* NULL: every sample matches */
	struct fcond **conds;
	size_t nconds, cap_conds;
	bool uses_comm;
	bool uses_symbols;
	struct ps_symbols *syms;          /* names sym, dso, stack; not owned, may be NULL */
	size_t nbound;                    /* attrs the conditions are bound for */
	char arch[64];                    /* the stream's arch feature, for syscall names */
	const struct ps_session *session; /* the session bindings were made for */
};

/* filter_parse.c */
int ps_filter_type_error(const struct fcond *c, enum ftype type, struct ps_filter_error *err);
const char *ps_filter_op_name(enum fop op);

/* filter_check.c: (re)bind every condition for the attrs of @s; 0, or -1 out of memory */
int ps_filter_bind(struct ps_filter *f, const struct ps_session *s);

/* filter_eval.c */
bool ps_filter_glob(const char *pat, size_t plen, const char *s, size_t slen);

/* the most nested parentheses and "not"s the parser accepts */
#define PS_FILTER_MAX_DEPTH 200
/* the most conditions in a filter: it bounds the depth of and/or chains, which the
 * evaluator walks recursively */
#define PS_FILTER_MAX_CONDS 4096

#endif
