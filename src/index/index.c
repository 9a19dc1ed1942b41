/* index.c - the persistent index: the facts of each log of SOURCE, kept
 * in an SQLite database between mounts (src/index/index.h;
 * docs/index.md gives the schema).
 *
 * One connection, used under the index's own lock; WAL mode, so readers
 * of other processes (sqlite3, Python, a second mount of the same SOURCE,
 * which shares the file) never wait, and a process killed in the middle
 * of a write leaves the last committed transaction whole.  Writes are
 * batched by the caller (dfs_index_commit); one that finds the database
 * busy with another process's write drops its batch (those logs are made
 * again next time).  A directory's jobs.csv rows are also kept packed, a
 * record per 1,024 logs (dfs_index_seal), dropped with any change to one
 * of its logs.  A log's files (for a directory's files.csv) are one blob
 * in pieces, kept and dropped with the log's row.  Whatever fails is
 * told once and the index does less: a full disk or a file it may not
 * write stops the writes, a damaged file stops everything (the next open
 * moves it aside). */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index/index.h"
#include "darshanfs/buf.h"
#include "darshanfs/module.h"
#include "util/scratch.h"

/* "DFSI": what PRAGMA application_id says of our files */
#define APP_ID 0x44465349
/* the layout of the tables (PRAGMA user_version): another one is made anew */
#define SCHEMA 4

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;\n"
	"CREATE TABLE dirs(dir TEXT PRIMARY KEY, parent TEXT NOT NULL, name TEXT NOT NULL) STRICT;\n"
	"CREATE INDEX dirs_parent ON dirs(parent, name);\n"
	"CREATE TABLE logs(\n"
	"  dir TEXT NOT NULL, name TEXT NOT NULL,\n"
	"  id INTEGER NOT NULL UNIQUE,\n"
	"  dev INTEGER NOT NULL, ino INTEGER NOT NULL, size INTEGER NOT NULL,\n"
	"  mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,\n"
	"  facts INTEGER NOT NULL,\n"
	"  error TEXT,\n"
	"  exe TEXT, jobid INTEGER, uid INTEGER, nprocs INTEGER,\n"
	"  start_time INTEGER, end_time INTEGER, run_time REAL,\n"
	"  modules INTEGER, partial INTEGER,\n"
	"  insights_key INTEGER,\n"
	"  jobs_row TEXT,\n"
	"  files_key INTEGER,\n"
	"  PRIMARY KEY(dir, name)) STRICT, WITHOUT ROWID;\n"
	"CREATE TABLE modules(\n"
	"  log INTEGER NOT NULL REFERENCES logs(id), seq INTEGER NOT NULL,\n"
	"  module TEXT NOT NULL, partial INTEGER NOT NULL,\n"
	"  records INTEGER, total_bytes INTEGER, bytes_read INTEGER, bytes_written INTEGER,\n"
	"  total_files INTEGER, read_only_files INTEGER, write_only_files INTEGER,\n"
	"  read_write_files INTEGER, unique_files INTEGER, shared_files INTEGER,\n"
	"  time_by_slowest REAL, perf_by_slowest REAL, error TEXT,\n"
	"  PRIMARY KEY(log, seq)) STRICT, WITHOUT ROWID;\n"
	"CREATE TABLE findings(\n"
	"  log INTEGER NOT NULL REFERENCES logs(id), seq INTEGER NOT NULL,\n"
	"  code TEXT NOT NULL, level TEXT NOT NULL, module TEXT NOT NULL, message TEXT NOT NULL,\n"
	"  value REAL NOT NULL, threshold REAL NOT NULL, count REAL NOT NULL, total REAL NOT NULL,\n"
	"  files TEXT NOT NULL, ranks TEXT NOT NULL, advice TEXT NOT NULL,\n"
	"  PRIMARY KEY(log, seq)) STRICT, WITHOUT ROWID;\n"
	"CREATE TABLE sealed(\n"
	"  dir TEXT NOT NULL, last BLOB NOT NULL, facts INTEGER NOT NULL, rows BLOB NOT NULL,\n"
	"  PRIMARY KEY(dir, last)) STRICT;\n"
	"CREATE TABLE files(\n"
	"  log INTEGER NOT NULL REFERENCES logs(id), seq INTEGER NOT NULL, data BLOB NOT NULL,\n"
	"  PRIMARY KEY(log, seq)) STRICT;\n"
	"CREATE VIEW jobs AS SELECT id, CASE dir WHEN '' THEN name ELSE dir || '/' || name END AS path,\n"
	"  error, exe, jobid, uid, nprocs, start_time, end_time, run_time, modules, partial\n"
	"  FROM logs;\n";

