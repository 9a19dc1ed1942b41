/* relay.h - records handed from the thread that inflates a log to the
 * helper thread that shows them to a dfs_log_observer (internal).
 *
 * The inflating thread copies each run of records it has packed into one
 * of a few buffers and goes on; the helper takes them in order.  When
 * every buffer is full the inflating thread waits: the helper's work
 * runs beside the inflate, never far behind it. */
#ifndef DFS_LOG_RELAY_H
#define DFS_LOG_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "darshanfs/log.h"

#define DFS_RELAY_SLOTS 4

struct dfs_relay_slot {
	unsigned char *data;
	size_t cap;
	const dfs_module *m;
	size_t first, count;
};

typedef struct dfs_relay {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct dfs_relay_slot slot[DFS_RELAY_SLOTS];
	size_t head, tail;          /* taken / put so far */
	bool closed;                /* nothing more will be put */
	bool refused;               /* the helper takes nothing more */
} dfs_relay;

void dfs_relay_init(dfs_relay *r);
void dfs_relay_destroy(dfs_relay *r);
/* Copy `count` records of `m` (`first` is the index of the first one)
 * for the helper; waits while every buffer is full.  Does nothing once
 * the helper refused, or when the copy cannot be made (the helper then
 * misses those records and must be told: see dfs_relay_close). */
void dfs_relay_put(dfs_relay *r, const dfs_module *m, const unsigned char *recs,
                   size_t first, size_t count);
/* No more puts (inflating thread, once done). */
void dfs_relay_close(dfs_relay *r);
/* Show every run put to `obs` in order until the relay is closed and
 * empty (helper thread). */
void dfs_relay_drain(dfs_relay *r, const dfs_log *log, const dfs_log_observer *obs);
/* Take nothing more: puts return at once (helper thread, when it cannot
 * serve, e.g. the name table failed). */
void dfs_relay_refuse(dfs_relay *r);

#endif
