#include "targets/measure.h"

#include <algorithm>
#include <memory>

#include "core/derived_metrics.h"
#include "core/stats.h"
#include "core/text.h"
#include "core/untrusted_file.h"
#include "functions/hot_functions.h"
#include "functions/sampled_time.h"
#include "process/interruption.h"
#include "targets/function_sampling.h"

namespace rprof {

namespace {

struct Prepared {
  const CounterSource* source;
  CounterScope scope;
  std::unique_ptr<PreparedSource> counting;
};

// The order sources are prepared and finished in: each may read the values of those before it
// (a replay's cost estimate reads the model's FLOPs), and reports list metrics in this order.
// The target's own metrics (marker regions, CPU time) come after the live counters, before any
// replay.
int FinishOrder(CounterScope scope) {
  switch (scope) {
    case CounterScope::kStatic:
      return 0;
    case CounterScope::kPerRepetition:
    case CounterScope::kPerProcess:
      return 1;
    case CounterScope::kReplayed:
      return 2;
  }
  return 2;
}

// A signal ended the replay (or came before it): the run is interrupted, with what the native
// execution measured.
void MarkInterrupted(RunRecord* run, const std::string& source) {
  if (run->status == RunStatus::kOk) run->status = RunStatus::kInterrupted;
  AddNote(&run->note, InterruptionNote() + ": " + source + " counts absent");
}

// The hot functions' sampled time where no source counted any function (pmu, model, or sim
// not replayed): the time profile alone, said. With a source's per-function counts it already
// carries the time (sim joins it by name).
void AddTimeProfile(const FunctionSamples& samples, std::optional<double> time_s, int top,
                    RunRecord* run) {
  if (!samples.why_not.empty()) {
    AddNote(&run->note, "hot functions have no time: sampling failed (" + samples.why_not + ")");
    return;
  }
  if (std::any_of(run->metrics.begin(), run->metrics.end(),
                  [](const Metric& m) { return IsFunctionRegion(m.region); }))
    return;
  HotFunctionRule rule;
  rule.top = top;
  if (time_s) AddSampledFunctions(samples, *time_s, rule, &run->metrics);
}

}  // namespace

bool Measure(Target& target, const std::vector<ChosenSource>& sources,
             const CounterRequest& request, RunRecord* run,
             std::vector<SourceFailure>* failed_sources, Error* err) {
  const CountedTarget& counted = target.counted();
  target.Describe(run);

  // Prepared in the order they finish: a static source's error (a broken model formula) then
  // costs no counter set-up.
  std::vector<ChosenSource> ordered = sources;
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const ChosenSource& a, const ChosenSource& b) {
                     return FinishOrder(a.source->scope(counted.kind)) <
                            FinishOrder(b.source->scope(counted.kind));
                   });
  std::vector<Prepared> prepared;
  LiveCounters live;
  for (const ChosenSource& chosen : ordered) {
    Prepared p{chosen.source, chosen.source->scope(counted.kind), nullptr};
    p.counting = chosen.source->Prepare(counted, request, chosen.chosen, err);
    if (!p.counting) return false;
    if (CounterSession* s = p.counting->per_repetition()) live.per_repetition.push_back(s);
    if (ProcessCounting* c = p.counting->per_process()) live.per_process.push_back(c);
    prepared.push_back(std::move(p));
  }

  // A program's hot functions get their time from its native executions, sampled whatever the
  // sources: sim joins its per-function counts to it; without a source that counts per function
  // the sampled time is their whole profile (below).
  std::unique_ptr<FunctionSampling> sampling;
  if (request.functions > 0 && counted.kind == CountedTarget::Kind::kProgram) {
    sampling = std::make_unique<FunctionSampling>();
    live.per_process.push_back(sampling.get());
  }

  if (InterruptingSignal() != 0)
    return Fail(err, ErrorKind::kTargetFailed,
                InterruptionNote() + ": nothing was measured, nothing is stored");
  Execution ex;
  if (!target.Execute(live, &ex, err)) return false;
  CopyOutcome(ex, run);
  run->samples = ex.samples;
  run->calls_per_rep = ex.calls_per_repetition;

  run->sources = {std::string(SourceName(Source::kClock))};
  NativeOutcome outcome;
  outcome.ok = run->status == RunStatus::kOk && !run->samples.empty();
  outcome.calls = static_cast<double>(ex.timed_calls);
  outcome.replay_native_s = ex.replay_native_s;
  if (sampling) outcome.function_samples = &sampling->samples();
  if (!run->samples.empty()) {
    SampleStats stats = Summarize(run->samples);
    outcome.time_s = stats.median;
    run->metrics.push_back({"time_s", stats.median, "s", Source::kClock, "", ex.samples_note});
  }
  // From here on the target has run: whatever a source fails to give is absent with the
  // reason, and the run is still stored.
  auto finish = [&](Prepared& p) {
    std::string source_name(SourceName(p.source->id()));
    // A replay of a target that ran to its end; any other is not replayed (Finish says so).
    bool replays = p.scope == CounterScope::kReplayed && run->status == RunStatus::kOk;
    if (replays) {
      EnterPhase(Phase::kSim);
      if (InterruptingSignal() != 0) {
        MarkInterrupted(run, source_name);
        return;
      }
    }
    outcome.so_far = run->metrics;
    std::vector<Metric> metrics;
    std::string note;
    Error why;
    if (!p.counting->Finish(counted, outcome, &metrics, &note, &why)) {
      if (replays && InterruptingSignal() != 0) {
        MarkInterrupted(run, source_name);
        return;
      }
      // "sim: valgrind not found" reads "sim counts absent: valgrind not found".
      std::string reason = why.message;
      if (reason.rfind(source_name + ": ", 0) == 0) reason.erase(0, source_name.size() + 2);
      AddNote(&run->note, SourceAbsentNote(p.source->id(), reason));
      failed_sources->push_back({p.source->id(), why});
      return;
    }
    AddNote(&run->note, note);
    if (metrics.empty()) return;
    run->sources.push_back(source_name);
    for (Metric& m : metrics) run->metrics.push_back(std::move(m));
  };
  for (Prepared& p : prepared)
    if (FinishOrder(p.scope) < 2) finish(p);
  for (Metric& m : ex.metrics) run->metrics.push_back(std::move(m));
  for (Prepared& p : prepared)
    if (FinishOrder(p.scope) == 2) finish(p);
  if (sampling) AddTimeProfile(sampling->samples(), outcome.time_s, request.functions, run);
  AddDerivedMetrics(&run->metrics);
  // Whatever the target and its files made of the note, what is stored stays bounded.
  CapNote(&run->note);
  return true;
}

}  // namespace rprof
