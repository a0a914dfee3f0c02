// rprof kernels: every kernel with its parameters and its model, the formulas printed exactly as
// the kernel declares them (the same text rprof evaluates).
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "core/json.h"
#include "report/render.h"
#include "report/run_report.h"
#include "targets/benchmark_binary.h"
#include "targets/kernel_catalog.h"
#include "targets/plugin_loader.h"
#include "targets/target_path.h"

namespace rprof {

bool KernelsCommand(CommandContext&, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("kernels", "[PLUGIN.so]",
                 "Lists the kernels rprof can run (built in, or those of a plugin), their "
                 "parameters (default and range) and their model: FLOPs and compulsory bytes "
                 "per call.");
  std::string plugin_path;
  cl.AddPositional("plugin", po::value(&plugin_path),
                   "a kernel plugin (.so) to list instead of the built-ins");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;

  // A Google Benchmark binary: its benchmark instances, each a run of `rprof BINARY`.
  if (!plugin_path.empty() && !LooksLikePlugin(plugin_path) &&
      LooksLikeBenchmarkBinary(plugin_path)) {
    BenchmarkBinary binary;
    if (!ListBenchmarks(plugin_path, {}, &binary, err)) return false;
    Report report;
    Table& table =
        report.AddTable({{"name", "benchmark"}, {"params", "params"}}, kInAll, "benchmarks");
    for (const std::string& name : binary.instances)
      table.AddRow({Cell::Text(name), Cell::Text(ParamsText(BenchmarkParams(name)))});
    report.AddText("\n`rprof " + plugin_path +
                   "` measures each one as a run of kind benchmark; --benchmark_filter=REGEX "
                   "after it chooses some.\n");
    std::cout << Render(report, cl.format(), cl.text_width());
    return true;
  }

  KernelCatalog plugin;
  if (!plugin_path.empty() && !LoadPlugin(plugin_path, &plugin, err)) return false;
  const auto& entries = plugin_path.empty() ? BuiltinCatalog().entries() : plugin.entries();
  Report report;
  // params and description stand twice: JSON keeps the key order README lists, CSV its own.
  Table& table = report.AddTable(
      {{"name", "kernel"},
       {"description", "", Align::kLeft, kInJson},
       {"origin", "", Align::kLeft, kInJson},
       {"precision", "prec"},
       {"params", "params (default [range])", Align::kLeft, kInText | kInCsv},
       {"flops", "FLOPs/call"},
       {"bytes", "bytes/call"},
       {"params", "", Align::kLeft, kInJson},
       Column("description", "description", Align::kLeft, kInText | kInCsv).Notes()});
  for (const CatalogEntry& e : entries) {
    const rprof_kernel& k = *e.kernel;
    std::string params_text;
    JsonWriter params;
    params.BeginArray();
    for (uint32_t i = 0; i < k.param_count; ++i) {
      const rprof_param& p = k.params[i];
      if (i) params_text += " ";
      params_text += std::string(p.name) + "=" + std::to_string(p.default_value) + " [" +
                     std::to_string(p.min_value) + ".." + std::to_string(p.max_value) + "]";
      params.BeginObject();
      params.Key("name").String(p.name);
      params.Key("description").String(p.description);
      params.Key("default").Int(p.default_value);
      params.Key("min").Int(p.min_value);
      params.Key("max").Int(p.max_value);
      params.EndObject();
    }
    params.EndArray();
    table.AddRow({Cell::Text(k.name), Cell::Text(k.description), Cell::Text(e.origin),
                  Cell::TextOrNull(PrecisionName(k.precision)), Cell::Text(params_text),
                  Cell::Text(k.flops_formula), Cell::Text(k.bytes_formula),
                  Cell::Json(params.str(), params_text), Cell::Text(k.description)});
  }
  report.AddText(
      "\nbytes/call is the compulsory traffic: each input read once, each output written "
      "once.\n");
  std::cout << Render(report, cl.format(), cl.text_width());
  return true;
}

}  // namespace rprof
