/* relay.h - records handed from the thread that inflates a log to the
 * helper thread that shows them to a dfs_log_observer (internal).
 *
 * The inflating thread packs each run of records into the module's
 * packed set and puts the run here by reference: which records, and a
 * copy of their offsets (the set's offset table moves as it grows; its
 * data stays where it is until the inflating thread has quiesced the
 * relay), and the observer gets a view of the run, packed as it is: no
 * copy of the records, no unpacking.  The queue is deep, so the inflating
 * thread goes on while the helper builds the name table, before it can
 * show anything; once the helper shows runs and the queue is full, the
 * inflating thread shows the oldest run itself, and once it is done
 * inflating it shows the runs still waiting beside the helper.  At most
 * two runs are shown at once, oldest first, so they finish nearly in
 * order; a run that starts a module's records (first == 0) is shown
 * alone: after every run put before it, before any run put after it. */
#ifndef DFS_LOG_RELAY_H
#define DFS_LOG_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darshanfs/log.h"

#define DFS_RELAY_SLOTS 256

enum dfs_relay_state { DFS_RELAY_FREE, DFS_RELAY_READY, DFS_RELAY_TAKEN };

struct dfs_relay_slot {
	const dfs_module *m;
	const unsigned char *data;  /* the packed set's data */
	uint32_t *off;              /* offsets of records first..first+count */
	size_t off_cap;
	size_t first, count;
	enum dfs_relay_state state;
};

typedef struct dfs_relay {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct dfs_relay_slot slot[DFS_RELAY_SLOTS];
	uint64_t puts;              /* runs put so far */
	uint64_t taken;             /* runs taken to be shown so far */
	int nrunning;               /* runs being shown */
	bool start_running;         /* one of them starts a module */
	const dfs_log *log;
	const dfs_log_observer *obs;
	bool draining;              /* the helper shows runs (names built) */
	bool closed;                /* nothing more will be put */
	bool refused;               /* nothing more is shown */
} dfs_relay;

void dfs_relay_init(dfs_relay *r, const dfs_log *log, const dfs_log_observer *obs);
void dfs_relay_destroy(dfs_relay *r);
/* Records first..first+count of the packed set `recs`, just packed, for
 * the observer (see above).  Does nothing once the relay refused; a run
 * that cannot be put (no memory for its offsets) refuses it: the
 * observer then misses records and finds out by counting what it saw. */
void dfs_relay_put(dfs_relay *r, const dfs_records *recs, size_t first, size_t count);
/* Wait until every run put was shown, showing some meanwhile (inflating
 * thread): before the packed data of a module moves or goes away. */
void dfs_relay_quiesce(dfs_relay *r);
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