enum stmt {
	S_DIR, S_DIR_JOBS, S_FINDINGS, S_FIND, S_INSERT, S_UPDATE, S_DEL_ROWS, S_DEL_FINDINGS,
	S_ADD_ROW, S_ADD_FINDING, S_SET_KEY, S_DEL_LOG, S_ADD_DIR, S_SUBDIRS,
	S_DEL_DIR_ROWS, S_DEL_DIR_FINDINGS, S_DEL_DIR_LOGS, S_DEL_DIRS, S_NEXT_ID,
	S_SEALED_GE, S_SEALED_GT, S_SEALED_ANY, S_SEAL_ROWS, S_SEAL_ADD, S_DEL_SEALED,
	S_DEL_DIR_SEALED,
	S_DEL_FILES, S_DEL_DIR_FILES, S_ADD_FILES, S_SET_FILES_KEY, S_FILES, S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
	[S_DIR] = "SELECT l.id, l.name, l.dev, l.ino, l.size, l.mtime_ns, l.ctime_ns, l.error,"
	          " l.exe, l.jobid, l.uid, l.nprocs, l.start_time, l.end_time, l.run_time,"
	          " l.modules, l.partial, l.insights_key,"
	          " m.seq, m.module, m.partial, m.records, m.total_bytes, m.bytes_read,"
	          " m.bytes_written, m.total_files, m.read_only_files, m.write_only_files,"
	          " m.read_write_files, m.unique_files, m.shared_files, m.time_by_slowest,"
	          " m.perf_by_slowest, m.error"
	          " FROM logs l LEFT JOIN modules m ON m.log = l.id"
	          " WHERE l.dir = ?1 AND l.name >= ?2 AND l.facts = ?3 ORDER BY l.name, m.seq",
	/* (the rendered row stands for the job's columns: of them only the
	 * error and the modules present are read) */
	[S_DIR_JOBS] = "SELECT id, name, dev, ino, size, mtime_ns, ctime_ns, error,"
	               " NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
	               " modules, NULL, NULL, jobs_row"
	               " FROM logs WHERE dir = ?1 AND name >= ?2 AND facts = ?3 ORDER BY name",
	[S_FINDINGS] = "SELECT code, level, module, message, value, threshold, count, total,"
	               " files, ranks, advice FROM findings WHERE log = ?1 ORDER BY seq",
	[S_FIND] = "SELECT id, dev, ino, size, mtime_ns, ctime_ns, facts FROM logs"
	           " WHERE dir = ?1 AND name = ?2",
	[S_INSERT] = "INSERT INTO logs(dir, name, dev, ino, size, mtime_ns, ctime_ns, facts, error,"
	             " exe, jobid, uid, nprocs, start_time, end_time, run_time, modules, partial,"
	             " insights_key, jobs_row, id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
	             " ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?21, ?20)",
	[S_NEXT_ID] = "SELECT coalesce(max(id), 0) + 1 FROM logs",
	[S_UPDATE] = "UPDATE logs SET dev = ?3, ino = ?4, size = ?5, mtime_ns = ?6, ctime_ns = ?7,"
	             " facts = ?8, error = ?9, exe = ?10, jobid = ?11, uid = ?12, nprocs = ?13,"
	             " start_time = ?14, end_time = ?15, run_time = ?16, modules = ?17,"
	             " partial = ?18, insights_key = ?19, jobs_row = ?21, files_key = NULL"
	             " WHERE id = ?20",
	[S_DEL_ROWS] = "DELETE FROM modules WHERE log = ?1",
	[S_DEL_FINDINGS] = "DELETE FROM findings WHERE log = ?1",
	[S_ADD_ROW] = "INSERT INTO modules VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
	              " ?12, ?13, ?14, ?15, ?16, ?17)",
	[S_ADD_FINDING] = "INSERT INTO findings VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	                  " ?11, ?12, ?13)",
	[S_SET_KEY] = "UPDATE logs SET insights_key = ?2 WHERE id = ?1",
	[S_DEL_LOG] = "DELETE FROM logs WHERE id = ?1",
	[S_ADD_DIR] = "INSERT OR IGNORE INTO dirs VALUES(?1, ?2, ?3)",
	[S_SUBDIRS] = "SELECT name FROM dirs WHERE parent = ?1 ORDER BY name",
	/* a directory and everything below it: dir = X or X/... ('0' follows '/') */
	[S_DEL_DIR_ROWS] = "DELETE FROM modules WHERE log IN (SELECT id FROM logs WHERE dir = ?1"
	                   " OR (dir >= ?1 || '/' AND dir < ?1 || '0'))",
	[S_DEL_DIR_FINDINGS] = "DELETE FROM findings WHERE log IN (SELECT id FROM logs WHERE"
	                       " dir = ?1 OR (dir >= ?1 || '/' AND dir < ?1 || '0'))",
	[S_DEL_DIR_LOGS] = "DELETE FROM logs WHERE dir = ?1 OR (dir >= ?1 || '/' AND dir < ?1 || '0')",
	[S_DEL_DIRS] = "DELETE FROM dirs WHERE dir = ?1 OR (dir >= ?1 || '/' AND dir < ?1 || '0')",
	/* a directory's sealed rows: the record that holds the first log
	 * at or after a name (its key is the last it holds) */
	[S_SEALED_GE] = "SELECT last, rowid, length(rows) FROM sealed WHERE dir = ?1 AND last >= ?2 AND facts = ?3"
	                " ORDER BY last LIMIT 1",
	[S_SEALED_GT] = "SELECT last, rowid, length(rows) FROM sealed WHERE dir = ?1 AND last > ?2 AND facts = ?3"
	                " ORDER BY last LIMIT 1",
	[S_SEALED_ANY] = "SELECT 1 FROM sealed WHERE dir = ?1 AND facts = ?2 LIMIT 1",
	[S_SEAL_ROWS] = "SELECT name, dev, ino, size, mtime_ns, ctime_ns, error, modules, jobs_row"
	                " FROM logs WHERE dir = ?1 AND facts = ?2 ORDER BY name",
	[S_SEAL_ADD] = "INSERT INTO sealed VALUES(?1, ?2, ?3, ?4)",
	[S_DEL_SEALED] = "DELETE FROM sealed WHERE dir = ?1",
	[S_DEL_DIR_SEALED] = "DELETE FROM sealed WHERE dir = ?1 OR (dir >= ?1 || '/' AND dir < ?1 || '0')",
	[S_DEL_FILES] = "DELETE FROM files WHERE log = ?1",
	[S_DEL_DIR_FILES] = "DELETE FROM files WHERE log IN (SELECT id FROM logs WHERE"
	                    " dir = ?1 OR (dir >= ?1 || '/' AND dir < ?1 || '0'))",
	[S_ADD_FILES] = "INSERT INTO files VALUES(?1, ?2, ?3)",
	[S_SET_FILES_KEY] = "UPDATE logs SET files_key = ?2 WHERE id = ?1",
	/* a log's files, when of this very file and made with this key */
	[S_FILES] = "SELECT f.data, (SELECT sum(length(data)) FROM files WHERE log = l.id)"
	            " FROM logs l JOIN files f ON f.log = l.id"
	            " WHERE l.dir = ?1 AND l.name = ?2 AND l.dev = ?3 AND l.ino = ?4"
	            " AND l.size = ?5 AND l.mtime_ns = ?6 AND l.ctime_ns = ?7 AND l.facts = ?8"
	            " AND l.files_key = ?9 ORDER BY f.seq",
};

/* A directory's sealed record, as read: what its logs point into. */
struct dfs_index_sealed {
	atomic_int refs;
	dfs_index *ix;         /* whose spares it goes to */
	char *dir;
	/* the keys of the record before it (none: the first) and its own:
	 * it is the answer for the names after prev up to last */
	size_t prev_len, last_len;
	bool has_prev;
	unsigned char prev[256], last[256];
	size_t len;
	unsigned char *data;   /* its logs (in buf, past the header) */
	unsigned char *buf;    /* the record as stored */
	size_t cap;
	/* where the last log taken of it lies (the next window starts
	 * there): its offset in data, and its name (NULL: none taken) */
	size_t hint;
	const unsigned char *hint_name;
	size_t hint_len;
};

/* records let go, kept for the next ones read (their memory warm) */
#define SPARES 4

struct dfs_index {
	pthread_mutex_t lock;
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	char *path;
	dfs_index_notice notice;
	void *ctx;
	bool in_tx;        /* a write transaction is open */
	bool tx_failed;    /* a write of it failed: roll it back at commit */
	bool no_writes;    /* writing failed for good (full disk, read-only) */
	bool broken;       /* the file is damaged: nothing more */
	bool told_busy;
	struct dfs_index_sealed *sealed;   /* the last sealed record read */
	_Atomic(struct dfs_index_sealed *) spare[SPARES];
};

static void tell(dfs_index *ix, const char *fmt, ...)
{
	if (!ix->notice)
		return;
	char line[1024];
	int n = snprintf(line, sizeof(line), "index %s: ", ix->path);
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	ix->notice(ix->ctx, line);
}

static int move_aside(dfs_index *ix, const char *why);
static void sealed_drop(dfs_index *ix);
static void sealed_release(struct dfs_index_sealed *c);
static void sealed_free(struct dfs_index_sealed *c);

/* A failed call: what it means for the index from now on. */
static void failed(dfs_index *ix, int rc, const char *what)
{
	int base = rc & 0xff;
	if (base == SQLITE_CORRUPT || base == SQLITE_NOTADB) {
		if (!ix->broken) {
			char why[256];
			snprintf(why, sizeof(why), "damaged (%s: %s): not used any more", what,
			         sqlite3_errstr(rc));
			move_aside(ix, why);
		}
		ix->broken = true;
	} else if (base == SQLITE_BUSY || base == SQLITE_LOCKED) {
		if (!ix->told_busy)
			tell(ix, "busy with another process's write: some logs are left for next time");
		ix->told_busy = true;
	} else if (!ix->no_writes) {
		tell(ix, "%s: %s: no more writes during this mount", what, sqlite3_errstr(rc));
		ix->no_writes = true;
	}
}

static int exec(dfs_index *ix, const char *sql)
{
	return sqlite3_exec(ix->db, sql, NULL, NULL, NULL);
}

