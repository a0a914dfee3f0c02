#include "targets/benchmark_target.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "core/derived_metrics.h"
#include "core/stats.h"
#include "core/target_kind.h"
#include "core/text.h"
#include "core/untrusted_file.h"
#include "functions/hot_lines.h"
#include "marker/marker_backend_path.h"
#include "process/scratch_dir.h"
#include "targets/program_target.h"

namespace rprof {

namespace {

// A counter named like FLOPs (FLOPs, flops, FLOP, Flops...), but not a GFLOP/s-like name.
bool NamesFlops(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "flops" || lower == "flop" || lower == "fp_ops";
}

bool IsDerived(const std::string& name) {
  for (const DerivedMetricDef& d : DerivedMetricDefs())
    if (d.name == name) return true;
  return false;
}

}  // namespace

BenchmarkEnvironment::BenchmarkEnvironment(const std::string& shim, const std::string& region,
                                           const std::string& iterations_file) {
  auto set = [&](const char* name, const std::string& value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(name, value.c_str(), 1);
  };
  const char* preload = std::getenv("LD_PRELOAD");
  set("LD_PRELOAD", preload && *preload ? shim + ":" + preload : shim);
  set("RPROF_GBENCH_REGION", region);
  set("RPROF_GBENCH_OUT", iterations_file);
}

BenchmarkEnvironment::~BenchmarkEnvironment() {
  for (const auto& [name, value] : saved_) {
    if (value)
      setenv(name.c_str(), value->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
}

std::string GbenchShimPath() { return CompanionLibraryPath("gbench", "librprof-gbench-shim.so"); }

std::optional<double> ReadShimIterations(const std::string& path) {
  // The benchmark's process wrote it: untrusted, and a few bytes at most.
  std::string text;
  // A file missing or refused means no count from the shim: the caller says so, not the reason.
  if (ReadUntrustedFile(path, 4096, &text, nullptr) != UntrustedRead::kRead) return std::nullopt;
  std::istringstream lines(text);
  std::string key;
  double value = 0;
  std::optional<double> iterations;
  while (lines >> key >> value)
    if (key == "iterations" && value > 0) iterations = value;
  return iterations;
}

BenchmarkTarget::BenchmarkTarget(const BenchmarkBinary& binary, std::string argv0,
                                 std::string instance, std::vector<std::string> benchmark_args,
                                 std::string iterations_file, double timeout_s)
    : instance_(std::move(instance)),
      iterations_file_(std::move(iterations_file)),
      timeout_s_(timeout_s),
      shim_applies_(LinksSharedBenchmarkLibrary(binary.path) && !GbenchShimPath().empty()) {
  Error ignored;
  ScratchPath("gbench-native.json", &json_file_, &ignored);
  ScratchPath("gbench-replay.json", &replay_json_file_, &ignored);
  counted_.kind = CountedTarget::Kind::kProgram;
  counted_.path = binary.path;
  std::vector<std::string> common;
  for (const std::string& a : benchmark_args)
    if (a.rfind("--benchmark_filter=", 0) != 0 && a.rfind("--benchmark_out", 0) != 0)
      common.push_back(a);
  command_ = {argv0};
  command_.insert(command_.end(), benchmark_args.begin(), benchmark_args.end());
  counted_.argv = {argv0, "--benchmark_filter=" + ExactFilter(instance_),
                   "--benchmark_out=" + json_file_, "--benchmark_out_format=json"};
  counted_.argv.insert(counted_.argv.end(), common.begin(), common.end());
  // The replay: one repetition of the fewest iterations; the user's other options kept.
  counted_.replay_argv = {binary.path,
                          "--benchmark_filter=" + ExactFilter(instance_),
                          "--benchmark_out=" + replay_json_file_,
                          "--benchmark_out_format=json",
                          "--benchmark_min_time=" + FewestMinTime(binary),
                          "--benchmark_repetitions=1"};
  for (const std::string& a : common)
    if (a.rfind("--benchmark_min_time", 0) != 0 && a.rfind("--benchmark_repetitions", 0) != 0)
      counted_.replay_argv.push_back(a);
  // The shim's region is the timed loop: a replay counts the hot functions there alone.
  if (shim_applies_) counted_.timed_region = instance_;
  if (!shim_applies_) {
    no_iterations_reason_ =
        LinksSharedBenchmarkLibrary(binary.path)
            ? "rprof's Google Benchmark shim (librprof-gbench-shim.so) is not installed"
            : binary.path +
                  " links Google Benchmark statically: rprof's shim cannot bracket "
                  "its timed loops (it interposes the shared library's "
                  "benchmark::State::StartKeepRunning/FinishKeepRunning)";
    counted_.replay_argv.clear();  // nothing to divide a replay's counts by
  }
}

void BenchmarkTarget::Describe(RunRecord* run) const {
  run->target_kind = TargetKindName(TargetKind::kBenchmark);
  run->target = instance_;
  run->params = BenchmarkParams(instance_);
  // What the user ran; the instance (the target) says which benchmark of it this is.
  run->command = command_;
  if (char* cwd = getcwd(nullptr, 0)) {
    run->cwd = cwd;
    std::free(cwd);
  }
}

bool BenchmarkTarget::Execute(const LiveCounters& counters, Execution* out, Error* err) {
  unlink(iterations_file_.c_str());
  ProgramOptions options;
  options.timeout_s = timeout_s_;
  ProgramTarget program(counted_.path, counted_.argv, options);
  Execution native;
  if (!program.Execute(counters, &native, err)) return false;
  CopyOutcome(native, out);
  native_iterations_ = ReadShimIterations(iterations_file_);
  unlink(iterations_file_.c_str());
  if (shim_applies_ && !native_iterations_ && native.status == RunStatus::kOk)
    no_iterations_reason_ =
        "the shim saw no timed loop (the benchmark skipped it, or its "
        "library did not call benchmark::State::StartKeepRunning through "
        "the shared library)";

  BenchmarkReport report;
  Error why;
  // The benchmark wrote it (--benchmark_out) and may have made it anything: untrusted input.
  std::string text;
  Error refused;
  UntrustedRead read = ReadUntrustedFile(json_file_, kMaxTargetFileBytes, &text, &refused);
  unlink(json_file_.c_str());
  if (read == UntrustedRead::kRefused || text.empty() || !ParseBenchmarkJson(text, &report, &why)) {
    if (out->status == RunStatus::kOk) out->status = RunStatus::kFailed;
    AddNote(&out->note, read == UntrustedRead::kRefused
                            ? "Google Benchmark's JSON refused: the file " + refused.message
                        : text.empty() ? "Google Benchmark wrote no JSON (--benchmark_out)"
                                       : "Google Benchmark's JSON unreadable: " + why.message);
    return true;
  }
  std::vector<const BenchmarkRow*> reps;
  for (const BenchmarkRow& row : report.rows) {
    if (row.run_name != instance_) continue;
    if (row.error_occurred) {
      if (out->status == RunStatus::kOk) out->status = RunStatus::kFailed;
      AddNote(&out->note, "the benchmark reported an error: " + row.error_message);
      continue;
    }
    if (!row.aggregate) {
      reps.push_back(&row);
      continue;
    }
    // The aggregates over repetitions, as Google Benchmark computed them.
    std::string unit = row.aggregate_name == "cv" ? "ratio" : "s";
    std::string note = "Google Benchmark's " + row.aggregate_name + " over " +
                       std::to_string(row.repetitions) + " repetitions, per iteration";
    out->metrics.push_back(
        {"real_time_s_" + row.aggregate_name, row.real_time_s, unit, Source::kClock, "", note});
    out->metrics.push_back(
        {"cpu_time_s_" + row.aggregate_name, row.cpu_time_s, unit, Source::kClock, "", note});
  }
  if (reps.empty()) {
    if (out->status == RunStatus::kOk) out->status = RunStatus::kFailed;
    AddNote(&out->note, "Google Benchmark reported no run of " + instance_);
    return true;
  }
  std::vector<double> cpu;
  for (const BenchmarkRow* r : reps) {
    if (r->real_time_s) out->samples.push_back(*r->real_time_s);
    if (r->cpu_time_s) cpu.push_back(*r->cpu_time_s);
  }
  out->samples_note = "Google Benchmark's real time per iteration, median of " +
                      std::to_string(out->samples.size()) + " repetitions";
  const BenchmarkRow& first = *reps.front();
  threads_ = std::max<int64_t>(1, first.threads);
  // The shim reads the iterations from benchmark::State's layout (gbench_shim.cc): a count
  // below Google Benchmark's own for the final loop alone means another layout, not a count.
  if (native_iterations_ &&
      (*native_iterations_ < static_cast<double>(first.iterations) || *native_iterations_ > 1e15)) {
    char mismatch[240];
    std::snprintf(mismatch, sizeof mismatch,
                  "the shim counted %.0f iterations where Google Benchmark reports %lld: this "
                  "libbenchmark lays out benchmark::State unlike 1.5-1.9, which the shim reads",
                  *native_iterations_, static_cast<long long>(first.iterations));
    no_iterations_reason_ = mismatch;
    native_iterations_.reset();
  }
  out->calls_per_repetition = first.iterations;
  out->timed_calls = first.iterations;
  out->metrics.push_back({"iterations", static_cast<double>(first.iterations), "count",
                          Source::kClock, "", "Google Benchmark's iterations per repetition"});
  if (!cpu.empty())
    out->metrics.push_back({"cpu_time_s", Summarize(cpu).median, "s", Source::kClock, "",
                            "Google Benchmark's CPU time per iteration (median of repetitions)"});
  out->metrics.push_back({"threads", static_cast<double>(first.threads), "count", Source::kClock,
                          "", "Google Benchmark's threads"});
  // The declared work, per iteration: FLOP counters and bytes_per_second are rates over the
  // loop's CPU time (kIsRate, kIsIterationInvariantRate).
  for (const auto& [name, value] : first.counters) {
    if (NamesFlops(name)) {
      out->metrics.push_back(
          {"flops", PerIterationFromRate(first, name), "FLOP", Source::kModel, "",
           "the benchmark's counter " + name + " (a rate, FLOP/s) x its CPU time per iteration"});
    } else if (name == "bytes_per_second") {
      out->metrics.push_back({"bytes_dram", PerIterationFromRate(first, name), "B", Source::kModel,
                              "",
                              "the benchmark's bytes_per_second (SetBytesProcessed) x its CPU "
                              "time per iteration"});
    }
  }
  // The shim's region: what rprof's own counters saw over the timed loops (Conclude divides).
  // And the CPU time of threads that never entered the loop while it ran (a thread pool working
  // for it): work those counts miss (RegionElsewhereNotes).
  for (Metric& m : native.metrics)
    if (m.region == instance_ && (m.source == Source::kPmu || m.name == "cpu_elsewhere_s"))
      out->metrics.push_back(std::move(m));
  // The replay under valgrind: Google Benchmark's start-up, one short trial.
  out->replay_native_s = 0.05 + first.cpu_time_s.value_or(0) * 2;
  return true;
}

void BenchmarkTarget::Conclude(RunRecord* run) const {
  std::optional<double> replay_iterations = ReadShimIterations(iterations_file_);
  unlink(iterations_file_.c_str());
  unlink(replay_json_file_.c_str());
  std::vector<Metric> kept;
  bool sim_replayed = false;
  // Google Benchmark's time per iteration: a hot function's time is its share of it. Its
  // samples are the whole execution's (start-up, the trial loops), so their CPU time per
  // execution (functions/sampled_time.h) is no time per iteration.
  const Metric* per_iteration = FindMetric(run->metrics, "time_s", Source::kClock);
  std::optional<double> iteration_s;
  if (per_iteration) iteration_s = per_iteration->value;
  // The iterations a total is divided by, said with why they are not Google Benchmark's: the
  // shim counts every pass of the timed loop in an execution, the trial loops that sized it
  // and every repetition included, where Google Benchmark reports one repetition's (720 passes
  // against its 609 read as a contradiction).
  const Metric* reported = FindMetric(run->metrics, "iterations", Source::kClock);
  auto iterations_in = [&](double iterations, const char* execution) {
    std::string said = Format("%.0f iterations in the %s", iterations, execution);
    if (reported && reported->value && *reported->value != iterations)
      said += Format(
          ": every pass of its loop, the trial loops that sized it included; Google Benchmark "
          "reports %.0f a repetition",
          *reported->value);
    return said;
  };
  std::map<std::string, double> shares;
  for (const Metric& m : run->metrics)
    if (IsHotCodeRegion(m.region) && m.source == Source::kClock && m.name == "time_share" &&
        m.value)
      shares[m.region] = *m.value;
  for (Metric& m : run->metrics) {
    if (IsDerived(m.name)) continue;  // computed again below, from what is kept
    // Said of the execution's wall time, which is not the benchmark's.
    if (m.region.empty() && m.name == "off_cpu_share") continue;
    if (m.region == instance_) {
      if (!no_iterations_reason_.empty()) continue;  // said in the run's note below
      // The timed loop's totals, per iteration.
      std::optional<double> divisor;
      const char* counted = "";
      if (m.source == Source::kPmu || m.name == "cpu_elsewhere_s") {
        divisor = native_iterations_;
        counted = "native execution";
      } else if (m.source == Source::kSim) {
        divisor = replay_iterations;
        counted = "replay under valgrind";
        sim_replayed = true;
      } else {
        continue;  // the region's clock: Google Benchmark's time is the run's
      }
      if (!divisor) continue;
      // Sim's count of the threads that did the loop's work is a count, not a total.
      if (m.name == "threads") {
        m.region = "";
        kept.push_back(std::move(m));
        continue;
      }
      const std::string note =
          threads_ == 1
              ? "the timed loop only, per iteration (" + iterations_in(*divisor, counted) + ")"
              : Format("the timed loops only, per iteration of all %lld threads (",
                       static_cast<long long>(threads_)) +
                    iterations_in(*divisor, counted) + ")";
      m.note = m.note.empty() ? note : note + "; " + m.note;
      if (m.value) m.value = *m.value / (*divisor / static_cast<double>(threads_));
      m.region = "";
      kept.push_back(std::move(m));
      continue;
    }
    // A hot function's sim counts, and its hot lines', are their share of the replay's timed
    // loop (SimRequest::functions_region): per iteration as the loop's are. Their sampled time
    // (clock) is already a share of the time per iteration.
    if (IsHotCodeRegion(m.region) && m.source == Source::kSim) {
      sim_replayed = true;
      if (!no_iterations_reason_.empty() || !replay_iterations) continue;
      // Amounts of work are per iteration; where the code is (its lines), how many threads ran
      // it and how many hot lines it has are not.
      const bool amount = m.name != "line_first" && m.name != "line_last" && m.name != "threads" &&
                          m.name != "hot_lines";
      if (amount && m.value) {
        m.value = *m.value / (*replay_iterations / static_cast<double>(threads_));
        m.note = "its share of the timed loop, per iteration (" +
                 iterations_in(*replay_iterations, "replay under valgrind") + ")" +
                 (m.note.empty() ? "" : "; " + m.note);
      }
      kept.push_back(std::move(m));
      continue;
    }
    if (IsHotCodeRegion(m.region) && m.source == Source::kClock && m.name == "time_s" && m.value) {
      auto share = shares.find(m.region);
      if (share != shares.end() && iteration_s)
        m.value = share->second * *iteration_s;
      else
        m.value.reset();
      m.note =
          "its share of the samples x Google Benchmark's time per iteration: the share is of "
          "the whole benchmark execution (its start-up and Google Benchmark's trial loops "
          "too); " +
          m.note;
    }
    // The whole process's own counts are start-up and set-up as much as the loop: not kept.
    if (m.region.empty() && (m.source == Source::kPmu || m.source == Source::kSim)) {
      if (m.source == Source::kSim) sim_replayed = true;
      continue;
    }
    if (m.region.empty() && m.source == Source::kClock && m.name == "cpu_time_s" &&
        std::any_of(kept.begin(), kept.end(), [](const Metric& k) {
          return k.name == "cpu_time_s" && k.source == Source::kClock;
        }))
      continue;
    kept.push_back(std::move(m));
  }
  if (!no_iterations_reason_.empty())
    AddNote(&run->note, "timed-loop pmu and sim counts absent: " + no_iterations_reason_);
  else if (sim_replayed && !replay_iterations)
    AddNote(&run->note,
            SourceAbsentNote(Source::kSim, "the replay under valgrind ran no timed loop"));
  run->metrics = std::move(kept);
  AddDerivedMetrics(&run->metrics);
  run->sources.clear();
  for (Source s : {Source::kClock, Source::kPmu, Source::kSim, Source::kModel})
    if (std::any_of(run->metrics.begin(), run->metrics.end(),
                    [&](const Metric& m) { return m.source == s && m.value; }))
      run->sources.push_back(std::string(SourceName(s)));
}

}  // namespace rprof
