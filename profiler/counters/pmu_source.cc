#include "counters/pmu_source.h"

#include <algorithm>

#include "counters/counting_probe.h"
#include "counters/group_session.h"
#include "counters/papi/papi_session.h"
#include "counters/perf/process_counters.h"
#include "counters/pmu_diagnosis.h"

namespace rprof {

namespace {

// The events to count: the user's (or the default set), then every group's not yet named.
std::vector<std::string> EventsToCount(const CounterRequest& request) {
  std::vector<std::string> events = request.events_given ? request.events : DefaultPmuEvents();
  if (request.groups)
    for (const std::string& e : request.groups->events)
      if (std::find(events.begin(), events.end(), e) == events.end()) events.push_back(e);
  return events;
}

// The strict-event rule, in one place: with groups, what may be missing is decided per event
// once the events are open (`opened`, absent ones with their reason): every required group
// event must count, and so must every event the user named unless missing ones are allowed.
bool CheckOpened(const CounterRequest& request, const std::vector<Metric>& opened, Error* err) {
  if (!request.groups) return true;  // the session itself refused what was strict
  if (!CheckRequiredEvents(*request.groups, opened, err)) return false;
  if (!request.events_given || request.allow_missing_events) return true;
  for (const Metric& m : opened)
    if (!m.value &&
        std::find(request.events.begin(), request.events.end(), m.name) != request.events.end())
      return Fail(err, ErrorKind::kEnvironment, "cannot open event " + m.name + ": " + m.note,
                  Remedy::kAllowMissingEvents);
  return true;
}

// Events may be missing (kept absent with their reason) unless the user named them and did not
// allow it; with groups the session keeps every event and CheckOpened decides.
bool MayMiss(const CounterRequest& request) {
  return !request.events_given || request.allow_missing_events || request.groups != nullptr;
}

// Whether the user asked for these counts: the source by name (--counters pmu), events (-e) or
// metric groups (--group). Counters nobody asked for never end a run.
bool AskedFor(const CounterRequest& request, bool chosen) {
  return chosen || request.events_given || request.groups != nullptr;
}

// Group formulas first, then the raw counts: the order reports list them in.
std::vector<Metric> WithGroupMetrics(const CounterRequest& request, std::vector<Metric> raw,
                                     std::optional<double> time_s) {
  std::vector<Metric> out;
  if (request.groups) out = GroupMetrics(*request.groups, raw, time_s);
  for (Metric& m : raw) out.push_back(std::move(m));
  return out;
}

// The session of a pmu source nobody chose (auto, or beside sim): a counter that fails to attach
// to the measuring worker, start or stop does not end the run. From the first failure on it
// counts nothing, and every event is absent with that reason; the kernel still runs and is
// timed. A chosen source's session fails the run instead (the user asked for those counts).
class SessionThatMayFail : public CounterSession {
 public:
  explicit SessionThatMayFail(std::unique_ptr<CounterSession> session)
      : session_(std::move(session)) {}
  Source source() const override { return session_->source(); }
  bool Attach(pid_t pid, Error*) override {
    return Try([&](Error* why) { return session_->Attach(pid, why); });
  }
  bool Start(Error*) override {
    return Try([&](Error* why) { return session_->Start(why); });
  }
  bool Stop(Error*) override {
    return Try([&](Error* why) { return session_->Stop(why); });
  }
  int MinRepetitions() const override { return session_->MinRepetitions(); }
  std::vector<Metric> Results(double calls) const override {
    std::vector<Metric> out = session_->Results(calls);
    if (failure_.empty()) return out;
    for (Metric& m : out) {
      m.value.reset();
      m.coverage.reset();
      m.spread_pct.reset();
      m.note = failure_;
    }
    return out;
  }

 private:
  // Runs `step` while counting; never fails the caller.
  template <typename Step>
  bool Try(Step step) {
    if (!failure_.empty()) return true;
    Error why;
    if (!step(&why)) failure_ = "not counted: " + why.message;
    return true;
  }

