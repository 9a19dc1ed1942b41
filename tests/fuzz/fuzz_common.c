/* fuzz_common.c - the synthetic log of the fuzz targets and the renderer
 * that walks every output of a decoded log (see fuzz_common.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshanfs/accum.h"
#include "csv/csv.h"
#include "darshanfs/report.h"
#include "darshanfs/writer.h"
#include "fuzz_common.h"

#define DFS_RECORDS 6
#define FLUSH_AT ((size_t)1 << 20) /* keep rendered text small */

static void die(const char *what, const dfs_error *err)
{
	fprintf(stderr, "fuzz set-up: %s: %s\n", what, err ? err->msg : "");
	abort();
}

/* ---- the synthetic log ---------------------------------------------------- */

static dfs_log *open_buf(const dfs_buf *b, const char *label)
{
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(b->data, b->len, label, 0, &err);
	if (!log)
		die("open", &err);
	return log;
}

/* A few DFS records: ids and ranks of POSIX records, made-up uuids and
 * counters (the DFS region gives fuzz_csv's DFS import something to take
 * absent columns from). */
static void make_dfs_records(const dfs_log *base, dfs_records *out)
{
	const dfs_module *m = dfs_module_get(DFS_MOD_DFS);
	const dfs_records *posix = dfs_log_records(base, DFS_MOD_POSIX);
	dfs_records_init(out, m, m->version);
	for (size_t i = 0; i < DFS_RECORDS && posix && i < posix->count; i++) {
		unsigned char *r = dfs_records_append(out, m->record_size);
		if (!r)
			die("DFS records", NULL);
		_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
		memcpy(r, dfs_record_get(posix, i, scratch), 16);
		for (size_t f = 2; f < m->n_fields; f++) {
			const dfs_field *fd = &m->fields[f];
			if (fd->storage == DFS_S_UUID) {
				for (int k = 0; k < 16; k++)
					r[fd->offset + k] = (unsigned char)(17 * i + 3 * k + f);
			} else if (fd->storage == DFS_S_I64) {
				int64_t v = (int64_t)(i * 1000 + f);
				memcpy(r + fd->offset, &v, 8);
			} else if (fd->storage == DFS_S_F64) {
				double v = (double)i + (double)f / 8;
				memcpy(r + fd->offset, &v, 8);
			}
		}
	}
}

/* synth log -> decoded -> rewritten with a DFS module added -> decoded */
static dfs_log *build_log(void)
{
	dfs_error err = {0};
	dfs_write_options wo = {.comp_type = DFS_COMP_ZLIB, .threads = 1};
	dfs_synth_options so = {
		.seed = 7, .records = 24, .nprocs = 4,
		.modules = DFS_SYNTH_MODULES,
	};
	dfs_synth_defaults(&so);
	dfs_buf b1 = DFS_BUF_INIT, b2 = DFS_BUF_INIT;
	dfs_log_writer *w = dfs_log_writer_buf(&b1, &wo, &err);
	if (!w || dfs_synth_write(w, &so, &err))
		die("synth", &err);
	dfs_log_writer_free(w);
	dfs_log *base = open_buf(&b1, "synth");

	dfs_log_desc d;
	memset(&d, 0, sizeof(d));
	d.job = dfs_log_job(base);
	size_t nm = dfs_log_mount_count(base), nn = dfs_log_name_count(base);
	dfs_mount *mounts = calloc(nm + 1, sizeof(*mounts));
	dfs_name *names = calloc(nn + 1, sizeof(*names));
	if (!mounts || !names)
		die("out of memory", NULL);
	for (size_t i = 0; i < nm; i++)
		mounts[i] = *dfs_log_mount(base, i);
	for (size_t i = 0; i < nn; i++)
		names[i] = *dfs_log_name_at(base, i);
	d.mounts = mounts;
	d.nmounts = nm;
	d.names = names;
	d.nnames = nn;
	for (int id = 0; id < DFS_MOD_SLOTS; id++)
		d.modules[id] = dfs_log_records(base, id);
	dfs_records dfs;
	make_dfs_records(base, &dfs);
	d.modules[DFS_MOD_DFS] = &dfs;
	w = dfs_log_writer_buf(&b2, &wo, &err);
	if (!w || dfs_log_write(w, &d, &err))
		die("rewrite", &err);
	dfs_log_writer_free(w);
	dfs_log *log = open_buf(&b2, "synth+dfs");
	dfs_records_free(&dfs);
	free(mounts);
	free(names);
	dfs_log_free(base);
	dfs_buf_free(&b1);
	dfs_buf_free(&b2);
	return log;
}

