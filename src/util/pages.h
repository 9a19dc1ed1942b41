/* pages.h - big anonymous mappings in the page size that faults in
 * faster on this machine.
 *
 * Which one that is depends on the machine, not on darshanfs: on the
 * paravirtual machine of our benchmarks each fresh 4 KiB page costs an
 * exit to the host at its first touch, and a 2 MiB transparent huge page
 * a fraction of 512 of them (187 MiB filled in 0.03-0.23 s against
 * 0.48-0.75 s); on another virtual machine a fresh huge page cost about
 * four times as much per byte as small ones.  So it is measured: the
 * first call faults in two huge pages and as many bytes of small ones,
 * and the faster wins, for the life of the process (a fact of the
 * machine, the same for every view: docs/locks.md). */
#ifndef DFS_UTIL_PAGES_H
#define DFS_UTIL_PAGES_H

#include <stdbool.h>
#include <stddef.h>

/* Do transparent huge pages fault in faster than 4 KiB pages here?
 * (false where the kernel has none) */
bool dfs_pages_huge_pays(void);
/* Ask for transparent huge pages for the mapping [p, p + len), before it
 * is faulted in, where they pay (dfs_pages_huge_pays). */
void dfs_pages_huge(void *p, size_t len);

#endif
