// rprof kernels: every kernel with its parameters and its model, the formulas printed exactly as
// the kernel declares them (the same text rprof evaluates).
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "core/json.h"
#include "report/text_table.h"
#include "targets/kernel_catalog.h"
#include "targets/plugin_loader.h"

namespace rprof {

bool KernelsCommand(const GlobalOptions&, const std::vector<std::string>& args, Error* err) {
  po::options_description options("kernels options");
  std::string format_text = "table", plugin_path;
  options.add_options()("help,h", "show this help")("format,f", po::value(&format_text),
                                                     "table, csv or json")(
      "plugin", po::value(&plugin_path), "a kernel plugin (.so) to list instead of the built-ins");
  po::positional_options_description positional;
  positional.add("plugin", 1);
  po::variables_map vm;
  if (!ParseCommandLine("kernels", args, options, positional, &vm, err)) return false;
  if (vm.count("help")) {
    PrintCommandHelp("kernels", "[PLUGIN.so] [--format table|csv|json]",
                     "Lists the kernels rprof can run (built in, or those of a plugin), their "
                     "parameters (default and range) and their model: FLOPs and compulsory bytes "
                     "per call.",
                     options);
    return true;
  }
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return false;

  KernelCatalog plugin;
  if (!plugin_path.empty() && !LoadPlugin(plugin_path, &plugin, err)) return false;
  const auto& entries = plugin_path.empty() ? BuiltinCatalog().entries() : plugin.entries();
  auto params_text = [](const rprof_kernel& k) {
    std::string out;
    for (uint32_t i = 0; i < k.param_count; ++i) {
      const rprof_param& p = k.params[i];
      if (i) out += " ";
      out += std::string(p.name) + "=" + std::to_string(p.default_value) + " [" +
             std::to_string(p.min_value) + ".." + std::to_string(p.max_value) + "]";
    }
    return out;
  };
  if (format == OutputFormat::kJson) {
    JsonWriter w;
    w.BeginArray();
    for (const CatalogEntry& e : entries) {
      const rprof_kernel& k = *e.kernel;
      w.BeginObject();
      w.Key("name").String(k.name);
      w.Key("description").String(k.description);
      w.Key("origin").String(e.origin);
      w.Key("precision");
      if (*PrecisionName(k.precision)) w.String(PrecisionName(k.precision)); else w.Null();
      w.Key("flops").String(k.flops_formula);
      w.Key("bytes").String(k.bytes_formula);
      w.Key("params").BeginArray();
      for (uint32_t i = 0; i < k.param_count; ++i) {
        const rprof_param& p = k.params[i];
        w.BeginObject();
        w.Key("name").String(p.name);
        w.Key("description").String(p.description);
        w.Key("default").Int(p.default_value);
        w.Key("min").Int(p.min_value);
        w.Key("max").Int(p.max_value);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    std::cout << w.str() << "\n";
    return true;
  }
  if (format == OutputFormat::kCsv) {
    std::cout << "name,precision,params,flops,bytes,description\n";
    for (const CatalogEntry& e : entries) {
      const rprof_kernel& k = *e.kernel;
      std::cout << CsvField(k.name) << "," << PrecisionName(k.precision) << ","
                << CsvField(params_text(k)) << "," << CsvField(k.flops_formula) << ","
                << CsvField(k.bytes_formula) << "," << CsvField(k.description) << "\n";
    }
    return true;
  }
  TextTable table({"kernel", "prec", "params (default [range])", "FLOPs/call", "bytes/call",
                   "description"},
                  {false, false, false, false, false, false});
  for (const CatalogEntry& e : entries) {
    const rprof_kernel& k = *e.kernel;
    table.AddRow({k.name, PrecisionName(k.precision), params_text(k), k.flops_formula,
                  k.bytes_formula, k.description});
  }
  std::cout << table.Render()
            << "\nbytes/call is the compulsory traffic: each input read once, each output "
               "written once.\n";
  return true;
}

}  // namespace rprof
