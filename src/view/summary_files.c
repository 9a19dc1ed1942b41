/* summary_files.c - summary.html, summary/<plot>.svg, insights.txt and
 * insights.csv of a log: the selections of the log's modules handed to
 * the summary renderer (src/summary), which knows nothing of the tree. */
#include <stdlib.h>
#include <string.h>

#include "csv/csv.h"
#include "darshanfs/summary.h"
#include "view/view_int.h"
#include "view/cache.h"
#include "view/levels.h"
#include "view/select.h"
#include "view/summary_files.h"

/* The plot a file kind shows, -1 when it is no plot. */
int dfs_plot_of_file(enum file_kind k)
{
	return k >= F_PLOT_FIRST && k < F_PLOT_FIRST + DFS_PLOTS ? (int)(k - F_PLOT_FIRST) : -1;
}

static void add_filters(dfs_view *v, struct entry *e, int id, dfs_buf *all)
{
	dfs_buf one = DFS_BUF_INIT;
	dfs_filters_line(v, e, id, &one);
	dfs_buf_addc(&one, '\0');
	dfs_buf_addc(all, '\0');
	all->len--;
	if (one.len > 1 && dfs_buf_ok(&one) && dfs_buf_ok(all) && !strstr(all->data, one.data)) {
		one.len--;
		if (all->len)
			dfs_buf_adds(all, "; ");
		dfs_buf_add(all, one.data, one.len);
	}
	dfs_buf_free(&one);
}

/* The input of the renderer: the selections of every module of the log,
 * with their derived metrics when `metrics` (the page shows them, the
 * insights do not use them); `filters` receives the text that
 * in->filters points to. */
static void build_input(dfs_view *v, struct entry *e, struct decoded_log *l,
                        dfs_summary_input *in, dfs_buf *filters, bool metrics)
{
	memset(in, 0, sizeof(*in));
	in->log = l->log;
	/* the log's name: its directory's, or its file's on a one-log mount */
	const char *slash = strrchr(e->vpath, '/');
	if (!slash || !slash[1])
		slash = strrchr(e->src, '/');
	in->title = slash ? slash + 1 : e->src;
	in->thresholds = v->thresholds_set ? &v->thresholds : NULL;
	in->scratch = &v->scratch;
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(l->log, id);
		dfs_summary_module *sm = &in->mod[id];
		if (!lm->present)
			continue;
		sm->partial = lm->partial;
		if (!lm->module || lm->status != DFS_OK) {
			sm->error = lm->error ? lm->error : "unreadable";
			continue;
		}
		struct selection *s = metrics ? dfs_selection_metrics(v, e, l, id)
		                              : dfs_selection(v, e, l, id);
		if (s->status != DFS_OK) {
			sm->error = s->error ? s->error : "unavailable";
			continue;
		}
		sm->records = s->records;
		sm->index = s->index;
		sm->count = s->count;
		sm->total = s->total;
		sm->dm = metrics && s->accumulated ? &s->dm : NULL;
		sm->warnings = s->warnings;
		sm->n_warnings = s->n_warnings;
		if (id < DFS_MOD_KNOWN)
			add_filters(v, e, id, filters);
	}
	dfs_buf_addc(filters, '\0');
	in->filters = dfs_buf_ok(filters) ? filters->data : "";
}

bool dfs_is_summary_file(enum file_kind k)
{
	return k == F_SUMMARY || k == F_INSIGHTS || k == F_INSIGHTS_CSV ||
	       dfs_plot_of_file(k) >= 0;
}

