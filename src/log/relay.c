/* relay.c - see relay.h.
 *
 * The slots are a ring: run number n (counted from 0) goes to slot
 * n % DFS_RELAY_SLOTS, runs are taken in their order, so the next run to
 * show is number `taken` and the next put goes to number `puts`, once
 * the run that had that slot before is done. */
#include <stdlib.h>
#include <string.h>

#include "log/relay.h"
#include "module/pack.h"

void dfs_relay_init(dfs_relay *r, const dfs_log *log, const dfs_log_observer *obs)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->changed, NULL);
	r->log = log;
	r->obs = obs;
}

void dfs_relay_destroy(dfs_relay *r)
{
	for (size_t i = 0; i < DFS_RELAY_SLOTS; i++)
		free(r->slot[i].off);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
}

static struct dfs_relay_slot *slot_of(dfs_relay *r, uint64_t n)
{
	return &r->slot[n % DFS_RELAY_SLOTS];
}

/* Is any run put and not shown yet?  (locked) */
static bool pending(const dfs_relay *r)
{
	return r->taken != r->puts || r->nrunning > 0;
}

enum shown { SHOWN, NONE_READY, MUST_WAIT };

/* Show the oldest waiting run, when it may be shown now.  (locked; the
 * lock is dropped while the observer works) */
static enum shown show_one(dfs_relay *r)
{
	if (r->taken == r->puts)
		return NONE_READY;
	struct dfs_relay_slot *s = slot_of(r, r->taken);
	bool start = s->first == 0;
	if (r->nrunning > 0 && (start || r->start_running))
		return MUST_WAIT;
	r->taken++;
	r->nrunning++;
	r->start_running |= start;
	s->state = DFS_RELAY_TAKEN;
	pthread_mutex_unlock(&r->lock);
	/* a view of the run: the set's data, the run's offsets */
	dfs_records run;
	dfs_records_init_packed(&run, s->m, s->m->version);
	run.data = (unsigned char *)s->data;
	run.pk_off = s->off;
	run.count = s->count;
	r->obs->records(r->obs->ctx, r->log, &run, s->first);
	pthread_mutex_lock(&r->lock);
	s->state = DFS_RELAY_FREE;
	r->nrunning--;
	if (start)
		r->start_running = false;
	pthread_cond_broadcast(&r->changed);
	return SHOWN;
}

/* Wait for something to change, or show a run meanwhile when the helper
 * shows runs at all (inflating thread).  (locked) */
static void help_or_wait(dfs_relay *r)
{
	if (!r->draining || show_one(r) != SHOWN)
		pthread_cond_wait(&r->changed, &r->lock);
}

void dfs_relay_put(dfs_relay *r, const dfs_records *recs, size_t first, size_t count)
{
	pthread_mutex_lock(&r->lock);
	/* a module read (again) from its start: after every earlier run */
	while (first == 0 && !r->refused && pending(r))
		help_or_wait(r);
	struct dfs_relay_slot *s = slot_of(r, r->puts);
	while (!r->refused && s->state != DFS_RELAY_FREE)
		help_or_wait(r);
	if (r->refused) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	/* the slot is FREE and only this thread puts: fill it unlocked */
	pthread_mutex_unlock(&r->lock);
	if (count + 1 > s->off_cap) {
		uint32_t *o = realloc(s->off, (count + 1) * sizeof(uint32_t));
		if (!o) {
			dfs_relay_refuse(r);
			return;
		}
		s->off = o;
		s->off_cap = count + 1;
	}
	memcpy(s->off, recs->pk_off + first, (count + 1) * sizeof(uint32_t));
	s->m = recs->module;
	s->data = recs->data;
	s->first = first;
	s->count = count;
	pthread_mutex_lock(&r->lock);
	s->state = DFS_RELAY_READY;
	r->puts++;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

void dfs_relay_quiesce(dfs_relay *r)
{
	pthread_mutex_lock(&r->lock);
	while (!r->refused && pending(r))
		help_or_wait(r);
	/* a refusing helper may still be in the middle of a run */
	while (r->nrunning > 0)
		pthread_cond_wait(&r->changed, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

void dfs_relay_close(dfs_relay *r)
{
	pthread_mutex_lock(&r->lock);
	r->closed = true;
	pthread_cond_broadcast(&r->changed);
	/* share what is left with the helper (once it shows runs at all) */
	while (r->draining && !r->refused) {
		enum shown sh = show_one(r);
		if (sh == NONE_READY)
			break;
		if (sh == MUST_WAIT)
			pthread_cond_wait(&r->changed, &r->lock);
	}
	pthread_mutex_unlock(&r->lock);
}

void dfs_relay_refuse(dfs_relay *r)
{
	pthread_mutex_lock(&r->lock);
	r->refused = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

void dfs_relay_drain(dfs_relay *r)
{
	pthread_mutex_lock(&r->lock);
	r->draining = true;
	pthread_cond_broadcast(&r->changed);
	while (!r->refused) {
		enum shown sh = show_one(r);
		if (sh == SHOWN)
			continue;
		if (sh == NONE_READY && r->closed)
			break;
		pthread_cond_wait(&r->changed, &r->lock);
	}
	pthread_mutex_unlock(&r->lock);
}
