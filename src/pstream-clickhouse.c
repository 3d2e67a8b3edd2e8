// SPDX-License-Identifier: GPL-2.0-only
/*
 * pstream-clickhouse - a perf event stream inserted live into ClickHouse: the table typed
 * from the stream's own formats (schema.h), rows in batches through clickhouse-client,
 * batches spooled on disk and retried until the server takes them.  See
 * pstream-clickhouse(1).
 *
 * One process: the stream is read and turned into RowBinary rows (ptojson's values, plus
 * "host", "stack" and "batch"; JSON rows with --format json) spooled in batch files, while a
 * child inserts the previous batch: it makes the batch one Native block (native.h) and
 * runs clickhouse-client on it, so a slow or absent server never stops the reading until
 * the spool directory is full.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/abi.h"
#include "lib/compat.h"
#include "lib/diag.h"
#include "lib/input.h"
#include "lib/io.h"
#include "lib/native.h"
#include "lib/nats.h"
#include "lib/nats_feed.h"
#include "lib/reader.h"
#include "lib/rowbinary.h"
#include "lib/opts.h"
#include "lib/sample.h"
#include "lib/sample_json.h"
#include "lib/schema.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/spool.h"
#include "lib/symbols.h"
#include "lib/xalloc.h"

enum {
	OPT_CLIENT = PS_OPT_LONG,
	OPT_DURABLE,
	OPT_FOLLOW,
	OPT_FORMAT,
	OPT_HOSTNAME,
	OPT_NATS,
	OPT_NO_CREATE,
	OPT_SPOOL,
	OPT_SPOOL_MAX,
};

#define IDLE_MS 100
#define ORDER_CAP (64u << 20)
#define MAX_ROWS 1000000u
#define MAX_SETTINGS 64
#define BACKOFF_MIN_MS 250
#define BACKOFF_MAX_MS 10000

struct opts {
	const char *database, *host, *port, *table, *client, *hostname, *spool, *input;
	const char *nats_url, *durable; /* --nats */
	char **subjects;                /* --nats: the operands */
	int nr_subjects;
	bool follow;
	const char *settings[MAX_SETTINGS];
	int nr_settings;
	uint64_t rows;
	uint64_t interval_ms;
	uint64_t spool_max;
	bool create, verbose, no_symbols;
	bool json;      /* --format json: rows as JSONEachRow */
	bool rowbinary; /* --format rowbinary: batches sent as they are spooled */
	struct ps_symbols_opts sym;
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: pstream-clickhouse [-v] [-d database] [-H host] [-i seconds] [-n rows] [-P port] [-s name[=value]] [-t table] [--no-symbols] [option ...] [file] | --nats=url subject ...\n",
	.about = "Insert a perf event stream into ClickHouse, live, in batches: the table is\n"
	         "created from the stream's formats when absent; batches wait on disk while the\n"
	         "server is down and are retried, each exactly once.\n",
	.opts = {
		PS_OPT("database", 'd', PS_ARG_REQUIRED, "NAME",
		       "the database (default: the client's, \"default\")"),
		PS_OPT_STRING("host", 'H', "HOST", "the ClickHouse server (default localhost)",
		              struct opts, host),
		PS_OPT("interval", 'i', PS_ARG_REQUIRED, "SEC",
		       "insert at least every SEC seconds (default 1)"),
		PS_OPT("rows", 'n', PS_ARG_REQUIRED, "N",
		       "insert every N rows (default 100000, at most 1000000)"),
		PS_OPT("port", 'P', PS_ARG_REQUIRED, "PORT", "the server's native TCP port (default 9000)"),
		PS_OPT("setting", 's', PS_ARG_REQUIRED, "N[=V]",
		       "pass --N[=V] to clickhouse-client (user, password, secure,\n"
		       "any client setting); repeatable"),
		PS_OPT("table", 't', PS_ARG_REQUIRED, "NAME",
		       "the table, NAME or DATABASE.NAME (default pstream)"),
		PS_OPT_STRING("client", OPT_CLIENT, "PROG",
		              "the client program (default clickhouse-client)", struct opts, client),
		PS_OPT_STRING("hostname", OPT_HOSTNAME, "NAME",
		              "the host column (default: the stream's hostname)", struct opts,
		              hostname),
		PS_OPT("format", OPT_FORMAT, PS_ARG_REQUIRED, "FMT",
		       "rows travel as native (default), rowbinary or json"),
		PS_OPT("no-create", OPT_NO_CREATE, PS_ARG_NONE, NULL, "do not create the table"),
		PS_OPT_STRING("nats", OPT_NATS, "URL",
		              "read the operands' subjects from NATS at URL, exactly once",
		              struct opts, nats_url),
		PS_OPT_STRING("durable", OPT_DURABLE, "NAME",
		              "--nats: whose place is kept (default pstream-clickhouse)",
		              struct opts, durable),
		PS_OPT_FLAG("follow", OPT_FOLLOW, "--nats: stay for each subject's next recording",
		            struct opts, follow),
		{ "no-symbols", PS_OPT_NO_SYMBOLS, PS_ARG_NONE, NULL,
		  "addresses only: the sym, symoff, dso columns stay empty", PS_OPTG_NO_SYMBOLS, 0 },
		PS_OPT("spool", OPT_SPOOL, PS_ARG_REQUIRED, "DIR",
		       "keep batches in DIR (default: a new temporary directory);\n"
		       "batches left there by an earlier run are inserted first"),
		PS_OPT("spool-max", OPT_SPOOL_MAX, PS_ARG_REQUIRED, "MIB",
		       "stop reading when the spool holds MIB MiB (default 1024)"),
		PS_OPT_SYMBOL_FILES_ROWS,
		PS_OPT("verbose", 'v', PS_ARG_NONE, NULL, "report every batch on standard error"),
	},
};

static uint64_t parse_seconds_ms(const char *arg, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0.05 || v > 86400)
		ps_usage_error("%s: '%s' is not a number of seconds from 0.05 to 86400", what, arg);
	return (uint64_t)(v * 1000 + 0.5);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	int c;

	memset(o, 0, sizeof(*o));
	o->host = "localhost";
	o->table = "pstream";
	o->client = "clickhouse-client";
	o->rows = 100000;
	o->interval_ms = 1000;
	o->spool_max = 1024;
	o->create = true;
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'P':
			ps_parse_u64(a.arg, 1, 65535, "--port");
			o->port = a.arg;
			break;
		case 'd':
			if (!ps_schema__valid_table(a.arg) || strchr(a.arg, '.'))
				ps_usage_error(
				        "--database: '%s' is not a name (letters, digits, _)",
				        a.arg);
			o->database = a.arg;
			break;
		case 'i':
			o->interval_ms = parse_seconds_ms(a.arg, "--interval");
			break;
		case 'n':
			o->rows = ps_parse_u64(a.arg, 1, MAX_ROWS, "--rows");
			break;
		case 's':
			if (o->nr_settings == MAX_SETTINGS)
				ps_usage_error("--setting: at most %d", MAX_SETTINGS);
			if (!*a.arg || *a.arg == '-' || *a.arg == '=')
				ps_usage_error("--setting: '%s' is not NAME or NAME=VALUE", a.arg);
			o->settings[o->nr_settings++] = a.arg;
			break;
		case 't':
			if (!ps_schema__valid_table(a.arg))
				ps_usage_error("--table: '%s' is not NAME or DATABASE.NAME", a.arg);
			o->table = a.arg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_FORMAT:
			o->json = strcmp(a.arg, "json") == 0;
			o->rowbinary = strcmp(a.arg, "rowbinary") == 0;
			if (!o->json && !o->rowbinary && strcmp(a.arg, "native") != 0)
				ps_usage_error("--format: '%s' is not native, rowbinary or json",
				               a.arg);
			break;
		case OPT_NO_CREATE:
			o->create = false;
			break;
		case OPT_SPOOL:
			o->spool = a.arg;
			break;
		case OPT_SPOOL_MAX:
			o->spool_max = ps_parse_u64(a.arg, 1, 1u << 20, "--spool-max");
			break;
		}
	}
	o->sym = co.sym;
	o->no_symbols = co.sym.off;
	if (!o->nats_url && (o->durable || o->follow))
		ps_usage_error("--durable and --follow are for --nats");
	if (o->nats_url) {
		if (a.optind == argc)
			ps_usage_error("--nats: name the subjects to read");
		o->subjects = argv + a.optind;
		o->nr_subjects = argc - a.optind;
		if (!o->durable)
			o->durable = "pstream-clickhouse";
		a.optind = argc;
	}
	if (argc - a.optind > 1)
		ps_usage_error("one input at most");
	if (o->database && strchr(o->table, '.'))
		ps_usage_error("--database with a --table that names its database");
	o->input = a.optind < argc ? argv[a.optind] : "-";
}

/* ---- the spool: batches as files, sent in order ---- */

#define WBUF_SIZE (1u << 20)
#define RUN_ID_LEN PS_SPOOL_RUN_ID_LEN
#define CREATE_MAX (64u << 20)
#define MAX_COLUMN_LIST 100000 /* RowBinary's INSERT (...) within an argument's 128 KiB */
#define CLIENT_TIMEOUT_S 60    /* send, receive (connect: 10): a frozen server is a failed call */
#define SLOW_MS 10000          /* a call this long is said once */
#define STOP_CALL_MS 10000     /* after a stop request, a call gets this long */
#define STOP_ALL_MS 60000      /* and the inserts of what was read this long in all */

enum job {
	JOB_NONE,
	JOB_CREATE,  /* CREATE TABLE IF NOT EXISTS */
	JOB_CHECK,   /* how many rows of the head batch are in already */
	JOB_INSERT,  /* the head batch */
	JOB_COLUMNS, /* the table's column names (a RowBinary insert names its columns) */
};

