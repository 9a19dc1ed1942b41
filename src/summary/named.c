/* named.c - the details of the files the page shows by name: the few
 * files with the most bytes or time (facts.c finds them from its sums of
 * every file) get their bytes read and written, their ranks, and the time
 * of their slowest rank, which makes their performance the way Darshan's
 * accumulator makes it when fed only one module's records of the file
 * (PyDarshan's file_stats), a row per module.  Their records are found
 * through the chain facts.c keeps while it sums (each record numbered
 * with the previous record of its file): no other pass over the log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary/summary_int.h"

static double raw(const dfs_module *m, const unsigned char *rec, size_t len, int f)
{
	return f >= 0 ? dfs_facts_value(m, rec, len, 0, f) : 0;
}

static int field_of(const dfs_module *m, const char *suffix)
{
	char name[96];
	size_t n = (size_t)snprintf(name, sizeof(name), "%s%s", m->prefix, suffix);
	return dfs_module_field_index(m, name, n);
}

/* the page's modules in the order of the chain, with the first number of
 * each */
struct part_of {
	const struct io_facts *io[IO_MODULES];
	size_t base[IO_MODULES + 1];
	size_t n;
	/* each one's BYTES_READ, BYTES_WRITTEN, F_READ_TIME, F_WRITE_TIME,
	 * F_META_TIME, F_SLOWEST_RANK_TIME */
	int field[IO_MODULES][6];
};

/* one record (number g of the chain, from 0) added to its module's row */
static void add_record(struct facts *f, const struct part_of *po, struct named_file *nf,
                       size_t g)
{
	size_t x = 0;
	while (x + 1 < po->n && g >= po->base[x + 1])
		x++;
	const struct io_facts *io = po->io[x];
	const dfs_summary_module *sm = &f->in->mod[io->id];
	size_t k = g - po->base[x];
	if (k >= sm->count)
		return;
	size_t i = sm->index ? sm->index[k] : k;
	unsigned char scratch[DFS_RECORD_MAX];
	const unsigned char *rec = dfs_record_get(sm->records, i, scratch);
	size_t len = dfs_record_size(sm->records, i);
	const dfs_module *m = io->m;
	int64_t rank;
	memcpy(&rank, rec + 8, 8);
	const int *fl = po->field[x];
	double br = raw(m, rec, len, fl[0]), bw = raw(m, rec, len, fl[1]);
	double tr = raw(m, rec, len, fl[2]), tw = raw(m, rec, len, fl[3]);
	double tm = raw(m, rec, len, fl[4]);
	size_t p = 0;
	while (p < nf->nparts && nf->part[p].mod != io->id)
		p++;
	if (p == nf->nparts) {
		if (p == NAMED_PARTS)
			return;
		memset(&nf->part[p], 0, sizeof(nf->part[p]));
		nf->part[p].mod = io->id;
		nf->nparts++;
	}
	struct named_part *pt = &nf->part[p];
	pt->bytes_read += br > 0 ? br : 0;
	pt->bytes_written += bw > 0 ? bw : 0;
	pt->time += (tr > 0 ? tr : 0) + (tw > 0 ? tw : 0) + (tm > 0 ? tm : 0);
	if (rank < 0) {
		/* (the accumulator's io_total_time of a shared record) */
		pt->shared = true;
		pt->slow_shared += raw(m, rec, len, fl[5]);
	} else {
		/* (of a rank's record: meta, read, write, added in that order) */
		double t = tm + tr + tw;
		pt->ranks += 1;
		if (t > pt->slow_unique)
			pt->slow_unique = t;
	}
}

/* the records of one file, in the order met, from the last one back */
static void detail(struct facts *f, const struct part_of *po, struct named_file *nf)
{
	size_t n = 0, cap = 0;
	uint32_t *order = NULL;
	for (uint32_t g = nf->head; g && g <= f->chain_n; g = f->chain[g - 1]) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			uint32_t *o = realloc(order, cap * sizeof(*o));
			if (!o)
				break;
			order = o;
		}
		order[n++] = g - 1;
	}
	while (n-- > 0)
		add_record(f, po, nf, order[n]);
	free(order);
	for (size_t p = 0; p < nf->nparts; p++)
		if (nf->part[p].shared)
			nf->part[p].ranks = (double)f->nprocs;
}

void dfs_facts_named_detail(struct facts *f)
{
	if (!f->chain)
		return;
	struct part_of po = {.n = 0};
	size_t base = 0;
	for (size_t x = 0; x < f->nio; x++) {
		const dfs_summary_module *sm = &f->in->mod[f->io[x].id];
		if (!dfs_facts_page_module(f->in, f->io[x].id) || !sm->records || sm->error)
			continue;
		static const char *const names[6] = {"BYTES_READ", "BYTES_WRITTEN", "F_READ_TIME",
		                                     "F_WRITE_TIME", "F_META_TIME",
		                                     "F_SLOWEST_RANK_TIME"};
		for (int k = 0; k < 6; k++)
			po.field[po.n][k] = field_of(f->io[x].m, names[k]);
		po.io[po.n] = &f->io[x];
		po.base[po.n++] = base;
		base += sm->count;
	}
	po.base[po.n] = base;
	if (!po.n)
		return;
	for (size_t i = 0; i < f->nnamed_bytes; i++)
		detail(f, &po, &f->named_bytes[i]);
	for (size_t i = 0; i < f->nnamed_time; i++)
		detail(f, &po, &f->named_time[i]);
}
