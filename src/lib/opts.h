/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * opts.h - option helpers shared by the mains.
 */
#ifndef PS_OPTS_H
#define PS_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compat.h"
#include "durations.h"
#include "error.h"
#include "filter.h"
#include "symbols.h"
#include "version.h" /* PS_VERSION, generated from the GNUmakefile's VERSION */

/**
 * ps_parse_u64() - parse a decimal or 0x-hex number in [@min, @max]; exit 2 otherwise.
 * @what: the option's name for the message
 * Return: the value.
 */
uint64_t ps_parse_u64(const char *arg, uint64_t min, uint64_t max, const char *what);

/**
 * ps_parse_duration() - parse a duration ("5", "5s", "500ms", "2m": duration.h) in
 * [@min_ns, @max_ns]; exit 2 with "WHAT: ..." otherwise.
 * @what: the option's name for the message
 * Return: the value in nanoseconds.
 */
uint64_t ps_parse_duration(const char *arg, uint64_t min_ns, uint64_t max_ns, const char *what);

/**
 * ps_parse_size() - parse a byte count ("4096", "64k", "10m", "1g": k, m, g are powers
 * of 1024) in [1, @max]; exit 2 with "WHAT: '...' is not a size" otherwise.
 * @what: the option's name for the message
 * Return: the bytes.
 */
uint64_t ps_parse_size(const char *arg, uint64_t max, const char *what);

/**
 * ps_where__parse() - the filter of a --where EXPR option (pfilter's language); exit 2
 * after ps_where__say() when EXPR is wrong.
 */
struct ps_filter *ps_where__parse(const char *expr);

/**
 * ps_where__say() - say why --where EXPR was refused: "PROG: --where: WHY", then EXPR
 * with a caret under the spot.
 */
void ps_where__say(const struct ps_filter_error *fe);

/**
 * ps_where__refuse() - ps_where__say(), then @err set to a usage error already said
 * (its detail empty), for a --where that the stream's events refuse.
 * Return: -1.
 */
int ps_where__refuse(const struct ps_filter_error *fe, struct ps_error *err);

/**
 * ps_print_version() - print "PROG (pstream) VERSION" on stdout and exit 0
 * (1 if stdout cannot be written).
 */
_Noreturn void ps_print_version(void);

/**
 * ps_finish_stdout() - flush and close stdout, checking for errors (full disk...).
 * Return: 0, or -1 after printing a message (EPIPE is silent and returns 0).
 */
int ps_finish_stdout(void);

/*
 * The command line of every program, from one table (struct ps_opt rows): getopt_long's
 * option list, the option part of --help, and the options every program shares (-o, -f,
 * -q, --symfs, --kallsyms, --no-symbols) stored by the parser itself.  -h/--help and
 * -V/--version are added to every table; a mistake (an unknown option, a missing
 * argument) is said under the program's name, with the usage line, and exits 2.
 */

/* what an option takes */
enum ps_opt_arg {
	PS_ARG_NONE,
	PS_ARG_REQUIRED,
	PS_ARG_OPTIONAL, /* only as --name=VALUE */
};

/*
 * Who handles a row: the program (PS_OPTG_OWN, its key returned by ps_args__next()), or
 * the parser, which stores it in struct ps_common_opts.
 */
enum ps_opt_group {
	PS_OPTG_OWN,
	PS_OPTG_OUTPUT,     /* -o: common.output */
	PS_OPTG_FORCE,      /* -f: common.force */
	PS_OPTG_QUIET,      /* -q: common.quiet */
	PS_OPTG_SYMFS,      /* --symfs: common.sym.symfs */
	PS_OPTG_KALLSYMS,   /* --kallsyms: common.sym.kallsyms */
	PS_OPTG_NO_SYMBOLS, /* --no-symbols: common.sym.off */
	PS_OPTG_FLAG,       /* a bool of the program's at @flag in ps_args.flags: set true */
	PS_OPTG_STRING,     /* a const char * of the program's at @flag: set to the argument */
	PS_OPTG_PAIR,       /* --pair: common.pairs (durations.h), checked */
};

