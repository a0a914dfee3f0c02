// rprof compare A B: two runs metric by metric, B relative to A, with where each stands on its
// roofline; --fail-if-slower makes it a CI gate.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/command.h"
#include "cli/options.h"
#include "roofline/stored_run_placement.h"
#include "core/json.h"
#include "core/stats.h"
#include "report/text_table.h"
#include "store/run_store.h"

namespace rprof {

bool CompareCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err) {
  po::options_description options("compare options");
  std::string format_text = "table";
  std::vector<long long> ids;
  double fail_pct = -1;
  options.add_options()
      ("help,h", "show this help")
      ("format,f", po::value(&format_text), "table, csv or json")
      ("fail-if-slower", po::value(&fail_pct), "exit 1 when B's median time per call is more "
       "than PCT percent above A's")
      ("run", po::value(&ids)->composing(), "run ids A and B");
  po::positional_options_description positional;
  positional.add("run", 2);
  po::variables_map vm;
  if (!ParseCommandLine("compare", args, options, positional, &vm, err)) return false;
  if (vm.count("help")) {
    PrintCommandHelp("compare", "A B [--fail-if-slower PCT] [--format table|csv|json]",
                     "Compares run B with run A: every metric both have (same name and source) "
                     "with the ratio B/A, the median time per call, and the ceiling each run "
                     "hits on its machine's roofline.",
                     options);
    return true;
  }
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return false;
  if (ids.size() != 2) return Fail(err, ErrorKind::kUsage, "compare: give two run ids, A and B");
  if (vm.count("fail-if-slower") && !(fail_pct >= 0))
    return Fail(err, ErrorKind::kUsage, "--fail-if-slower takes a percentage, 0 or more");

  RunStore store;
  if (!store.Open(ResolveDatabasePath(global.db), err)) return false;
  RunRecord a, b;
  if (!store.Load(ids[0], &a, err) || !store.Load(ids[1], &b, err)) return false;
  RunPlacement pa = PlaceStoredRun(&store, a), pb = PlaceStoredRun(&store, b);

  struct Row {
    std::string region, name, source, unit;
    std::optional<double> va, vb;
  };
  std::vector<Row> rows;
  for (const Metric& m : a.metrics) {
    const Metric* other = FindMetric(b.metrics, m.name, m.source, m.region);
    rows.push_back({m.region, m.name, std::string(SourceName(m.source)), m.unit, m.value,
                    other ? other->value : std::nullopt});
  }
  for (const Metric& m : b.metrics)
    if (!FindMetric(a.metrics, m.name, m.source, m.region))
      rows.push_back({m.region, m.name, std::string(SourceName(m.source)), m.unit, std::nullopt,
                      m.value});
  auto ratio = [](const Row& r) -> std::optional<double> {
    if (!r.va || !r.vb || *r.va == 0) return std::nullopt;
    return *r.vb / *r.va;
  };
  double ta = Summarize(a.samples).median, tb = Summarize(b.samples).median;
  std::optional<double> slower_pct;
  if (ta > 0 && tb > 0) slower_pct = (tb / ta - 1) * 100;

  auto verdict = [](const RunPlacement& p) {
    return p.profile_id == 0 ? p.missing
                             : (p.placement.placed ? p.placement.verdict : p.placement.reason);
  };
  if (format == OutputFormat::kJson) {
    JsonWriter w;
    w.BeginObject();
    w.Key("a").Int(a.id);
    w.Key("b").Int(b.id);
    w.Key("time_ratio");
    if (ta > 0 && tb > 0) w.Number(tb / ta); else w.Null();
    w.Key("a_verdict").String(verdict(pa));
    w.Key("b_verdict").String(verdict(pb));
    w.Key("metrics").BeginArray();
    for (const Row& r : rows) {
      w.BeginObject();
      w.Key("region").String(r.region);
      w.Key("name").String(r.name);
      w.Key("source").String(r.source);
      w.Key("unit").String(r.unit);
      w.Key("a").OptionalNumber(r.va);
      w.Key("b").OptionalNumber(r.vb);
      w.Key("ratio").OptionalNumber(ratio(r));
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::cout << w.str() << "\n";
  } else if (format == OutputFormat::kCsv) {
    std::cout << "region,metric,source,unit,a,b,ratio\n";
    for (const Row& r : rows) {
      auto num = [](const std::optional<double>& v) { return v ? JsonNumber(*v) : std::string(); };
      std::cout << CsvField(r.region) << "," << CsvField(r.name) << "," << r.source << ","
                << CsvField(r.unit) << "," << num(r.va) << "," << num(r.vb) << ","
                << num(ratio(r)) << "\n";
    }
  } else {
    std::cout << "A: run " << a.id << "  " << a.target << "  " << a.started_at << "\n"
              << "   " << verdict(pa) << "\n"
              << "B: run " << b.id << "  " << b.target << "  " << b.started_at << "\n"
              << "   " << verdict(pb) << "\n";
    if (slower_pct) {
      char line[128];
      std::snprintf(line, sizeof line, "time per call: B/A = %.3f (%s%.1f %%)\n\n", tb / ta,
                    *slower_pct >= 0 ? "+" : "", *slower_pct);
      std::cout << line;
    }
    TextTable table({"region", "metric", "source", "A", "B", "B/A", "unit"},
                    {false, false, false, true, true, true, false});
    for (const Row& r : rows)
      table.AddRow({r.region, r.name, r.source, FormatValue(r.va), FormatValue(r.vb),
                    FormatValue(ratio(r)), r.unit});
    std::cout << table.Render();
  }
  if (vm.count("fail-if-slower") && slower_pct && *slower_pct > fail_pct) {
    char message[160];
    std::snprintf(message, sizeof message,
                  "run %lld is %.1f %% slower than run %lld (limit %.1f %%)",
                  static_cast<long long>(b.id), *slower_pct, static_cast<long long>(a.id),
                  fail_pct);
    return Fail(err, ErrorKind::kTargetFailed, message);
  }
  return true;
}

}  // namespace rprof
