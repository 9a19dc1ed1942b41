/* fuzz_log.c - libFuzzer target for the log reader: the input is a whole
 * log file.  A log that opens is rendered completely (darshan-parser text,
 * every CSV, the accumulators); one that does not must say why. */
#include <stdint.h>
#include <stdlib.h>

#include "darshanfs/log.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dfs_error err = {0};
	dfs_log *log = dfs_log_open_mem(data, size, "fuzz", 0, &err);
	if (!log) {
		if (err.code == DFS_OK || err.msg[0] == '\0')
			abort(); /* refused without a reason */
		return 0;
	}
	fuzz_render_log(log);
	dfs_log_free(log);
	return 0;
}
