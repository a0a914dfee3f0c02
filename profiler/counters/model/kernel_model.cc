#include "counters/model/kernel_model.h"

#include "core/formula.h"

namespace rprof {

bool KernelModelMetrics(const rprof_kernel& kernel, const rprof_args& args,
                        std::vector<Metric>* out, Error* err) {
  auto lookup = [&](std::string_view name) -> std::optional<double> {
    for (uint32_t i = 0; i < kernel.param_count; ++i)
      if (name == kernel.params[i].name) return static_cast<double>(args.values[i]);
    return std::nullopt;
  };
  auto evaluate = [&](const char* what, const char* text, double* value) {
    Error why;
    auto formula = Formula::Parse(text ? text : "", &why);
    auto result = formula ? formula->Evaluate(lookup, &why) : std::nullopt;
    if (!result) {
      return Fail(err, ErrorKind::kTargetFailed,
                  std::string("kernel ") + kernel.name + ": " + what + " formula '" +
                      (text ? text : "") + "': " + why.message);
    }
    *value = *result;
    return true;
  };
  double flops = 0, bytes = 0;
  if (!evaluate("FLOP", kernel.flops_formula, &flops) ||
      !evaluate("byte", kernel.bytes_formula, &bytes))
    return false;

  out->push_back({"flops", flops, "FLOP", Source::kModel, "", kernel.flops_formula});
  if (kernel.precision == RPROF_PRECISION_FP64)
    out->push_back({"flops_dp", flops, "FLOP", Source::kModel, "", kernel.flops_formula});
  if (kernel.precision == RPROF_PRECISION_FP32)
    out->push_back({"flops_sp", flops, "FLOP", Source::kModel, "", kernel.flops_formula});
  out->push_back({"bytes_dram", bytes, "B", Source::kModel, "",
                  std::string("compulsory: ") + kernel.bytes_formula});
  return true;
}

}  // namespace rprof
