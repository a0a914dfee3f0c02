#include "counters/papi/papi_session.h"

#include <papi.h>
#include <perfmon/pfmlib.h>

#include <mutex>

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
  static std::once_flag once;
  static bool ready = false;
  std::call_once(once, [] { ready = pfm_initialize() == PFM_SUCCESS; });
  return ready && pfm_find_event(name.c_str()) >= 0;
}

bool IsSoftwareEvent(const std::string& name) { return name.rfind("perf::", 0) == 0; }

std::string Explain(const std::string& name, int code) {
  bool known = name.rfind("PAPI_", 0) == 0 || KnownToLibpfm(name) || IsSoftwareEvent(name);
  if (!known)
    return "no such event for PAPI or libpfm4 (" + std::string(PAPI_strerror(code)) +
           "); papi_avail and papi_native_avail list the events";
  const PmuDiagnosis& pmu = DiagnosePmu();
  if (!pmu.hardware_counters && !IsSoftwareEvent(name))
    return pmu.cause + "; " + pmu.remedy;
  return std::string(PAPI_strerror(code)) + " (" + std::to_string(code) + ")";
}

std::string UnitOf(const std::string& name) {
  return name.find("TASK-CLOCK") != std::string::npos || name.find("CPU-CLOCK") != std::string::npos
             ? "ns"
             : "count";
}

class PapiSession : public CounterSession {
 public:
  ~PapiSession() override {
    if (event_set_ != PAPI_NULL) {
      long long ignored[kMaxEvents];
      PAPI_stop(event_set_, ignored);
      PAPI_cleanup_eventset(event_set_);
      PAPI_destroy_eventset(&event_set_);
    }
  }

  bool Init(const std::vector<std::string>& events, bool allow_missing, Error* err) {
    std::string why;
    if (!InitPapi(&why)) return Fail(err, ExitStatus::kEnvironment, why);
    int code = PAPI_create_eventset(&event_set_);
    if (code != PAPI_OK)
      return Fail(err, ExitStatus::kEnvironment,
                  std::string("PAPI cannot create an event set: ") + PAPI_strerror(code));
    for (const std::string& name : events) {
      if (counted_.size() == kMaxEvents)
        return Fail(err, ExitStatus::kUsage,
                    "--events: at most " + std::to_string(kMaxEvents) + " events at once");
      code = PAPI_add_named_event(event_set_, name.c_str());
      if (code == PAPI_OK) {
        counted_.push_back(name);
        continue;
      }
      std::string reason = Explain(name, code);
      if (!allow_missing)
        return Fail(err, ExitStatus::kEnvironment,
                    "cannot open event " + name + ": " + reason +
                        " (--allow-missing-events runs without it)");
      missing_.push_back({name, reason});
    }
    totals_.assign(counted_.size(), 0);
    return true;
  }

  Source source() const override { return Source::kPmu; }

  bool Start(std::string* err) override {
    if (counted_.empty()) return true;
    int code = PAPI_start(event_set_);
    if (code != PAPI_OK) *err = std::string("PAPI_start: ") + PAPI_strerror(code);
    return code == PAPI_OK;
  }

  bool Stop(std::string* err) override {
    if (counted_.empty()) return true;
    long long values[kMaxEvents] = {};
    int code = PAPI_stop(event_set_, values);
    if (code != PAPI_OK) {
      *err = std::string("PAPI_stop: ") + PAPI_strerror(code);
      return false;
    }
    for (size_t i = 0; i < counted_.size(); ++i) totals_[i] += values[i];
    return true;
  }

  std::vector<Metric> Results(double calls) const override {
    std::vector<Metric> out;
    for (size_t i = 0; i < counted_.size(); ++i)
      out.push_back({counted_[i], static_cast<double>(totals_[i]) / calls, UnitOf(counted_[i]),
                     Source::kPmu, "", ""});
    for (const auto& [name, reason] : missing_)
      out.push_back({name, std::nullopt, UnitOf(name), Source::kPmu, "", reason});
    return out;
  }

 private:
  static constexpr size_t kMaxEvents = 32;
  int event_set_ = PAPI_NULL;
  std::vector<std::string> counted_;
  std::vector<long long> totals_;
  std::vector<std::pair<std::string, std::string>> missing_;
};

}  // namespace

const std::vector<std::string>& DefaultPmuEvents() {
  static const std::vector<std::string> events = {
      "perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES", "PAPI_TOT_INS",
      "PAPI_TOT_CYC"};
  return events;
}

std::unique_ptr<CounterSession> CreatePapiSession(const std::vector<std::string>& events,
                                                  bool allow_missing, Error* err) {
  auto session = std::make_unique<PapiSession>();
  if (!session->Init(events, allow_missing, err)) return nullptr;
  return session;
}

}  // namespace rprof