struct loader {
	const struct opts *o;
	char *dir;
	bool own_dir; /* made by us: removed at the end when empty */
	int lock_fd;  /* SPOOL/.lock, held by us and by every client we start */
	char qtable[300];
	char run_id[RUN_ID_LEN + 1];
	uint64_t seq;
	struct ps_spool_queue bq; /* the sealed batches, first first */
	uint64_t spooled;         /* bytes in sealed batches + the open one */
	char *stmts[2];           /* CREATE statements still to run, first first */
	int nstmts;
	bool ready; /* the table's statement is known (or none comes): batches may go */
	pid_t child;
	enum job job;
	int child_out, child_err; /* its standard output and error: memory files */
	uint64_t child_start_ms;
	bool child_slow; /* said that it takes long */
	uint64_t next_try_ms, backoff_ms;
	unsigned int failures;
	bool fatal;       /* an error a retry cannot mend: stop, keep the spool */
	uint64_t stop_ms; /* when a stop request was first seen */
	uint64_t inserted_rows, inserted_batches, dropped_rows;
	/* the batch being written: its rows on disk (cur_len bytes), then in out */
	char *cur_path; /* NULL: none open */
	int cur_fd;     /* -1: its file not created yet */
	char cur_id[64];
	uint64_t cur_rows, cur_start_ms;
	uint64_t cur_len, cur_rows_disk, buf_rows;
	struct ps_json_buf out; /* its rows not yet written (up to WBUF_SIZE) */
	bool bin;               /* the rows are RowBinary (not --format json) */
	const char *header;     /* bin: the batch files' header (rowbinary.h) */
	size_t header_len;
	struct ps_rowbinary_types types; /* bin: the header's column types */
	char **table_cols;               /* the table's columns, once asked */
	size_t nr_table_cols;
	bool cols_known, said_cols;
	/* --nats: a message is acknowledged once the batches with its rows are in */
	struct ps_nats_feed *feed;
	struct ps_reader *rd;
};

static volatile sig_atomic_t stop_requests;
/* --nats, while the subject is read: a first stop request ends the taking of messages
 * (nats_stop), and what was taken is read to its end, inserted and acknowledged */
static volatile sig_atomic_t nats_reading, nats_stop;

static void on_stop(int sig)
{
	(void)sig;
	if (stop_requests < 100)
		stop_requests++;
	if (nats_reading && stop_requests == 1)
		nats_stop = 1;
	else
		ps_stop = 1;
}

/* Milliseconds for batch ages and back-off: the coarse clock (a tick's resolution) is
 * plenty, and it is read for every record, where the precise one cost 5% of the run. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) < 0)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static PS_NORETURN void fatal_sys(const char *what, const char *path)
{
	struct ps_error err = { 0 };

	ps_error__sys(&err, PS_ESYS, path, "%s", what);
	ps_die(&err);
}

static char *xasprintf(const char *fmt, ...) PS_PRINTF(1, 2);

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		ps_die_nomem();
	return s;
}

/*
 * @s with the bytes outside printable ASCII as \xHH, in a new string: for a message (@quote
 * 0: a backslash as \x5c too; a file name is anyone's), or as a string literal of ClickHouse
 * (@quote '\'': in quotes, the quote and the backslash escaped with a backslash)
 */
static char *escaped(const char *s, char quote)
{
	char *t = malloc(strlen(s) * 4 + 3), *p = t;

	if (!t)
		ps_die_nomem();
	if (quote)
		*p++ = quote;
	for (; *s; s++)
		if (quote && (*s == quote || *s == '\\'))
			p += sprintf(p, "\\%c", *s);
		else if (*s >= 0x20 && *s < 0x7f && *s != '\\')
			*p++ = *s;
		else
			p += sprintf(p, "\\x%02x", (unsigned char)*s);
	if (quote)
		*p++ = quote;
	*p = 0;
	return t;
}

static char *printable(const char *s)
{
	return escaped(s, 0);
}

static char *sql_string(const char *s)
{
	return escaped(s, '\'');
}

static PS_NORETURN void queue_full(struct loader *l)
{
	ps_msg("%s: too many batches waiting", l->dir);
	exit(1);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The open batch of a run that was killed: its complete rows are a batch (renamed to .json
 * or .rb), a row cut short at its end is dropped.  Return false when no complete row is left.
 */
static bool resume_part(struct loader *l, const char *name, struct ps_batch *b)
{
	struct ps_error err = { 0 };
	char *part = xasprintf("%s/%s", l->dir, name);
	uint64_t size = 0;

	if (ps_spool__cut(part, b, &size, &err) < 0)
		ps_die(&err);
	if (!b->rows) {
		ps_msg("%s: %s: the open batch of an interrupted run holds no complete row: removed",
		       l->dir, name);
		unlink(part);
		free(part);
		return false;
	}
	b->path = xasprintf("%.*s%s", (int)(strlen(part) - 5), part, b->bin ? "" : ".json");
	if (rename(part, b->path) < 0)
		fatal_sys("cannot rename", part);
	ps_msg("%s: %s: the open batch of an interrupted run: its %" PRIu64
	       " complete rows go in%s",
	       l->dir, name, b->rows,
	       b->bytes < size ? " (a row cut short at its end is dropped)" : "");
	free(part);
	return true;
}

/*
 * The spool is ours alone while we run, and while any client we started runs: a client
 * outlives a loader killed with SIGKILL (it has a process group of its own) and may still
 * insert a batch, which a new run must not check before the insert has ended.
 */
static void spool_lock(struct loader *l)
{
	char *p = xasprintf("%s/.lock", l->dir);

	l->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (l->lock_fd < 0)
		fatal_sys("cannot open the spool's lock", p);
	if (flock(l->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			fatal_sys("cannot lock", p);
		ps_msg("%s: in use by another pstream-clickhouse, or by a client it started that "
		       "still runs: waiting until it ends",
		       l->dir);
		while (flock(l->lock_fd, LOCK_EX) < 0) {
			if (errno != EINTR)
				fatal_sys("cannot lock", p);
			if (ps_stop) {
				ps_msg("%s: stopped while waiting for the spool", l->dir);
				exit(1);
			}
		}
		ps_msg("%s: free now", l->dir);
	}
	free(p);
}

/*
 * The CREATE statement of the table the spool's batches are for, kept beside them (first
 * line: the table), so that a run without a stream can create the table before it checks
 * and inserts them.
 */
static void spool_save_create(struct loader *l, const char *stmt)
{
	char *tmp = xasprintf("%s/.create.tmp", l->dir), *p = xasprintf("%s/.create", l->dir);
	FILE *f = fopen(tmp, "we");
	bool ok = f && fprintf(f, "%s\n%s", l->qtable, stmt) >= 0;

	if (f && fclose(f) != 0)
		ok = false;
	if (!ok || rename(tmp, p) < 0)
		unlink(tmp); /* a full spool: a later run without a stream cannot create it */
	free(tmp);
	free(p);
}

static void queue_statement(struct loader *l, char *stmt)
{
	if (l->nstmts == (int)ARRAY_SIZE(l->stmts)) {
		free(stmt);
		return;
	}
	l->stmts[l->nstmts++] = stmt;
}

static void spool_load_create(struct loader *l)
{
	char *p = xasprintf("%s/.create", l->dir), *text, *nl;
	FILE *f = fopen(p, "re");
	size_t len;

	free(p);
	if (!f)
		return;
	text = malloc(CREATE_MAX + 1);
	if (!text)
		ps_die_nomem();
	len = fread(text, 1, CREATE_MAX, f);
	fclose(f);
	text[len] = 0;
	nl = strchr(text, '\n');
	if (!nl || !nl[1]) {
		free(text);
		return;
	}
	*nl = 0;
	if (strcmp(text, l->qtable) != 0) {
		char *t = printable(text);

		ps_msg("%s: its batches are for the table %s, not %s: give the same -d and -t",
		       l->dir, t, l->qtable);
		free(t);
		exit(2);
	}
	if (l->o->create)
		queue_statement(l, xasprintf("%s", nl + 1));
	free(text);
}

/* Batches an earlier run left in the spool go first, in their order. */
static void spool_resume(struct loader *l)
{
	DIR *d = opendir(l->dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;

	if (!d)
		fatal_sys("cannot open the spool directory", l->dir);
	while ((e = readdir(d))) {
		char id[64], *t;
		uint64_t seq;
		bool part, bin;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (!ps_spool__batch_name(e->d_name, id, sizeof(id), &seq, &part, &bin) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode)) {
			t = printable(e->d_name);
			ps_msg("%s: %s: not a batch of pstream-clickhouse: left alone", l->dir, t);
			free(t);
			continue;
		}
		char **nn = realloc(names, (n + 1) * sizeof(*names));

		if (!nn || !(nn[n] = strdup(e->d_name)))
			ps_die_nomem();
		names = nn;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		struct ps_batch b = { 0 };
		uint64_t seq;
		bool part;

		ps_spool__batch_name(names[i], b.id, sizeof(b.id), &seq, &part, &b.bin);
		if (part) {
			if (!resume_part(l, names[i], &b)) {
				free(names[i]);
				continue;
			}
		} else {
			b.path = xasprintf("%s/%s", l->dir, names[i]);
			ps_spool__count(&b);
		}
		b.tried = true; /* an earlier run may have sent it: check first */
		l->spooled += b.bytes;
		if (seq > l->seq)
			l->seq = seq; /* ours come after, in the same order */
		if (ps_spool_queue__push(&l->bq, &b) < 0)
			queue_full(l);
		free(names[i]);
	}
	free(names);
	if (l->bq.n) {
		ps_msg("%s: %zu batches from an earlier run go first", l->dir, l->bq.n);
		spool_load_create(l);
	}
}

static void loader_init(struct loader *l, const struct opts *o)
{
	struct ps_error err = { 0 };
	uint64_t rnd = 0;

	memset(l, 0, sizeof(*l));
	l->o = o;
	l->bin = !o->json;
	l->cur_fd = l->lock_fd = -1;
	l->child_out = l->child_err = -1;
	if (o->database)
		snprintf(l->qtable, sizeof(l->qtable), "`%s`.`%s`", o->database, o->table);
	else if (strchr(o->table, '.'))
		snprintf(l->qtable, sizeof(l->qtable), "`%.*s`.`%s`",
		         (int)(strchr(o->table, '.') - o->table), o->table,
		         strchr(o->table, '.') + 1);
	else
		snprintf(l->qtable, sizeof(l->qtable), "`%s`", o->table);
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint64_t)getpid() << 32 ^ now_ms();
	snprintf(l->run_id, sizeof(l->run_id), "%016" PRIx64, rnd);
	if (o->spool) {
		if (mkdir(o->spool, 0700) < 0 && errno != EEXIST)
			fatal_sys("cannot create the spool directory", o->spool);
		if (ps_spool__check_dir(o->spool, &err) < 0)
			ps_die(&err);
		l->dir = xasprintf("%s", o->spool);
		spool_lock(l);
		spool_resume(l);
	} else {
		const char *tmp = getenv("TMPDIR");

		l->dir = xasprintf("%s/pstream-clickhouse.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(l->dir))
			fatal_sys("cannot create the spool directory", l->dir);
		l->own_dir = true;
		spool_lock(l);
	}
	/* the batches wait for the table's statement, from the spool or the stream */
	l->ready = !o->create || l->nstmts;
	l->backoff_ms = BACKOFF_MIN_MS;
}

/* --setting gave @name a value (the client refuses an option twice) */
static bool user_setting(const struct opts *o, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < o->nr_settings; i++)
		if (strncmp(o->settings[i], name, n) == 0 &&
		    (o->settings[i][n] == 0 || o->settings[i][n] == '='))
			return true;
	return false;
}

static int memory_file(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		fatal_sys("cannot create a memory file", name);
	return fd;
}

/* Where the Native block goes: a memory file, mapped with its pages in place (a fault per
 * page costs more than the copy of its bytes). */
struct block_file {
	int fd;
	char *map;
	size_t size;
};

static char *place_block(void *arg, size_t size)
{
	struct block_file *bf = arg;

	if (!size || ftruncate(bf->fd, (off_t)size) < 0)
		return NULL;
	bf->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, bf->fd, 0);
	if (bf->map == MAP_FAILED) {
		bf->map = NULL;
		return NULL;
	}
	bf->size = size;
	return bf->map;
}

