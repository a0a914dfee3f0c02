// rprof history and rprof show: stored runs, read back whole.
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/compare_invocations.h"
#include "cli/options.h"
#include "core/since_time.h"
#include "report/run_report.h"
#include "roofline/stored_run_placement.h"
#include "store/run_store.h"
#include "targets/target_path.h"

namespace rprof {

bool HistoryCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("history", "[options]",
                 "Lists stored runs, newest first, with time per call, GFLOP/s, DRAM GB/s and "
                 "arithmetic intensity, each from its best source (measured before model).");
  RunFilter filter;
  std::vector<std::string> tags;
  std::string target, since;
  cl.Add("kernel,k", po::value(&target),
         "only runs of this kernel or program (a path, or a name on PATH: ./app and its "
         "absolute path find the same runs)");
  cl.Add("status", po::value(&filter.status),
         "only runs with this status: ok, failed, crashed, interrupted");
  cl.Add("since", po::value(&since),
         "only runs started at or after this time: an ISO 8601 date or time (2026-11-29, "
         "2026-11-29T14:00; UTC unless it ends in Z or +02:00), today or yesterday (local "
         "midnight), or a span back from now (30m, 2h, 3d, 1w)");
  cl.Add("tag,t", po::value(&tags)->composing(), "only runs tagged KEY=VALUE (repeatable)");
  cl.Add("job", po::value(&filter.job_id),
         "only the ranks' runs of this MPI job (its whole id; `rprof job ID` shows the job)");
  cl.Add("function", po::value(&filter.function),
         "only runs in which this function was a hot function (its name as `show` prints it)");
  cl.Add("limit,n", po::value(&filter.limit), "at most N runs, newest first (default 20; 0: all)");
  std::string invocation;
  cl.Add("invocation", po::value(&invocation),
         "only the benchmarks of one invocation of a Google Benchmark binary (the uid its "
         "runs are tagged with: --tag invocation=UID), or a unique prefix of it");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (!filter.status.empty() && !ParseRunStatus(filter.status))
    return Fail(err, ErrorKind::kUsage,
                "--status " + filter.status + ": use " + RunStatusChoices());
  if (!ParseKeyValues("--tag", tags, &filter.tags, err)) return false;
  // A negative --limit is a mistake, never "all": said, not guessed (an empty --since is
  // refused with every empty option, options.cc).
  if (filter.limit < 0)
    return Fail(
        err, ErrorKind::kUsage,
        "--limit " + std::to_string(filter.limit) + ": negative; give a number of runs (0: all)");
  if (!since.empty()) {
    Error why;
    if (!ParseSinceTime(since, std::time(nullptr), &filter.since, &why))
      return Fail(err, ErrorKind::kUsage,
                  "--since " + since + ": " + why.message +
                      "; give an ISO date or time (2026-11-29, 2026-11-29T14:00Z), today, "
                      "yesterday, or a span back from now (30m, 2h, 3d, 1w)");
  }
  if (!target.empty()) {
    std::vector<std::string> names = StoredTargetNames(target);
    filter.target = names.front();
    filter.also_targets.assign(names.begin() + 1, names.end());
  }
  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  // A prefix, as `compare --invocation` takes it: resolved to the one uid, or an error, never
  // an empty table for a uid no run is tagged with.
  if (cl.Has("invocation")) {
    std::string uid;
    if (!ResolveInvocation(&store, invocation, &uid, err)) return false;
    filter.tags.push_back({"invocation", uid});
  }
  std::vector<RunRecord> runs;
  // JSON is each run whole (import takes it back); a line a run needs the run's own metrics.
  filter.run_metrics_only = cl.format() != OutputFormat::kJson;
  if (!store.List(filter, &runs, err)) return false;
  std::cout << FormatRunList(runs, cl.format(), cl.text_width());
  return true;
}

bool ShowCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("show", "RUN_ID",
                 "Shows one stored run: outcome, verdict, the figures that decided it, the hot "
                 "functions and regions by time; with -v every metric with its unit and source, "
                 "and why any value is absent.");
  std::string id_text;
  cl.AddPositional("run", po::value(&id_text), "the run id (from rprof history)");
  cl.Add("verbose,v",
         "the full report: every metric of every region and function, every note (by default "
         "the report fits a screen)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  char* end = nullptr;
  long long id = std::strtoll(id_text.c_str(), &end, 10);
  if (id_text.empty() || *end != '\0' || id <= 0)
    return Fail(err, ErrorKind::kUsage,
                "show: expected a run id (a positive integer), got '" + id_text + "'");
  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  RunRecord run;
  if (!store.Load(id, &run, err)) return false;
  RunPlacement placement = PlaceStoredRun(&store, run);
  std::cout << FormatRun(run, cl.format(), &placement, cl.text_width(),
                         cl.Has("verbose") ? RunDetail::kFull : RunDetail::kSummary);
  return true;
}

}  // namespace rprof
