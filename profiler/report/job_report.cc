// `rprof job ID`'s report, one parallel job read back from its ranks' runs, as likwid-mpirun
// prints it: a row per rank, the STAT rows over the ranks, the load imbalance, the job on the
// roofline of its nodes together, and its marker regions aggregated the same way. The launcher's
// console shows the same table when the job ends (`rprof mpirun`, or rank 0 under a plain
// mpirun). And `rprof job` alone's list of the newest jobs.
#include "report/job_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/json.h"
#include "functions/hot_lines.h"
#include "report/placement_report.h"
#include "report/run_report.h"
#include "report/table.h"
#include "roofline/job_summary.h"
#include "roofline/stored_run_placement.h"
#include "store/profile_store.h"

namespace rprof {

namespace {

std::optional<double> Preferred(const RunRecord& run, const char* name,
                                const std::string& region = "") {
  const Metric* m = PreferredMetric(run.metrics, name, region);
  return m ? m->value : std::nullopt;
}

void AddStatRows(Table* table, const char* metric, const char* unit,
                 const std::vector<double>& values) {
  RankStats s = SummarizeRanks(values);
  if (s.count == 0) {
    table->AddRow({Cell::Text(metric), Cell::Text(unit), Cell::Int(0)});
    return;
  }
  table->AddRow({Cell::Text(metric), Cell::Text(unit), Cell::Int(s.count), Cell::Number(s.min),
                 Cell::Number(s.p25), Cell::Number(s.median), Cell::Number(s.p75),
                 Cell::Number(s.max), Cell::Number(s.mean), Cell::Number(s.sum)});
}

// A rank's verdict for people, in its row: up to its first "; ". What follows (the bytes'
// caveat, what would count them) is every rank's alike and the job verdict's below the table
// says it once; 2 ranks' full verdicts made the console's table 32 lines. JSON and CSV keep
// it whole.
std::string VerdictHead(const std::string& verdict) {
  return verdict.substr(0, verdict.find("; "));
}

// The scheduler's job of the ranks' runs, when they agree on it; else none.
const JobRank* SchedulerJobOf(const std::vector<const RunRecord*>& ranks) {
  if (ranks.empty()) return nullptr;
  const JobRank& first = *ranks.front()->job;
  for (const RunRecord* run : ranks)
    if (run->job->scheduler_job_id != first.scheduler_job_id ||
        run->job->scheduler_step_id != first.scheduler_step_id)
      return nullptr;
  return first.scheduler_job_id.empty() ? nullptr : &first;
}

}  // namespace

bool FindJobId(RunStore* store, const std::string& given, std::string* out, Error* err) {
  std::vector<std::string> ids;
  Error why;
  // The scheduler's id, whole, first: Slurm job 5 is not every job whose id holds a 5.
  if (!store->db()->ForEachRow(
          "SELECT DISTINCT job_id FROM runs WHERE job_scheduler_job_id = ?1 ORDER BY job_id", &why,
          [&](const Statement& s) { ids.push_back(s.Text(0)); }, given))
    return store->DbFail(why.message, err);
  if (ids.empty() &&
      !store->db()->ForEachRow(
          "SELECT DISTINCT job_id FROM runs WHERE job_id = ?1 OR instr(job_id, ?1) > 0"
          " ORDER BY job_id = ?1 DESC, job_id",
          &why, [&](const Statement& s) { ids.push_back(s.Text(0)); }, given))
    return store->DbFail(why.message, err);
  if (!ids.empty() && ids.front() == given) {
    *out = given;
    return true;
  }
  if (ids.size() == 1) {
    *out = ids.front();
    return true;
  }
  if (ids.empty())
    return Fail(err, ErrorKind::kUsage,
                "job " + given + ": no runs of such a job in " + store->path() +
                    "; `rprof history --format json` shows each run's job, or the ranks are in " +
                    "other databases (`rprof merge` them)");
  std::string list;
  for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
  return Fail(err, ErrorKind::kUsage,
              "job " + given + " names several jobs: " + list + "; give the whole id");
}

int StoredJobRanks(RunStore* store, const std::string& job_id) {
  int count = 0;
  if (!store->db()->ForEachRow(
          "SELECT count(DISTINCT job_rank) FROM runs WHERE job_id = ?", nullptr,
          [&](const Statement& s) { count = static_cast<int>(s.Int(0)); }, job_id))
    return 0;
  return count;
}

bool BuildJobReport(RunStore* store, const std::string& job_id, Report* out, Error* err) {
  Report& report = *out;
  RunFilter filter;
  filter.job_id = job_id;
  filter.limit = 0;
  std::vector<RunRecord> runs;
  if (!store->List(filter, &runs, err)) return false;
  JobCompleteness completeness = CheckCompleteness(runs);

  // The newest run of each rank, in rank order.
  std::map<int, const RunRecord*> by_rank;
  for (const RunRecord& run : runs) {
    auto& slot = by_rank[run.job->rank];
    if (!slot || run.id > slot->id) slot = &run;
  }
  std::vector<const RunRecord*> ranks;
  for (const auto& [rank, run] : by_rank) ranks.push_back(run);

  std::set<std::string> hosts;
  for (const RunRecord* run : ranks) hosts.insert(run->job->host);
  const JobRank* scheduler = SchedulerJobOf(ranks);
  report.AddText(
      "job " + job_id + ": " + std::to_string(ranks.size()) + " of " +
      std::to_string(completeness.size) + " ranks stored, on " + std::to_string(hosts.size()) +
      (hosts.size() == 1 ? " node" : " nodes") + (scheduler ? SchedulerJobText(*scheduler) : "") +
      (completeness.complete() ? ", complete\n" : ", incomplete: " + completeness.reason + "\n"));
  report.AddField("job_id", Cell::Text(job_id));
  report.AddField("scheduler", Cell::TextOrNull(scheduler ? scheduler->scheduler : ""));
  report.AddField("scheduler_job_id",
                  Cell::TextOrNull(scheduler ? scheduler->scheduler_job_id : ""));
  report.AddField("scheduler_step_id",
                  Cell::TextOrNull(scheduler ? scheduler->scheduler_step_id : ""));
  report.AddField("size", Cell::Int(completeness.size));
  report.AddField("ranks_stored", Cell::Int(static_cast<long long>(ranks.size())));
  report.AddField("complete", Cell::Bool(completeness.complete()));
  report.AddField("incomplete_reason", Cell::TextOrNull(completeness.reason));
  if (!completeness.duplicated.empty()) {
    std::string list;
    for (int r : completeness.duplicated) list += (list.empty() ? "" : ", ") + std::to_string(r);
    report.AddText("ranks " + list + " were stored by more than one run: the newest is shown\n");
  }

  Table& table = report.AddTable({{"rank", "rank", Align::kRight},
                                  {"host", "host"},
                                  {"local_rank", "local", Align::kRight},
                                  {"run_id", "run", Align::kRight},
                                  {"status", "status"},
                                  {"time_s", "time s", Align::kRight},
                                  {"gflops", "GFLOP/s", Align::kRight},
                                  {"gbs_dram", "DRAM GB/s", Align::kRight},
                                  Column("verdict", "verdict").Notes()},
                                 kInAll, "ranks");
  std::vector<double> times, gflops, gbs;
  for (const RunRecord* run : ranks) {
    RunPlacement placement = PlaceStoredRun(store, *run);
    std::string verdict = placement.profile_id == 0    ? placement.missing
                          : placement.placement.placed ? placement.placement.verdict
                                                       : placement.placement.reason;
    std::optional<double> t = Preferred(*run, "time_s"), g = Preferred(*run, "gflops"),
                          b = Preferred(*run, "gbs_dram");
    if (t) times.push_back(*t);
    if (g) gflops.push_back(*g);
    if (b) gbs.push_back(*b);
    table.AddRow({Cell::Int(run->job->rank), Cell::Text(run->job->host),
                  run->job->local_rank ? Cell::Int(*run->job->local_rank) : Cell(),
                  Cell::Int(run->id), Cell::Text(RunStatusName(run->status)), Cell::Number(t),
                  Cell::Number(g), Cell::Number(b), Cell::Text(verdict, VerdictHead(verdict))});
  }

  report.AddText("\nover the ranks (STAT):\n");
  Table& stats = report.AddTable({{"metric", "metric"},
                                  {"unit", "unit"},
                                  {"count", "ranks", Align::kRight},
                                  {"min", "min", Align::kRight},
                                  // On a narrow console the quartiles go first.
                                  Column("p25", "25%", Align::kRight).Optional(),
                                  {"median", "median", Align::kRight},
                                  Column("p75", "75%", Align::kRight).Optional(),
                                  {"max", "max", Align::kRight},
                                  {"mean", "mean", Align::kRight},
                                  {"sum", "sum", Align::kRight}},
                                 kInAll, "stats");
  AddStatRows(&stats, "time_s", "s", times);
  AddStatRows(&stats, "gflops", "GFLOP/s", gflops);
  AddStatRows(&stats, "gbs_dram", "GB/s", gbs);

  // Load imbalance as likwid-mpirun and the MPI tools give it: the slowest rank's time over
  // the mean time (1 = balanced).
  JsonWriter imbalance;
  imbalance.BeginObject();
  if (times.size() == ranks.size() && !ranks.empty()) {
    RankStats s = SummarizeRanks(times);
    const RunRecord* slowest = ranks.front();
    for (const RunRecord* run : ranks)
      if (*Preferred(*run, "time_s") > *Preferred(*slowest, "time_s")) slowest = run;
    double ratio = s.mean > 0 ? s.max / s.mean : 0;
    imbalance.Key("max_over_mean").Number(ratio);
    imbalance.Key("slowest_rank").Int(slowest->job->rank);
    imbalance.Key("max_s").Number(s.max).Key("mean_s").Number(s.mean);
    char text[200];
    std::snprintf(text, sizeof text,
                  "load imbalance: max/mean time %.3f (rank %d slowest, %.4g s; mean %.4g s)\n",
                  ratio, slowest->job->rank, s.max, s.mean);
    report.AddText(text);
  } else {
    imbalance.Key("reason").String("not every rank has a time");
    report.AddText("load imbalance: not known (not every rank has a time)\n");
  }
  imbalance.EndObject();
  report.AddField("imbalance", Cell::Json(imbalance.str(), ""));

  // The job on the sum of its nodes' roofs.
  std::map<std::string, std::pair<int64_t, MachineProfile>> profiles;
  for (const RunRecord* run : ranks) {
    if (profiles.count(run->machine.fingerprint)) continue;
    StoredProfile stored;
    bool found = false;
    if (!LoadNewestProfile(store, run->machine.fingerprint, &stored, &found, err)) return false;
    if (found) profiles[run->machine.fingerprint] = {stored.id, stored.profile};
  }
  // Its nodes are said in any case; an incomplete job is not placed.
  JobPlacement job = PlaceJob(ranks, profiles);
  std::string reason = job.reason;
  if (!completeness.complete())
    reason = "the job is incomplete (" + completeness.reason +
             "): its FLOPs and its slowest rank are not known whole";
  JsonWriter placement;
  placement.BeginObject();
  placement.Key("placed").Bool(reason.empty());
  if (reason.empty()) {
    placement.Key("gflops").OptionalNumber(job.placement.achieved);
    placement.Key("peak_gflops").Number(job.placement.peak);
    placement.Key("attainable_gflops").Number(job.placement.attainable);
    placement.Key("percent_of_roof").OptionalNumber(job.placement.percent_of_roof);
    placement.Key("binding").String(job.placement.binding);
    placement.Key("verdict").String(job.placement.verdict);
    report.AddText("job verdict: " + job.placement.verdict + " (its FLOPs over the slowest " +
                   "rank's time, against the sum of its nodes' roofs)\n");
  } else {
    placement.Key("reason").String(reason);
    report.AddText("job verdict: not placed: " + reason + "\n");
  }
  placement.Key("nodes").BeginArray();
  for (const JobNode& node : job.nodes) {
    placement.BeginObject().Key("host").String(node.host);
    placement.Key("fingerprint").String(node.fingerprint);
    placement.Key("ranks").Int(node.ranks);
    placement.Key("profile_id");
    if (node.profile_id)
      placement.Int(node.profile_id);
    else
      placement.Null();
    placement.Key("roof_threads");
    if (node.roof_threads)
      placement.Int(node.roof_threads);
    else
      placement.Null();
    placement.EndObject();
  }
  placement.EndArray().EndObject();
  report.AddField("placement", Cell::Json(placement.str(), ""));

  // Marker regions, aggregated over the ranks as the whole runs are.
  std::set<std::string> region_names;
  for (const RunRecord* run : ranks)
    for (const std::string& r : RegionNames(run->metrics))
      if (!IsHotCodeRegion(r)) region_names.insert(r);  // a rank's hot code is its own
  {
    // Always in the data (an empty list without regions), in the text only when there are some.
    if (!region_names.empty()) report.AddText("\nmarker regions over the ranks:\n");
    Table& regions = report.AddTable({{"region", "region"},
                                      {"ranks", "ranks", Align::kRight},
                                      {"time_min_s", "min s", Align::kRight},
                                      {"time_median_s", "median s", Align::kRight},
                                      {"time_max_s", "max s", Align::kRight},
                                      {"imbalance", "max/mean", Align::kRight},
                                      {"gflops", "job GFLOP/s", Align::kRight}},
                                     region_names.empty() ? kInData : kInAll, "regions");
    for (const std::string& name : region_names) {
      std::vector<double> region_times;
      std::vector<const RunRecord*> with;
      for (const RunRecord* run : ranks) {
        const Metric* t = FindMetric(run->metrics, "time_s", Source::kClock, name);
        if (t && t->value) {
          region_times.push_back(*t->value);
          with.push_back(run);
        }
      }
      RankStats s = SummarizeRanks(region_times);
      // The job's rate in the region: only when every rank ran it (else a part of the job).
      std::optional<double> rate;
      if (with.size() == ranks.size()) {
        std::vector<Metric> summed = SumOverRanks(ranks, name);
        const Metric* g = PreferredMetric(summed, "gflops", name);
        if (g) rate = g->value;
      }
      regions.AddRow(
          {Cell::Text(name), Cell::Int(s.count), s.count ? Cell::Number(s.min) : Cell(),
           s.count ? Cell::Number(s.median) : Cell(), s.count ? Cell::Number(s.max) : Cell(),
           s.count && s.mean > 0 ? Cell::Number(s.max / s.mean) : Cell(), Cell::Number(rate)});
    }
  }
  return true;
}

bool BuildJobList(RunStore* store, Report* out, Error* err) {
  Report& report = *out;
  Table& table = report.AddTable({{"job_id", "job"},
                                  {"scheduler_job_id", "scheduler job"},
                                  {"ranks_stored", "ranks", Align::kRight},
                                  {"size", "size", Align::kRight},
                                  {"started_at", "started"}},
                                 kInAll, "jobs");
  Error why;
  if (!store->db()->ForEachRow(
          "SELECT job_id, max(job_scheduler_job_id) || coalesce('.' || max("
          "job_scheduler_step_id), ''), count(DISTINCT job_rank), max(job_size), "
          "min(started_at) FROM runs WHERE job_id IS NOT NULL GROUP BY job_id "
          "ORDER BY max(id) DESC LIMIT 20",
          &why, [&](const Statement& s) {
            table.AddRow({Cell::Text(s.Text(0)), Cell::TextOrNull(s.Text(1)), Cell::Int(s.Int(2)),
                          Cell::Int(s.Int(3)), Cell::Text(s.Text(4))});
          }))
    return store->DbFail(why.message, err);
  if (table.rows().empty())
    report.AddText("no runs of a parallel job in " + store->path() + "\n");
  else
    report.AddText("the newest jobs; rprof job ID shows one\n");
  return true;
}

}  // namespace rprof
