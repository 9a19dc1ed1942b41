/* startup.c - what the darshanfs command checks before it mounts, so that
 * a mount never hides data nor serves itself: the layout of SOURCE and
 * MOUNTPOINT, what MOUNTPOINT holds, whether SOURCE holds a log; and,
 * once mounted, the device of the mount (the view never looks there). */
#include "fuse/fs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Is `in` (canonical) below or at `dir` (canonical)? */
static bool path_within(const char *in, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(in, dir, n) == 0 && (in[n] == '/' || in[n] == '\0');
}

int dfs_startup_nesting(const char *source, const char *mountpoint)
{
	if (path_within(source, mountpoint))
		return DFS_SOURCE_IN_MOUNT;
	if (path_within(mountpoint, source))
		return DFS_MOUNT_IN_SOURCE;
	return 0;
}

static bool is_log_name(const char *name)
{
	size_t n = strlen(name);
	return n > 8 && strcmp(name + n - 8, ".darshan") == 0;
}

#define SCAN_DEPTH 64

/* Count into *c the *.darshan files and links below dir, and the
 * entries looked at, until `budget` entries or `stop` logs were seen
 * (directories are entered, links to them are not). */
struct scan {
	size_t logs, entries, budget, stop;
	bool cut;
};

static void scan_dir(const char *dir, int depth, struct scan *c)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++c->entries > c->budget || c->logs >= c->stop) {
			c->cut = true;
			break;
		}
		unsigned type = de->d_type;
		char *path = NULL;
		if (type == DT_UNKNOWN || (type == DT_DIR && depth < SCAN_DEPTH)) {
			size_t n = strlen(dir), m = strlen(de->d_name);
			if (!(path = malloc(n + m + 2)))
				break;
			memcpy(path, dir, n);
			path[n] = '/';
			memcpy(path + n + 1, de->d_name, m + 1);
		}
		struct stat st;
		if (type == DT_UNKNOWN && path && lstat(path, &st) == 0)
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
			       S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
		if (type == DT_DIR && path && depth < SCAN_DEPTH)
			scan_dir(path, depth + 1, c);
		else if ((type == DT_REG || type == DT_LNK) && is_log_name(de->d_name))
			c->logs++;
		free(path);
		if (c->cut)
			break;
	}
	closedir(d);
}

size_t dfs_startup_count_logs(const char *dir, size_t budget, size_t stop, bool *cut)
{
	struct scan c = {.budget = budget, .stop = stop};
	scan_dir(dir, 0, &c);
	*cut = c.cut;
	return c.logs;
}

long dfs_startup_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* /proc/self/mountinfo writes space, tab, newline and backslash in paths
 * as \ooo: undo it in place */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int dfs_startup_mount_dev(const char *mountpoint, dev_t *dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int found = -1;
	/* the last FUSE mount there is the one on top: ours */
	while (getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char mnt[4096], type[256];
		/* id parent major:minor root mountpoint options [fields] - type ... */
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mnt) != 3)
			continue;
		const char *sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%255s", type) != 1)
			continue;
		unescape(mnt);
		if (strcmp(mnt, mountpoint) == 0 && strncmp(type, "fuse", 4) == 0) {
			*dev = makedev(maj, min);
			found = 0;
		}
	}
	free(line);
	fclose(f);
	return found;
}
