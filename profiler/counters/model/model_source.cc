#include "counters/model/model_source.h"

#include "counters/model/kernel_model.h"

namespace rprof {

namespace {

class PreparedModel : public PreparedSource {
 public:
  explicit PreparedModel(std::vector<Metric> metrics) : metrics_(std::move(metrics)) {}
  bool Finish(const CountedTarget&, const NativeOutcome&, std::vector<Metric>* metrics,
              std::string*, Error*) override {
    *metrics = metrics_;
    return true;
  }

 private:
  std::vector<Metric> metrics_;
};

class ModelSource : public CounterSource {
 public:
  Source id() const override { return Source::kModel; }
  const char* summary() const override {
    return "the kernel's own FLOP and compulsory-byte formulas, or the program's declared ones";
  }
  CounterScope scope(CountedTarget::Kind) const override { return CounterScope::kStatic; }
  Availability Probe() const override { return {}; }
  // Evaluated before anything runs: a broken formula (a plugin defect) costs no measurement.
  std::unique_ptr<PreparedSource> Prepare(const CountedTarget& target, const CounterRequest&, bool,
                                          Error* err) const override {
    std::vector<Metric> metrics;
    if (target.kind == CountedTarget::Kind::kKernel) {
      Error why;
      if (!KernelModelMetrics(*target.kernel, target.args, &metrics, &why)) {
        Fail(err, ErrorKind::kEnvironment, why.message);
        return nullptr;
      }
    } else {
      if (target.declared_flops)
        metrics.push_back(
            {"flops", *target.declared_flops, "FLOP", Source::kModel, "", "declared by --flops"});
      if (target.declared_bytes)
        metrics.push_back(
            {"bytes_dram", *target.declared_bytes, "B", Source::kModel, "", "declared by --bytes"});
    }
    return std::make_unique<PreparedModel>(std::move(metrics));
  }
};

}  // namespace

const CounterSource& ModelCounterSource() {
  static const ModelSource source;
  return source;
}

}  // namespace rprof
