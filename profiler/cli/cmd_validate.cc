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
#include "report/text_table.h"
#include "targets/kernel_catalog.h"
#include "counters/sim_source.h"
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
  std::string why;
  if (!KernelModelMetrics(k, args, &model, &why)) return -1;
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

bool ValidateCommand(const GlobalOptions&, const std::vector<std::string>& args, Error* err) {
  po::options_description options("validate options");
  std::string format_text = "table", only;
  // At validation sizes, what a formula cannot see — cross-lane reductions, a library's edge
  // handling (OpenBLAS) — stays within a few percent; a wrong model is off by far more.
  double tolerance = 5;
  options.add_options()("help,h", "show this help")("format,f", po::value(&format_text),
                                                     "table, csv or json")(
      "kernel,k", po::value(&only), "validate only this kernel")(
      "tolerance", po::value(&tolerance), "largest relative FLOP error accepted, percent "
                                          "(default 5)");
  po::variables_map vm;
  if (!ParseCommandLine("validate", args, options, {}, &vm, err)) return false;
  if (vm.count("help")) {
    PrintCommandHelp("validate", "[--kernel K] [--tolerance PCT] [--format table|csv|json]",
                     "Runs every built-in kernel at a small size under valgrind (the sim "
                     "source) and compares the FLOPs it executed with the kernel's model; "
                     "compulsory bytes are shown beside the simulated traffic. Exits 1 when a "
                     "kernel's FLOPs disagree by more than the tolerance.",
                     options);
    return true;
  }
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return false;
  if (!only.empty() && !BuiltinCatalog().Resolve(only, err)) return false;

  struct Row {
    std::string kernel, params;
    double model_flops = 0, sim_flops = 0, model_bytes = 0;
    std::optional<double> bytes_l1, bytes_dram;
    double error_pct = 0;
    std::string mix;
  };
  std::vector<Row> rows;
  int failures = 0;
  for (const CatalogEntry& entry : BuiltinCatalog().entries()) {
    const rprof_kernel& k = *entry.kernel;
    if (!only.empty() && only != k.name) continue;
    rprof_args a = SmallArgs(k);
    Row row;
    row.kernel = k.name;
    for (uint32_t i = 0; i < k.param_count; ++i)
      row.params += (i ? " " : "") + std::string(k.params[i].name) + "=" + std::to_string(a.values[i]);
    std::vector<Metric> model, sim;
    std::string why;
    if (!KernelModelMetrics(k, a, &model, &why)) return Fail(err, ErrorKind::kEnvironment, why);
    if (!SimulateKernel(CountedKernel(entry, a), &sim, err)) return false;
    auto value = [](const std::vector<Metric>& ms, const char* name, Source s) {
      const Metric* m = FindMetric(ms, name, s);
      return m ? m->value : std::nullopt;
    };
    row.model_flops = value(model, "flops", Source::kModel).value_or(0);
    row.model_bytes = value(model, "bytes_dram", Source::kModel).value_or(0);
    row.sim_flops = value(sim, "flops", Source::kSim).value_or(0);
    row.bytes_l1 = value(sim, "bytes_l1", Source::kSim);
    row.bytes_dram = value(sim, "bytes_dram", Source::kSim);
    if (const Metric* m = FindMetric(sim, "flops", Source::kSim)) row.mix = m->note.substr(0, m->note.find(';'));
    row.error_pct = row.model_flops == 0 ? (row.sim_flops == 0 ? 0 : 100)
                                         : (row.sim_flops - row.model_flops) / row.model_flops * 100;
    if (std::fabs(row.error_pct) > tolerance) ++failures;
    rows.push_back(std::move(row));
    if (format == OutputFormat::kTable)
      std::fprintf(stderr, "validated %s\n", k.name);
  }

  if (format == OutputFormat::kJson) {
    JsonWriter w;
    w.BeginArray();
    for (const Row& r : rows) {
      w.BeginObject();
      w.Key("kernel").String(r.kernel);
      w.Key("params").String(r.params);
      w.Key("flops_model").Number(r.model_flops);
      w.Key("flops_sim").Number(r.sim_flops);
      w.Key("flops_error_pct").Number(r.error_pct);
      w.Key("bytes_model").Number(r.model_bytes);
      w.Key("bytes_l1_sim").OptionalNumber(r.bytes_l1);
      w.Key("bytes_dram_sim").OptionalNumber(r.bytes_dram);
      w.Key("ok").Bool(std::fabs(r.error_pct) <= tolerance);
      w.EndObject();
    }
    w.EndArray();
    std::cout << w.str() << "\n";
  } else if (format == OutputFormat::kCsv) {
    std::cout << "kernel,params,flops_model,flops_sim,flops_error_pct,bytes_model,bytes_l1_sim,"
                 "bytes_dram_sim\n";
    for (const Row& r : rows)
      std::cout << r.kernel << "," << CsvField(r.params) << "," << JsonNumber(r.model_flops) << ","
                << JsonNumber(r.sim_flops) << "," << JsonNumber(r.error_pct) << ","
                << JsonNumber(r.model_bytes) << ","
                << (r.bytes_l1 ? JsonNumber(*r.bytes_l1) : "") << ","
                << (r.bytes_dram ? JsonNumber(*r.bytes_dram) : "") << "\n";
  } else {
    TextTable table({"kernel", "params", "FLOPs model", "FLOPs sim", "error %", "bytes model",
                     "bytes L1 sim", "bytes DRAM sim", "", "FP mix (sim)"},
                    {false, false, true, true, true, true, true, true, false, false});
    for (const Row& r : rows) {
      char e[32];
      std::snprintf(e, sizeof e, "%+.3f", r.error_pct);
      table.AddRow({r.kernel, r.params, FormatValue(r.model_flops), FormatValue(r.sim_flops), e,
                    FormatValue(r.model_bytes), FormatValue(r.bytes_l1), FormatValue(r.bytes_dram),
                    std::fabs(r.error_pct) <= tolerance ? "ok" : "MISMATCH", r.mix});
    }
    std::cout << table.Render();
  }
  if (failures > 0)
    return Fail(err, ErrorKind::kTargetFailed,
                std::to_string(failures) +
                    " kernel(s) execute FLOPs their model does not "
                    "declare (beyond " +
                    JsonNumber(tolerance) + " %)");
  return true;
}

}  // namespace rprof
