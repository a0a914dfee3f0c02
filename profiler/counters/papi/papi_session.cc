#include "counters/papi/papi_session.h"

#include <papi.h>
#include <perfmon/pfmlib.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>

#include "core/stats.h"
#include "core/text.h"
#include "counters/event_unit.h"
#include "counters/papi/papi_presets.h"
#include "counters/perf/perf_event_session.h"
#include "counters/pmu/event_schedule.h"
#include "counters/pmu/pfm_events.h"
#include "counters/pmu_diagnosis.h"

namespace rprof {

namespace {

bool InitPapi(std::string* err) {
  static std::once_flag once;
  static int status = PAPI_OK;
  std::call_once(once, [] {
    int version = PAPI_library_init(PAPI_VER_CURRENT);
    status = version == PAPI_VER_CURRENT ? PAPI_OK : version;
  });
  if (status != PAPI_OK) *err = std::string("PAPI cannot start: ") + PAPI_strerror(status);
  return status == PAPI_OK;
}

// libpfm4 knows the tables of every PMU model it supports, present or not: an event it finds
// is real but not countable here; one it does not find is most likely a typo.
bool KnownToLibpfm(const std::string& name) {
  return InitPfm(nullptr) && pfm_find_event(name.c_str()) >= 0;
}

bool IsSoftwareEvent(const std::string& name) { return name.rfind("perf::", 0) == 0; }

std::string Explain(const std::string& name, int code) {
  bool known = name.rfind("PAPI_", 0) == 0 || KnownToLibpfm(name) || IsSoftwareEvent(name);
  if (!known)
    return "no such event for PAPI or libpfm4 (" + std::string(PAPI_strerror(code)) +
           "); papi_avail and papi_native_avail list the events";
  const PmuDiagnosis& pmu = DiagnosePmu();
  if (!pmu.hardware_counters && !IsSoftwareEvent(name)) return WhyNoHardwareEvent(pmu);
  return std::string(PAPI_strerror(code)) + " (" + std::to_string(code) + ")";
}

// PAPI's uncore components (perf_event_uncore) count a whole socket, not the calling thread.
bool IsSocketWide(const std::string& component) {
  return component.find("uncore") != std::string::npos;
}

const char kSocketWidePrivilege[] =
    "counting a whole socket needs root, CAP_PERFMON or kernel.perf_event_paranoid <= 0";

// The event with the PAPI component that counts it. A name PAPI cannot resolve goes with the
// CPU component's events (component 0, by PAPI's convention): adding it then fails with PAPI's
// own reason, without opening a set of its own.
EventToSchedule Locate(const std::string& name) {
  int code = 0;
  int cidx =
      PAPI_event_name_to_code(name.c_str(), &code) == PAPI_OK ? PAPI_get_event_component(code) : 0;
  const PAPI_component_info_t* info = PAPI_get_component_info(cidx < 0 ? 0 : cidx);
  std::string component = info ? info->name : "";
  return {name, component, IsSocketWide(component)};
}

// The PAPI event sets of one session, opened while scheduling, destroyed with the session.
class PapiEventSets : public EventSetProbe {
 public:
  ~PapiEventSets() override {
    for (int set : sets_) {
      std::vector<long long> ignored(std::max(1, PAPI_num_events(set)));
      PAPI_stop(set, ignored.data());  // when a run ended between Start and Stop
      PAPI_cleanup_eventset(set);
      PAPI_destroy_eventset(&set);
    }
  }

  std::optional<int> NewSet(const std::string& component, Error* err) override {
    int set = PAPI_NULL;
    int code = PAPI_create_eventset(&set);
    if (code != PAPI_OK) {
      Fail(err, ErrorKind::kEnvironment,
           std::string("PAPI cannot create an event set: ") + PAPI_strerror(code));
      return std::nullopt;
    }
    sets_.push_back(set);
    if (IsSocketWide(component)) {
      if (!CountSocket(set, component, err)) return std::nullopt;
      socket_wide_sets_.push_back(set);
    }
    return set;
  }

