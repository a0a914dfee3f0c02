// Without elfutils: no sampling, said on every attempt.
#include "functions/function_sampler.h"

namespace rprof {

struct FunctionSampler::Impl {};
FunctionSampler::FunctionSampler(double period_s) { samples_.period_s = period_s; }
FunctionSampler::~FunctionSampler() = default;
bool FunctionSampler::Attach(pid_t) {
  samples_.why_not = "rprof was built without elfutils (libdw-dev): no function sampling";
  return false;
}
void FunctionSampler::Collect() {}

}  // namespace rprof