/* An integer PRAGMA's value, -1 when it cannot be read. */
static int64_t pragma_int(sqlite3 *db, const char *sql, int *rc)
{
	sqlite3_stmt *s = NULL;
	int64_t v = -1;
	*rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (*rc == SQLITE_OK) {
		*rc = sqlite3_step(s);
		if (*rc == SQLITE_ROW) {
			v = sqlite3_column_int64(s, 0);
			*rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(s);
	return v;
}

/* Make the directories of path (mode 0700). */
static int make_dirs(const char *path)
{
	char *p = strdup(path);
	if (!p)
		return -1;
	int ret = 0;
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			ret = -1;
		*s = '/';
	}
	free(p);
	return ret;
}

/* Move the file and its WAL files aside; 0 on success. */
static int move_aside(dfs_index *ix, const char *why)
{
	char aside[4096], a[4200], b[4200];
	snprintf(aside, sizeof(aside), "%s.broken-%lld", ix->path, (long long)time(NULL));
	if (rename(ix->path, aside) != 0) {
		tell(ix, "%s, and it cannot be moved aside (%s): no index", why, strerror(errno));
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		const char *suffix = i ? "-shm" : "-wal";
		snprintf(a, sizeof(a), "%s%s", ix->path, suffix);
		snprintf(b, sizeof(b), "%s%s", aside, suffix);
		if (rename(a, b) != 0 && errno == ENOENT)
			continue;
	}
	tell(ix, "%s: moved aside to %s, a new index is made", why, aside);
	return 0;
}

/* Open the file as our index: 1 it is one (or was empty and is now one),
 * 0 it is not (or is damaged), -1 it cannot be opened at all. */
static int open_db(dfs_index *ix, const char **why)
{
	int fd = open(ix->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 077) && st.st_uid == geteuid())
		fchmod(fd, 0600);
	close(fd);
	int rc = sqlite3_open_v2(ix->path, &ix->db,
	                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		*why = sqlite3_errstr(rc);
		return (rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT ? 0 : -1;
	}
	sqlite3_busy_timeout(ix->db, 100);
	int64_t app = pragma_int(ix->db, "PRAGMA application_id", &rc);
	if (rc != SQLITE_OK) {
		*why = sqlite3_errstr(rc);
		return (rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT ? 0 : -1;
	}
	int64_t tables = pragma_int(ix->db, "SELECT count(*) FROM sqlite_schema", &rc);
	if (rc != SQLITE_OK) {
		*why = sqlite3_errstr(rc);
		return 0;
	}
	if (tables == 0 && app == 0) {
		/* a new file: ours from now on (4 KiB pages: 64 KiB ones made a
		 * remount's jobs.csv of 100,000 logs take 1.2 s of CPU instead
		 * of 0.9 to 1.0) */
		if (exec(ix, "PRAGMA journal_mode=WAL") != SQLITE_OK ||
		    exec(ix, "BEGIN IMMEDIATE") != SQLITE_OK) {
			*why = sqlite3_errmsg(ix->db);
			return -1;
		}
		char pragmas[128];
		snprintf(pragmas, sizeof(pragmas), "PRAGMA application_id=%d; PRAGMA user_version=%d;",
		         APP_ID, SCHEMA);
		if (exec(ix, schema_sql) != SQLITE_OK || exec(ix, pragmas) != SQLITE_OK ||
		    exec(ix, "INSERT INTO meta VALUES('format', 'darshanfs index'),"
		             " ('darshanfs', '" DFS_VERSION "')") != SQLITE_OK ||
		    exec(ix, "COMMIT") != SQLITE_OK) {
			*why = sqlite3_errmsg(ix->db);
			exec(ix, "ROLLBACK");
			return -1;
		}
		return 1;
	}
	if (app != APP_ID) {
		*why = "not a darshanfs index";
		return 0;
	}
	if (pragma_int(ix->db, "PRAGMA user_version", &rc) != SCHEMA || rc != SQLITE_OK) {
		*why = "an index of another layout";
		return 0;
	}
	/* damaged pages are found by the first read of them (then the index
	 * stops): a check of the whole file would cost a read of all of it
	 * at every mount */
	if (exec(ix, "PRAGMA journal_mode=WAL") != SQLITE_OK) {
		*why = sqlite3_errmsg(ix->db);
		return (sqlite3_errcode(ix->db) & 0xff) == SQLITE_CORRUPT ? 0 : -1;
	}
	return 1;
}

dfs_index *dfs_index_open(const char *path, dfs_index_notice notice, void *ctx)
{
	dfs_index *ix = calloc(1, sizeof(*ix));
	if (!ix || !(ix->path = strdup(path))) {
		free(ix);
		if (notice)
			notice(ctx, "index: out of memory: no index");
		return NULL;
	}
	ix->notice = notice;
	ix->ctx = ctx;
	pthread_mutex_init(&ix->lock, NULL);
	if (make_dirs(path)) {
		/* (open says why) */
	}
	const char *why = NULL;
	int ok = open_db(ix, &why);
	if (ok == 0) {
		char reason[256];
		snprintf(reason, sizeof(reason), "%s", why ? why : "unreadable");
		sqlite3_close(ix->db);
		ix->db = NULL;
		if (move_aside(ix, reason) == 0) {
			ok = open_db(ix, &why);
			if (ok == 0)
				ok = -1;
		}
	}
	if (ok < 0) {
		tell(ix, "%s: no index (the mount works without it)", why ? why : "cannot be opened");
		dfs_index_close(ix);
		return NULL;
	}
	exec(ix, "PRAGMA synchronous=NORMAL");
	exec(ix, "PRAGMA cache_size=-1024");
	exec(ix, "PRAGMA temp_store=MEMORY");
	for (int i = 0; i < S_COUNT; i++) {
		int rc = sqlite3_prepare_v3(ix->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                            &ix->st[i], NULL);
		if (rc != SQLITE_OK) {
			tell(ix, "%s: no index (the mount works without it)", sqlite3_errmsg(ix->db));
			dfs_index_close(ix);
			return NULL;
		}
	}
	return ix;
}

void dfs_index_close(dfs_index *ix)
{
	if (!ix)
		return;
	if (ix->in_tx)
		dfs_index_commit(ix);
	sealed_drop(ix);
	for (int i = 0; i < SPARES; i++)
		sealed_free(atomic_exchange(&ix->spare[i], NULL));
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(ix->st[i]);
	sqlite3_close(ix->db);
	pthread_mutex_destroy(&ix->lock);
	free(ix->path);
	free(ix);
}

/* ---- reading ---------------------------------------------------------------------- */

static char *col_text(sqlite3_stmt *s, int c)
{
	if (sqlite3_column_type(s, c) == SQLITE_NULL)
		return NULL;
	const unsigned char *t = sqlite3_column_text(s, c);
	return t ? strndup((const char *)t, (size_t)sqlite3_column_bytes(s, c)) : NULL;
}

void dfs_index_log_clear(dfs_index_log *l)
{
	if (l->hold) {
		sealed_release(l->hold);   /* (its strings lie there) */
	} else {
		free(l->name);
		free(l->jobs_row);
		free(l->job.error);
	}
	free(l->job.exe);
	for (size_t i = 0; i < l->nrows; i++)
		free(l->rows[i].error);
	for (size_t i = 0; i < l->nfindings; i++) {
		free(l->findings[i].code);
		free(l->findings[i].level);
		free(l->findings[i].module);
		free(l->findings[i].message);
		free(l->findings[i].files);
		free(l->findings[i].ranks);
		free(l->findings[i].advice);
	}
	free(l->findings);
	/* (the rows past nrows are never read: left as they are) */
	memset(l, 0, offsetof(dfs_index_log, rows));
	l->jobs_row = NULL;
	l->has_findings = false;
	l->nfindings = 0;
	l->findings = NULL;
	l->hold = NULL;
}

void dfs_index_log_move(dfs_index_log *dst, dfs_index_log *src)
{
	memcpy(dst, src, offsetof(dfs_index_log, rows));
	memcpy(dst->rows, src->rows, src->nrows * sizeof(src->rows[0]));
	dst->jobs_row = src->jobs_row;
	dst->has_findings = src->has_findings;
	dst->nfindings = src->nfindings;
	dst->findings = src->findings;
	dst->hold = src->hold;
	memset(src, 0, offsetof(dfs_index_log, rows));
	src->jobs_row = NULL;
	src->has_findings = false;
	src->nfindings = 0;
	src->findings = NULL;
	src->hold = NULL;
}

/* "POSIX" -> its id, "POSIX+STDIO" -> the combined row; -2 unknown */
static int module_of(const char *name)
{
	if (!name)
		return -2;
	if (strcmp(name, "POSIX+STDIO") == 0)
		return DFS_FACTS_COMBINED;
	const dfs_module *m = dfs_module_by_name(name);
	return m ? (int)m->id : -2;
}

/* The module row in columns 18.. of the window's statement */
static int read_row(sqlite3_stmt *s, dfs_index_log *l)
{
	if (sqlite3_column_type(s, 18) == SQLITE_NULL)
		return SQLITE_OK;          /* a log without rows */
	if (l->nrows == DFS_FACTS_MAX_ROWS)
		return SQLITE_CORRUPT;
	dfs_module_facts *r = &l->rows[l->nrows++];
	char *name = col_text(s, 19);
	r->module = module_of(name);
	free(name);
	r->partial = sqlite3_column_int(s, 20) != 0;
	r->ok = sqlite3_column_type(s, 21) != SQLITE_NULL;
	r->records = (uint64_t)sqlite3_column_int64(s, 21);
	r->total_bytes = sqlite3_column_int64(s, 22);
	r->bytes_read = sqlite3_column_int64(s, 23);
	r->bytes_written = sqlite3_column_int64(s, 24);
	for (int k = 0; k < DFS_FACTS_FILES_KINDS; k++)
		r->files[k] = sqlite3_column_int64(s, 25 + k);
	r->time_by_slowest = sqlite3_column_double(s, 31);
	r->perf_by_slowest = sqlite3_column_double(s, 32);
	r->error = col_text(s, 33);
	return r->module == -2 ? SQLITE_CORRUPT : SQLITE_OK;
}

static int read_findings(dfs_index *ix, int64_t id, dfs_index_log *l)
{
	sqlite3_stmt *s = ix->st[S_FINDINGS];
	sqlite3_bind_int64(s, 1, id);
	size_t cap = 0;
	int rc;
	l->has_findings = true;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (l->nfindings == cap) {
			cap = cap ? cap * 2 : 4;
			dfs_finding_facts *f = realloc(l->findings, cap * sizeof(*f));
			if (!f) {
				rc = SQLITE_NOMEM;
				break;
			}
			l->findings = f;
		}
		dfs_finding_facts *f = &l->findings[l->nfindings++];
		f->code = col_text(s, 0);
		f->level = col_text(s, 1);
		f->module = col_text(s, 2);
		f->message = col_text(s, 3);
		f->value = sqlite3_column_double(s, 4);
		f->threshold = sqlite3_column_double(s, 5);
		f->count = sqlite3_column_double(s, 6);
		f->total = sqlite3_column_double(s, 7);
		f->files = col_text(s, 8);
		f->ranks = col_text(s, 9);
		f->advice = col_text(s, 10);
		if (!f->code || !f->level || !f->module || !f->message || !f->files || !f->ranks ||
		    !f->advice)
			rc = SQLITE_NOMEM;
	}
	if (!l->findings && rc == SQLITE_DONE)
		l->findings = malloc(1);   /* stored, none */
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : rc;
}

/* The logs' rows of directory `dir` whose names are >= `from` (but
 * `skip`, when not NULL), at most `max`, into out[]; *bad set on a
 * failure (their count is then of no meaning). */
static size_t rows_dir(dfs_index *ix, const char *dir, const char *from, const char *skip,
                       bool jobs_only, uint64_t insights_key, dfs_index_log *out, size_t max,
                       int *bad)
{
	size_t n = 0;
	int64_t ids[DFS_INDEX_WINDOW];
	bool want[DFS_INDEX_WINDOW];
	/* one statement: each log with its module rows, in order (or its
	 * jobs.csv row) */
	sqlite3_stmt *s = ix->st[jobs_only ? S_DIR_JOBS : S_DIR];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, from, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, DFS_INDEX_FACTS);
	int rc;
	while (!*bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		if (n == 0 || ids[n - 1] != id) {
			if (skip && n == 0 && sqlite3_column_type(s, 1) == SQLITE_TEXT &&
			    !strcmp((const char *)sqlite3_column_text(s, 1), skip))
				continue;
			if (n == max)
				break;
			dfs_index_log *l = &out[n];
			memset(l, 0, offsetof(dfs_index_log, rows));
			l->jobs_row = NULL;
			l->has_findings = false;
			l->nfindings = 0;
			l->findings = NULL;
			l->hold = NULL;
			ids[n] = id;
			l->name = col_text(s, 1);
			l->id.dev = (uint64_t)sqlite3_column_int64(s, 2);
			l->id.ino = (uint64_t)sqlite3_column_int64(s, 3);
			l->id.size = sqlite3_column_int64(s, 4);
			l->id.mtime_ns = sqlite3_column_int64(s, 5);
			l->id.ctime_ns = sqlite3_column_int64(s, 6);
			l->job.error = col_text(s, 7);
			l->job.present = (uint64_t)sqlite3_column_int64(s, 15);
			if (jobs_only) {
				/* (the columns the statement leaves NULL are not
				 * asked for: a call each, for 100,000 logs) */
				want[n++] = false;
				if (!l->name) {
					*bad = SQLITE_NOMEM;
					break;
				}
				l->jobs_row = col_text(s, 18);
				continue;
			}
			l->job.exe = col_text(s, 8);
			l->job.jobid = sqlite3_column_int64(s, 9);
			l->job.uid = sqlite3_column_int64(s, 10);
			l->job.nprocs = sqlite3_column_int64(s, 11);
			l->job.start = sqlite3_column_int64(s, 12);
			l->job.end = sqlite3_column_int64(s, 13);
			l->job.run_time = sqlite3_column_double(s, 14);
			l->job.partial = (uint64_t)sqlite3_column_int64(s, 16);
			want[n] = insights_key && sqlite3_column_type(s, 17) != SQLITE_NULL &&
			          (uint64_t)sqlite3_column_int64(s, 17) == insights_key;
			n++;
			if (!l->name || (!l->job.error && !l->job.exe)) {
				*bad = SQLITE_NOMEM;
				break;
			}
		}
		*bad = read_row(s, &out[n - 1]);
	}
	if (!*bad && rc != SQLITE_ROW && rc != SQLITE_DONE)
		*bad = rc;
	sqlite3_reset(s);
	/* the findings, when asked (one statement at a time) */
	for (size_t i = 0; i < n && !*bad; i++)
		if (want[i])
			*bad = read_findings(ix, ids[i], &out[i]);
	if (*bad) {
		for (size_t i = 0; i < n; i++)
			dfs_index_log_clear(&out[i]);
		n = 0;
	}
	return n;
}