dfs_snapshot *dfs_summary_contents(dfs_view *v, struct entry *e, struct decoded_log *l,
                                   struct snapshot_cache *cache, enum file_kind want,
                                   dfs_error *err)
{
	dfs_summary_input in;
	dfs_buf filters = DFS_BUF_INIT;
	build_input(v, e, l, &in, &filters, true);
	/* kept with the log: the page is shown again after each filter
	 * change (the entry is locked: one render at a time uses it) */
	size_t names_bytes = dfs_summary_names_memory(l->names);
	if (!l->names)
		l->names = dfs_summary_names_new(l->log);
	in.names = l->names;
	enum { NTEXT = DFS_PLOTS + 3 };
	dfs_buf text[NTEXT];
	enum file_kind kind[NTEXT];
	for (int i = 0; i < NTEXT; i++)
		dfs_buf_init(&text[i]);
	for (int p = 0; p < DFS_PLOTS; p++)
		kind[p] = (enum file_kind)(F_PLOT_FIRST + p);
	kind[DFS_PLOTS] = F_SUMMARY;
	kind[DFS_PLOTS + 1] = F_INSIGHTS;
	kind[DFS_PLOTS + 2] = F_INSIGHTS_CSV;
	int ret = dfs_summary_render_all(&in, &text[DFS_PLOTS], text, &text[DFS_PLOTS + 1],
	                                 &text[DFS_PLOTS + 2], err);
	dfs_buf_free(&filters);
	/* counted once made, and as the render grew them */
	size_t grown = dfs_summary_names_memory(l->names);
	if (grown > names_bytes)
		l->uncounted += grown - names_bytes;
	dfs_snapshot *got = NULL;
	for (int i = 0; i < NTEXT; i++) {
		if (ret) {
			dfs_buf_free(&text[i]);
			continue;
		}
		dfs_error ignored = {0};
		dfs_snapshot *c = dfs_snapshot_from_buf(v, &text[i], kind[i] == want ? err : &ignored);
		if (!c)
			continue;
		if (kind[i] == want) {
			got = c;
		} else {
			/* counted and evictable as every rendering a log keeps */
			if (!cache->file[kind[i]])
				dfs_entry_keep_content(v, e, &cache->file[kind[i]], c);
			dfs_snapshot_release(c);
		}
	}
	return got;
}

void dfs_insight_rows(dfs_view *v, struct entry *e, const char *rel, dfs_buf *out)
{
	dfs_error err = {0};
	struct decoded_log *l = dfs_entry_load(v, e, &err);
	if (l) {
		dfs_summary_input in;
		dfs_buf filters = DFS_BUF_INIT;
		build_input(v, e, l, &in, &filters, false);
		int ret = dfs_insights_csv(&in, rel, false, out, &err);
		dfs_buf_free(&filters);
		if (ret == 0)
			return;
	}
	dfs_csv_field(out, rel, strlen(rel));
	dfs_buf_adds(out, ",D_UNREADABLE,WARN,,");
	const char *msg = err.msg[0] ? err.msg : "unreadable log";
	dfs_csv_field(out, msg, strlen(msg));
	dfs_buf_adds(out, DFS_INSIGHTS_EMPTY_TAIL);
}

dfs_snapshot *dfs_dxt_file_content(dfs_view *v, struct entry *e, struct decoded_log *l,
                                   uint64_t id, dfs_error *err)
{
	dfs_summary_input in;
	dfs_buf filters = DFS_BUF_INIT, out = DFS_BUF_INIT;
	build_input(v, e, l, &in, &filters, false);
	int ret = dfs_summary_dxt_file_svg(&in, id, &out, err);
	dfs_buf_free(&filters);
	if (ret) {
		dfs_buf_free(&out);
		return NULL;
	}
	return dfs_snapshot_from_buf(v, &out, err);
}

int dfs_dxt_file_ids(dfs_view *v, struct entry *e, struct decoded_log *l, uint64_t **ids,
                     size_t *n, dfs_error *err)
{
	dfs_summary_input in;
	dfs_buf filters = DFS_BUF_INIT;
	build_input(v, e, l, &in, &filters, false);
	int ret = dfs_summary_dxt_files(&in, ids, n, err);
	dfs_buf_free(&filters);
	return ret;
}
