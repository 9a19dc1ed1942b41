/* main.c - the darshanfs command: options, start-up checks, mounting and
 * the FUSE loop.
 *
 *   darshanfs [options] SOURCE MOUNTPOINT
 *
 * SOURCE is checked before the process daemonizes so that every start-up
 * error reaches the terminal; each failure has its own exit status (see
 * usage()).  Called as mount.darshanfs or mount.fuse.darshanfs it accepts
 * mount(8)'s helper syntax, so /etc/fstab lines of type fuse.darshanfs
 * work. */
#include "fuse/fs.h"

#include <ctype.h>
#include <errno.h>
#include <fuse_lowlevel.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <mntent.h>
#include <signal.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/hash.h"
#include "darshanfs-usage.h"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,      /* bad command line or option */
	EXIT_SOURCE = 2,     /* SOURCE missing, unreadable or not a log */
	EXIT_MOUNT = 3,      /* MOUNTPOINT unusable, or the mount failed */
	EXIT_RUNTIME = 4,    /* out of memory or a failure while serving */
};

struct config {
	char *source;
	char *mountpoint_arg;
	char *cache_size;
	char *import_limit;
	char *import_memory;
	char *insights;
	char *attr_timeout;
	char *index;
	int noindex;
	int prefill;
	int follow_outside;      /* -1: not said (then: not with allow_other) */
	int allow_other;
	int nonempty;            /* mount over a MOUNTPOINT that holds files */
	int show_help;
	int show_version;
	int nonopts;
};

#define OPT(t, p) {t, offsetof(struct config, p), 1}
enum { KEY_ALLOW_OTHER = 1 };
static const struct fuse_opt dfs_opts[] = {
	OPT("cache_size=%s", cache_size),
	OPT("import_limit=%s", import_limit),
	OPT("import_memory=%s", import_memory),
	OPT("insights=%s", insights),
	OPT("attr_timeout=%s", attr_timeout),
	OPT("index=%s", index),
	{"noindex", offsetof(struct config, noindex), 1},
	{"prefill", offsetof(struct config, prefill), 1},
	{"noprefill", offsetof(struct config, prefill), 0},
	{"follow_outside", offsetof(struct config, follow_outside), 1},
	{"nofollow_outside", offsetof(struct config, follow_outside), 0},
	{"nonempty", offsetof(struct config, nonempty), 1},
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	OPT("-h", show_help),
	OPT("--help", show_help),
	OPT("-V", show_version),
	OPT("--version", show_version),
	FUSE_OPT_END
};

static const char *mount_only_options[] = {
	"auto", "noauto", "user", "users", "nouser", "owner", "_netdev", "nofail",
	"defaults", NULL,
};

/* The option list and the exit statuses are those of the manual page:
 * docs/man/manpage.py makes darshanfs-usage.h of docs/man/darshanfs.1.rst. */
static void usage(const char *prog)
{
	printf("usage: %s [options] SOURCE MOUNTPOINT\n"
	       "\n"
	       "Mount SOURCE, a directory tree of Darshan logs or a single log, as a\n"
	       "tree of CSV and text files at MOUNTPOINT (man darshanfs).\n"
	       "\n"
	       "darshanfs options:\n", prog);
	fputs(dfs_usage_options, stdout);
	fputs("\nexit status:\n", stdout);
	fputs(dfs_usage_exit, stdout);
	fputs("\n", stdout);
}

/* The machine's memory: no cache or import can be larger. */
static double memory_size(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (double)pages * (double)page : 0x1p62;
}

/* SIZE: a number >= 0 with an optional suffix, at most the machine's
 * memory; -1 with the reason printed (`what` names the option). */
static int parse_size(const char *what, const char *s, size_t *out)
{
	char *end;
	errno = 0;
	/* (decimal only: strtod also reads hex, "inf" and "nan") */
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0 ||
	    !(isdigit((unsigned char)s[0]) || s[0] == '.') ||
	    strpbrk(s, "xX"))
		goto bad;
	double mult = 1;
	switch (*end) {
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'i' && end[-1] != *s)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		goto bad;
	double limit = memory_size();
	if (v * mult > limit) {
		fprintf(stderr, "darshanfs: %s=%s is more than this machine's memory "
		        "(%.0fM)\n", what, s, floor(limit / (1024.0 * 1024)));
		return -1;
	}
	*out = (size_t)(v * mult);
	return 0;
