/* relay.c - see relay.h. */
#include <stdlib.h>
#include <string.h>

#include "log/relay.h"

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
		free(r->slot[i].data);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
}

/* A slot in `state` (the oldest put for READY), or NULL.  (locked) */
static struct dfs_relay_slot *find(dfs_relay *r, enum dfs_relay_state state)
{
	struct dfs_relay_slot *found = NULL;
	for (size_t i = 0; i < DFS_RELAY_SLOTS; i++) {
		struct dfs_relay_slot *s = &r->slot[i];
		if (s->state == state && (!found || s->seq < found->seq))
			found = s;
	}
	return found;
}

/* Is any run put and not shown yet?  (locked) */
static bool pending(const dfs_relay *r)
{
	for (size_t i = 0; i < DFS_RELAY_SLOTS; i++)
		if (r->slot[i].state != DFS_RELAY_FREE)
			return true;
	return false;
}

/* Is a run that starts a module (first == 0) waiting or being shown?  It
 * is shown alone: the runs put after it wait until it is done.  (locked) */
static bool start_pending(const dfs_relay *r)
{
	for (size_t i = 0; i < DFS_RELAY_SLOTS; i++) {
		const struct dfs_relay_slot *s = &r->slot[i];
		if ((s->state == DFS_RELAY_READY || s->state == DFS_RELAY_TAKEN) &&
		    s->first == 0)
			return true;
	}
	return false;
}

enum shown { SHOWN, NONE_READY, MUST_WAIT };

/* Show the oldest waiting run, when it may be shown now.  (locked; the
 * lock is dropped while the observer works) */
static enum shown show_one(dfs_relay *r)
{
	struct dfs_relay_slot *s = find(r, DFS_RELAY_READY);
	if (!s)
		return NONE_READY;
	if (find(r, DFS_RELAY_TAKEN) && (s->first == 0 || start_pending(r)))
		return MUST_WAIT;
	s->state = DFS_RELAY_TAKEN;
	pthread_mutex_unlock(&r->lock);
	r->obs->records(r->obs->ctx, r->log, s->m, s->data, s->first, s->count);
	pthread_mutex_lock(&r->lock);
	s->state = DFS_RELAY_FREE;
	pthread_cond_broadcast(&r->changed);
	return SHOWN;
}

void dfs_relay_put(dfs_relay *r, const dfs_module *m, const unsigned char *recs,
                   size_t first, size_t count)
{
	size_t len = count * m->record_size;
	pthread_mutex_lock(&r->lock);
	/* a module read (again) from its start: after every earlier run */
	while (first == 0 && !r->refused && pending(r))
		pthread_cond_wait(&r->changed, &r->lock);
	struct dfs_relay_slot *s;
	while (!r->refused && !(s = find(r, DFS_RELAY_FREE))) {
		if (r->draining && first != 0 && !start_pending(r)) {
			/* the helper is behind: this run is shown here, now */
			pthread_mutex_unlock(&r->lock);
			r->obs->records(r->obs->ctx, r->log, m, recs, first, count);
			return;
		}
		pthread_cond_wait(&r->changed, &r->lock);
	}
	if (r->refused) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	/* the slot is ours while FILLING: copy without the lock */
	s->state = DFS_RELAY_FILLING;
	pthread_mutex_unlock(&r->lock);
	if (len > s->cap) {
		unsigned char *d = realloc(s->data, len);
		if (!d) {
			/* the observer must not see a gap as if nothing were missing */
			pthread_mutex_lock(&r->lock);
			s->state = DFS_RELAY_FREE;
			r->refused = true;
			pthread_cond_broadcast(&r->changed);
			pthread_mutex_unlock(&r->lock);
			return;
		}
		s->data = d;
		s->cap = len;
	}
	memcpy(s->data, recs, len);
	s->m = m;
	s->first = first;
	s->count = count;
	pthread_mutex_lock(&r->lock);
	s->state = DFS_RELAY_READY;
	s->seq = r->puts++;
	pthread_cond_broadcast(&r->changed);
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