  // Moves every per-thread set onto `pid`; socket-wide sets count the socket whoever runs.
  bool AttachAll(pid_t pid, Error* err) {
    for (int set : sets_) {
      if (std::find(socket_wide_sets_.begin(), socket_wide_sets_.end(), set) !=
          socket_wide_sets_.end())
        continue;
      if (PAPI_num_events(set) <= 0) continue;
      // PAPI refuses a second attach (PAPI_EINVAL): a session used for a second worker leaves
      // the first one's process first.
      if (attached_ != 0) PAPI_detach(set);
      int code = PAPI_attach(set, static_cast<unsigned long>(pid));
      if (code != PAPI_OK)
        return Fail(err, ErrorKind::kEnvironment,
                    std::string("PAPI_attach to the measuring worker: ") + PAPI_strerror(code));
    }
    attached_ = pid;
    return true;
  }

  AddResult TryAdd(int set, const std::string& event) override {
    int code = PAPI_add_named_event(set, event.c_str());
    if (code == PAPI_OK) return {};
    // No counter left in this set: the event may still fit in another one.
    bool conflict = code == PAPI_ECNFLCT || code == PAPI_ECOUNT;
    std::string reason = Explain(event, code);
    if (code == PAPI_EPERM && std::find(socket_wide_sets_.begin(), socket_wide_sets_.end(), set) !=
                                  socket_wide_sets_.end())
      reason += "; " + std::string(kSocketWidePrivilege);
    return {conflict ? AddResult::Kind::kConflict : AddResult::Kind::kError, reason};
  }

 private:
  // perf_event_uncore wants the set bound to the component, attached to a CPU of the socket,
  // with system-wide granularity and every privilege domain, all before its first event. The
  // CPU is the one this thread runs on now: its socket is the run's while the thread stays there.
  static bool CountSocket(int set, const std::string& component, Error* err) {
    int cidx = PAPI_get_component_index(component.c_str());
    int cpu = sched_getcpu();
    auto failed = [&](const char* step, int code) {
      if (code == PAPI_OK) return false;
      Fail(err, ErrorKind::kEnvironment,
           "PAPI " + component + ": " + step + ": " + PAPI_strerror(code) +
               (code == PAPI_EPERM ? "; " + std::string(kSocketWidePrivilege) : ""));
      return true;
    };
    if (failed("binding an event set to it", PAPI_assign_eventset_component(set, cidx)))
      return false;
    PAPI_option_t option;
    std::memset(&option, 0, sizeof option);
    option.cpu = {set, static_cast<unsigned>(cpu < 0 ? 0 : cpu)};
    if (failed("attaching to this CPU", PAPI_set_opt(PAPI_CPU_ATTACH, &option))) return false;
    std::memset(&option, 0, sizeof option);
    option.granularity = {cidx, set, PAPI_GRN_SYS};
    if (failed("system-wide granularity", PAPI_set_opt(PAPI_GRANUL, &option))) return false;
    std::memset(&option, 0, sizeof option);
    option.domain = {cidx, set, PAPI_DOM_ALL};
    return !failed("counting every domain", PAPI_set_opt(PAPI_DOMAIN, &option));
  }

  std::vector<int> sets_;
  std::vector<int> socket_wide_sets_;
  pid_t attached_ = 0;  // the process the per-thread sets count, 0: the calling thread
};

// Counts the events of a schedule: each repetition starts, in every component, the pass whose
// turn it is, and the accumulator scales each event by the share of the time its pass counted.
class PapiSession : public CounterSession {
 public:
  bool Init(const std::vector<std::string>& events, bool allow_missing, Error* err) {
    std::string why;
    if (!InitPapi(&why)) return Fail(err, ErrorKind::kEnvironment, why);
    // A preset PAPI does not define here is counted by its generic stand-in, stored under the
    // name asked for with a note naming the event used.
    stand_in_notes_.assign(events.size(), "");
    std::vector<EventToSchedule> located;
    for (size_t i = 0; i < events.size(); ++i) {
      std::string counted = PresetStandIn(events[i], &stand_in_notes_[i]);
      located.push_back(Locate(counted.empty() ? events[i] : counted));
    }
    schedule_ = BuildSchedule(located, &sets_);
    if (!allow_missing && !schedule_.missing.empty()) {
      const MissingEvent& first = schedule_.missing.front();
      const std::string& stand_in = stand_in_notes_[first.event];
      return Fail(err, ErrorKind::kEnvironment,
                  "cannot open event " + events[first.event] +
                      (stand_in.empty() ? "" : " (" + stand_in + ")") + ": " + first.reason,
                  Remedy::kAllowMissingEvents);
    }
    // Every pass takes a repetition of its own: the cap keeps a run's rotation short.
    if (events.size() - schedule_.missing.size() > kMaxEvents)
      return Fail(err, ErrorKind::kUsage,
                  "events: at most " + std::to_string(kMaxEvents) + " at once; count fewer");
    names_ = events;
    slots_.assign(events.size(), std::nullopt);
    per_repetition_.assign(events.size(), {});
    for (size_t c = 0; c < schedule_.components.size(); ++c)
      for (size_t p = 0; p < schedule_.components[c].passes.size(); ++p) {
        const std::vector<size_t>& in_pass = schedule_.components[c].passes[p].events;
        for (size_t slot = 0; slot < in_pass.size(); ++slot) slots_[in_pass[slot]] = {c, p, slot};
      }
    accumulator_ = PassAccumulator(schedule_);
    return true;
  }