/* ---- sealed rows --------------------------------------------------------------------- */

/* A sealed record: a header (its flags, then the key of the record before
 * it, the last name that one holds), then its logs one after the other,
 * each a fixed head (numbers little-endian) and its strings with their
 * NULs: the name, the error (when it has one), the jobs.csv row (when it
 * has one).  The last record of a directory has a key past every name
 * (names are shorter than 256 bytes), each other the name of its last
 * log. */
enum {
	H_FLAGS = 0, H_PREV_LEN = 1 /* u16 */, H_PREV = 3,
	E_DEV = 0, E_INO = 8, E_SIZE = 16, E_MTIME = 24, E_CTIME = 32, E_PRESENT = 40,
	E_NAME_LEN = 48 /* u16 */, E_FLAGS = 50, E_ERROR_LEN = 52 /* u32 */,
	E_ROW_LEN = 56 /* u32 */, E_HEAD = 60,
	HAS_PREV = 1,
	HAS_ERROR = 1, HAS_ROW = 2,
	FINAL_KEY = 256
};

static uint64_t get_le(const unsigned char *p, int bytes)
{
	if (bytes == 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		return le64toh(v);
	}
	if (bytes == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return le32toh(v);
	}
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(dfs_buf *b, uint64_t v, int bytes)
{
	unsigned char t[8];
	for (int i = 0; i < bytes; i++, v >>= 8)
		t[i] = (unsigned char)v;
	dfs_buf_add(b, t, (size_t)bytes);
}

static int key_cmp(const unsigned char *a, size_t al, const void *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

static void sealed_free(struct dfs_index_sealed *c)
{
	if (c) {
		free(c->dir);
		free(c->buf);
		free(c);
	}
}

/* (by whichever thread clears the last log that points into it) */
static void sealed_release(struct dfs_index_sealed *c)
{
	if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
		return;
	for (int i = 0; i < SPARES; i++) {
		struct dfs_index_sealed *none = NULL;
		if (atomic_compare_exchange_strong(&c->ix->spare[i], &none, c))
			return;
	}
	sealed_free(c);
}

/* Forget the record read last (it may be of rows that change). */
static void sealed_drop(dfs_index *ix)
{
	sealed_release(ix->sealed);
	ix->sealed = NULL;
}

/* The sealed record of `dir` that holds the logs after `from` (after or
 * at it unless gt), with a reference for the caller: the one read last
 * when it is that one, else read.  NULL with *rc SQLITE_DONE when the
 * directory has none, else with why. */
static struct dfs_index_sealed *sealed_get(dfs_index *ix, const char *dir, const void *from,
                                           size_t flen, bool gt, int *rc)
{
	struct dfs_index_sealed *c = ix->sealed;
	*rc = SQLITE_OK;
	if (c && !strcmp(c->dir, dir)) {
		int lo = c->has_prev ? key_cmp(c->prev, c->prev_len, from, flen) : -1;
		int hi = key_cmp(c->last, c->last_len, from, flen);
		if (gt ? lo <= 0 && hi > 0 : lo < 0 && hi >= 0) {
			atomic_fetch_add(&c->refs, 1);
			return c;
		}
	}
	sqlite3_stmt *s = ix->st[gt ? S_SEALED_GT : S_SEALED_GE];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 2, flen ? from : "", (int)flen, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, DFS_INDEX_FACTS);
	c = NULL;
	int step = sqlite3_step(s);
	if (step != SQLITE_ROW) {
		*rc = step == SQLITE_DONE ? SQLITE_DONE : step;
		sqlite3_reset(s);
		return NULL;
	}
	const unsigned char *key = sqlite3_column_blob(s, 0);
	size_t klen = (size_t)sqlite3_column_bytes(s, 0);
	sqlite3_int64 rowid = sqlite3_column_int64(s, 1);
	size_t len = (size_t)sqlite3_column_int64(s, 2);
	if (!key || klen > FINAL_KEY || len < H_PREV) {
		*rc = SQLITE_CORRUPT;
	} else {
		/* a spare record's memory, or new */
		for (int i = 0; i < SPARES && !c; i++)
			c = atomic_exchange(&ix->spare[i], NULL);
		if (!c && (c = calloc(1, sizeof(*c))))
			c->ix = ix;
		if (c && c->cap < len) {
			free(c->buf);
			c->cap = len + len / 4;
			if (!(c->buf = malloc(c->cap)))
				c->cap = 0;
			dfs_pages_populate(c->buf, c->cap);
		}
		free(c ? c->dir : NULL);
		if (c && (c->dir = strdup(dir)) && c->buf) {
			c->last_len = klen;
			memcpy(c->last, key, klen);
		} else {
			sealed_free(c);
			c = NULL;
			*rc = SQLITE_NOMEM;
		}
	}
	sqlite3_reset(s);
	if (!c)
		return NULL;
	/* the record read straight into its memory (no copy of it made on
	 * the way) */
	sqlite3_blob *b = NULL;
	if ((*rc = sqlite3_blob_open(ix->db, "main", "sealed", "rows", rowid, 0, &b)) ==
	         SQLITE_OK)
		*rc = sqlite3_blob_read(b, c->buf, (int)len, 0);
	sqlite3_blob_close(b);
	size_t plen = *rc == SQLITE_OK ? (size_t)get_le(c->buf + H_PREV_LEN, 2) : 0;
	if (*rc == SQLITE_OK && (plen >= FINAL_KEY || len < H_PREV + plen))
		*rc = SQLITE_CORRUPT;
	if (*rc != SQLITE_OK) {
		sealed_free(c);
		return NULL;
	}
	atomic_init(&c->refs, 2);   /* the caller's, the index's */
	c->hint_name = NULL;
	c->has_prev = c->buf[H_FLAGS] & HAS_PREV;
	c->prev_len = plen;
	memcpy(c->prev, c->buf + H_PREV, plen);
	c->data = c->buf + H_PREV + plen;
	c->len = len - H_PREV - plen;
	sealed_drop(ix);
	ix->sealed = c;
	return c;
}

/* The logs of record c at or after `from` (after it when gt), up to max
 * in all, into out[] past *n.  0, or SQLITE_CORRUPT. */
static int sealed_take(struct dfs_index_sealed *c, const void *from, size_t flen, bool gt,
                       dfs_index_log *out, size_t *n, size_t max)
{
	const unsigned char *p = c->data, *end = c->data + c->len;
	/* (the logs before the last one taken are before `from` too, when
	 * it is not before that one) */
	if (c->hint_name && key_cmp(c->hint_name, c->hint_len, from, flen) <= 0)
		p += c->hint;
	while (p < end && *n < max) {
		if ((size_t)(end - p) < E_HEAD)
			return SQLITE_CORRUPT;
		size_t nl = (size_t)get_le(p + E_NAME_LEN, 2);
		unsigned flags = p[E_FLAGS];
		size_t el = flags & HAS_ERROR ? (size_t)get_le(p + E_ERROR_LEN, 4) + 1 : 0;
		size_t rl = flags & HAS_ROW ? (size_t)get_le(p + E_ROW_LEN, 4) + 1 : 0;
		const unsigned char *name = p + E_HEAD, *next = name + nl + 1 + el + rl;
		if ((size_t)(end - name) < nl + 1 + el + rl || name[nl] ||
		    (el && name[nl + el]) || (rl && next[-1]))
			return SQLITE_CORRUPT;
		int cmp = key_cmp(name, nl, from, flen);
		if (gt ? cmp > 0 : cmp >= 0) {
			dfs_index_log *l = &out[(*n)++];
			memset(l, 0, offsetof(dfs_index_log, rows));
			l->name = (char *)name;
			l->id.dev = get_le(p + E_DEV, 8);
			l->id.ino = get_le(p + E_INO, 8);
			l->id.size = (int64_t)get_le(p + E_SIZE, 8);
			l->id.mtime_ns = (int64_t)get_le(p + E_MTIME, 8);
			l->id.ctime_ns = (int64_t)get_le(p + E_CTIME, 8);
			l->job.present = get_le(p + E_PRESENT, 8);
			l->job.error = el ? (char *)name + nl + 1 : NULL;
			l->jobs_row = rl ? (char *)next - rl : NULL;
			l->has_findings = false;
			l->nfindings = 0;
			l->findings = NULL;
			atomic_fetch_add(&c->refs, 1);
			l->hold = c;
			c->hint = (size_t)(p - c->data);
			c->hint_name = name;
			c->hint_len = nl;
		}
		p = next;
	}
	return 0;
}

/* What dfs_index_dir gives with jobs_only, from the directory's sealed
 * records: *done when they told all (the logs up to max, or every one
 * there is), else the logs' rows are read for the rest (after *resume,
 * when *n is not 0). */
static int sealed_dir(dfs_index *ix, const char *dir, const char *from, dfs_index_log *out,
                      size_t max, size_t *n, bool *done, char *resume)
{
	unsigned char key[FINAL_KEY];
	size_t klen = strlen(from);
	bool gt = false;
	*done = false;
	if (klen >= sizeof(key))
		return 0;
	memcpy(key, from, klen);
	while (*n < max) {
		int rc;
		struct dfs_index_sealed *c = sealed_get(ix, dir, key, klen, gt, &rc);
		if (!c)
			return rc == SQLITE_DONE ? 0 : rc;
		rc = sealed_take(c, key, klen, gt, out, n, max);
		bool final = c->last_len == FINAL_KEY;
		if (!final) {
			klen = c->last_len;
			memcpy(key, c->last, klen);
			memcpy(resume, key, klen);
			resume[klen] = '\0';
		}
		sealed_release(c);
		if (rc)
			return rc;
		if (final) {
			*done = true;
			return 0;
		}
		gt = true;
	}
	*done = true;
	return 0;
}

size_t dfs_index_dir(dfs_index *ix, const char *dir, const char *from, bool jobs_only,
                     uint64_t insights_key, dfs_index_log *out, size_t max)
{
	size_t n = 0;
	if (max > DFS_INDEX_WINDOW)
		max = DFS_INDEX_WINDOW;
	pthread_mutex_lock(&ix->lock);
	if (ix->broken) {
		pthread_mutex_unlock(&ix->lock);
		return 0;
	}
	int bad = 0;
	bool done = false;
	char resume[FINAL_KEY];
	if (jobs_only)
		bad = sealed_dir(ix, dir, from, out, max, &n, &done, resume);
	/* (a directory without sealed records, or whose records went while
	 * it was read: the rest from the logs' rows) */
	if (!bad && !done)
		n += rows_dir(ix, dir, n ? resume : from, n ? resume : NULL, jobs_only,
		              insights_key, out + n, max - n, &bad);
	if (bad) {
		if (bad != SQLITE_NOMEM)
			failed(ix, bad, "reading");
		for (size_t i = 0; i < n; i++)
			dfs_index_log_clear(&out[i]);
		n = 0;
	}
	pthread_mutex_unlock(&ix->lock);
	return n;
}

/* ---- writing ------------------------------------------------------------------------ */

/* Open the write transaction if none is; false when no writes go. */
static bool writing(dfs_index *ix)
{
	if (ix->broken || ix->no_writes)
		return false;
	if (ix->in_tx)
		return !ix->tx_failed;
	int rc = exec(ix, "BEGIN IMMEDIATE");
	if (rc != SQLITE_OK) {
		failed(ix, rc, "starting a write");
		return false;
	}
	ix->in_tx = true;
	ix->tx_failed = false;
	return true;
}

static int step_done(dfs_index *ix, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* Statement `st` of the log whose id is `row` (?1), with `key` as ?2
 * when it takes one. */
static int step_row(dfs_index *ix, int st, int64_t row)
{
	sqlite3_stmt *s = ix->st[st];
	sqlite3_bind_int64(s, 1, row);
	return step_done(ix, s);
}

static int step_row_key(dfs_index *ix, int st, int64_t row, uint64_t key)
{
	sqlite3_bind_int64(ix->st[st], 2, (sqlite3_int64)key);
	return step_row(ix, st, row);
}

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* The log's id and whether its row is of this id (-1: none). */
static int64_t find(dfs_index *ix, const char *dir, const char *name,
                    const dfs_index_id *id, bool *same)
{
	sqlite3_stmt *s = ix->st[S_FIND];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	int64_t row = -1;
	*same = false;
	if (sqlite3_step(s) == SQLITE_ROW) {
		row = sqlite3_column_int64(s, 0);
		*same = (uint64_t)sqlite3_column_int64(s, 1) == id->dev &&
		        (uint64_t)sqlite3_column_int64(s, 2) == id->ino &&
		        sqlite3_column_int64(s, 3) == id->size &&
		        sqlite3_column_int64(s, 4) == id->mtime_ns &&
		        sqlite3_column_int64(s, 5) == id->ctime_ns &&
		        sqlite3_column_int64(s, 6) == DFS_INDEX_FACTS;
	}
	sqlite3_reset(s);
	return row;
}

static int add_findings(dfs_index *ix, int64_t row, const dfs_finding_facts *f, size_t n)
{
	sqlite3_stmt *s = ix->st[S_ADD_FINDING];
	int rc = SQLITE_OK;
	for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
		sqlite3_bind_int64(s, 1, row);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
		bind_text(s, 3, f[i].code);
		bind_text(s, 4, f[i].level);
		bind_text(s, 5, f[i].module);
		bind_text(s, 6, f[i].message);
		sqlite3_bind_double(s, 7, f[i].value);
		sqlite3_bind_double(s, 8, f[i].threshold);
		sqlite3_bind_double(s, 9, f[i].count);
		sqlite3_bind_double(s, 10, f[i].total);
		bind_text(s, 11, f[i].files);
		bind_text(s, 12, f[i].ranks);
		bind_text(s, 13, f[i].advice);
		rc = step_done(ix, s);
	}
	return rc;
}

/* The directory and those above it ("a/b": "a/b" in "a", "a" in ""). */
static int add_dirs(dfs_index *ix, const char *dir)
{
	char *d = strdup(dir);
	if (!d)
		return SQLITE_NOMEM;
	int rc = SQLITE_OK;
	while (*d && rc == SQLITE_OK) {
		char *slash = strrchr(d, '/');
		sqlite3_stmt *s = ix->st[S_ADD_DIR];
		sqlite3_bind_text(s, 1, d, -1, SQLITE_TRANSIENT);
		if (slash) {
			sqlite3_bind_text(s, 2, d, (int)(slash - d), SQLITE_TRANSIENT);
			sqlite3_bind_text(s, 3, slash + 1, -1, SQLITE_TRANSIENT);
		} else {
			sqlite3_bind_text(s, 2, "", 0, SQLITE_STATIC);
			sqlite3_bind_text(s, 3, d, -1, SQLITE_TRANSIENT);
		}
		rc = step_done(ix, s);
		/* (once there, its parents are too) */
		if (rc == SQLITE_OK && sqlite3_changes(ix->db) == 0)
			break;
		if (slash)
			*slash = '\0';
		else
			*d = '\0';
	}
	free(d);
	return rc;
}

/* The directory's sealed records go with any change to its logs. */
static int unseal(dfs_index *ix, const char *dir)
{
	if (ix->sealed && !strcmp(ix->sealed->dir, dir))
		sealed_drop(ix);
	sqlite3_stmt *s = ix->st[S_DEL_SEALED];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	return step_done(ix, s);
}

void dfs_index_put(dfs_index *ix, const char *dir, const char *name,
                   const dfs_index_id *id, const dfs_job_facts *job,
                   const char *jobs_row, const dfs_module_facts *rows, size_t nrows,
                   uint64_t insights_key, const dfs_finding_facts *findings,
                   size_t nfindings)
{
	pthread_mutex_lock(&ix->lock);
	if (!writing(ix)) {
		pthread_mutex_unlock(&ix->lock);
		return;
	}
	bool same;
	int64_t row = find(ix, dir, name, id, &same);
	int rc = SQLITE_OK;
	if (row >= 0) {
		rc = step_row(ix, S_DEL_ROWS, row);
		if (rc == SQLITE_OK)
			rc = step_row(ix, S_DEL_FINDINGS, row);
		if (rc == SQLITE_OK)
			rc = step_row(ix, S_DEL_FILES, row);
	}
	sqlite3_stmt *s = ix->st[row >= 0 ? S_UPDATE : S_INSERT];
	if (rc == SQLITE_OK && row < 0) {
		/* a new log's id: the next after the largest */
		sqlite3_stmt *q = ix->st[S_NEXT_ID];
		rc = sqlite3_step(q);
		row = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
		sqlite3_reset(q);
		rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
		if (rc == SQLITE_OK)
			sqlite3_bind_int64(s, 20, row);
	}
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s, 1, dir, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)id->dev);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)id->ino);
		sqlite3_bind_int64(s, 5, id->size);
		sqlite3_bind_int64(s, 6, id->mtime_ns);
		sqlite3_bind_int64(s, 7, id->ctime_ns);
		sqlite3_bind_int64(s, 8, DFS_INDEX_FACTS);
		bind_text(s, 9, job->error);
		if (!job->error) {
			bind_text(s, 10, job->exe);
			sqlite3_bind_int64(s, 11, job->jobid);
			sqlite3_bind_int64(s, 12, job->uid);
			sqlite3_bind_int64(s, 13, job->nprocs);
			sqlite3_bind_int64(s, 14, job->start);
			sqlite3_bind_int64(s, 15, job->end);
			sqlite3_bind_double(s, 16, job->run_time);
			sqlite3_bind_int64(s, 17, (sqlite3_int64)job->present);
			sqlite3_bind_int64(s, 18, (sqlite3_int64)job->partial);
		}
		if (findings)
			sqlite3_bind_int64(s, 19, (sqlite3_int64)insights_key);
		sqlite3_bind_int64(s, 20, row);
		bind_text(s, 21, jobs_row);
		rc = step_done(ix, s);
	}
	sqlite3_stmt *a = ix->st[S_ADD_ROW];
	for (size_t i = 0; i < nrows && rc == SQLITE_OK; i++) {
		const dfs_module_facts *r = &rows[i];
		sqlite3_bind_int64(a, 1, row);
		sqlite3_bind_int64(a, 2, (sqlite3_int64)i);
		sqlite3_bind_text(a, 3, r->module == DFS_FACTS_COMBINED ? "POSIX+STDIO" :
		                        dfs_module_get(r->module)->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(a, 4, r->partial);
		if (r->ok) {
			sqlite3_bind_int64(a, 5, (sqlite3_int64)r->records);
			sqlite3_bind_int64(a, 6, r->total_bytes);
			sqlite3_bind_int64(a, 7, r->bytes_read);
			sqlite3_bind_int64(a, 8, r->bytes_written);
			for (int k = 0; k < DFS_FACTS_FILES_KINDS; k++)
				sqlite3_bind_int64(a, 9 + k, r->files[k]);
			sqlite3_bind_double(a, 15, r->time_by_slowest);
			sqlite3_bind_double(a, 16, r->perf_by_slowest);
		}
		bind_text(a, 17, r->error);
		rc = step_done(ix, a);
	}
	if (rc == SQLITE_OK && findings)
		rc = add_findings(ix, row, findings, nfindings);
	if (rc == SQLITE_OK)
		rc = add_dirs(ix, dir);
	if (rc == SQLITE_OK)
		rc = unseal(ix, dir);
	if (rc != SQLITE_OK) {
		ix->tx_failed = true;
		failed(ix, rc, "writing");
	}
	pthread_mutex_unlock(&ix->lock);
}