/*
 * The key of a long option without a letter: the shared ones, then a program's own,
 * spelled in every main as  enum { OPT_NAME = PS_OPT_LONG, ... }.
 */
enum {
	PS_OPT_SYMFS = 0x100,
	PS_OPT_KALLSYMS,
	PS_OPT_NO_SYMBOLS,
	PS_OPT_PAIR,
	PS_OPT_LONG = 0x200,
};

/**
 * struct ps_opt - one option of a program.
 * @name: the long name ("output"), or NULL
 * @key: the letter ('o'), or a code from PS_OPT_LONG up for a long-only option
 * @arg: what it takes
 * @argname: the argument's name in --help ("FILE"), or NULL
 * @help: its line in --help; a '\n' continues it on the next line; NULL for another
 *        long name of the row before (not shown, no letter)
 * @group: PS_OPTG_OWN, or the shared option the parser stores itself
 * @flag: with PS_OPTG_FLAG (PS_OPTG_STRING), the offset of the bool (the const char *) in
 *        the struct at ps_args.flags
 *
 * A table ends with a row whose @name and @key are 0 (in struct ps_cmdline: the rows left
 * out of its initializer).
 */
struct ps_opt {
	const char *name;
	int key;
	enum ps_opt_arg arg;
	const char *argname;
	const char *help;
	enum ps_opt_group group;
	size_t flag;
};

/* a row of the program's own */
#define PS_OPT(name, key, arg, argname, help)                 \
	{                                                     \
		name, key, arg, argname, help, PS_OPTG_OWN, 0 \
	}

/*
 * a row that only sets @field, a bool of @type (the struct the program puts in
 * ps_args.flags), to true: the parser stores it and ps_args__next() does not return it
 */
#define PS_OPT_FLAG(name, key, help, type, field)                                          \
	{                                                                                  \
		name, key, PS_ARG_NONE, NULL, help, PS_OPTG_FLAG,                          \
		        offsetof(type, field) + 0 * _Generic(((type *)0)->field, bool : 0) \
	}

/*
 * a row that only sets @field, a const char * of @type, to its argument (the last given
 * wins): the parser stores it and ps_args__next() does not return it
 */
#define PS_OPT_STRING(name, key, argname, help, type, field)                                       \
	{                                                                                          \
		name, key, PS_ARG_REQUIRED, argname, help, PS_OPTG_STRING,                         \
		        offsetof(type, field) + 0 * _Generic(((type *)0)->field, const char * : 0) \
	}

/* the shared rows, with their usual help; a program with other words writes its own row */
#define PS_OPT_FORCE_ROW                                                                       \
	{                                                                                      \
		"force", 'f', PS_ARG_NONE, NULL, "write the binary stream even to a terminal", \
		        PS_OPTG_FORCE, 0                                                       \
	}
#define PS_OPT_OUTPUT_ROW                                                            \
	{                                                                            \
		"output", 'o', PS_ARG_REQUIRED, "FILE",                              \
		        "write to FILE instead of standard output (never an input)", \
		        PS_OPTG_OUTPUT, 0                                            \
	}
#define PS_OPT_QUIET_ROW                                                              \
	{                                                                             \
		"quiet", 'q', PS_ARG_NONE, NULL, "no progress line for a large file", \
		        PS_OPTG_QUIET, 0                                              \
	}
#define PS_OPT_SYMBOL_FILES_ROWS                                                  \
	{ "symfs",                                                                \
	  PS_OPT_SYMFS,                                                           \
	  PS_ARG_REQUIRED,                                                        \
	  "DIR",                                                                  \
	  "look for the stream's objects under DIR",                              \
	  PS_OPTG_SYMFS,                                                          \
	  0 },                                                                    \
	{                                                                         \
		"kallsyms", PS_OPT_KALLSYMS, PS_ARG_REQUIRED, "FILE",             \
		        "kernel symbols from FILE (taken on the traced machine)", \
		        PS_OPTG_KALLSYMS, 0                                       \
	}