bad:
	fprintf(stderr, "darshanfs: bad %s '%s' (a number >= 0 with an optional "
	        "suffix K, M, G or T)\n", what, s);
	return -1;
}

/* SECS: a finite number >= 0 (seconds, fractions allowed) */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* Is `dir` already the mount point of a darshanfs mount?  Mounting there
 * again would stack a second file system over the first. */
static bool darshanfs_mounted_on(const char *dir)
{
	char *real = realpath(dir, NULL);
	FILE *f = real ? setmntent("/proc/self/mounts", "r") : NULL;
	bool found = false;
	struct mntent *e;
	while (f && !found && (e = getmntent(f)))
		found = strcmp(e->mnt_dir, real) == 0 &&
		        strcmp(e->mnt_type, "fuse.darshanfs") == 0;
	if (f)
		endmntent(f);
	free(real);
	return found;
}

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *out)
{
	(void)out;
	struct config *c = data;
	if (key == FUSE_OPT_KEY_NONOPT) {
		c->nonopts++;
		if (!c->source) {
			c->source = strdup(arg);
			return 0;
		}
		if (!c->mountpoint_arg) {
			c->mountpoint_arg = strdup(arg);
			return 1;
		}
		fprintf(stderr, "darshanfs: unexpected argument '%s'\n", arg);
		return -1;
	}
	if (key == KEY_ALLOW_OTHER) {
		c->allow_other = 1;
		return 1;   /* libfuse's too */
	}
	if (key == FUSE_OPT_KEY_OPT) {
		for (const char **m = mount_only_options; *m; m++)
			if (strcmp(arg, *m) == 0)
				return 0;
		if (strncmp(arg, "x-", 2) == 0 || strncmp(arg, "comment=", 8) == 0)
			return 0;
	}
	return 1;
}

/* mount(8) runs helpers as: mount.TYPE SOURCE DIR [-sfnv] [-o OPTIONS];
 * drop the flags that mean something else to us. */
static void strip_mount_flags(int *argc, char **argv)
{
	int k = 1;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1] && strspn(a + 1, "sfnv") == strlen(a + 1))
			continue;
		if (strcmp(a, "-N") == 0 || strcmp(a, "-t") == 0) {
			i++;
			continue;
		}
		argv[k++] = argv[i];
	}
	*argc = k;
}

/* A mount must never hide data nor serve itself: refuse (with why, and
 * the likely cause) a MOUNTPOINT inside SOURCE or holding it, and one
 * that is not empty unless told to mount over it; warn when SOURCE holds
 * no log.  0 with *mnt_real the canonical MOUNTPOINT, or -1 (said on
 * stderr). */
#define SCAN_BUDGET 100000   /* entries looked at for logs, at most */
static int check_layout(const char *source, const char *mountpoint, bool nonempty,
                        char **mnt_real)
{
	char *src = realpath(source, NULL);
	char *mnt = realpath(mountpoint, NULL);
	int ret = -1;
	if (!src || !mnt) {
		fprintf(stderr, "darshanfs: %s: %s\n", src ? mountpoint : source,
		        strerror(errno));
		goto out;
	}
	switch (dfs_startup_nesting(src, mnt)) {
	case DFS_SOURCE_IN_MOUNT:
		if (strcmp(src, mnt) == 0)
			fprintf(stderr, "darshanfs: SOURCE and MOUNTPOINT are the same "
			        "directory (%s): the mount would hide SOURCE from "
			        "darshanfs itself; mount it elsewhere\n", src);
		else
			fprintf(stderr, "darshanfs: SOURCE %s is inside MOUNTPOINT %s: "
			        "the mount would hide SOURCE from darshanfs itself; "
			        "choose a mount point outside SOURCE's path\n", src, mnt);
		goto out;
	case DFS_MOUNT_IN_SOURCE:
		fprintf(stderr, "darshanfs: MOUNTPOINT %s is inside SOURCE %s: the "
		        "tree would hold itself (and reading it would wait for "
		        "itself); choose a mount point outside SOURCE\n", mnt, src);
		goto out;
	}
	long entries = dfs_startup_entries(mnt);
	if (entries > 0 && !nonempty) {
		bool cut;
		size_t logs = dfs_startup_count_logs(mnt, SCAN_BUDGET, (size_t)-1, &cut);
		if (logs)
			fprintf(stderr, "darshanfs: MOUNTPOINT %s holds %s%zu Darshan "
			        "log%s: were SOURCE and MOUNTPOINT swapped? (usage: "
			        "darshanfs [options] SOURCE MOUNTPOINT; -o nonempty "
			        "mounts over them, hiding them until the unmount)\n",
			        mountpoint, cut ? "at least " : "", logs, logs == 1 ? "" : "s");
		else
			fprintf(stderr, "darshanfs: MOUNTPOINT %s is not empty (%ld "
			        "entr%s): the mount would hide %s until it is unmounted; "
			        "mount on an empty directory, or use -o nonempty to "
			        "mount over %s\n", mountpoint, entries,
			        entries == 1 ? "y" : "ies", entries == 1 ? "it" : "them",
			        entries == 1 ? "it" : "them");
		goto out;
	}
	struct stat st;
	bool cut;
	if (stat(src, &st) == 0 && S_ISDIR(st.st_mode) &&
	    dfs_startup_count_logs(src, SCAN_BUDGET, 1, &cut) == 0 && !cut)
		fprintf(stderr, "darshanfs: warning: SOURCE %s holds no Darshan log "
		        "(*.darshan): the mount shows an empty tree until logs "
		        "arrive\n", source);
	*mnt_real = mnt;
	mnt = NULL;
	ret = 0;
out:
	free(src);
	free(mnt);
	return ret;
}

