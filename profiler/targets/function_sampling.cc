#include "targets/function_sampling.h"

namespace rprof {

namespace {

// One sample per 0.5 ms of CPU time per thread: a few hundred in a tenth of a second, at a cost
// within the noise (a timer interrupt and 24 bytes each; tests/bench/sampling_cost.py measures
// it on a whole program).
constexpr double kSamplePeriodS = 0.5e-3;

}  // namespace

FunctionSampling::FunctionSampling() : sampler_(kSamplePeriodS) {}

bool FunctionSampling::Attach(pid_t pid, Error*) {
  attached_ = sampler_.Attach(pid);
  return true;
}

void FunctionSampling::Collect() {
  if (attached_) sampler_.Collect();
  attached_ = false;
}

}  // namespace rprof