#define PS_OPT_SYMBOLS_ROWS                  \
	{ "no-symbols",                      \
	  PS_OPT_NO_SYMBOLS,                 \
	  PS_ARG_NONE,                       \
	  NULL,                              \
	  "addresses only: no symbol names", \
	  PS_OPTG_NO_SYMBOLS,                \
	  0 },                               \
	        PS_OPT_SYMBOL_FILES_ROWS

/* --pair, for the programs that read durations (durations.h, pstream(7)) */
#define PS_OPT_PAIR_ROW                                                          \
	{                                                                        \
		"pair", PS_OPT_PAIR, PS_ARG_REQUIRED, "[NAME=]START,END[:KEYS]", \
		        "give END samples a field NAME (default duration):\n"    \
		        "the ns since the START with the same KEYS\n"            \
		        "(default: the same thread); repeatable",                \
		        PS_OPTG_PAIR, 0                                          \
	}

#define PS_ARGS_MAX 64

/* the rows of a program's own: getopt's list (PS_ARGS_MAX) also holds -h and -V */
#define PS_OPTS_MAX (PS_ARGS_MAX - 2)

/**
 * struct ps_cmdline - a program's command line, in the order --help prints it.
 * @usage: the usage line, "usage: PROG ...\n": the SYNOPSIS of its page, word for word
 * @about: the paragraph --help prints after it, or NULL
 * @opts: the options (without -h and -V, which every program has), written out in the
 *        initializer; the rows after them are zero, the end of the table
 * @epilog: text after the options in --help, or NULL
 * @in_order: options stop at the first operand (precord: the command's own follow)
 */
struct ps_cmdline {
	const char *usage;
	const char *about;
	struct ps_opt opts[PS_OPTS_MAX + 1];
	const char *epilog;
	bool in_order;
};

/**
 * struct ps_common_opts - what the shared rows set; zero when not given.
 * @output: -o FILE ("-" is standard output), or NULL
 * @force: -f
 * @quiet: -q
 * @sym: --symfs, --kallsyms, --no-symbols (sym.off)
 * @pairs, @npairs: --pair specs, checked (for ps_reader_opts.pairs)
 */
struct ps_common_opts {
	const char *output;
	bool force;
	bool quiet;
	struct ps_symbols_opts sym;
	const char *pairs[PS_DUR_MAX_PAIRS];
	size_t npairs;
};

/**
 * struct ps_args - the parser's state, on the caller's stack.
 * @arg: the argument of the option ps_args__next() returned, or NULL
 * @optind: after the last ps_args__next(), the index of the first operand in argv
 * @flags: the struct the PS_OPTG_FLAG rows set a bool of (set after ps_args__init())
 */
struct ps_args {
	const struct ps_cmdline *cl;
	struct ps_common_opts *common;
	int argc;
	char **argv;
	const char *arg;
	int optind;
	void *flags;
	struct option *longopts; /* built from the table, PS_ARGS_MAX at most */
	char shortopts[2 + 3 * PS_ARGS_MAX];
	struct option longbuf[PS_ARGS_MAX + 3];
};

/**
 * ps_args__init() - get ready to parse @argv by @cl; @common is cleared and filled as
 * the shared options come.  A table too large is our bug (abort).
 */
void ps_args__init(struct ps_args *a, const struct ps_cmdline *cl, int argc, char **argv,
                   struct ps_common_opts *common);

/**
 * ps_args__next() - the next option of the program's own, its argument in @a->arg.
 * --help and --version print and exit; a shared option is stored and skipped; a mistake
 * exits 2 after "PROG: unknown option '--x'" (or what else is wrong) and the usage line.
 * Return: the option's key, or -1 after the last option (operands from @a->optind).
 */
int ps_args__next(struct ps_args *a);

/**
 * ps_cmdline__help() - print the usage line, the about text, the options and the epilog
 * of @cl on @fp.
 */
void ps_cmdline__help(const struct ps_cmdline *cl, FILE *fp);

/**
 * ps_cmdline__usage() - print @cl's usage line on stderr and exit 2 (a command line that
 * cannot be used; the caller said why with ps_msg()).
 */
PS_NORETURN void ps_cmdline__usage(const struct ps_cmdline *cl);

#endif
