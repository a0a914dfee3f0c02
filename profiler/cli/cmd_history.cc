// rprof history and rprof show: stored runs, read back whole.
#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "roofline/stored_run_placement.h"
#include "report/run_report.h"
#include "store/run_store.h"

namespace rprof {

bool HistoryCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err) {
  po::options_description options("history options");
  RunFilter filter;
  std::string format_text = "table";
  std::vector<std::string> tags;
  options.add_options()
      ("help,h", "show this help")
      ("kernel,k", po::value(&filter.target), "only runs of this kernel (or executable path)")
      ("status", po::value(&filter.status), "only runs with this status: ok, failed, crashed, "
       "interrupted")
      ("since", po::value(&filter.since), "only runs started at or after this UTC time "
       "(ISO 8601 prefix, e.g. 2026-11-29)")
      ("tag,t", po::value(&tags)->composing(), "only runs tagged KEY=VALUE (repeatable)")
      ("limit,n", po::value(&filter.limit), "at most N runs, newest first (default 20; 0: all)")
      ("format,f", po::value(&format_text), "table, csv or json");
  po::variables_map vm;
  if (!ParseCommandLine("history", args, options, {}, &vm, err)) return false;
  if (vm.count("help")) {
    PrintCommandHelp("history", "[options]",
                     "Lists stored runs, newest first, with time per call, GFLOP/s, DRAM GB/s and "
                     "arithmetic intensity, each from its best source (measured before model).",
                     options);
    return true;
  }
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return false;
  if (!filter.status.empty() && !ParseRunStatus(filter.status))
    return Fail(err, ErrorKind::kUsage,
                "--status " + filter.status + ": use ok, failed, crashed or interrupted");
  if (!ParseKeyValues("--tag", tags, &filter.tags, err)) return false;
  RunStore store;
  if (!store.Open(ResolveDatabasePath(global.db), err)) return false;
  std::vector<RunRecord> runs;
  if (!store.List(filter, &runs, err)) return false;
  std::cout << FormatRunList(runs, format);
  return true;
}

bool ShowCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err) {
  po::options_description options("show options");
  std::string format_text = "table", id_text;
  options.add_options()("help,h", "show this help")("format,f", po::value(&format_text),
                                                     "table, csv or json")(
      "run", po::value(&id_text), "the run id (from rprof history)");
  po::positional_options_description positional;
  positional.add("run", 1);
  po::variables_map vm;
  if (!ParseCommandLine("show", args, options, positional, &vm, err)) return false;
  if (vm.count("help")) {
    PrintCommandHelp("show", "RUN_ID [--format table|csv|json]",
                     "Shows one stored run: outcome, timing statistics, every metric with its "
                     "unit and source, and why any value is absent.",
                     options);
    return true;
  }
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return false;
  char* end = nullptr;
  long long id = std::strtoll(id_text.c_str(), &end, 10);
  if (id_text.empty() || *end != '\0' || id <= 0)
    return Fail(err, ErrorKind::kUsage,
                "show: expected a run id (a positive integer), got '" + id_text + "'");
  RunStore store;
  if (!store.Open(ResolveDatabasePath(global.db), err)) return false;
  RunRecord run;
  if (!store.Load(id, &run, err)) return false;
  RunPlacement placement = PlaceStoredRun(&store, run);
  std::cout << FormatRun(run, format, &placement);
  return true;
}

}  // namespace rprof