/*
 * In the child, before the client runs: the RowBinary batch open on @in as one Native
 * block (native.h) in a memory file, the client's input: its rows in the order of the
 * table's key (schema.h's ORDER BY), which spares the server its sort.  Done here, the
 * work goes on beside the reading of the stream (glibc's malloc is usable after a fork).
 * A batch it cannot read ends the child as the server's refusal of bad data would: a
 * message without a code, an error that stops the loader and keeps the spool.
 */
static int native_block(int in)
{
	static const char *const key[] = { "host", "event", "time" };
	struct block_file bf = { .fd = memfd_create("block", MFD_CLOEXEC) };
	struct stat st;
	const char *m;
	size_t len = 0;
	long rows;

	if (fstat(in, &st) < 0 || st.st_size <= 0 ||
	    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, in, 0)) ==
	            MAP_FAILED) {
		dprintf(2, "cannot read the batch: %s\n", strerror(errno));
		_exit(1);
	}
	if (bf.fd < 0) {
		dprintf(2, "cannot create a memory file: %s\n", strerror(errno));
		_exit(1);
	}
	rows = ps_native__place(m, (size_t)st.st_size, key, ARRAY_SIZE(key), place_block, &bf,
	                        &len);
	if (rows < 0) {
		dprintf(2, "%s\n",
		        rows == -2 ? "out of memory" :
		                     "the batch is not RowBinary rows as written here");
		_exit(1);
	}
	munmap((void *)m, (size_t)st.st_size);
	munmap(bf.map, bf.size);
	/* the block is shorter than the room it was given */
	if (ftruncate(bf.fd, (off_t)len) < 0) {
		dprintf(2, "cannot write the block to a memory file: %s\n", strerror(errno));
		_exit(1);
	}
	return bf.fd;
}

/*
 * Run the client on a statement (@stmt, on its standard input: an argument is capped at
 * 128 KiB) or on the insert of the batch open on @in (@native: made a Native block first,
 * native_block()).  Its output and errors go to memory files, not to the spool, which may
 * be full.  It inherits the spool's lock (spool_lock()).
 */
static void spawn_client(struct loader *l, const char *stmt, int in, const char *insert,
                         bool native)
{
	static const char *const timeouts[] = { "connect_timeout", "send_timeout",
		                                "receive_timeout" };
	const struct opts *o = l->o;
	char *argv[MAX_SETTINGS + 16];
	char *own[MAX_SETTINGS + 8];
	int argc = 0, nown = 0, i;
	pid_t pid;

	argv[argc++] = (char *)o->client;
	argv[argc++] = own[nown++] = xasprintf("--host=%s", o->host);
	if (o->port)
		argv[argc++] = own[nown++] = xasprintf("--port=%s", o->port);
	/* the loader's defaults, unless --setting says otherwise */
	for (i = 0; i < (int)ARRAY_SIZE(timeouts); i++)
		if (!user_setting(o, timeouts[i]))
			argv[argc++] = own[nown++] =
			        xasprintf("--%s=%d", timeouts[i], i ? CLIENT_TIMEOUT_S : 10);
	if (!stmt && !insert) {
		if (!user_setting(o, "input_format_import_nested_json"))
			argv[argc++] = "--input_format_import_nested_json=1";
		if (!user_setting(o, "input_format_skip_unknown_fields"))
			argv[argc++] = "--input_format_skip_unknown_fields=1";
	} else if (stmt) {
		size_t len = strlen(stmt);

		if (len > 200000 && !user_setting(o, "max_query_size"))
			argv[argc++] = own[nown++] = xasprintf("--max_query_size=%zu", len + 4096);
		argv[argc++] = "--multiquery";
	}
	for (i = 0; i < o->nr_settings; i++)
		argv[argc++] = own[nown++] = xasprintf("--%s", o->settings[i]);
	if (insert)
		argv[argc++] = own[nown++] = xasprintf("--query=%s", insert);
	else if (!stmt)
		argv[argc++] = own[nown++] =
		        xasprintf("--query=INSERT INTO %s FORMAT JSONEachRow", l->qtable);
	argv[argc] = NULL;
	if (stmt) {
		size_t len = strlen(stmt), done = 0;

		in = memory_file("statement");
		while (done < len) {
			ssize_t n = write(in, stmt + done, len - done);

			if (n <= 0 && errno != EINTR)
				fatal_sys("cannot write", "a memory file");
			done += n > 0 ? (size_t)n : 0;
		}
		lseek(in, 0, SEEK_SET);
	}
	l->child_out = memory_file("stdout");
	l->child_err = memory_file("stderr");

	/* the child does only what is safe after a fork beside the read-ahead thread */
	pid = fork();
	if (pid == 0) {
		if (dup2(l->child_out, 1) < 0 || dup2(l->child_err, 2) < 0)
			_exit(127);
		/* the lock is held until the client has ended, even if we are killed */
		fcntl(l->lock_fd, F_SETFD, 0);
		ps_signals__child_reset();
		/* a Ctrl-C for the pipeline is ours to handle: the insert finishes */
		setpgid(0, 0);
		if (native)
			in = native_block(in);
		if (dup2(in, 0) < 0)
			_exit(127);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(in);
	for (i = 0; i < nown; i++)
		free(own[i]);
	if (pid < 0)
		fatal_sys("cannot fork", o->client);
	l->child = pid;
	l->child_start_ms = now_ms();
	l->child_slow = false;
}

/* What the client wrote to @fd (NUL-terminated, at most @len - 1 bytes). */
static void read_memory_file(int fd, char *buf, size_t len)
{
	ssize_t n = fd >= 0 ? pread(fd, buf, len - 1, 0) : -1;

	buf[n > 0 ? n : 0] = 0;
}

static void close_child_files(struct loader *l)
{
	if (l->child_out >= 0)
		close(l->child_out);
	if (l->child_err >= 0)
		close(l->child_err);
	l->child_out = l->child_err = -1;
}

/* The client's error line (the one with the server's "Code: N."), for the message. */
static void client_error(struct loader *l, char *buf, size_t len)
{
	char text[65536], *line, *save = NULL;

	read_memory_file(l->child_err, text, sizeof(text));
	buf[0] = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!buf[0] || strstr(line, "Code: ")) {
			snprintf(buf, len, "%s", line);
			if (strstr(line, "Code: "))
				break;
		}
	}
}

/*
 * Errors that a retry cannot mend: the client could not run or was given a bad option
 * (no server code), or the server refused the statement itself (unknown table or
 * database, syntax, data it cannot parse, access).  Everything else, first of all the
 * network errors of a server that is down or restarting, is retried.
 */
static bool permanent(const char *msg)
{
	static const int codes[] = { 16, 26, 27,  36,  44,  47,  53,  57,  60,  62,  69, 70,
		                     72, 81, 115, 117, 164, 192, 193, 194, 195, 497, 516 };
	const char *c = strstr(msg, "Code: ");
	int code;

	if (!c)
		return true;
	code = atoi(c + 6);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i] == code)
			return true;
	return false;
}

static const char *job_name(enum job job)
{
	return job == JOB_CREATE  ? "create table" :
	       job == JOB_CHECK   ? "batch check" :
	       job == JOB_COLUMNS ? "column list" :
	                            "insert";
}

/*
 * The INSERT of a RowBinary batch: its header's column list (which names the columns,
 * quoted as the CREATE statement quotes them); @in is left where the rows start.
 */
static char *insert_query(struct loader *l, const struct ps_batch *b, int in, const char *format)
{
	size_t len = b->data_off;
	char *h, *nl, *q;
	ssize_t n;

	if (!len || len > (1u << 20))
		fatal_sys("not a batch", b->path);
	h = malloc(len + 1);
	if (!h)
		ps_die_nomem();
	n = pread(in, h, len, 0);
	if (n != (ssize_t)len)
		fatal_sys("cannot read", b->path);
	h[len] = 0;
	nl = strchr(h, '\n');
	if (!nl || nl - h > MAX_COLUMN_LIST) {
		ps_msg("%s: its column list is missing or too long for an argument", b->path);
		exit(1);
	}
	*nl = 0;
	q = xasprintf("INSERT INTO %s %s FORMAT %s", l->qtable, h, format);
	free(h);
	if (lseek(in, (off_t)b->data_off, SEEK_SET) < 0)
		fatal_sys("cannot seek", b->path);
	return q;
}

static bool table_has(const struct loader *l, const char *name)
{
	for (size_t i = 0; i < l->nr_table_cols; i++)
		if (strcmp(l->table_cols[i], name) == 0)
			return true;
	return false;
}

