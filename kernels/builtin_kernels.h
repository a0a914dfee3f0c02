// The kernels that ship with rprof, as one kernel set: the same ABI a plugin exports, so rprof
// treats built-in kernels and plugins alike.
#ifndef RPROF_KERNELS_BUILTIN_KERNELS_H_
#define RPROF_KERNELS_BUILTIN_KERNELS_H_

#include "rprof/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

// The "builtin" set: copy, scale, add, triad, dot, dot-fp32, matmul-naive, matmul-naive-fp32,
// matmul-ikj, matmul-ikj-fp32. Static, never null, valid for the life of the process.
const rprof_kernel_set* rprof_builtin_kernels(void);

#ifdef __cplusplus
}
#endif

#endif /* RPROF_KERNELS_BUILTIN_KERNELS_H_ */