  std::unique_ptr<CounterSession> session_;
  std::string failure_;  // "" while counting
};

// A kernel: one session in rprof, attached to the measuring worker and started around each
// repetition (targets/kernel_worker.h).
class PreparedKernelPmu : public PreparedSource {
 public:
  PreparedKernelPmu(const CounterRequest& request, std::unique_ptr<CounterSession> session)
      : request_(request), session_(std::move(session)) {}
  CounterSession* per_repetition() override { return session_.get(); }
  bool Finish(const CountedTarget&, const NativeOutcome& outcome, std::vector<Metric>* metrics,
              std::string* note, Error*) override {
    if (!session_ || outcome.calls <= 0) return true;
    *metrics = WithGroupMetrics(request_, session_->Results(outcome.calls), outcome.time_s);
    if (DiagnosePmu().fake) *note = kFakePmuNote;
    return true;
  }

 private:
  CounterRequest request_;
  std::unique_ptr<CounterSession> session_;
};

// A program: perf counters opened on each execution before its exec, read after its exit.
class PreparedProgramPmu : public PreparedSource, public ProcessCounting {
 public:
  PreparedProgramPmu(const CounterRequest& request, std::vector<std::string> events)
      : request_(request), events_(std::move(events)) {}
  ProcessCounting* per_process() override { return events_.empty() ? nullptr : this; }

  bool Attach(pid_t pid, Error* err) override {
    counters_ = ProcessCounters::Open(pid, events_, MayMiss(request_), err);
    if (!counters_) return false;
    if (!request_.groups) return true;
    // What opened counts as present (its value is not known before the program runs).
    std::vector<Metric> opened = counters_->Read();
    std::vector<std::string> counted = counters_->CountedNames();
    for (Metric& m : opened)
      if (std::find(counted.begin(), counted.end(), m.name) != counted.end()) m.value = 0.0;
    return CheckOpened(request_, opened, err);
  }
  std::vector<std::string> Counted() const override {
    return counters_ ? counters_->CountedNames() : std::vector<std::string>();
  }
  void Collect() override {
    if (counters_) per_execution_.push_back(counters_->Read());
    counters_.reset();
  }

  bool Finish(const CountedTarget&, const NativeOutcome& outcome, std::vector<Metric>* metrics,
              std::string* note, Error*) override {
    if (events_.empty()) return true;
    *metrics = WithGroupMetrics(request_, MeanPerExecution(per_execution_), outcome.time_s);
    if (DiagnosePmu().fake) *note = kFakePmuNote;
    return true;
  }

 private:
  CounterRequest request_;
  std::vector<std::string> events_;
  std::unique_ptr<ProcessCounters> counters_;
  std::vector<std::vector<Metric>> per_execution_;
};

class PmuSource : public CounterSource {
 public:
  Source id() const override { return Source::kPmu; }
  const char* summary() const override {
    return "hardware and software events through PAPI and perf_event_open; metric groups";
  }
  CounterScope scope(CountedTarget::Kind kind) const override {
    return kind == CountedTarget::Kind::kKernel ? CounterScope::kPerRepetition
                                                : CounterScope::kPerProcess;
  }
  // The paths runs take (counting_probe.h): a kernel's worker and a program both count.
  Availability Probe() const override {
    const CountingProbe& probe = ProbeCounting();
    if (probe.ok()) return {};
    return {false,
            probe.kernel ? "programs: " + probe.program_detail : "kernels: " + probe.kernel_detail,
            ""};
  }
  std::unique_ptr<PreparedSource> Prepare(const CountedTarget& target,
                                          const CounterRequest& request, bool chosen,
                                          Error* err) const override {
    std::vector<std::string> events = EventsToCount(request);
    if (target.kind == CountedTarget::Kind::kProgram)
      return std::make_unique<PreparedProgramPmu>(request, std::move(events));
    std::unique_ptr<CounterSession> session;
    if (!events.empty()) {
      session = CreatePmuSession(events, MayMiss(request), err);
      if (!session || !CheckOpened(request, session->Results(1), err)) return nullptr;
      if (!AskedFor(request, chosen))
        session = std::make_unique<SessionThatMayFail>(std::move(session));
    }
    return std::make_unique<PreparedKernelPmu>(request, std::move(session));
  }
};

}  // namespace

const CounterSource& PmuCounterSource() {
  static const PmuSource source;
  return source;
}

}  // namespace rprof
