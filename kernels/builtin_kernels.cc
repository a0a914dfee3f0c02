#include "builtin_kernels.h"

#include <cstdint>
#include <span>
#include <vector>

#include "kernel_families.h"

extern "C" const rprof_kernel_set* rprof_builtin_kernels(void) {
  // Built on first use, not at namespace scope: the family tables live in other translation
  // units, whose initialisation order relative to this one is unspecified.
  static const std::vector<rprof_kernel> kernels = [] {
    std::vector<rprof_kernel> all;
    const std::span<const rprof_kernel> families[] = {
      rprof::StreamKernels(),
      rprof::DotKernels(),
      rprof::MatmulKernels(),
      // The curriculum's kernels.
      rprof::MatmulFastKernels(),
#if RPROF_HAVE_OPENBLAS
      rprof::MatmulBlasKernels(),  // built only when OpenBLAS was found (kernels/meson.build)
#endif
      rprof::GemvKernels(),
      rprof::TransformerOpKernels(),
      rprof::AttentionKernels(),
      rprof::StencilKernels()
    };
    for (std::span<const rprof_kernel> family : families) {
      all.insert(all.end(), family.begin(), family.end());
    }
    return all;
  }();
  static const rprof_kernel_set set = {RPROF_KERNEL_ABI_VERSION, "builtin", kernels.data(),
                                       static_cast<uint32_t>(kernels.size())};
  return &set;
}
