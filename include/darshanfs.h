/* darshanfs.h - the installed API of the darshanfs core library
 * (libdarshanfs, pkg-config name darshanfs): Darshan logs decoded, as
 * data (log.h, module.h) and as darshan-parser's text (report.h); the
 * derived metrics (accum.h); logs written back (writer.h); the virtual
 * tree of a source directory, its filters and snapshots, without FUSE
 * (view.h); summary pages and insights (summary.h).  The FUSE front end
 * and the tools use nothing else.  Every name starts with dfs_ / DFS_. */
#ifndef DARSHANFS_H
#define DARSHANFS_H

#include "darshanfs/error.h"
#include "darshanfs/buf.h"
#include "darshanfs/hash.h"
#include "darshanfs/module.h"
#include "darshanfs/log.h"
#include "darshanfs/accum.h"
#include "darshanfs/report.h"
#include "darshanfs/writer.h"
#include "darshanfs/summary.h"
#include "darshanfs/view.h"

#endif
