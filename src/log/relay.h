/* relay.h - records handed from the thread that inflates a log to the
 * helper thread that shows them to a dfs_log_observer (internal).
 *
 * The inflating thread copies each run of records it has packed into one
 * of a few buffers and goes on; the helper takes them, oldest first.
 * When every buffer is full and the helper is at work (the names are
 * built), the inflating thread shows its run to the observer itself
 * instead of waiting, and once it is done inflating it shows the runs
 * still waiting: the observer's work is shared by both cores whichever
 * side is slower.  So at most two runs are shown at once and they may
 * finish out of order; a run that starts a module's records again
 * (first == 0) is put only after every earlier run was shown. */
#ifndef DFS_LOG_RELAY_H
#define DFS_LOG_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/log.h"

#define DFS_RELAY_SLOTS 4

enum dfs_relay_state { DFS_RELAY_FREE, DFS_RELAY_FILLING, DFS_RELAY_READY, DFS_RELAY_TAKEN };

struct dfs_relay_slot {
	unsigned char *data;
	size_t cap;
	const dfs_module *m;
	size_t first, count;
	enum dfs_relay_state state;
	uint64_t seq;               /* order of the puts */
};

typedef struct dfs_relay {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct dfs_relay_slot slot[DFS_RELAY_SLOTS];
	uint64_t puts;              /* runs put so far */
	const dfs_log *log;
	const dfs_log_observer *obs;
	bool draining;              /* the helper shows runs (names built) */
	bool closed;                /* nothing more will be put */
	bool refused;               /* nothing more is shown */
} dfs_relay;

void dfs_relay_init(dfs_relay *r, const dfs_log *log, const dfs_log_observer *obs);
void dfs_relay_destroy(dfs_relay *r);
/* Hand `count` records of `m` (`first` is the index of the first one)
 * to the observer: copied for the helper, or shown at once when every
 * buffer is full (see above).  Does nothing once the relay refused; a
 * copy that cannot be made refuses it (the observer then misses records
 * and finds out by counting what it saw). */
void dfs_relay_put(dfs_relay *r, const dfs_module *m, const unsigned char *recs,
                   size_t first, size_t count);
/* No more puts; shows the runs still waiting beside the helper
 * (inflating thread, once done). */
void dfs_relay_close(dfs_relay *r);
/* Show the runs put until the relay is closed and empty (helper thread,
 * once the names are built). */
void dfs_relay_drain(dfs_relay *r);
/* Show nothing more: puts return at once (helper thread, when it cannot
 * serve, e.g. the name table failed). */
void dfs_relay_refuse(dfs_relay *r);

#endif
