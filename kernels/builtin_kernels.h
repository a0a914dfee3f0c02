// The kernels that ship with rprof, as one kernel set: the same ABI a plugin exports, so rprof
// treats built-in kernels and plugins alike.
#ifndef RPROF_KERNELS_BUILTIN_KERNELS_H_
#define RPROF_KERNELS_BUILTIN_KERNELS_H_

#include "rprof/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

// The "builtin" set: every kernel family of kernels/kernel_families.h, in the order
// builtin_kernels.cc lists them (`rprof kernels` prints them all, with their parameters).
// Static, never null, valid for the life of the process.
const rprof_kernel_set* rprof_builtin_kernels(void);

#ifdef __cplusplus
}
#endif

#endif /* RPROF_KERNELS_BUILTIN_KERNELS_H_ */
