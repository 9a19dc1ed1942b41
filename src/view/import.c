/* import.c - sets of records shared by reference (struct import_set):
 * the rows written into records.csv (write.c fills one; the module's
 * filter state holds it) and the records a row filter cut (select.c; the
 * selection holds it).  Every records.csv snapshot showing a set holds
 * another reference, so the next import can replace the set while a
 * reader is still reading the old.  The last reference frees the rows,
 * whoever holds it.  The bottom of the view with snapshot.c: it calls no
 * other file of it. */
#include <stdlib.h>

#include "view/import.h"

struct import_set *dfs_import_ref(struct import_set *s)
{
	if (s)
		atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	return s;
}

void dfs_import_release(struct import_set *s)
{
	if (s && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1) {
		dfs_records_free(&s->recs);
		free(s);
	}
}

size_t dfs_import_memory(const struct import_set *s)
{
	return s ? sizeof(*s) + dfs_records_memory(&s->recs) : 0;
}