/* A log's files blob, in pieces (a blob of SQLite is at most 1 GB, and a
 * piece is written and read without a copy of the whole). */
static int add_files(dfs_index *ix, int64_t row, const void *data, size_t len)
{
	sqlite3_stmt *a = ix->st[S_ADD_FILES];
	const unsigned char *p = data;
	size_t off = 0;
	int rc = SQLITE_OK;
	for (int64_t seq = 0; rc == SQLITE_OK && (off < len || seq == 0); seq++) {
		size_t piece = len - off < DFS_INDEX_FILES_PIECE ? len - off
		                                                 : DFS_INDEX_FILES_PIECE;
		sqlite3_bind_int64(a, 1, row);
		sqlite3_bind_int64(a, 2, seq);
		sqlite3_bind_blob(a, 3, piece ? (const void *)(p + off) : (const void *)"", (int)piece,
		                  SQLITE_STATIC);
		rc = step_done(ix, a);
		off += piece;
	}
	return rc;
}

/* A part of a log's row made after the row (its findings, its files) put
 * in place of the one it had, with the key it was made with, when the
 * index holds the row of that very file. */
static void put_part(dfs_index *ix, const char *dir, const char *name,
                     const dfs_index_id *id, bool files, uint64_t key,
                     const void *data, size_t n)
{
	pthread_mutex_lock(&ix->lock);
	if (!writing(ix)) {
		pthread_mutex_unlock(&ix->lock);
		return;
	}
	bool same;
	int64_t row = find(ix, dir, name, id, &same);
	int rc = SQLITE_OK;
	if (row >= 0 && same) {
		rc = step_row(ix, files ? S_DEL_FILES : S_DEL_FINDINGS, row);
		if (rc == SQLITE_OK)
			rc = files ? add_files(ix, row, data, n) : add_findings(ix, row, data, n);
		if (rc == SQLITE_OK)
			rc = step_row_key(ix, files ? S_SET_FILES_KEY : S_SET_KEY, row, key);
	}
	if (rc != SQLITE_OK) {
		ix->tx_failed = true;
		failed(ix, rc, "writing");
	}
	pthread_mutex_unlock(&ix->lock);
}