/*
 * A RowBinary insert names its columns, and the server refuses a name the table lacks,
 * where JSON rows had their unknown keys skipped: a batch with columns the table lacks
 * (a table made for another stream) is rewritten without them before it goes in.
 */
static void fit_batch(struct loader *l, struct ps_batch *b)
{
	struct ps_json_buf out = { 0 };
	char **names = NULL, *tmp;
	size_t n = 0, i, missing = 0, first = 0;
	bool *keep;
	const char *m, *nl;
	uint64_t size;
	long rows;
	int fd;

	if (!l->nr_table_cols)
		return; /* no such table: the insert says so */
	fd = open(b->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		fatal_sys("cannot open", b->path);
	size = ps_spool__file_size(fd);
	m = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (m == MAP_FAILED)
		fatal_sys("cannot read", b->path);
	nl = memchr(m, '\n', size);
	if (!nl || ps_rowbinary__names(m, (size_t)(nl - m), &names, &n) < 0) {
		munmap((void *)m, size);
		return; /* the insert says what is wrong */
	}
	keep = calloc(n ? n : 1, sizeof(*keep));
	if (!keep)
		ps_die_nomem();
	for (i = 0; i < n; i++)
		if (!(keep[i] = table_has(l, names[i])) && !missing++)
			first = i;
	if (!missing || missing == n) {
		munmap((void *)m, size);
		ps_rowbinary__names_free(names, n);
		free(keep);
		return;
	}
	if (!l->said_cols) {
		char *t = printable(names[first]);

		ps_msg("%s has no column %s%s: those values are left out", l->qtable, t,
		       missing > 1 ? " (and others)" : "");
		free(t);
		l->said_cols = true;
	}
	rows = ps_rowbinary__project(m, size, keep, &out);
	munmap((void *)m, size);
	ps_rowbinary__names_free(names, n);
	free(keep);
	if (out.failed)
		ps_die_nomem();
	if (rows < 0) {
		ps_json_buf__release(&out);
		return;
	}
	tmp = xasprintf("%s/.fit", l->dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		fatal_sys("cannot create", tmp);
	for (size_t done = 0; done < out.len;) {
		ssize_t w = write(fd, out.p + done, out.len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			fatal_sys("write error", tmp);
		done += (size_t)w;
	}
	if (close(fd) < 0 || rename(tmp, b->path) < 0)
		fatal_sys("cannot rewrite", b->path);
	free(tmp);
	l->spooled -= b->bytes < l->spooled ? b->bytes : l->spooled;
	l->spooled += out.len;
	b->bytes = out.len;
	b->data_off = (uint64_t)(memchr(memchr(out.p, '\n', out.len) + 1, '\n', out.len) + 1 -
	                         (void *)out.p);
	ps_json_buf__release(&out);
}

/* What the client wrote to its standard output: malloc'd, NUL-terminated, at most @max
 * bytes of it. */
static char *child_output(struct loader *l, uint64_t max)
{
	uint64_t size = ps_spool__file_size(l->child_out);
	char *text;

	if (size > max)
		size = max;
	text = malloc(size + 1);
	if (!text)
		ps_die_nomem();
	read_memory_file(l->child_out, text, size + 1);
	return text;
}

#define COLUMNS_MAX (64u << 20) /* bytes of a column list query's output */

/* The column names of @text (the column list query's: one a line, in hex), kept. */
static void keep_columns(struct loader *l, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line) / 2, i;
		char *name = malloc(len + 1), **nc;

		if (!name)
			ps_die_nomem();
		for (i = 0; i < len; i++) {
			unsigned int v;

			if (sscanf(line + 2 * i, "%2x", &v) != 1)
				v = '?';
			name[i] = (char)v;
		}
		name[len] = 0;
		nc = realloc(l->table_cols, (l->nr_table_cols + 1) * sizeof(*nc));
		if (!nc)
			ps_die_nomem();
		l->table_cols = nc;
		l->table_cols[l->nr_table_cols++] = name;
	}
	l->cols_known = true;
}

static void read_columns(struct loader *l)
{
	char *text = child_output(l, COLUMNS_MAX);

	keep_columns(l, text);
	free(text);
}

/* The query of the table's column names, one a line, in hex (none: no such table). */
static char *columns_query(const struct loader *l)
{
	const char *dot = strchr(l->o->table, '.');
	char *db = l->o->database ? sql_string(l->o->database) :
	           dot            ? xasprintf("'%.*s'", (int)(dot - l->o->table), l->o->table) :
	                            xasprintf("currentDatabase()"),
	     *t = sql_string(dot ? dot + 1 : l->o->table),
	     *q = xasprintf("SELECT hex(name) FROM system.columns WHERE database = %s AND "
	                    "table = %s FORMAT TSV",
	                    db, t);

	free(t);
	free(db);
	return q;
}

static void start_job(struct loader *l)
{
	struct ps_batch *b = l->bq.n ? &l->bq.q[l->bq.head] : NULL;

	if (l->nstmts) {
		l->job = JOB_CREATE;
		spawn_client(l, l->stmts[0], -1, NULL, false);
	} else if (b && b->tried) {
		/* the id is the loader's own pattern (ps_spool__batch_name()), quoted all the same */
		char *id = sql_string(b->id),
		     *q = xasprintf("SELECT count() FROM %s WHERE batch = %s", l->qtable, id);

		l->job = JOB_CHECK;
		spawn_client(l, q, -1, NULL, false);
		free(q);
		free(id);
	} else if (b && b->bin && !l->cols_known) {
		char *q = columns_query(l);

		l->job = JOB_COLUMNS;
		spawn_client(l, q, -1, NULL, false);
		free(q);
	} else if (b) {
		int in;
		char *insert = NULL;

		if (b->bin)
			fit_batch(l, b);
		in = open(b->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (in < 0)
			fatal_sys("cannot open", b->path);
		if (b->bin)
			insert = insert_query(l, b, in, l->o->rowbinary ? "RowBinary" : "Native");
		l->job = JOB_INSERT;
		b->tried = true;
		spawn_client(l, NULL, in, insert, b->bin && !l->o->rowbinary);
		free(insert);
	}
}

static void batch_done(struct loader *l, const char *how)
{
	struct ps_batch *b = &l->bq.q[l->bq.head];

	if (l->feed && b->ack)
		ps_nats_feed__ack(l->feed, b->ack);
	if (l->o->verbose)
		ps_msg("batch %s: %" PRIu64 " rows %s", b->id, b->rows, how);
	l->inserted_rows += b->rows;
	l->inserted_batches++;
	unlink(b->path);
	free(b->path);
	l->spooled -= b->bytes < l->spooled ? b->bytes : l->spooled;
	l->bq.head++;
	l->bq.n--;
}

static void job_finished(struct loader *l, int status)
{
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	enum job job = l->job;
	char msg[512];

	l->child = 0;
	l->job = JOB_NONE;
	if (ok && job == JOB_CHECK) {
		char text[64];
		unsigned long long have = 0;
		struct ps_batch *b = &l->bq.q[l->bq.head];

		read_memory_file(l->child_out, text, sizeof(text));
		ok = sscanf(text, "%llu", &have) == 1;
		if (ok && have == b->rows) {
			batch_done(l, "were in already");
		} else if (ok && have == 0) {
			b->tried = false; /* not in: insert it */
		} else if (ok) {
			ps_msg("batch %s: %llu of its %" PRIu64
			       " rows are in the table; not inserted again",
			       b->id, have, b->rows);
			batch_done(l, "partly in");
		}
	} else if (ok && job == JOB_INSERT) {
		batch_done(l, "inserted");
	} else if (ok && job == JOB_COLUMNS) {
		read_columns(l);
	} else if (ok && job == JOB_CREATE) {
		free(l->stmts[0]);
		l->stmts[0] = l->stmts[1];
		l->nstmts--;
	}
	if (ok) {
		close_child_files(l);
		if (l->failures)
			ps_msg("%s:%s: connected again; %zu batches waiting", l->o->host,
			       l->o->port ? l->o->port : "9000", l->bq.n);
		l->failures = 0;
		l->backoff_ms = BACKOFF_MIN_MS;
		l->next_try_ms = 0;
		return;
	}
	client_error(l, msg, sizeof(msg));
	close_child_files(l);
	if (permanent(msg)) {
		ps_msg("%s failed: %s", job_name(job), msg[0] ? msg : "clickhouse-client failed");
		l->fatal = true;
		return;
	}
	if (l->failures++ == 0 || l->o->verbose)
		ps_msg("%s failed, retrying (batches wait in %s): %s", job_name(job), l->dir,
		       msg[0] ? msg : "clickhouse-client failed");
	l->next_try_ms = now_ms() + l->backoff_ms;
	l->backoff_ms = l->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : l->backoff_ms * 2;
}

/* Stop the running client now: its batch is checked before it is inserted again. */
static void kill_child(struct loader *l)
{
	int status;

	if (!l->child)
		return;
	kill(-l->child, SIGKILL);
	kill(l->child, SIGKILL);
	while (waitpid(l->child, &status, 0) < 0 && errno == EINTR)
		;
	l->child = 0;
	l->job = JOB_NONE;
	close_child_files(l);
}

/* Move the loader on without blocking: reap a finished client, start the next one. */
static void pump(struct loader *l)
{
	int status;

	if (l->child) {
		pid_t r = waitpid(l->child, &status, WNOHANG);

		if (r == 0) {
			if (!l->child_slow && now_ms() - l->child_start_ms >= SLOW_MS) {
				l->child_slow = true;
				ps_msg("%s:%s: no answer for %d s (%s); waiting", l->o->host,
				       l->o->port ? l->o->port : "9000", SLOW_MS / 1000,
				       job_name(l->job));
			}
			return;
		}
		if (r < 0)
			status = 1 << 8;
		job_finished(l, status);
	}
	if (!l->child && !l->fatal && (l->nstmts || (l->ready && l->bq.n)) &&
	    now_ms() >= l->next_try_ms)
		start_job(l);
}

/*
 * After a stop request, what was read is still inserted, within bounds: a client call gets
 * STOP_CALL_MS, all of them STOP_ALL_MS; a failed call (the server is unreachable) or a
 * second request ends it at once.  Without a request, only a fatal error gives up.
 */
static bool give_up(struct loader *l)
{
	uint64_t t = now_ms();

	if (l->fatal)
		return true;
	if (!ps_stop)
		return false;
	if (!l->stop_ms)
		l->stop_ms = t;
	if (stop_requests > 1 || t - l->stop_ms >= STOP_ALL_MS)
		return true;
	if (l->child)
		return t - (l->child_start_ms > l->stop_ms ? l->child_start_ms : l->stop_ms) >=
		       STOP_CALL_MS;
	return l->failures > 0;
}

/* The open batch, created on its first row (its file on its first write); its id goes
 * into every row. */
static void current(struct loader *l)
{
	if (l->cur_path)
		return;
	l->seq++;
	snprintf(l->cur_id, sizeof(l->cur_id), "%s-%" PRIu64, l->run_id, l->seq);
	l->cur_path = xasprintf("%s/b-%012" PRIu64 "-%s%s.part", l->dir, l->seq, l->cur_id,
	                        l->bin ? ".rb" : "");
	l->cur_fd = -1;
	l->cur_rows = l->cur_rows_disk = l->buf_rows = l->cur_len = 0;
	l->cur_start_ms = now_ms();
}

static bool no_space(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

/*
 * The open batch's rows in memory to its file: large writes, one copy.  Return 0, or 1 when
 * the file system is full (the whole rows that fitted are written, the others stay in
 * memory), or -1 on another error.
 */
static int spill_some(struct loader *l, struct ps_error *err)
{
	size_t done = 0, rows = 0;

	if (!l->out.len)
		return 0;
	if (l->cur_fd < 0) {
		l->cur_fd = open(l->cur_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (l->cur_fd < 0)
			return no_space(errno) ?
			               1 :
			               ps_error__sys(err, PS_EWRITE, l->cur_path, "cannot create");
	}
	while (l->bin && l->cur_len < l->header_len) {
		/* a RowBinary batch starts with its header */
		ssize_t n = pwrite(l->cur_fd, l->header + l->cur_len, l->header_len - l->cur_len,
		                   (off_t)l->cur_len);

		if (n > 0) {
			l->cur_len += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && !no_space(errno))
			return ps_error__sys(err, PS_EWRITE, l->cur_path, "write error");
		return 1;
	}
	while (done < l->out.len) {
		ssize_t n = pwrite(l->cur_fd, l->out.p + done, l->out.len - done,
		                   (off_t)(l->cur_len + done));

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && !no_space(errno))
			return ps_error__sys(err, PS_EWRITE, l->cur_path, "write error");
		break;
	}
	if (done == l->out.len) {
		rows = l->buf_rows;
	} else if (l->bin) {
		/* whole rows only: a cut one is taken back */
		size_t at = 0;
		long r;

		while ((r = ps_rowbinary__row(&l->types, (const unsigned char *)l->out.p + at,
		                              done - at, NULL)) > 0) {
			at += (size_t)r;
			rows++;
		}
		done = at;
		if (ftruncate(l->cur_fd, (off_t)(l->cur_len + done)) < 0)
			return ps_error__sys(err, PS_EWRITE, l->cur_path, "write error");
	} else {
		/* whole rows only: a cut one is taken back */
		const char *nl = done ? memrchr(l->out.p, '\n', done) : NULL;

		done = nl ? (size_t)(nl - l->out.p) + 1 : 0;
		if (ftruncate(l->cur_fd, (off_t)(l->cur_len + done)) < 0)
			return ps_error__sys(err, PS_EWRITE, l->cur_path, "write error");
		for (const char *p = l->out.p; (p = memchr(p, '\n', (size_t)(l->out.p + done - p)));
		     p++)
			rows++;
	}
	l->cur_len += done;
	l->cur_rows_disk += rows;
	l->buf_rows -= rows;
	memmove(l->out.p, l->out.p + done, l->out.len - done);
	l->out.len -= done;
	return l->out.len ? 1 : 0;
}

/* The open batch's file (all its rows written) becomes a batch waiting its turn. */
static void seal_file(struct loader *l)
{
	struct ps_batch b = { 0 };

	if (l->cur_fd >= 0 && close(l->cur_fd) < 0)
		fatal_sys("write error", l->cur_path);
	l->cur_fd = -1;
	if (!l->cur_rows_disk) {
		unlink(l->cur_path);
	} else {
		b.path = xasprintf("%.*s%s", (int)(strlen(l->cur_path) - 5), l->cur_path,
		                   l->bin ? "" : ".json");
		if (rename(l->cur_path, b.path) < 0)
			fatal_sys("cannot rename", l->cur_path);
		b.bin = l->bin;
		b.data_off = l->bin ? l->header_len : 0;
		snprintf(b.id, sizeof(b.id), "%s", l->cur_id);
		b.rows = l->cur_rows_disk;
		b.bytes = l->cur_len;
		if (ps_spool_queue__push(&l->bq, &b) < 0)
			queue_full(l);
	}
	free(l->cur_path);
	l->cur_path = NULL;
}

/*
 * The spool is full and nothing else waits to be inserted: the open batch's rows on disk
 * become a batch of their own, and those still in memory a new open batch (their "batch"
 * values rewritten, each row ending with it).
 */
static void seal_written(struct loader *l)
{
	struct ps_json_buf rest = l->out, nb = { 0 };
	uint64_t rows = l->buf_rows;
	char old[64];
	size_t olen, i = 0;

	snprintf(old, sizeof(old), "%s", l->cur_id);
	olen = strlen(old);
	l->out = (struct ps_json_buf){ 0 };
	seal_file(l);
	current(l);
	while (l->bin && i < rest.len) {
		/* the batch id is the row's last column: a length byte and the id */
		size_t last = 0, idlen = strlen(l->cur_id);
		long r = ps_rowbinary__row(&l->types, (const unsigned char *)rest.p + i,
		                           rest.len - i, &last);

		if (r <= 0)
			break; /* cannot be: the rows are ours */
		ps_json__raw(&nb, rest.p + i, last);
		ps_json__char(&nb, (char)idlen);
		ps_json__raw(&nb, l->cur_id, idlen);
		i += (size_t)r;
	}
	while (!l->bin && i < rest.len) {
		const char *nl = memchr(rest.p + i, '\n', rest.len - i);
		size_t end = (size_t)(nl - rest.p) + 1;

		ps_json__raw(&nb, rest.p + i, end - i - (olen + 3));
		ps_json__raw(&nb, l->cur_id, strlen(l->cur_id));
		ps_json__raw(&nb, "\"}\n", 3);
		i = end;
	}
	if (nb.failed)
		ps_die_nomem();
	l->spooled += nb.len;
	l->spooled -= rest.len < l->spooled ? rest.len : l->spooled;
	ps_json_buf__release(&rest);
	l->out = nb;
	l->buf_rows = l->cur_rows = rows;
}

/*
 * The rows in memory to the open batch's file.  A full file system pauses the reading, as
 * --spool-max does, until inserted batches free some room (or some is freed by others);
 * rows that cannot be written by a stop are counted as dropped.  Return 0 or -1.
 */
static int spill(struct loader *l, struct ps_error *err)
{
	int r = spill_some(l, err);
	bool said = false;

	while (r == 1) {
		if (!said) {
			ps_msg("%s: no space left on device: reading paused until inserted batches "
			       "free some",
			       l->dir);
			said = true;
		}
		if (!l->bq.n && !l->child && l->cur_rows_disk)
			seal_written(l);
		pump(l);
		if (give_up(l)) {
			ps_msg("%s: no space left on device: %" PRIu64
			       " rows read are not in the spool, nor in the table",
			       l->dir, l->buf_rows);
			l->dropped_rows += l->buf_rows;
			l->cur_rows -= l->buf_rows;
			l->spooled -= l->out.len < l->spooled ? l->out.len : l->spooled;
			l->buf_rows = 0;
			l->out.len = 0;
			return 0;
		}
		sleep_ms(100);
		r = spill_some(l, err);
	}
	if (!r && said)
		ps_msg("%s: room again: reading goes on", l->dir);
	return r;
}

/*
 * --nats: the messages whose records were all handed out have their rows in the batches
 * sealed so far; they are acknowledged once the last of those is in (at once when none
 * waits).
 */
static void complete(struct loader *l)
{
	uint64_t seq = ps_nats_feed__complete(l->feed, ps_reader__done_offset(l->rd));

	if (!seq)
		return;
	if (l->bq.n)
		l->bq.q[l->bq.head + l->bq.n - 1].ack = seq;
	else
		ps_nats_feed__ack(l->feed, seq);
}

static void seal(struct loader *l)
{
	struct ps_error err = { 0 };

	if (l->cur_path) {
		if (spill(l, &err) < 0)
			ps_die(&err);
		seal_file(l);
	}
	if (l->feed)
		complete(l);
}

/* ---- the stream ---- */

/*
 * --nats: the places (stream sequence, offset in the message) of the rows already in the
 * table for messages not acknowledged: a set, open addressing.
 */
#define MAX_SEEN (16u << 20)

struct seen {
	struct seen_slot {
		uint64_t seq; /* 0: empty (a stream's sequences start at 1) */
		uint32_t off;
	} * v;
	size_t mask, n;
};

static size_t seen_slot(const struct seen *t, uint64_t seq, uint32_t off)
{
	uint64_t h = (seq * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)off * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ h >> 29) & t->mask;
}

static bool seen_has(const struct seen *t, uint64_t seq, uint32_t off)
{
	for (size_t i = seen_slot(t, seq, off); t->v[i].seq; i = (i + 1) & t->mask)
		if (t->v[i].seq == seq && t->v[i].off == off)
			return true;
	return false;
}

/* The set of the "SEQ<TAB>OFFSET" lines of @text (@n of them at most). */
static struct seen *seen_new(const char *text, size_t n)
{
	struct seen *t = calloc(1, sizeof(*t));
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	if (!t || !(t->v = calloc(cap, sizeof(*t->v))))
		ps_die_nomem();
	t->mask = cap - 1;
	for (const char *p = text; *p;) {
		char *end;
		unsigned long long seq = strtoull(p, &end, 10), off;

		if (*end == '\t') {
			off = strtoull(end + 1, &end, 10);
			if (seq && off <= UINT32_MAX && !seen_has(t, seq, (uint32_t)off)) {
				size_t i = seen_slot(t, seq, (uint32_t)off);

				while (t->v[i].seq)
					i = (i + 1) & t->mask;
				t->v[i].seq = seq;
				t->v[i].off = (uint32_t)off;
				t->n++;
			}
		}
		p = strchr(end, '\n');
		if (!p)
			break;
		p++;
	}
	return t;
}

static void seen_free(struct seen *t)
{
	if (t)
		free(t->v);
	free(t);
}

/*
 * The keys of ptojson's sample object that have no column (schema.h): nested objects and
 * arrays of objects, which ClickHouse 18.16 cannot load from JSONEachRow, and "type".  The
 * callchain is written apart, as the arrays of a Nested column (frames()).
 */
#define NO_COLUMN                                                                              \
	(1ull << PS_KEY_READ | 1ull << PS_KEY_CALLCHAIN | 1ull << PS_KEY_BRANCH_STACK |        \
	 1ull << PS_KEY_BRANCH_HW_IDX | 1ull << PS_KEY_REGS_USER | 1ull << PS_KEY_STACK_USER | \
	 1ull << PS_KEY_REGS_INTR | 1ull << PS_KEY_TYPE)

struct ctx {
	const struct opts *o;
	struct ps_reader *rd;
	struct ps_session *s;
	struct loader *l;
	struct ps_symbols *syms;            /* the reader's; NULL with --no-symbols */
	struct ps_sample_writer *w;         /* --format json */
	struct ps_rowbinary *rb;            /* else */
	struct ps_fold_buf fold;            /* the stack column */
	char *stream_host;                  /* the host column outside a merged stream's inputs */
	char *row_host;                     /* the writer's host now (NULL: stream_host) */
	uint64_t lost_chunks, lost_samples; /* what LOST and LOST_SAMPLES records said */
	bool header_done;
	/* --nats */
	const char *subject;
	struct ps_nats_feed *feed;
	struct seen *seen; /* the rows of messages delivered again that are in the table */
	uint64_t skipped_rows;
};

/* The header is read (first sample or end): the host name, the writer and the table. */
static int header_done(struct ctx *c, struct ps_error *err)
{
	char name[256];
	const char *host = c->o->hostname;

	c->header_done = true;
	if (!host)
		host = ps_session__feature_string(c->s, PS_FEAT_HOSTNAME, name, sizeof(name));
	if (!host || !*host) {
		if (gethostname(name, sizeof(name) - 1) < 0)
			strcpy(name, "unknown");
		name[sizeof(name) - 1] = 0;
		host = name;
	}
	c->stream_host = strdup(host);
	if (!c->stream_host)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	if (c->l->bin) {
		c->rb = ps_rowbinary__new(c->s, c->syms, host, c->feed ? PS_SCHEMA_NATS : 0, err);
		if (!c->rb)
			return -1;
		c->l->header = ps_rowbinary__header(c->rb);
		c->l->header_len = strlen(c->l->header);
		if (strchr(c->l->header, '\n') - c->l->header > MAX_COLUMN_LIST) {
			/* the INSERT's column list is an argument of the client, at most
			 * 128 KiB: thousands of columns travel as JSON, as they always did */
			ps_rowbinary__delete(c->rb);
			c->rb = NULL;
			c->l->bin = false;
			c->l->header = NULL;
		} else if (ps_rowbinary__parse_header(c->l->header, c->l->header_len,
		                                      &c->l->types) <= 0) {
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		}
	}
	if (!c->l->bin) {
		c->w = ps_sample_writer__new(c->s, PS_TIME_NS, NULL);
		if (!c->w || ps_sample_writer__set_host(c->w, host) < 0)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		ps_sample_writer__keep(c->w, ((1ull << PS_NR_SAMPLE_KEYS) - 1) & ~NO_COLUMN);
		ps_sample_writer__set_symbols(c->w, c->syms);
	}
	if (c->o->create) {
		const char *t = c->o->table;
		char full[300];

		if (c->o->database) {
			snprintf(full, sizeof(full), "%s.%s", c->o->database, c->o->table);
			t = full;
		}
		char *stmt = ps_schema__text(c->s, PS_SCHEMA_CLICKHOUSE, t,
		                             c->feed ? PS_SCHEMA_NATS : 0, err);

		if (!stmt)
			return -1;
		/* kept for a run without a stream, unless an earlier run's is still to run */
		if (!c->l->nstmts)
			spool_save_create(c->l, stmt);
		queue_statement(c->l, stmt);
	}
	c->l->ready = true;
	return 0;
}

/*
 * The callchain as the columns of a Nested "callchain": one array per member, frames as
 * ptojson names them, "" and 0 where a name is unknown (the arrays keep the same length).
 * Without symbols every frame is kept, as ptojson keeps them; with them, the frames
 * ps_symbols__frames() gives.
 */
static void frames(struct ctx *c, struct ps_json_buf *b, const struct ps_sample *smp)
{
	static const char *const member[] = { ",\"callchain\":{\"ip\":[", "],\"sym\":[",
		                              "],\"symoff\":[", "],\"dso\":[" };
	struct ps_frame f[PS_SYMBOLS_MAX_STACK];
	size_t n = 0, i, m;

	if (c->syms)
		n = ps_symbols__frames(c->syms, smp, f, PS_SYMBOLS_MAX_STACK);
	for (m = 0; m < 4; m++) {
		bool first = true;

		ps_json__raw(b, member[m], strlen(member[m]));
		for (i = 0; i < (c->syms ? n : smp->nr_callchain); i++) {
			const struct ps_symbol *sym =
			        c->syms ? &f[i].sym : &(struct ps_symbol){ 0 };
			const char *t = m == 1 ? sym->name : sym->dso;
			uint64_t ip = c->syms ? f[i].ip : ps_sample__u64(smp, smp->callchain, i);

			if (!c->syms && ip >= (uint64_t)PERF_CONTEXT_MAX)
				continue; /* a context marker, no frame */
			if (!first)
				ps_json__char(b, ',');
			first = false;
			if (m == 0)
				ps_json__hex(b, ip);
			else if (m == 2)
				ps_json__u64(b, sym->name ? sym->off : 0);
			else
				ps_json__string(b, t ? t : "", t ? strlen(t) : 0);
		}
	}
	ps_json__raw(b, "]}", 2);
}

/*
 * The host column of a merged stream's sample (pstream-nats sub of several subjects, pcat
 * --merge) is its input's (its recording's hostname, or the subject or file name when the
 * hostnames do not tell the inputs apart); --hostname names every row's.
 * Return: 0, or -1 when out of memory.
 */
static int row_host(struct ctx *c, const struct ps_sample *smp)
{
	const char *in = smp->attr && !c->o->hostname ? smp->attr->input : NULL;
	const char *want = in ? in : c->stream_host;
	const char *now = c->row_host ? c->row_host : c->stream_host;
	char *copy;

	if (strcmp(want, now) == 0)
		return 0;
	copy = in ? strdup(in) : NULL;
	if (in && !copy)
		return -1;
	if (c->rb ? ps_rowbinary__set_host(c->rb, want) < 0 :
	            ps_sample_writer__set_host(c->w, want) < 0) {
		free(copy);
		return -1;
	}
	free(c->row_host);
	c->row_host = copy;
	return 0;
}

static int emit(struct ctx *c, const struct ps_reader_event *ev, struct ps_error *err)
{
	struct loader *l = c->l;
	struct ps_json_buf *b = &l->out;
	const struct ps_record *rec = &ev->rec;
	const struct ps_sample *smp = &ev->smp;
	const char *comm = NULL;
	size_t start;
	uint64_t lost, seq = 0;
	uint32_t moff = 0;

	if (rec->type == PERF_RECORD_LOST &&
	    ps_record__get(rec, ps_session__swapped(c->s), "lost", &lost) == 0)
		c->lost_chunks += lost;
	else if (rec->type == PERF_RECORD_LOST_SAMPLES &&
	         ps_record__get(rec, ps_session__swapped(c->s), "lost", &lost) == 0)
		c->lost_samples += lost;
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	if (smp->type & PERF_SAMPLE_TID)
		comm = ps_session__comm(c->s, smp->tid);
	/* the folded stack, pcount --folded's line: with a call chain and its names */
	c->fold.len = 0;
	if ((smp->type & PERF_SAMPLE_CALLCHAIN) && c->syms &&
	    ps_symbols__fold(c->syms, smp, rec->misc, comm, &c->fold, err) < 0)
		return -1;
	if (row_host(c, smp) < 0)
		goto nomem;
	if (c->feed) {
		/* where the record was in NATS: a row already in the table is not again */
		if (ps_nats_feed__locate(c->feed, rec->offset, &seq, &moff) && c->seen &&
		    seen_has(c->seen, seq, moff)) {
			c->skipped_rows++;
			return 0;
		}
		if (c->rb && ps_rowbinary__set_nats(c->rb, c->subject, seq, moff) < 0)
			goto nomem;
	}
	current(l);
	start = b->len;
	if (c->rb) {
		if (ps_rowbinary__write(c->rb, b, smp, comm, rec->misc, c->fold.buf, c->fold.len,
		                        l->cur_id) < 0)
			goto nomem;
	} else {
		if (ps_sample_writer__write(c->w, b, smp, comm, rec->misc) < 0)
			goto nomem;
		/* the object without its closing brace, then the callchain, stack and batch */
		b->len--;
		if (smp->type & PERF_SAMPLE_CALLCHAIN)
			frames(c, b, smp);
		if (c->fold.len) {
			ps_json__raw(b, ",\"stack\":", 9);
			ps_json__string(b, c->fold.buf, c->fold.len);
		}
		if (c->feed) {
			ps_json__raw(b, ",\"nats_subject\":", 16);
			ps_json__string(b, c->subject, strlen(c->subject));
			ps_json__raw(b, ",\"nats_seq\":", 12);
			ps_json__u64(b, seq);
			ps_json__raw(b, ",\"nats_offset\":", 15);
			ps_json__u64(b, moff);
		}
		ps_json__raw(b, ",\"batch\":\"", 10);
		ps_json__raw(b, l->cur_id, strlen(l->cur_id));
		ps_json__raw(b, "\"}\n", 3);
	}
	if (b->failed)
		goto nomem;
	l->spooled += b->len - start;
	l->buf_rows++;
	if (++l->cur_rows >= c->o->rows)
		seal(l); /* full: the next row starts a new batch */
	else if (b->len >= WBUF_SIZE)
		return spill(l, err);
	return 0;
nomem:
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
}

/* Seal the open batch when it is full or old enough; move the loader on. */
static void tick(struct ctx *c)
{
	struct loader *l = c->l;

	if (l->cur_path &&
	    (l->cur_rows >= c->o->rows || now_ms() - l->cur_start_ms >= c->o->interval_ms))
		seal(l);
	else if (l->feed && !l->cur_path)
		complete(l); /* messages without rows */
	if (nats_stop && c->feed)
		ps_nats_feed__stop(c->feed);
	pump(l);
	/* a full spool stops the reading: the stream waits upstream */
	while (!ps_stop && !l->fatal && l->spooled >= c->o->spool_max << 20 &&
	       (l->bq.n || l->child)) {
		sleep_ms(50);
		pump(l);
	}
}

/*
 * End: every sealed batch into the table; after a stop request, within the bounds of
 * give_up().  Return -1 when batches are left in the spool or rows were dropped.
 */
static int finish(struct loader *l)
{
	seal(l);
	l->ready = true;
	while (l->nstmts || l->bq.n || l->child) {
		if (give_up(l)) {
			kill_child(l);
			break;
		}
		pump(l);
		if (l->child || l->nstmts || l->bq.n)
			sleep_ms(20);
	}
	if (l->bq.n || l->nstmts) {
		ps_msg("%zu batches not inserted are kept in %s (with the same options, --spool %s "
		       "and no input inserts them)",
		       l->bq.n, l->dir, l->dir);
		return -1;
	}
	return l->dropped_rows ? -1 : 0;
}

static void loader_cleanup(struct loader *l)
{
	char *p;

	if (l->bq.n == 0 && !l->cur_path) {
		/* nothing waits: no statement to keep */
		p = xasprintf("%s/.create", l->dir);
		unlink(p);
		free(p);
		if (l->own_dir) {
			p = xasprintf("%s/.lock", l->dir);
			unlink(p);
			free(p);
			rmdir(l->dir);
		}
	}
	if (l->lock_fd >= 0)
		close(l->lock_fd);
	free(l->dir);
	ps_spool_queue__release(&l->bq);
	ps_json_buf__release(&l->out);
	free(l->types.t);
	ps_rowbinary__names_free(l->table_cols, l->nr_table_cols);
	for (int i = 0; i < l->nstmts; i++)
		free(l->stmts[i]);
}

/* How the stream is read: every record, in time order, a tick for each. */
static void reader_opts(const struct opts *o, struct ps_reader_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->input_flags = PS_INPUT_DECOMPRESS | PS_INPUT_SKIP_AUX;
	ro->idle_ms = IDLE_MS;
	ro->order_cap = ORDER_CAP;
	ro->symbols = !o->no_symbols;
	ro->sym = &o->sym;
	ro->ticks = true;
}

/* Everything read is inserted, even after an error further on.  Return what
 * ps_reader__next() returned last. */
static int read_stream(struct ctx *c, struct ps_error *err)
{
	struct loader *l = c->l;
	struct ps_reader_event ev;
	uint64_t last_tick = 0;
	int r = 0;

	while (!l->fatal && (r = ps_reader__next(c->rd, &ev, err)) > 0) {
		switch (ev.kind) {
		case PS_READER_HEADER:
			/* at the end without a sample: only for the batches of the spool */
			if ((!ev.at_end || l->bq.n) && header_done(c, err) < 0)
				r = -1;
			break;
		case PS_READER_SAMPLE:
		case PS_READER_RECORD:
			r = emit(c, &ev, err);
			break;
		case PS_READER_IDLE:
		case PS_READER_TICK:
			if (ev.kind == PS_READER_IDLE || now_ms() - last_tick >= 20) {
				last_tick = now_ms();
				tick(c);
			}
			break;
		default:
			ps_show_event(&ev);
		}
		if (r < 0)
			break;
	}
	return r;
}

/* After finish(): what is said at the end, and the exit status. */
static int end_stream(struct ctx *c, int r, int left, struct ps_error *err)
{
	struct loader *l = c->l;

	(void)r;
	/* as pcount counts them: LOST_SAMPLES, written at the end, includes what LOST said */
	if (c->lost_chunks || c->lost_samples)
		ps_msg("%s%s%" PRIu64 " events lost by the kernel (LOST records): not in the table",
		       c->subject ? c->subject : "", c->subject ? ": " : "",
		       c->lost_chunks > c->lost_samples ? c->lost_chunks : c->lost_samples);
	if (c->o->verbose)
		ps_msg("%s%s%" PRIu64 " rows in %" PRIu64 " batches inserted into %s",
		       c->subject ? c->subject : "", c->subject ? ": " : "", l->inserted_rows,
		       l->inserted_batches, l->qtable);
	if (c->skipped_rows)
		ps_msg("%s: %" PRIu64
		       " rows of messages delivered again were in the table already: "
		       "not inserted twice",
		       c->subject, c->skipped_rows);
	ps_sample_writer__delete(c->w);
	ps_rowbinary__delete(c->rb);
	free(c->stream_host);
	free(c->row_host);
	free(c->fold.buf);
	seen_free(c->seen);
	if (err->code && err->detail[0])
		ps_warn(err);
	loader_cleanup(l);
	ps_reader__close(c->rd);
	if (err->code == PS_EUSAGE)
		return 2;
	return err->code || left < 0 ? 1 : 0;
}

/* ---- --nats: each subject read from NATS and inserted exactly once ---- */

/*
 * Run @q and wait for it.  Return its output (malloc'd, NUL-terminated), or NULL with the
 * client's error in @msg.
 */
static char *query(struct loader *l, const char *q, uint64_t max, char *msg, size_t len)
{
	char *text;
	int status;

	spawn_client(l, q, -1, NULL, false);
	while (waitpid(l->child, &status, 0) < 0)
		if (errno != EINTR) {
			status = 1 << 8;
			break;
		}
	l->child = 0;
	l->job = JOB_NONE;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		client_error(l, msg, len);
		if (!msg[0])
			snprintf(msg, len, "%s failed", l->o->client);
		close_child_files(l);
		return NULL;
	}
	text = child_output(l, max);
	close_child_files(l);
	return text;
}

/* query(), tried again while the server does not answer; NULL on a permanent error (said)
 * or a stop request. */
static char *query_retry(struct loader *l, const char *q, uint64_t max, const char *what)
{
	uint64_t backoff = BACKOFF_MIN_MS;
	bool said = false;
	char msg[512];

	for (;;) {
		char *t = query(l, q, max, msg, sizeof(msg));

		if (t) {
			if (said)
				ps_msg("%s:%s: connected again", l->o->host,
				       l->o->port ? l->o->port : "9000");
			return t;
		}
		if (permanent(msg)) {
			ps_msg("%s failed: %s", what, msg);
			return NULL;
		}
		if (!said)
			ps_msg("%s failed, retrying: %s", what, msg);
		said = true;
		for (uint64_t waited = 0; waited < backoff && !ps_stop; waited += 50)
			sleep_ms(50);
		if (ps_stop)
			return NULL;
		backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
	}
}

static const char *const nats_cols[] = { "nats_subject", "nats_seq", "nats_offset" };
static const char *const nats_types[] = { "String", "UInt64", "UInt32" };

/*
 * Before reading: a table made without the NATS columns gets them (rows that lack them
 * cannot be recognised when their messages come again), and the rows of the messages from
 * @start on (where the subscription begins: after what was acknowledged) that are in
 * already are learnt, so that they do not go in again.  Return 0, or -1 (said).
 */
static int prepare_table(struct ctx *c, uint64_t start)
{
	struct loader *l = c->l;
	char *q = columns_query(l), *cols, *t, *subj;
	bool have[3], any;
	size_t n = 0;

	cols = query_retry(l, q, COLUMNS_MAX, "the column list");
	free(q);
	if (!cols)
		return -1;
	keep_columns(l, cols);
	free(cols);
	any = l->nr_table_cols != 0;
	for (size_t i = 0; i < 3; i++)
		have[i] = table_has(l, nats_cols[i]);
	/* asked again before the first insert, with the columns added below */
	ps_rowbinary__names_free(l->table_cols, l->nr_table_cols);
	l->table_cols = NULL;
	l->nr_table_cols = 0;
	l->cols_known = false;
	if (!any)
		return 0; /* no table: it is made with them, and holds nothing yet */
	for (size_t i = 0; i < 3; i++) {
		if (have[i])
			continue;
		q = xasprintf("ALTER TABLE %s ADD COLUMN `%s` %s", l->qtable, nats_cols[i],
		              nats_types[i]);
		t = query_retry(l, q, COLUMNS_MAX, "adding a column");
		free(q);
		if (!t)
			return -1;
		free(t);
	}
	if (!start)
		return 0;
	subj = sql_string(c->subject);
	/* one row more than is kept apart, each line at most 32 bytes: the output is bounded
	 * before it is read */
	q = xasprintf("SELECT nats_seq, nats_offset FROM %s WHERE nats_subject = %s AND "
	              "nats_seq >= %" PRIu64 " LIMIT %u FORMAT TSV",
	              l->qtable, subj, start, MAX_SEEN + 1);
	free(subj);
	t = query_retry(l, q, (uint64_t)(MAX_SEEN + 1) * 32, "the rows already in");
	free(q);
	if (!t)
		return -1;
	for (const char *p = t; (p = strchr(p, '\n')); p++)
		n++;
	if (n > MAX_SEEN) {
		ps_msg("%s: more than %u rows of messages not acknowledged are in %s already: "
		       "too many to keep apart",
		       c->subject, MAX_SEEN, l->qtable);
		free(t);
		return -1;
	}
	if (n)
		c->seen = seen_new(t, n);
	free(t);
	return 0;
}

/* Insert what an earlier run left in the spool: the table then says what is in. */
static int drain_spool(struct loader *l)
{
	l->ready = true;
	while (l->nstmts || l->bq.n || l->child) {
		if (give_up(l)) {
			kill_child(l);
			return -1;
		}
		pump(l);
		if (l->child || l->nstmts || l->bq.n)
			sleep_ms(20);
	}
	l->ready = !l->o->create;
	return 0;
}

/*
 * One recording of a subject, from where its durable consumer was acknowledged (with
 * --follow, waiting for the next one if that was the end); the exit status.
 */
static int load_recording(const struct opts *o0, const char *subject, struct ps_nats *n)
{
	struct opts o = *o0;
	struct ps_error err = { 0 }, ferr = { 0 };
	struct ps_reader_opts ro = { 0 };
	struct ps_nats_sub_config cfg = {
		.subject = subject,
		.durable = o.durable,
		.start = PS_NATS_LATEST,
		.follow = false, /* a recording is a stream of its own: see load_subject() */
	};
	char stream[PS_NATS_NAME_MAX];
	char *spool = NULL;
	struct ps_nats_sub *sub;
	struct ps_nats_feed *feed;
	struct loader l;
	struct ctx c = { 0 };
	uint64_t done = 0;
	bool stopped;
	int r, left, status;

	if (ps_nats__stream_name(subject, stream, sizeof(stream), &err) < 0)
		ps_die(&err);
	if (o.spool) {
		/* a directory of each subject's in --spool */
		if (mkdir(o.spool, 0700) < 0 && errno != EEXIST)
			fatal_sys("cannot create the spool directory", o.spool);
		o.spool = spool = xasprintf("%s/%s", o0->spool, stream);
	}
	c.o = &o;
	c.l = &l;
	c.subject = subject;
	loader_init(&l, &o);
	if ((l.bq.n || l.nstmts) && drain_spool(&l) < 0) {
		ps_msg("%s: the batches an earlier run left in %s are not all in: not reading "
		       "more",
		       subject, l.dir);
		loader_cleanup(&l);
		free(spool);
		return 1;
	}
	sub = ps_nats_sub__open(n, &cfg, &err);
	if (!sub)
		ps_die(&err);
	if (ps_nats_sub__read_to_end(sub) && !o.follow) {
		if (o.verbose)
			ps_msg("%s: its latest recording is in %s already", subject, l.qtable);
		ps_nats_sub__close(sub);
		loader_cleanup(&l);
		free(spool);
		return 0;
	}
	c.feed = l.feed = NULL;
	if (prepare_table(&c, ps_nats_sub__start_seq(sub)) < 0) {
		ps_nats_sub__close(sub);
		loader_cleanup(&l);
		free(spool);
		return 1;
	}
	feed = ps_nats_feed__start(sub, &err);
	if (!feed)
		ps_die(&err);
	reader_opts(&o, &ro);
	ro.fd_name = subject;
	ro.fd = ps_nats_feed__fd(feed);
	c.rd = ps_reader__open(&ro, &err);
	if (!c.rd) {
		/* nothing came: a stop before the first message */
		int st = err.code == PS_EEMPTY ? 0 : 1;

		if (st)
			ps_warn(&err);
		/* the recording ended without a byte to read (an end mark alone): it is done */
		if (ps_nats_feed__finish(feed, &ferr) == 0 && !st && !stop_requests)
			ps_nats_sub__ack(sub, &ferr);
		ps_nats_sub__close(sub);
		loader_cleanup(&l);
		free(spool);
		return st;
	}
	c.s = ps_reader__session(c.rd);
	c.syms = ps_reader__symbols(c.rd);
	c.feed = l.feed = feed;
	l.rd = c.rd;
	nats_reading = 1;
	r = read_stream(&c, &err);
	nats_reading = 0;
	stopped = ps_stop || r < 0;
	if (nats_stop)
		ps_stop = 1; /* the inserts of what was read are bounded, as after a stop */
	left = finish(&l);
	/* what is in is acknowledged: all of it when the subscription's end was read */
	if (!left && stopped)
		done = ps_nats_feed__complete(feed, ps_reader__done_offset(c.rd));
	l.feed = NULL;
	ps_nats_feed__ack(feed, done);
	if (ps_nats_feed__finish(feed, &ferr) < 0 && !err.code)
		err = ferr;
	if (!left && !stopped && !err.code && ps_nats_sub__ack(sub, &ferr) < 0)
		err = ferr;
	status = end_stream(&c, r, left, &err);
	ps_nats_sub__close(sub);
	free(spool);
	return status;
}

/*
 * One subject: its recordings one after another with --follow, each read, inserted and
 * acknowledged as a stream of its own (a recording begins with its own header, and its
 * events may not be the last one's); the exit status.
 */
static int load_subject(const struct opts *o, const char *subject)
{
	struct ps_error err = { 0 };
	struct ps_nats *n;
	int status;

	/* one connection for all of them: libnats connects again by itself when the
	 * server comes back */
	n = ps_nats__connect(o->nats_url, &err);
	if (!n)
		ps_die(&err);
	do
		status = load_recording(o, subject, n);
	while (o->follow && !status && !stop_requests && !ps_stop);
	ps_nats__close(n);
	return status;
}

/* --nats with several subjects: a process each; a stop request goes to each of them. */
#define MAX_SUBJECTS 1024
static pid_t kids[MAX_SUBJECTS];
static volatile sig_atomic_t nr_kids, parent_requests;

static void on_stop_parent(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	parent_requests++;
	/* a Ctrl-C reached them as it reached us; a kill of ours alone is passed on, the
	 * first as a plain stop request, a second as a second */
	if (si && si->si_code == SI_KERNEL)
		return;
	for (int i = 0; i < nr_kids; i++)
		kill(kids[i], parent_requests > 1 ? sig : SIGUSR1);
}

/* in a subject's process: the parent's first request, which may come beside our own */
static void on_parent_stop(int sig)
{
	if (!stop_requests)
		on_stop(sig);
}

/*
 * The subjects the operands name, resolved by a process of its own: libnats keeps state
 * that a fork copies (the inbox names a connection makes), so the processes of the
 * subjects must be forked from one that never used it.  Return their number, or -1 (said).
 */
static int resolve_subjects(const struct opts *o, char ***out)
{
	struct ps_error err = { 0 };
	struct ps_bytes b = { 0 };
	char **v = NULL;
	int fds[2], st, k = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		fatal_sys("cannot make a pipe", "--nats");
	pid = fork();
	if (pid < 0)
		fatal_sys("cannot fork", "--nats");
	if (pid == 0) {
		struct ps_nats *n = ps_nats__connect(o->nats_url, &err);
		char **subjects = NULL;
		int i, r;

		close(fds[0]);
		if (!n)
			ps_die(&err);
		r = ps_nats__resolve(n, o->subjects, o->nr_subjects, &subjects, &err);
		if (r < 0)
			ps_die(&err);
		for (i = 0; i < r; i++)
			if (ps_write_full(fds[1], subjects[i], strlen(subjects[i]) + 1) < 0)
				_exit(1);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		char buf[4096];
		ssize_t n = read(fds[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (ps_bytes__add(&b, buf, (size_t)n, 64u << 20) < 0)
			ps_die_nomem();
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		ps_bytes__release(&b);
		return -1;
	}
	for (size_t at = 0; at < b.len; at += strlen((char *)b.p + at) + 1) {
		char **g = realloc(v, (size_t)(k + 1) * sizeof(*v));

		if (!g || !(g[k] = strdup((char *)b.p + at)))
			ps_die_nomem();
		v = g;
		k++;
	}
	ps_bytes__release(&b);
	*out = v;
	return k;
}

static int nats_main(const struct opts *o)
{
	struct sigaction sa = { 0 };
	char **subjects = NULL;
	int k, i, status = 0;

	k = resolve_subjects(o, &subjects);
	if (k < 0)
		return 1;
	if (k > MAX_SUBJECTS)
		ps_usage_error("--nats: %d subjects, more than %d", k, MAX_SUBJECTS);
	if (k == 1) {
		status = load_subject(o, subjects[0]);
		free(subjects[0]);
		free(subjects);
		return status;
	}
	sa.sa_handler = on_parent_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid < 0)
			fatal_sys("cannot fork", subjects[i]);
		if (pid == 0)
			_exit(load_subject(o, subjects[i]));
		kids[i] = pid;
		nr_kids = i + 1;
	}
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_stop_parent;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < k; i++) {
		int st;

		while (waitpid(kids[i], &st, 0) < 0)
			if (errno != EINTR) {
				st = 1 << 8;
				break;
			}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			status = status ? status : (WIFEXITED(st) ? WEXITSTATUS(st) : 1);
		free(subjects[i]);
	}
	free(subjects);
	return status;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 };
	struct ps_reader_opts ro = { 0 };
	struct loader l;
	struct ctx c = { 0 };
	struct opts o;
	struct sigaction sa = { .sa_handler = on_stop }; /* no SA_RESTART */
	int r = 0, left;

	ps_progname = "pstream-clickhouse";
	ps_signals__init();
	/* a second SIGINT or SIGTERM stops the inserts of what was read (give_up()) */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	parse_args(argc, argv, &o);
	if (o.nats_url)
		return nats_main(&o);
	c.o = &o;
	c.l = &l;
	reader_opts(&o, &ro);
	ro.path = o.input;
	c.rd = ps_reader__open(&ro, &err);
	if (!c.rd && err.code == PS_EEMPTY && o.spool) {
		/* no stream: the spool's batches go in, and that is all */
		loader_init(&l, &o);
		l.ready = true;
		if (!l.bq.n)
			ps_msg("%s: no batch waits there", l.dir);
		left = finish(&l);
		if (o.verbose)
			ps_msg("%" PRIu64 " rows in %" PRIu64 " batches inserted into %s",
			       l.inserted_rows, l.inserted_batches, l.qtable);
		loader_cleanup(&l);
		return left < 0 ? 1 : 0;
	}
	if (!c.rd)
		ps_die(&err);
	c.s = ps_reader__session(c.rd);
	c.syms = ps_reader__symbols(c.rd);
	loader_init(&l, &o);
	r = read_stream(&c, &err);
	left = finish(&l);
	return end_stream(&c, r, left, &err);
}
