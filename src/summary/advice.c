/* advice.c - what a user can do about a finding: recommendations that fit
 * the modules the job used (MPI-IO, HDF5, PnetCDF, Lustre, DAOS), each
 * with the call, hint or command to apply, code between backquotes (the
 * page shows it as code).  Where a file's place helps (the directory to
 * stripe), the first file the finding names gives it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "summary/summary_int.h"

struct advising {
	const struct facts *f;
	const struct finding *fd;
	dfs_advice_fn fn;
	void *ctx;
	bool mpiio, hdf5, pnetcdf, lustre;
	char dir[1024];       /* the directory of the first file named, or "" */
	char nodes[32];       /* the job's node count, or "<nodes>" */
};

static bool present(const struct facts *f, int id)
{
	return dfs_log_get_module(f->in->log, id)->present;
}

/* one recommendation, formatted */
static void say(struct advising *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct advising *a, const char *fmt, ...)
{
	char text[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	a->fn(a->ctx, text);
}

/* where the first file the finding names lies, and whether on Lustre */
static void place(struct advising *a)
{
	a->dir[0] = '\0';
	if ((a->fd->kind != ABOUT_FILES && a->fd->kind != ABOUT_RECORDS) || !a->fd->nabout)
		return;
	const dfs_name *nm = dfs_log_name(a->f->in->log, a->fd->about[0].id);
	if (!nm || nm->len == 0 || nm->str[0] != '/')
		return;
	size_t end = nm->len;
	while (end > 1 && nm->str[end - 1] != '/')
		end--;
	if (end >= sizeof(a->dir))
		return;
	memcpy(a->dir, nm->str, end);
	a->dir[end] = '\0';
	if (nm->mount >= 0 && (size_t)nm->mount < dfs_log_mount_count(a->f->in->log)) {
		const dfs_mount *mt = dfs_log_mount(a->f->in->log, (size_t)nm->mount);
		if (mt && mt->type && strcmp(mt->type, "lustre") == 0)
			a->lustre = true;
	}
}

static const char *dir_or(const struct advising *a, const char *other)
{
	return a->dir[0] ? a->dir : other;
}

/* ---- per finding ------------------------------------------------------------------ */

static void small_requests(struct advising *a, bool reads, bool shared)
{
	const char *rw = reads ? "read" : "write";
	const char *Rw = reads ? "Read" : "Write";
	if (!shared)
		say(a, "%s in fewer, larger requests: gather the pieces in memory and move "
		       "them with one call of several MiB (or `%s` with many iovecs).", Rw,
		    reads ? "preadv()" : "pwritev()");
	if (a->mpiio)
		say(a, "The job uses MPI-IO: %s with the collective `MPI_File_%s_at_all()` (or "
		       "`MPI_File_%s_all()` after `MPI_File_set_view()`) so that a few aggregators "
		       "merge the ranks' pieces into large contiguous requests; make sure "
		       "collective buffering is on: `MPI_Info_set(info, \"romio_cb_%s\", \"enable\")`.",
		    rw, rw, rw, rw);
	else if (a->f->nprocs > 1)
		say(a, "Consider MPI-IO for the shared data: the collective `MPI_File_%s_at_all()` "
		       "lets the library aggregate small pieces of many ranks into large requests.", rw);
	if (a->hdf5)
		say(a, "HDF5: transfer whole chunks or large hyperslabs, with chunks of MiBs "
		       "(`H5Pset_chunk()`), a chunk cache that holds them "
		       "(`H5Pset_chunk_cache(dapl, 521, 64 << 20, 0.75)`) and, with the MPI-IO "
		       "driver, collective transfers: `H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)`.");
	if (a->pnetcdf)
		say(a, "PnetCDF: post the small accesses as non-blocking requests "
		       "(`ncmpi_i%s_vara_*()`) and complete them together with `ncmpi_wait_all()`, "
		       "which merges them into few large MPI-IO requests.", reads ? "get" : "put");
}

static void advise(struct advising *a)
{
	const char *c = a->fd->code;
	if (strcmp(c, "S_STDIO_HIGH_USAGE") == 0) {
		say(a, "Move the bulk data off `fread()`/`fwrite()`/`fprintf()`: write large "
		       "blocks with `write()`/`pwrite()`, or with MPI-IO "
		       "(`MPI_File_write_at_all()`) when several ranks write one file.");
		say(a, "Where STDIO stays, give each stream a large buffer right after "
		       "`fopen()`: `setvbuf(fp, NULL, _IOFBF, 16 << 20)`, and write binary data "
		       "rather than formatted text.");
	} else if (strcmp(c, "P_SMALL_READS") == 0) {
		small_requests(a, true, false);
	} else if (strcmp(c, "P_SMALL_WRITES") == 0) {
		small_requests(a, false, false);
	} else if (strcmp(c, "P_SHARED_SMALL_READS") == 0 || strcmp(c, "P_SHARED_SMALL_WRITES") == 0) {
		bool reads = strstr(c, "READS") != NULL;
		say(a, "Small requests from many ranks to one shared file are the costliest: "
		       "let collective I/O turn them into large ones.");
		small_requests(a, reads, true);
	} else if (strcmp(c, "P_MISALIGNED_MEMORY") == 0) {
		say(a, "Allocate I/O buffers aligned to the page or the file system block: "
		       "`posix_memalign(&buf, 4096, size)` (or `aligned_alloc(4096, size)`).");
	} else if (strcmp(c, "P_MISALIGNED_FILE") == 0) {
		say(a, "Make offsets and request sizes multiples of the file system's block "
		       "(or stripe) size, e.g. pad records to 4 KiB or to the stripe size.");
		if (a->hdf5)
			say(a, "HDF5: align the objects to the stripe: "
			       "`H5Pset_alignment(fapl, 1048576, 4194304)` (objects of 1 MiB and more "
			       "start at multiples of 4 MiB: use the stripe size of the file).");
		if (a->lustre)
			say(a, "Lustre: choose a stripe size the requests line up with, for files "
			       "created afterwards in the directory: `lfs setstripe -S 4M %s`; see a "
			       "file's layout with `lfs getstripe FILE`.", dir_or(a, "DIR"));
		if (a->mpiio)
			say(a, "MPI-IO: tell the library the layout when it creates the file: "
			       "`MPI_Info_set(info, \"striping_unit\", \"4194304\")`; with collective "
			       "I/O the aggregators then write aligned blocks.");
	} else if (strcmp(c, "P_RANDOM_READS") == 0 || strcmp(c, "P_RANDOM_WRITES") == 0) {
		bool reads = strstr(c, "READS") != NULL;
		say(a, "Access each file in increasing offsets: sort the requests by offset, "
		       "or %s whole contiguous ranges and pick the pieces in memory.",
		    reads ? "read" : "assemble in memory and write");
		if (a->mpiio)
			say(a, "MPI-IO: describe the scattered pieces with a file view "
			       "(`MPI_Type_create_subarray()` or `MPI_Type_indexed()`, then "
			       "`MPI_File_set_view()`) and move them in one collective `MPI_File_%s_all()`.",
			    reads ? "read" : "write");
		if (a->hdf5)
			say(a, "HDF5: select all the scattered elements at once "
			       "(`H5Sselect_hyperslab()` with `H5S_SELECT_OR`, or `H5Sselect_elements()`) "
			       "and move them with one `H5D%s()`.", reads ? "read" : "write");
	} else if (strcmp(c, "P_METADATA_TIME") == 0) {
		say(a, "Open, stat and close less: keep files open across steps, and write "
		       "fewer, larger files (one per node, or one shared file) rather than one "
		       "per rank and step.");
		if (a->hdf5)
			say(a, "HDF5: make metadata operations collective, "
			       "`H5Pset_all_coll_metadata_ops(fapl, 1)` and "
			       "`H5Pset_coll_metadata_write(fapl, 1)`, and let the metadata cache defer "
			       "its writes (`H5Pset_mdc_config()`).");
		if (a->lustre || present(a->f, DFS_MOD_LUSTRE))
			say(a, "Lustre: avoid `stat()` and `ls -l` over large directories; keep "
			       "directories of many small files on one stripe: `lfs setstripe -c 1 %s`.",
			    dir_or(a, "DIR"));
	} else if (strcmp(c, "P_SHARED_IMBALANCE") == 0) {
		say(a, "Give each rank an equal part of the shared file, or let MPI-IO "
		       "collectives redistribute the data (`MPI_File_write_at_all()`).");
		if (a->lustre || present(a->f, DFS_MOD_LUSTRE))
			say(a, "Lustre: stripe the shared file over more OSTs so that no one OST "
			       "holds up the slowest rank (set before the file is created): "
			       "`lfs setstripe -c -1 -S 4M %s`.", dir_or(a, "DIR"));
	} else if (strcmp(c, "P_SIZE_IMBALANCE") == 0) {
		say(a, "Give the ranks that open one file equal parts of it; if one rank "
		       "writes it all, write it collectively instead (`MPI_File_write_at_all()`).");
		if (a->pnetcdf)
			say(a, "PnetCDF: turn fill values off, or one rank writes whole variables "
			       "of them: `ncmpi_set_fill(ncid, NC_NOFILL, NULL)`.");
		if (a->hdf5)
			say(a, "HDF5: do not write fill values at allocation: "
			       "`H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER)`.");
		if (a->lustre || present(a->f, DFS_MOD_LUSTRE))
			say(a, "Lustre: stripe the files so their parts spread over OSTs: "
			       "`lfs setstripe -c 8 -S 4M %s`.", dir_or(a, "DIR"));
	} else if (strcmp(c, "M_NO_COLLECTIVE_READS") == 0 || strcmp(c, "M_NO_COLLECTIVE_WRITES") == 0) {
		const char *rw = strstr(c, "READS") ? "read" : "write";
		say(a, "Use the collective calls, every rank of the file's communicator "
		       "taking part: `MPI_File_%s_all()` or `MPI_File_%s_at_all()` instead of "
		       "`MPI_File_%s()`/`MPI_File_%s_at()`.", rw, rw, rw, rw);
		say(a, "Let one aggregator per node do the file I/O: "
		       "`MPI_Info_set(info, \"cb_nodes\", \"%s\")`, or without changing the code "
		       "`export ROMIO_HINTS=FILE` with a line `cb_nodes %s` (Cray MPICH: "
		       "`export MPICH_MPIIO_HINTS=\"*:cb_nodes=%s\"`).", a->nodes, a->nodes, a->nodes);
		if (a->hdf5)
			say(a, "HDF5: ask for collective transfers: "
			       "`H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)`.");
		if (a->pnetcdf)
			say(a, "PnetCDF: use the collective `ncmpi_%s_vara_*_all()` calls "
			       "(independent mode only where needed).", strcmp(rw, "read") ? "put" : "get");
	} else if (strcmp(c, "M_NO_NONBLOCKING") == 0) {
		say(a, "Overlap I/O with computation: start it with `MPI_File_iwrite_at_all()` / "
		       "`MPI_File_iread_at_all()` (MPI 3.1; `MPI_File_iwrite_at()` for independent "
		       "I/O) and `MPI_Wait()` before the buffer is reused.");
		if (a->hdf5)
			say(a, "HDF5: the asynchronous VOL connector (hpc-io/vol-async) runs "
			       "`H5Dwrite_async()` in the background; wait with `H5ESwait()`.");
		if (a->pnetcdf)
			say(a, "PnetCDF: `ncmpi_iput_vara_*()` / `ncmpi_iget_vara_*()` then "
			       "`ncmpi_wait_all()`.");
	} else if (strcmp(c, "D_PARTIAL") == 0) {
		say(a, "Give Darshan more room when the job runs again: `export DARSHAN_MODMEM=64` "
		       "(MiB for the modules' records; `DARSHAN_NAMEMEM` for the file names), and "
		       "leave out paths of no interest with `DARSHAN_EXCLUDE_DIRS`.");
	} else if (strcmp(c, "L_SINGLE_STRIPE") == 0) {
		say(a, "Stripe large shared files over many OSTs, before they are created: "
		       "`lfs setstripe -c 16 -S 4M %s` (`-c -1`: every OST); restripe an "
		       "existing file with `lfs migrate -c 16 FILE`.", dir_or(a, "DIR"));
		if (a->mpiio)
			say(a, "Or let MPI-IO create it striped: `MPI_Info_set(info, "
			       "\"striping_factor\", \"16\")` and `MPI_Info_set(info, "
			       "\"striping_unit\", \"4194304\")`.");
	} else if (strcmp(c, "R_WORST_RANK_SHARE") == 0) {
		long long r = a->fd->nabout ? (long long)a->fd->about[0].rank : 0;
		say(a, "Spread the I/O over the ranks: let every rank (or one per node) "
		       "write its own part rather than funnelling the data through rank %lld.", r);
		if (a->mpiio)
			say(a, "With collective MPI-IO the library picks the aggregators: "
			       "`MPI_File_write_at_all()` and `cb_nodes` = %s.", a->nodes);
	} else if (strcmp(c, "H5D_SMALL_READS") == 0 || strcmp(c, "H5D_SMALL_WRITES") == 0) {
		bool reads = strstr(c, "READS") != NULL;
		say(a, "Move larger selections per `H5D%s()`: combine neighbouring hyperslabs "
		       "into one selection, and make chunks large (`H5Pset_chunk()`, MiBs) with a "
		       "chunk cache that holds them (`H5Pset_chunk_cache()`).", reads ? "read" : "write");
		if (a->mpiio)
			say(a, "With the MPI-IO driver, ask for collective transfers: "
			       "`H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)`.");
	} else if (strcmp(c, "H5D_NO_COLLECTIVE") == 0) {
		say(a, "Ask for collective transfers on the dataset transfer property list: "
		       "`H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)`, passed to `H5Dread()`/`H5Dwrite()`.");
		say(a, "Make metadata collective too: `H5Pset_all_coll_metadata_ops(fapl, 1)` and "
		       "`H5Pset_coll_metadata_write(fapl, 1)`.");
	} else if (strcmp(c, "PNETCDF_SMALL_READS") == 0 || strcmp(c, "PNETCDF_SMALL_WRITES") == 0) {
		bool reads = strstr(c, "READS") != NULL;
		say(a, "Access larger blocks of each variable per call, or post the small "
		       "accesses with `ncmpi_i%s_vara_*()` and complete them with one "
		       "`ncmpi_wait_all()`, which merges them.", reads ? "get" : "put");
	} else if (strcmp(c, "PNETCDF_NO_COLLECTIVE_READS") == 0 ||
	           strcmp(c, "PNETCDF_NO_COLLECTIVE_WRITES") == 0) {
		bool reads = strstr(c, "READS") != NULL;
		say(a, "Use the collective `ncmpi_%s_vara_*_all()` calls in collective data "
		       "mode (leave `ncmpi_begin_indep_data()` for the accesses that need it).",
		    reads ? "get" : "put");
	} else if (strcmp(c, "DFS_SMALL_READS") == 0 || strcmp(c, "DFS_SMALL_WRITES") == 0) {
		bool reads = strstr(c, "READS") != NULL;
		say(a, "Move more per `dfs_%s()`: one scatter-gather list (`d_sg_list_t`) of "
		       "several iovecs per call, and open files with a chunk size that fits the "
		       "requests (the `chunk_size` argument of `dfs_open()`).", reads ? "read" : "write");
	} else if (strcmp(c, "Q_TIME_INVALID") == 0 || strcmp(c, "Q_SIZE_INVALID") == 0 ||
	           strcmp(c, "Q_BYTES_EXCEED_REQUESTS") == 0 || strcmp(c, "Q_RANK_INVALID") == 0) {
		say(a, "Treat these counters as broken, not as measurements: the derived "
		       "metrics keep them (they are what Darshan's tools compute), the directory "
		       "summaries leave implausible totals out; a newer Darshan runtime may not "
		       "write them.");
	} else if (strcmp(c, "Q_RUNTIME_3_2_0") == 0) {
		say(a, "Run the job again with a Darshan runtime other than 3.2.0 for numbers "
		       "to trust; read these as hints at most.");
	} else if (strcmp(c, "Q_TIME_EXCEEDS_RUN") == 0) {
		say(a, "Read the module's times as the sum over threads (if the program does "
		       "I/O from several threads) rather than as time a process waited; compare "
		       "jobs by bytes and operation counts instead.");
	}
}

void dfs_advice(const struct facts *f, const struct finding *fd, dfs_advice_fn fn, void *ctx)
{
	struct advising a = {.f = f, .fd = fd, .fn = fn, .ctx = ctx};
	a.mpiio = present(f, DFS_MOD_MPIIO);
	a.hdf5 = present(f, DFS_MOD_H5F) || present(f, DFS_MOD_H5D);
	a.pnetcdf = present(f, DFS_MOD_PNETCDF_FILE) || present(f, DFS_MOD_PNETCDF_VAR);
	a.lustre = present(f, DFS_MOD_LUSTRE);
	size_t nodes = f->dxt_hosts ? f->dxt_hosts : f->apmpi_hosts;
	if (nodes)
		snprintf(a.nodes, sizeof(a.nodes), "%zu", nodes);
	else
		snprintf(a.nodes, sizeof(a.nodes), "NODES");
	place(&a);
	advise(&a);
}

const char *dfs_advice_short(const char *c)
{
	static const struct {
		const char *code, *text;
	} t[] = {
		{"S_STDIO_HIGH_USAGE", "move bulk data to POSIX or MPI-IO; setvbuf() large STDIO buffers"},
		{"P_SMALL_READS", "read in larger requests (collective MPI-IO reads)"},
		{"P_SMALL_WRITES", "write in larger requests (collective MPI-IO writes)"},
		{"P_SHARED_SMALL_READS", "collective MPI-IO reads of the shared files"},
		{"P_SHARED_SMALL_WRITES", "collective MPI-IO writes of the shared files"},
		{"P_MISALIGNED_MEMORY", "posix_memalign() the I/O buffers"},
		{"P_MISALIGNED_FILE", "align offsets to the block or stripe size"},
		{"P_RANDOM_READS", "read in increasing offsets"},
		{"P_RANDOM_WRITES", "write in increasing offsets"},
		{"P_METADATA_TIME", "fewer opens and stats; collective metadata"},
		{"P_SHARED_IMBALANCE", "balance the ranks' parts; stripe wider"},
		{"P_SIZE_IMBALANCE", "balance the ranks' parts; no fill values"},
		{"M_NO_COLLECTIVE_READS", "MPI_File_read_all(); cb_nodes = nodes"},
		{"M_NO_COLLECTIVE_WRITES", "MPI_File_write_all(); cb_nodes = nodes"},
		{"M_NO_NONBLOCKING", "non-blocking MPI_File_i*() calls"},
		{"D_PARTIAL", "raise DARSHAN_MODMEM"},
		{"L_SINGLE_STRIPE", "lfs setstripe -c 16 before creating the file"},
		{"R_WORST_RANK_SHARE", "spread the I/O over the ranks"},
		{"H5D_SMALL_READS", "larger HDF5 selections and chunks"},
		{"H5D_SMALL_WRITES", "larger HDF5 selections and chunks"},
		{"H5D_NO_COLLECTIVE", "H5Pset_dxpl_mpio(H5FD_MPIO_COLLECTIVE)"},
		{"PNETCDF_SMALL_READS", "larger accesses or ncmpi_iget + ncmpi_wait_all"},
		{"PNETCDF_SMALL_WRITES", "larger accesses or ncmpi_iput + ncmpi_wait_all"},
		{"PNETCDF_NO_COLLECTIVE_READS", "ncmpi_get_vara_*_all()"},
		{"PNETCDF_NO_COLLECTIVE_WRITES", "ncmpi_put_vara_*_all()"},
		{"DFS_SMALL_READS", "larger dfs_read() calls; chunk size"},
		{"DFS_SMALL_WRITES", "larger dfs_write() calls; chunk size"},
		{"Q_TIME_INVALID", "distrust these counters"},
		{"Q_SIZE_INVALID", "distrust these counters"},
		{"Q_RANK_INVALID", "distrust these records"},
		{"Q_BYTES_EXCEED_REQUESTS", "distrust these counters"},
		{"Q_TIME_EXCEEDS_RUN", "read the times as summed over threads"},
		{"Q_RUNTIME_3_2_0", "a runtime other than 3.2.0"},
	};
	for (size_t k = 0; k < sizeof(t) / sizeof(*t); k++)
		if (strcmp(t[k].code, c) == 0)
			return t[k].text;
	return "";
}