void dfs_index_put_findings(dfs_index *ix, const char *dir, const char *name,
                            const dfs_index_id *id, uint64_t insights_key,
                            const dfs_finding_facts *findings, size_t nfindings)
{
	put_part(ix, dir, name, id, false, insights_key, findings, nfindings);
}

void dfs_index_put_files(dfs_index *ix, const char *dir, const char *name,
                         const dfs_index_id *id, uint64_t files_key, const void *data,
                         size_t len)
{
	put_part(ix, dir, name, id, true, files_key, data, len);
}

int dfs_index_files(dfs_index *ix, const char *dir, const char *name,
                    const dfs_index_id *id, uint64_t files_key, dfs_buf *out)
{
	pthread_mutex_lock(&ix->lock);
	if (ix->broken) {
		pthread_mutex_unlock(&ix->lock);
		return 0;
	}
	sqlite3_stmt *s = ix->st[S_FILES];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)id->dev);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)id->ino);
	sqlite3_bind_int64(s, 5, id->size);
	sqlite3_bind_int64(s, 6, id->mtime_ns);
	sqlite3_bind_int64(s, 7, id->ctime_ns);
	sqlite3_bind_int64(s, 8, DFS_INDEX_FACTS);
	sqlite3_bind_int64(s, 9, (sqlite3_int64)files_key);
	size_t at = out->len;
	int rc, pieces = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		/* (room for the whole at the first piece: one allocation) */
		if (!pieces)
			dfs_buf_reserve(out, (size_t)sqlite3_column_int64(s, 1));
		const void *b = sqlite3_column_blob(s, 0);
		int n = sqlite3_column_bytes(s, 0);
		if (n > 0)
			dfs_buf_add(out, b, (size_t)n);
		pieces++;
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE)
		failed(ix, rc, "reading");
	pthread_mutex_unlock(&ix->lock);
	if (rc != SQLITE_DONE || !pieces || !dfs_buf_ok(out)) {
		if (dfs_buf_ok(out))
			out->len = at;
		return 0;
	}
	return 1;
}