  Source source() const override { return Source::kPmu; }

  bool Start(Error* err) override {
    for (size_t c = 0; c < schedule_.components.size(); ++c) {
      int code = PAPI_start(CurrentPass(c).set);
      if (code != PAPI_OK)
        return Fail(err, ErrorKind::kEnvironment,
                    std::string("PAPI_start: ") + PAPI_strerror(code));
    }
    started_ = std::chrono::steady_clock::now();
    return true;
  }

  bool Stop(Error* err) override {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    std::vector<std::vector<long long>> counts;
    for (size_t c = 0; c < schedule_.components.size(); ++c) {
      std::vector<long long> values(CurrentPass(c).events.size());
      int code = PAPI_stop(CurrentPass(c).set, values.data());
      if (code != PAPI_OK)
        return Fail(err, ErrorKind::kEnvironment, std::string("PAPI_stop: ") + PAPI_strerror(code));
      const std::vector<size_t>& counted = CurrentPass(c).events;
      for (size_t slot = 0; slot < counted.size(); ++slot)
        per_repetition_[counted[slot]].push_back(static_cast<double>(values[slot]));
      counts.push_back(std::move(values));
    }
    accumulator_.AddRepetition(seconds, counts);
    return true;
  }

  std::vector<Metric> Results(double calls) const override {
    std::vector<Metric> out;
    for (size_t i = 0; i < names_.size(); ++i)
      if (slots_[i]) {
        out.push_back(Counted(names_[i], *slots_[i], calls));
        // Every repetition makes the same number of calls: the spread of the counts is that
        // of the counts per call.
        if (out.back().value) out.back().spread_pct = SpreadPercent(per_repetition_[i]);
        AddStandInNote(i, &out.back());
      }
    for (const MissingEvent& m : schedule_.missing) {
      out.push_back(
          {names_[m.event], std::nullopt, EventUnit(names_[m.event]), Source::kPmu, "", m.reason});
      AddStandInNote(m.event, &out.back());
    }
    return out;
  }

  int MinRepetitions() const override { return schedule_.PassCount(); }

  bool Attach(pid_t pid, Error* err) override { return sets_.AttachAll(pid, err); }

 private:
  // Where a counted event is: components[component].passes[pass].events[slot].
  struct Slot {
    size_t component;
    size_t pass;
    size_t slot;
  };

  void AddStandInNote(size_t event, Metric* m) const { AddNote(&m->note, stand_in_notes_[event]); }

  const EventPass& CurrentPass(size_t component) const {
    return schedule_.components[component]
        .passes[accumulator_.PassOf(component, accumulator_.repetitions())];
  }

  Metric Counted(const std::string& name, const Slot& at, double calls) const {
    Metric m{name, std::nullopt, EventUnit(name), Source::kPmu, "", ""};
    const ComponentSchedule& component = schedule_.components[at.component];
    if (component.socket_wide) {
      m.socket_wide = true;
      m.note = "socket-wide: uncore counts every core of the socket, not just this run";
    }
    // Before the first repetition nothing was counted and no pass missed its turn: every total
    // is 0, which is how callers see which events opened.
    if (accumulator_.repetitions() == 0) {
      m.value = 0;
      return m;
    }
    PassAccumulator::Total total = accumulator_.TotalOf(at.component, at.pass, at.slot);
    if (!total.value) {
      m.note = total.reason;
      return m;
    }
    m.value = *total.value / calls;
    m.coverage = total.coverage;
    if (total.coverage) {
      char note[96];
      std::snprintf(note, sizeof note,
                    "multiplexed: counted %.0f %% of the time (pass %zu of %zu), scaled",
                    *total.coverage * 100, at.pass + 1, component.passes.size());
      m.note = note;
    }
    return m;
  }

