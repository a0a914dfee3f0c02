// rprof validate: every built-in kernel at a small size, its model side by side with the sim
// counts (and pmu where the machine counts FLOPs), with the relative error. A kernel whose
// declared FLOPs disagree with what the simulated CPU executed fails the command.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "core/formula.h"
#include "core/json.h"
#include "counters/model/kernel_model.h"
#include "counters/sim_source.h"
#include "report/render.h"
#include "targets/kernel_catalog.h"
#include "targets/kernel_target.h"

namespace rprof {

namespace {

// Parameters that size the work; halved until the model is small enough to simulate quickly.
bool IsSizeParameter(const std::string& name) {
  for (const char* s : {"n", "m", "k", "seq", "d", "rows", "cols", "batch"})
    if (name == s) return true;
  return false;
}

double ModelFlops(const rprof_kernel& k, const rprof_args& args) {
  std::vector<Metric> model;
  // -1 stops the shrinking; the validation itself then reports the broken model with its reason.
  if (!KernelModelMetrics(k, args, &model, nullptr)) return -1;
  const Metric* m = FindMetric(model, "flops", Source::kModel);
  const Metric* b = FindMetric(model, "bytes_dram", Source::kModel);
  return std::max(m && m->value ? *m->value : 0, b && b->value ? *b->value / 4 : 0);
}

// Defaults, with the size parameters halved (never below their minimum, never odd-only edge
// cases removed) until one call is at most about two million FLOPs or eight million bytes.
rprof_args SmallArgs(const rprof_kernel& k) {
  rprof_args args{};
  for (uint32_t i = 0; i < k.param_count; ++i) args.values[i] = k.params[i].default_value;
  for (int round = 0; round < 64 && ModelFlops(k, args) > 2e6; ++round) {
    bool changed = false;
    for (uint32_t i = 0; i < k.param_count; ++i) {
      if (!IsSizeParameter(k.params[i].name)) continue;
      int64_t half = args.values[i] / 2;
      if (half >= k.params[i].min_value && half >= 8) {
        args.values[i] = half;
        changed = true;
      }
    }
    if (!changed) break;
  }
  // Multiples of 48 fill the register tiles of the SIMD kernels exactly (6x8, 6x16 and 12x16
  // micro-tiles): padded edge tiles execute FLOPs on zeros that no model should declare.
  for (uint32_t i = 0; i < k.param_count; ++i) {
    int64_t v = args.values[i];
    if (IsSizeParameter(k.params[i].name) && v >= 48 && v - v % 48 >= k.params[i].min_value)
      args.values[i] = v - v % 48;
  }
  return args;
}

}  // namespace

bool ValidateCommand(CommandContext&, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("validate", "[--kernel K] [--tolerance PCT]",
                 "Runs every built-in kernel at a small size under valgrind (the sim source) and "
                 "compares the FLOPs it executed with the kernel's model; compulsory bytes are "
                 "shown beside the simulated traffic. Exits 1 when a kernel's FLOPs disagree by "
                 "more than the tolerance.");
  std::string only;
  // At validation sizes, what a formula cannot see — cross-lane reductions, a library's edge
  // handling (OpenBLAS) — stays within a few percent; a wrong model is off by far more.
  double tolerance = 5;
  cl.Add("kernel,k", po::value(&only), "validate only this kernel");
  cl.Add("tolerance", po::value(&tolerance),
         "largest relative FLOP error accepted, percent (default 5)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (!only.empty() && !BuiltinCatalog().Resolve(only, err)) return false;

  Report report;
  Table& table = report.AddTable({{"kernel", "kernel"},
                                  {"params", "params"},
                                  {"flops_model", "FLOPs model", Align::kRight},
                                  {"flops_sim", "FLOPs sim", Align::kRight},
                                  {"flops_error_pct", "error %", Align::kRight},
                                  {"bytes_model", "bytes model", Align::kRight},
                                  {"bytes_l1_sim", "bytes L1 sim", Align::kRight},
                                  {"bytes_dram_sim", "bytes DRAM sim", Align::kRight},
                                  {"ok", "", Align::kLeft, kInText | kInJson},
                                  {"mix", "FP mix (sim)", Align::kLeft, kInText}});
  int failures = 0;
  for (const CatalogEntry& entry : BuiltinCatalog().entries()) {
    const rprof_kernel& k = *entry.kernel;
    if (!only.empty() && only != k.name) continue;
    rprof_args a = SmallArgs(k);
    std::string params;
    for (uint32_t i = 0; i < k.param_count; ++i) {
      if (i) params += " ";
      params += std::string(k.params[i].name) + "=" + std::to_string(a.values[i]);
    }
    std::vector<Metric> model, sim;
    Error why;
    if (!KernelModelMetrics(k, a, &model, &why))
      return Fail(err, ErrorKind::kEnvironment, why.message);
    if (!SimulateKernel(CountedKernel(entry, a), CacheSizes(), &sim, err)) return false;
    auto value = [](const std::vector<Metric>& ms, const char* name, Source s) {
      const Metric* m = FindMetric(ms, name, s);
      return m ? m->value : std::nullopt;
    };
    double model_flops = value(model, "flops", Source::kModel).value_or(0);
    double model_bytes = value(model, "bytes_dram", Source::kModel).value_or(0);
    double sim_flops = value(sim, "flops", Source::kSim).value_or(0);
    std::string mix;
    if (const Metric* m = FindMetric(sim, "flops", Source::kSim))
      mix = m->note.substr(0, m->note.find(';'));
    double error_pct = model_flops == 0 ? (sim_flops == 0 ? 0 : 100)
                                        : (sim_flops - model_flops) / model_flops * 100;
    bool ok = std::fabs(error_pct) <= tolerance;
    failures += !ok;
    char error_text[32];
    std::snprintf(error_text, sizeof error_text, "%+.3f", error_pct);
    table.AddRow({Cell::Text(k.name), Cell::Text(params), Cell::Number(model_flops),
                  Cell::Number(sim_flops), Cell::Number(error_pct, error_text),
                  Cell::Number(model_bytes), Cell::Number(value(sim, "bytes_l1", Source::kSim)),
                  Cell::Number(value(sim, "bytes_dram", Source::kSim)),
                  Cell::Bool(ok, ok ? "ok" : "MISMATCH"), Cell::Text(mix)});
    if (ForPeople(cl.format())) std::fprintf(stderr, "validated %s\n", k.name);
  }
  std::cout << Render(report, cl.format(), cl.text_width());
  if (failures > 0)
    return Fail(err, ErrorKind::kTargetFailed,
                std::to_string(failures) +
                    " kernel(s) execute FLOPs their model does not "
                    "declare (beyond " +
                    JsonNumber(tolerance) + " %)");
  return true;
}

}  // namespace rprof
