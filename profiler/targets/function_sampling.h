// A program's native executions sampled per function (functions/function_sampler.h) as the
// measuring driver's own per-process counting: whatever the sources (pmu, sim, model, or auto),
// every execution of a program run with --functions is sampled, so that its hot functions have
// their time with or without a source that counts per function.
#ifndef RPROF_TARGETS_FUNCTION_SAMPLING_H_
#define RPROF_TARGETS_FUNCTION_SAMPLING_H_

#include "counters/counter_source.h"
#include "functions/function_sampler.h"

namespace rprof {

class FunctionSampling : public ProcessCounting {
 public:
  FunctionSampling();
  // A sampler the kernel refuses never stops the run: its functions then have no time, and
  // samples().why_not says why.
  bool Attach(pid_t pid, Error* err) override;
  std::vector<std::string> Counted() const override { return {}; }
  void Collect() override;
  // Every execution's samples so far.
  const FunctionSamples& samples() const { return sampler_.samples(); }

 private:
  FunctionSampler sampler_;
  bool attached_ = false;
};

}  // namespace rprof

#endif  // RPROF_TARGETS_FUNCTION_SAMPLING_H_