void dfs_index_forget(dfs_index *ix, const char *dir, const char *name)
{
	pthread_mutex_lock(&ix->lock);
	if (!writing(ix)) {
		pthread_mutex_unlock(&ix->lock);
		return;
	}
	dfs_index_id none = {0};
	bool same;
	int64_t row = find(ix, dir, name, &none, &same);
	int rc = SQLITE_OK;
	static const enum stmt del[] = {S_DEL_ROWS, S_DEL_FINDINGS, S_DEL_FILES, S_DEL_LOG};
	for (size_t i = 0; row >= 0 && i < 4 && rc == SQLITE_OK; i++) {
		sqlite3_bind_int64(ix->st[del[i]], 1, row);
		rc = step_done(ix, ix->st[del[i]]);
	}
	if (row >= 0 && rc == SQLITE_OK)
		rc = unseal(ix, dir);
	if (rc != SQLITE_OK) {
		ix->tx_failed = true;
		failed(ix, rc, "writing");
	}
	pthread_mutex_unlock(&ix->lock);
}

void dfs_index_forget_dir(dfs_index *ix, const char *dir)
{
	pthread_mutex_lock(&ix->lock);
	if (!writing(ix)) {
		pthread_mutex_unlock(&ix->lock);
		return;
	}
	int rc = SQLITE_OK;
	static const enum stmt del[] = {S_DEL_DIR_ROWS, S_DEL_DIR_FINDINGS, S_DEL_DIR_FILES,
	                                S_DEL_DIR_LOGS, S_DEL_DIRS, S_DEL_DIR_SEALED};
	sealed_drop(ix);
	for (size_t i = 0; i < 6 && rc == SQLITE_OK; i++) {
		sqlite3_bind_text(ix->st[del[i]], 1, dir, -1, SQLITE_TRANSIENT);
		rc = step_done(ix, ix->st[del[i]]);
	}
	if (rc != SQLITE_OK) {
		ix->tx_failed = true;
		failed(ix, rc, "writing");
	}
	pthread_mutex_unlock(&ix->lock);
}