/* The index of SOURCE when none is named: $XDG_CACHE_HOME/darshanfs (or
 * ~/.cache/darshanfs) / NAME-HASH.index, NAME the base name of SOURCE's
 * real path (letters, digits, '.', '_', '-'), HASH a hash of all of it:
 * one file per SOURCE.  NULL when there is no home to put it in. */
static char *default_index(const char *source)
{
	char *real = realpath(source, NULL);
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (!real || (!(cache && *cache == '/') && !(home && *home == '/'))) {
		free(real);
		return NULL;
	}
	char name[72];
	const char *base = strrchr(real, '/');
	base = base && base[1] ? base + 1 : "root";
	size_t k = 0;
	for (; *base && k < 64; base++)
		name[k++] = strchr("._-", *base) || (*base >= '0' && *base <= '9') ||
		            ((*base | 32) >= 'a' && (*base | 32) <= 'z') ? *base : '_';
	name[k] = '\0';
	uint64_t h = dfs_fnv1a(DFS_FNV1A_INIT, real, strlen(real));
	free(real);
	char *path = malloc(strlen(cache && *cache == '/' ? cache : home) + 128);
	if (!path)
		return NULL;
	if (cache && *cache == '/')
		sprintf(path, "%s/darshanfs/%s-%016llx.index", cache, name, (unsigned long long)h);
	else
		sprintf(path, "%s/.cache/darshanfs/%s-%016llx.index", home, name,
		        (unsigned long long)h);
	return path;
}

/* What goes wrong with the index: one line on stderr, and in the system
 * log once the daemon is in the background (ctx: its foreground flag). */
static void index_notice(void *ctx, const char *line)
{
	const int *foreground = ctx;
	fprintf(stderr, "darshanfs: %s\n", line);
	if (!*foreground)
		syslog(LOG_WARNING, "darshanfs: %s", line);
}

static char *escape_commas(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(2 * n + 1), *p = out;
	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == ',' || *s == '\\')
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return out;
}

