#include "counters/perf/perf_event_session.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/stats.h"
#include "core/text.h"
#include "counters/event_unit.h"
#include "counters/perf/perf_event_encoding.h"

namespace rprof {

namespace {

class PerfEventSession : public CounterSession {
 public:
  ~PerfEventSession() override {
    for (const Event& e : events_)
      if (e.fd >= 0) close(e.fd);
  }

  bool Init(const std::vector<std::string>& names, bool allow_missing, Error* err) {
    if (names.size() > kMaxEvents)
      return Fail(err, ErrorKind::kUsage,
                  "events: at most " + std::to_string(kMaxEvents) + " at once; count fewer");
    for (const std::string& name : names) {
      Event event;
      event.name = name;
      Error open_err;
      event.fd = OpenPerfEvent(name, 0, PerfTarget::kThread, &event.attr, &event.note, &open_err);
      event.reason = open_err.message;
      if (event.fd < 0 && !allow_missing)
        return Fail(err, ErrorKind::kEnvironment, "cannot open event " + name + ": " + event.reason,
                    Remedy::kAllowMissingEvents);
      events_.push_back(std::move(event));
    }
    return true;
  }

  Source source() const override { return Source::kPmu; }

  // Counters count the thread that opened them: for a measuring worker each event that opened
  // here is opened again on the worker (targets/kernel_worker.h), its totals from zero.
  bool Attach(pid_t pid, Error* err) override {
    for (Event& e : events_) {
      if (e.fd < 0) continue;
      long fd = syscall(SYS_perf_event_open, &e.attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
      if (fd < 0)
        return Fail(
            err, ErrorKind::kEnvironment,
            "perf_event " + e.name + " on the measuring worker: " + WhyNotOpened(e.attr, errno));
      close(e.fd);
      e.fd = static_cast<int>(fd);
      std::memset(e.last, 0, sizeof e.last);
    }
    return true;
  }

  bool Start(Error* err) override {
    for (const Event& e : events_)
      if (e.fd >= 0 && ioctl(e.fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        return Fail(err, ErrorKind::kEnvironment,
                    "perf_event enable " + e.name + ": " + std::strerror(errno));
    return true;
  }

  bool Stop(Error* err) override {
    for (const Event& e : events_)
      if (e.fd >= 0) ioctl(e.fd, PERF_EVENT_IOC_DISABLE, 0);
    for (Event& e : events_) {
      if (e.fd < 0) continue;
      uint64_t now[3] = {};  // value, time enabled, time running: totals since opened
      if (read(e.fd, now, sizeof now) != static_cast<ssize_t>(sizeof now))
        return Fail(err, ErrorKind::kEnvironment,
                    "perf_event read " + e.name + ": " + std::strerror(errno));
      e.per_repetition.push_back(static_cast<double>(now[0] - e.last[0]));
      std::memcpy(e.last, now, sizeof now);
    }
    ++repetitions_;
    return true;
  }

  std::vector<Metric> Results(double calls) const override {
    std::vector<Metric> out;
    for (const Event& e : events_) {
      Metric m{e.name, std::nullopt, EventUnit(e.name), Source::kPmu, "", e.reason};
      if (e.fd >= 0) Count(e, calls, &m);
      AddNote(&m.note, e.note);
      out.push_back(std::move(m));
    }
    return out;
  }

 private:
  struct Event {
    std::string name;
    int fd = -1;
    perf_event_attr attr{};  // as opened: Attach opens it again on another process
    std::string reason;      // why it is absent, when fd < 0
    std::string note;        // how it is counted when not as named (a preset's stand-in)
    uint64_t last[3] = {};   // the totals read at the last Stop
    std::vector<double> per_repetition;
  };

  // The totals per call, scaled where the kernel multiplexed the event.
  void Count(const Event& e, double calls, Metric* m) const {
    // Before the first repetition every total is 0, which is how callers see what opened (as
    // for PAPI's session).
    if (repetitions_ == 0) {
      m->value = 0;
      return;
    }
    if (e.last[2] == 0) {
      m->note = "never scheduled on a counter";
      return;
    }
    double value = static_cast<double>(e.last[0]);
    if (e.last[2] < e.last[1]) {
      double coverage = static_cast<double>(e.last[2]) / static_cast<double>(e.last[1]);
      value /= coverage;
      m->coverage = coverage;
      char note[64];
      std::snprintf(note, sizeof note, "multiplexed: counted %.0f %% of the time, scaled",
                    coverage * 100);
      m->note = note;
    }
    m->value = value / calls;
    m->spread_pct = SpreadPercent(e.per_repetition);
  }

  static constexpr size_t kMaxEvents = 32;
  std::vector<Event> events_;
  int repetitions_ = 0;
};

}  // namespace

std::unique_ptr<CounterSession> CreatePerfEventSession(const std::vector<std::string>& events,
                                                       bool allow_missing, Error* err) {
  auto session = std::make_unique<PerfEventSession>();
  if (!session->Init(events, allow_missing, err)) return nullptr;
  return session;
}

}  // namespace rprof