size_t dfs_index_subdirs(dfs_index *ix, const char *dir, char ***names)
{
	*names = NULL;
	size_t n = 0, cap = 0;
	pthread_mutex_lock(&ix->lock);
	if (ix->broken) {
		pthread_mutex_unlock(&ix->lock);
		return 0;
	}
	sqlite3_stmt *s = ix->st[S_SUBDIRS];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **grown = realloc(*names, cap * sizeof(char *));
			if (!grown)
				break;
			*names = grown;
		}
		if (((*names)[n] = col_text(s, 0)))
			n++;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		failed(ix, rc, "reading");
	pthread_mutex_unlock(&ix->lock);
	return n;
}

void dfs_index_seal(dfs_index *ix, const char *dir)
{
	pthread_mutex_lock(&ix->lock);
	if (ix->broken || ix->no_writes) {
		pthread_mutex_unlock(&ix->lock);
		return;
	}
	/* (sealed already: nothing changed since) */
	sqlite3_stmt *s = ix->st[S_SEALED_ANY];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, DFS_INDEX_FACTS);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		if (rc != SQLITE_ROW)
			failed(ix, rc, "reading");
		pthread_mutex_unlock(&ix->lock);
		return;
	}
	if (!writing(ix)) {
		pthread_mutex_unlock(&ix->lock);
		return;
	}
	/* (records of another facts version go) */
	rc = unseal(ix, dir);
	dfs_buf b = DFS_BUF_INIT;
	unsigned char prev[FINAL_KEY], key[FINAL_KEY];
	size_t plen = 0, klen = 0, count = 0;
	bool has_prev = false;
	s = ix->st[S_SEAL_ROWS];
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, DFS_INDEX_FACTS);
	for (bool last = false; rc == SQLITE_OK && !last;) {
		int step = sqlite3_step(s);
		last = step != SQLITE_ROW;
		if (last && step != SQLITE_DONE) {
			rc = step;
			break;
		}
		/* a record full (and more to come), or the last one */
		if (count == DFS_INDEX_SEALED || last) {
			unsigned char head[H_PREV];
			head[H_FLAGS] = has_prev ? HAS_PREV : 0;
			head[H_PREV_LEN] = (unsigned char)plen;
			head[H_PREV_LEN + 1] = (unsigned char)(plen >> 8);
			if (!b.len)
				dfs_buf_add_zeros(&b, H_PREV + plen);
			if (!dfs_buf_ok(&b) || b.len < H_PREV + plen || b.len > INT_MAX) {
				rc = SQLITE_NOMEM;
				break;
			}
			memcpy(b.data, head, H_PREV);
			memcpy(b.data + H_PREV, prev, plen);
			if (last) {
				klen = FINAL_KEY;
				memset(key, 0xff, klen);
			}
			sqlite3_stmt *a = ix->st[S_SEAL_ADD];
			sqlite3_bind_text(a, 1, dir, -1, SQLITE_STATIC);
			sqlite3_bind_blob(a, 2, key, (int)klen, SQLITE_STATIC);
			sqlite3_bind_int64(a, 3, DFS_INDEX_FACTS);
			sqlite3_bind_blob(a, 4, b.data, (int)b.len, SQLITE_STATIC);
			rc = step_done(ix, a);
			memcpy(prev, key, klen);
			plen = klen;
			has_prev = true;
			count = 0;
			dfs_buf_reset(&b);
		}
		if (last || rc != SQLITE_OK)
			break;
		if (!b.len)   /* (the header, filled in when the record is) */
			dfs_buf_add_zeros(&b, H_PREV + plen);
		const char *name = (const char *)sqlite3_column_text(s, 0);
		size_t nl = name ? (size_t)sqlite3_column_bytes(s, 0) : 0;
		const char *error = (const char *)sqlite3_column_text(s, 6);
		size_t el = error ? (size_t)sqlite3_column_bytes(s, 6) : 0;
		const char *row = (const char *)sqlite3_column_text(s, 8);
		size_t rl = row ? (size_t)sqlite3_column_bytes(s, 8) : 0;
		if (!name || nl >= FINAL_KEY) {
			rc = name ? SQLITE_OK : SQLITE_NOMEM;
			continue;   /* (no such name in a directory: left to the rows) */
		}
		for (int c = 1; c <= 5; c++)
			put_le(&b, (uint64_t)sqlite3_column_int64(s, c), 8);
		put_le(&b, (uint64_t)sqlite3_column_int64(s, 7), 8);
		put_le(&b, nl, 2);
		dfs_buf_addc(&b, (char)((error ? HAS_ERROR : 0) | (row ? HAS_ROW : 0)));
		dfs_buf_addc(&b, 0);
		put_le(&b, el, 4);
		put_le(&b, rl, 4);
		dfs_buf_add(&b, name, nl + 1);
		if (error)
			dfs_buf_add(&b, error, el + 1);
		if (row)
			dfs_buf_add(&b, row, rl + 1);
		memcpy(key, name, nl);
		klen = nl;
		count++;
	}
	sqlite3_reset(s);
	dfs_buf_free(&b);
	if (rc != SQLITE_OK) {
		ix->tx_failed = true;
		failed(ix, rc, "writing");
	}
	pthread_mutex_unlock(&ix->lock);
}

void dfs_index_commit(dfs_index *ix)
{
	pthread_mutex_lock(&ix->lock);
	if (ix->in_tx && ix->tx_failed)
		sealed_drop(ix);   /* (it may be of what goes) */
	if (ix->in_tx) {
		int rc = exec(ix, ix->tx_failed ? "ROLLBACK" : "COMMIT");
		if (rc != SQLITE_OK) {
			failed(ix, rc, "committing");
			exec(ix, "ROLLBACK");
		}
		ix->in_tx = false;
		ix->tx_failed = false;
	}
	pthread_mutex_unlock(&ix->lock);
}
