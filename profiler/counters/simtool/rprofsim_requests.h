/* The client requests of rprof's valgrind tool (rprofsim_main.c), sent by rprof's marker library
 * and kernel runner. Outside valgrind each is a few no-op instructions; under another tool
 * valgrind ignores them. Collection itself is switched with callgrind's CALLGRIND_TOGGLE_COLLECT,
 * which the tool understands, so the kernel runner serves both. */
#ifndef RPROF_COUNTERS_SIMTOOL_RPROFSIM_REQUESTS_H_
#define RPROF_COUNTERS_SIMTOOL_RPROFSIM_REQUESTS_H_

#include <valgrind/valgrind.h>

typedef enum {
  /* arg1: the region's name (NUL-terminated). Counting for the calling thread goes to this
   * region too, until the matching end; regions nest and overlap across threads freely. */
  RPROFSIM_USERREQ_REGION_BEGIN = VG_USERREQ_TOOL_BASE('R', 'P'),
  /* arg1: the name given to the begin; an end without a begin is ignored. */
  RPROFSIM_USERREQ_REGION_END,
  /* No argument: 1 under rprofsim, 0 otherwise (the default value of the request). */
  RPROFSIM_USERREQ_IS_RPROFSIM
} RprofsimUserRequest;

#define RPROFSIM_REGION_BEGIN(name) \
  VALGRIND_DO_CLIENT_REQUEST_STMT(RPROFSIM_USERREQ_REGION_BEGIN, (name), 0, 0, 0, 0)
#define RPROFSIM_REGION_END(name) \
  VALGRIND_DO_CLIENT_REQUEST_STMT(RPROFSIM_USERREQ_REGION_END, (name), 0, 0, 0, 0)
#define RPROFSIM_IS_RUNNING() \
  ((int)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, RPROFSIM_USERREQ_IS_RPROFSIM, 0, 0, 0, 0, 0))

#endif /* RPROF_COUNTERS_SIMTOOL_RPROFSIM_REQUESTS_H_ */
