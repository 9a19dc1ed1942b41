/* relay.c - see relay.h. */
#include <stdlib.h>
#include <string.h>

#include "log/relay.h"

void dfs_relay_init(dfs_relay *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->changed, NULL);
}

void dfs_relay_destroy(dfs_relay *r)
{
	for (size_t i = 0; i < DFS_RELAY_SLOTS; i++)
		free(r->slot[i].data);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
}

void dfs_relay_put(dfs_relay *r, const dfs_module *m, const unsigned char *recs,
                   size_t first, size_t count)
{
	size_t len = count * m->record_size;
	pthread_mutex_lock(&r->lock);
	while (!r->refused && r->tail - r->head == DFS_RELAY_SLOTS)
		pthread_cond_wait(&r->changed, &r->lock);
	if (r->refused) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	/* the slot at tail is ours until tail moves: copy without the lock */
	struct dfs_relay_slot *s = &r->slot[r->tail % DFS_RELAY_SLOTS];
	pthread_mutex_unlock(&r->lock);
	if (len > s->cap) {
		unsigned char *d = realloc(s->data, len);
		if (!d) {
			/* the helper must not see a gap as if nothing were missing */
			dfs_relay_refuse(r);
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
	r->tail++;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

void dfs_relay_close(dfs_relay *r)
{
	pthread_mutex_lock(&r->lock);
	r->closed = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

void dfs_relay_refuse(dfs_relay *r)
{
	pthread_mutex_lock(&r->lock);
	r->refused = true;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
}

void dfs_relay_drain(dfs_relay *r, const dfs_log *log, const dfs_log_observer *obs)
{
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (r->head == r->tail && !r->closed && !r->refused)
			pthread_cond_wait(&r->changed, &r->lock);
		if (r->head == r->tail || r->refused)
			break;
		struct dfs_relay_slot *s = &r->slot[r->head % DFS_RELAY_SLOTS];
		pthread_mutex_unlock(&r->lock);
		obs->records(obs->ctx, log, s->m, s->data, s->first, s->count);
		pthread_mutex_lock(&r->lock);
		r->head++;
		pthread_cond_broadcast(&r->changed);
	}
	pthread_mutex_unlock(&r->lock);
}
