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
  CommandLine cl("history", "[options]",
                 "Lists stored runs, newest first, with time per call, GFLOP/s, DRAM GB/s and "
                 "arithmetic intensity, each from its best source (measured before model).");
  RunFilter filter;
  std::vector<std::string> tags;
  cl.Add("kernel,k", po::value(&filter.target), "only runs of this kernel (or executable path)");
  cl.Add("status", po::value(&filter.status),
         "only runs with this status: ok, failed, crashed, interrupted");
  cl.Add("since", po::value(&filter.since),
         "only runs started at or after this UTC time (ISO 8601 prefix, e.g. 2026-11-29)");
  cl.Add("tag,t", po::value(&tags)->composing(), "only runs tagged KEY=VALUE (repeatable)");
  cl.Add("limit,n", po::value(&filter.limit), "at most N runs, newest first (default 20; 0: all)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (!filter.status.empty() && !ParseRunStatus(filter.status))
    return Fail(err, ErrorKind::kUsage,
                "--status " + filter.status + ": use ok, failed, crashed or interrupted");
  if (!ParseKeyValues("--tag", tags, &filter.tags, err)) return false;
  RunStore store;
  if (!store.Open(ResolveDatabasePath(global.db), err)) return false;
  std::vector<RunRecord> runs;
  if (!store.List(filter, &runs, err)) return false;
  std::cout << FormatRunList(runs, cl.format(), cl.text_width());
  return true;
}

bool ShowCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("show", "RUN_ID",
                 "Shows one stored run: outcome, timing statistics, every metric with its unit "
                 "and source, and why any value is absent.");
  std::string id_text;
  cl.AddPositional("run", po::value(&id_text), "the run id (from rprof history)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
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
  std::cout << FormatRun(run, cl.format(), &placement, cl.text_width());
  return true;
}

}  // namespace rprof