  static constexpr size_t kMaxEvents = 32;
  PapiEventSets sets_;  // declared first: destroyed last, after everything that names its sets
  EventSchedule schedule_;
  PassAccumulator accumulator_{EventSchedule{}};
  std::vector<std::string> names_;
  std::vector<std::string> stand_in_notes_;  // per requested event: "" or the event used
  std::vector<std::optional<Slot>> slots_;   // per requested event; nullopt when missing
  // Per requested event, its count in each repetition its pass counted.
  std::vector<std::vector<double>> per_repetition_;
  std::chrono::steady_clock::time_point started_;
};

// Whether PAPI can count another process here, found by trying: kernels are counted from rprof,
// attached to the measuring worker (targets/kernel_worker.h). PAPI's perf_event component opens
// a hardware instructions event on the process before every attach (its check_permissions), so
// without a hardware PMU its attach fails whatever the event set holds (PAPI_ENOEVNT), even for
// software events the kernel counts fine. Tried once per process, on a set of perf::TASK-CLOCK
// attached to this process itself: the same check, without a child to fork.
bool PapiCanAttach(std::string* why) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    int set = PAPI_NULL;
    int code = PAPI_create_eventset(&set);
    if (code == PAPI_OK) code = PAPI_add_named_event(set, "perf::TASK-CLOCK");
    if (code == PAPI_OK) code = PAPI_attach(set, static_cast<unsigned long>(getpid()));
    if (code == PAPI_OK) PAPI_detach(set);
    if (code != PAPI_OK)
      failure = std::string("PAPI cannot attach to a process here (") + PAPI_strerror(code) + ")";
    if (set != PAPI_NULL) {
      PAPI_cleanup_eventset(set);
      PAPI_destroy_eventset(&set);
    }
  });
  *why = failure;
  return failure.empty();
}

}  // namespace

PmuBackend ChoosePmuBackend() {
  PmuBackend backend;
  std::string why;
  if (!InitPapi(&why)) {
    backend.why_not_papi = why;
    return backend;
  }
  int cidx = PAPI_get_component_index("perf_event");
  const PAPI_component_info_t* cpu = PAPI_get_component_info(cidx < 0 ? 0 : cidx);
  // PAPI turns its whole CPU component off when libpfm4 does not know this CPU: the kernel
  // still counts, through perf_event_open (perf/perf_event_session.h says which events).
  if (cpu == nullptr || cpu->disabled) {
    backend.why_not_papi =
        "PAPI's perf_event component is disabled" +
        (cpu && cpu->disabled_reason[0] ? std::string(" (") + cpu->disabled_reason + ")"
                                        : std::string());
    return backend;
  }
  if (!PapiCanAttach(&backend.why_not_papi)) {
    if (!DiagnosePmu().hardware_counters)
      backend.why_not_papi += ": it opens a hardware event first, and " + DiagnosePmu().cause;
    return backend;
  }
  backend.papi = true;
  return backend;
}

const std::vector<std::string>& DefaultPmuEvents() {
  static const std::vector<std::string> events = {"perf::TASK-CLOCK", "perf::PAGE-FAULTS",
                                                  "perf::CONTEXT-SWITCHES", "PAPI_TOT_INS",
                                                  "PAPI_TOT_CYC"};
  return events;
}

std::unique_ptr<CounterSession> CreatePmuSession(const std::vector<std::string>& events,
                                                 bool allow_missing, Error* err) {
  if (!ChoosePmuBackend().papi) return CreatePerfEventSession(events, allow_missing, err);
  auto session = std::make_unique<PapiSession>();
  if (!session->Init(events, allow_missing, err)) return nullptr;
  return session;
}

}  // namespace rprof