int main(int argc, char **argv)
{
	/* Decoded logs and rendered files are large, long-lived blocks that
	 * the cache frees in bulk: serve every block of 1 MiB or more with
	 * its own mapping, so freeing it returns the memory at once instead
	 * of leaving it in a per-thread malloc arena (a fixed threshold also
	 * stops glibc from raising it after the first big free). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	/* ... and keep up to 4 MiB free at the top of an arena: glibc's
	 * 128 KiB default gives back (MADV_DONTNEED, a TLB shootdown on every
	 * core) the buffer of a read at each free, faulted in again at the
	 * next malloc */
	mallopt(M_TRIM_THRESHOLD, 4 << 20);
	char *prog_copy = strdup(argv[0]);
	const char *prog = basename(prog_copy);
	if (strncmp(prog, "mount.", 6) == 0)
		strip_mount_flags(&argc, argv);

	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct config conf = {.prefill = 1, .follow_outside = -1};
	struct fuse_cmdline_opts opts = {0};
	struct dfs_fs fs = {0};
	int status = EXIT_USAGE;
	dfs_view_options vopt = {0};
	char *mnt_real = NULL;

	if (fuse_opt_parse(&args, &conf, dfs_opts, opt_proc) == -1)
		goto out;
	if (conf.show_help) {
		usage(prog);
		printf("FUSE options:\n");
		fuse_cmdline_help();
		fuse_lowlevel_help();
		status = EXIT_OK;
		goto out;
	}
	if (conf.show_version) {
		printf("darshanfs version %s\n", DFS_VERSION);
		printf("FUSE library version %s\n", fuse_pkgversion());
		fflush(stdout); /* libfuse writes the next line itself */
		fuse_lowlevel_version();
		status = EXIT_OK;
		goto out;
	}
	/* a bad mount point is a mount failure (libfuse would only say
	 * "bad mount point" and leave the usage status) */
	struct stat mst;
	if (conf.mountpoint_arg && (stat(conf.mountpoint_arg, &mst) != 0 ||
	                            !S_ISDIR(mst.st_mode))) {
		fprintf(stderr, "darshanfs: %s: %s\n", conf.mountpoint_arg,
		        errno ? strerror(errno) : "not a directory");
		status = EXIT_MOUNT;
		goto out;
	}
	if (conf.mountpoint_arg && darshanfs_mounted_on(conf.mountpoint_arg)) {
		fprintf(stderr, "darshanfs: %s: already a darshanfs mount point "
		        "(unmount it first: fusermount3 -u %s)\n",
		        conf.mountpoint_arg, conf.mountpoint_arg);
		status = EXIT_MOUNT;
		goto out;
	}
	if (fuse_parse_cmdline(&args, &opts) != 0)
		goto out;
	if (!conf.source || !opts.mountpoint) {
		fprintf(stderr, "usage: %s [options] SOURCE MOUNTPOINT\n"
		                "(try '%s --help')\n", prog, prog);
		goto out;
	}
	if (conf.cache_size && parse_size("cache_size", conf.cache_size, &vopt.cache_size))
		goto out;
	/* on a shared mount a link must not show another user what lies
	 * outside SOURCE */
	vopt.nofollow_outside = conf.follow_outside < 0 ? conf.allow_other
	                                                : !conf.follow_outside;
	/* on a shared mount each user's filters are their own */
	vopt.per_user = conf.allow_other;
	vopt.owner = getuid();
	if (conf.import_limit &&
	    parse_size("import_limit", conf.import_limit, &vopt.import_limit))
		goto out;
	if (conf.import_memory &&
	    parse_size("import_memory", conf.import_memory, &vopt.import_memory))
		goto out;
	dfs_insight_thresholds thresholds;
	if (conf.insights) {
		dfs_error terr = {0};
		dfs_insight_thresholds_default(&thresholds);
		if (dfs_insight_thresholds_load(&thresholds, conf.insights, &terr)) {
			fprintf(stderr, "darshanfs: bad insights: %s\n", terr.msg);
			goto out;
		}
		vopt.thresholds = &thresholds;
	}
	double attr_timeout = 1.0;
	if (conf.attr_timeout && parse_seconds(conf.attr_timeout, &attr_timeout)) {
		fprintf(stderr, "darshanfs: bad attr_timeout '%s' (seconds: a number "
		        ">= 0)\n", conf.attr_timeout);
		goto out;
	}

	/* what a caller reaches is what it reaches on disk; a directory's
	 * permissions are trusted as long as the kernel trusts its
	 * attributes */
	vopt.check_access = true;
	vopt.attr_timeout = attr_timeout;
	char *index_path = NULL;
	if (!conf.noindex)
		index_path = conf.index ? strdup(conf.index) : default_index(conf.source);
	vopt.index_path = index_path;
	vopt.notice = index_notice;
	vopt.notice_ctx = &opts.foreground;

	/* check SOURCE now, while errors still reach the terminal */
	dfs_error err = {0};
	fs.view = dfs_view_new(conf.source, &vopt, &err);
	free(index_path);
	if (!fs.view) {
		fprintf(stderr, "darshanfs: %s\n", err.msg);
		status = EXIT_SOURCE;
		goto out;
	}
	if (check_layout(conf.source, conf.mountpoint_arg, conf.nonempty != 0,
	                 &mnt_real)) {
		status = EXIT_MOUNT;
		goto out;
	}
	fs.dir_timeout = attr_timeout;
	fs.prefill = conf.prefill != 0;
	fs.debug = opts.debug != 0;
	fs.per_user = vopt.per_user;
	fs.file_timeout = 86400; /* an inode's bytes never change */
	if (dfs_inodes_init(&fs.inodes)) {
		status = EXIT_RUNTIME;
		goto out;
	}
	dfs_temps_init(&fs.temps);
	pthread_mutex_init(&fs.handles_lock, NULL);
	pthread_mutex_init(&fs.early_lock, NULL);
	fs.read_buf_ok = pthread_key_create(&fs.read_buf, free) == 0;

	char *fsname = escape_commas(conf.source);
	char *fsopt = malloc(strlen(fsname ? fsname : "") + 64);
	if (!fsname || !fsopt) {
		status = EXIT_RUNTIME;
		goto out;
	}
	sprintf(fsopt, "-ofsname=%s", fsname);
	free(fsname);
	fuse_opt_add_arg(&args, "-odefault_permissions");
	fuse_opt_add_arg(&args, "-osubtype=darshanfs");
	fuse_opt_add_arg(&args, fsopt);
	free(fsopt);

	fs.se = fuse_session_new(&args, &dfs_fuse_ops, sizeof(dfs_fuse_ops), &fs);
	if (!fs.se)
		goto out; /* libfuse said why */
	if (fuse_session_mount(fs.se, opts.mountpoint) != 0) {
		status = EXIT_MOUNT;
		goto out_destroy;
	}
	/* the view never looks into its own mount (a link there would ask
	 * the daemon for what it is answering): its path, known before,
	 * and its device */
	dev_t mdev;
	bool mdev_known = dfs_startup_mount_dev(mnt_real, &mdev) == 0;
	if (dfs_view_set_mount(fs.view, mnt_real, mdev_known ? &mdev : NULL)) {
		status = EXIT_RUNTIME;
		goto out_unmount;
	}
	if (fuse_daemonize(opts.foreground) != 0) {
		status = EXIT_RUNTIME;
		goto out_unmount;
	}
	struct fuse_session *se = fs.se;
	/* libfuse only handles signals left at their default action, and a
	 * shell starts background jobs with SIGINT ignored: unmount cleanly on
	 * SIGINT, SIGTERM and SIGHUP however we were started */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (fuse_set_signal_handlers(se) != 0) {
		status = EXIT_RUNTIME;
		goto out_unmount;
	}
	int ret;
	if (opts.singlethread) {
		ret = fuse_session_loop(se);
	} else {
		struct fuse_loop_config *lc = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(lc, opts.clone_fd);
		fuse_loop_cfg_set_max_threads(lc, opts.max_threads);
		if (opts.max_idle_threads != UINT_MAX) /* libfuse's "not given" */
			fuse_loop_cfg_set_idle_threads(lc, opts.max_idle_threads);
		ret = fuse_session_loop_mt(se, lc);
		fuse_loop_cfg_destroy(lc);
	}
	/* the loop returns the signal that ended it (SIGTERM, SIGINT...):
	 * that is a clean unmount; negative values are failures */
	status = ret >= 0 ? EXIT_OK : EXIT_RUNTIME;
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_session_unmount(fs.se);
out_destroy:
	fuse_session_destroy(fs.se);
out:
	if (fs.inodes.size) {
		dfs_fuse_close_handles(&fs);
		pthread_mutex_destroy(&fs.handles_lock);
		dfs_temps_free(&fs.temps);
		dfs_early_free_all(&fs);
		pthread_mutex_destroy(&fs.early_lock);
		if (fs.read_buf_ok) {
			/* (the worker threads' went as they ended) */
			free(pthread_getspecific(fs.read_buf));
			pthread_key_delete(fs.read_buf);
		}
		dfs_inodes_free(&fs.inodes);
	}
	dfs_view_free(fs.view);
	free(mnt_real);
	free(opts.mountpoint);
	free(conf.source);
	free(conf.mountpoint_arg);
	free(conf.cache_size);
	free(conf.import_limit);
	free(conf.import_memory);
	free(conf.insights);
	free(conf.attr_timeout);
	free(conf.index);
	fuse_opt_free_args(&args);
	free(prog_copy);
	return status;
}
