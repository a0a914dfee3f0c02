// Ceilings for tests of pictures and placement: a compute or bandwidth ceiling named the way
// `rprof machine measure` names them (fp64_avx2_fma, l1_load).
#ifndef RPROF_TESTS_UNIT_TEST_CEILINGS_H_
#define RPROF_TESTS_UNIT_TEST_CEILINGS_H_

#include <string>

#include "machine/machine_profile.h"

namespace rprof::testing_support {

inline Ceiling MakeCeiling(const std::string& kind, const std::string& level,
                           const std::string& isa, const std::string& precision,
                           const std::string& pattern, int threads, double value) {
  Ceiling c;
  c.kind = kind;
  c.level = level;
  c.isa = isa;
  c.precision = precision;
  c.pattern = pattern;
  c.threads = threads;
  c.name = kind == "compute" ? precision + "_" + isa + "_" + pattern : level + "_" + pattern;
  c.value = value;
  c.unit = kind == "compute" ? "GFLOP/s" : "GB/s";
  return c;
}

}  // namespace rprof::testing_support

#endif  // RPROF_TESTS_UNIT_TEST_CEILINGS_H_