const dfs_log *fuzz_synth_log(void)
{
	static dfs_log *log;
	if (!log)
		log = build_log();
	return log;
}

/* ---- rendering -------------------------------------------------------------- */

struct sink {
	dfs_buf out;
	size_t total;
};

static void flush(struct sink *s)
{
	if (s->out.len < FLUSH_AT)
		return;
	s->total += s->out.len;
	dfs_buf_reset(&s->out);
}

static void render_records(const dfs_log *log, const dfs_records *r,
                           struct sink *s)
{
	const dfs_module *m = r->module;
	dfs_csv_header(m, &s->out);
	_Alignas(8) unsigned char scratch[DFS_RECORD_MAX];
	for (size_t i = 0; i < r->count; i++) {
		dfs_csv_record(log, m, dfs_record_get(r, i, scratch), dfs_record_size(r, i),
		               NULL, &s->out);
		flush(s);
	}
	dfs_report_module_description(m, r->version, &s->out);
}

static void render_metrics(dfs_accum *a, const dfs_module *m, struct sink *s)
{
	dfs_error err = {0};
	dfs_derived_metrics dm;
	void *summary = m ? calloc(1, m->record_size) : NULL;
	if (m && !summary)
		return;
	if (dfs_accum_emit(a, &dm, summary, &err) == 0) {
		dfs_render_file_counts(&dm, &s->out);
		dfs_render_perf(&dm, &s->out);
		dfs_render_derived_json(&dm, &s->out);
		if (summary)
			dfs_render_total(m, summary, &s->out);
	} else if (err.msg[0] == '\0') {
		abort(); /* an error must say why */
	}
	for (size_t i = 0; i < dfs_accum_warning_count(a); i++) {
		const char *w = dfs_accum_warning(a, i);
		if (w)
			dfs_buf_adds(&s->out, w);
	}
	free(summary);
}

static void accumulate(const dfs_log *log, const dfs_records *r, struct sink *s)
{
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create(r->module, dfs_log_job(log)->nprocs, &err);
	if (!a)
		return; /* nprocs < 1: refused with a message */
	/* (the set may be packed: inject it as a set, as the view does) */
	if (dfs_accum_inject_records(a, r, NULL, r->count, &err) == 0)
		render_metrics(a, r->module, s);
	dfs_accum_free(a);
}

static void accumulate_combined(const dfs_log *log, struct sink *s)
{
	dfs_error err = {0};
	dfs_accum *a = dfs_accum_create_combined(dfs_log_job(log)->nprocs, &err);
	if (!a)
		return;
	static const int ids[] = {DFS_MOD_POSIX, DFS_MOD_STDIO};
	for (size_t k = 0; k < 2; k++) {
		const dfs_records *r = dfs_log_records(log, ids[k]);
		if (r && dfs_accum_inject_records(a, r, NULL, r->count, &err)) {
			dfs_accum_free(a);
			return;
		}
	}
	render_metrics(a, NULL, s);
	dfs_accum_free(a);
}

size_t fuzz_render_log(const dfs_log *log)
{
	struct sink s = {DFS_BUF_INIT, 0};
	dfs_buf errout = DFS_BUF_INIT;
	dfs_report_header(log, &s.out);
	dfs_report_parser(log, DFS_REPORT_BASE | DFS_REPORT_TOTAL |
	                  DFS_REPORT_PERF | DFS_REPORT_FILE, &s.out, &errout);
	flush(&s);
	dfs_csv_mounts(log, &s.out);
	dfs_csv_names(log, &s.out);
	for (int id = 0; id < DFS_MOD_SLOTS; id++) {
		const dfs_log_module *lm = dfs_log_get_module(log, id);
		if (lm->present && lm->status != DFS_OK &&
		    (!lm->error || !lm->error[0]))
			abort(); /* a failed module must say why */
		const dfs_records *r = dfs_log_records(log, id);
		if (!r)
			continue;
		render_records(log, r, &s);
		if (r->module->accumulator)
			accumulate(log, r, &s);
		flush(&s);
	}
	accumulate_combined(log, &s);
	s.total += s.out.len + errout.len;
	dfs_buf_free(&s.out);
	dfs_buf_free(&errout);
	return s.total;
}
