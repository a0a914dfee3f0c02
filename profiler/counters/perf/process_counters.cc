#include "counters/perf/process_counters.h"

#include <linux/perf_event.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/text.h"
#include "counters/event_unit.h"
#include "counters/perf/perf_event_encoding.h"

namespace rprof {

std::unique_ptr<ProcessCounters> ProcessCounters::Open(pid_t pid,
                                                       const std::vector<std::string>& events,
                                                       bool allow_missing, Error* err) {
  auto counters = std::unique_ptr<ProcessCounters>(new ProcessCounters());
  for (const std::string& name : events) {
    Event event{name, -1, "", ""};
    perf_event_attr attr;
    Error open_err;
    event.fd =
        OpenPerfEvent(name, pid, PerfTarget::kProcessFromExec, &attr, &event.note, &open_err);
    event.reason = open_err.message;
    if (event.fd < 0 && !allow_missing) {
      Fail(err, ErrorKind::kEnvironment, "cannot open event " + name + ": " + event.reason,
           Remedy::kAllowMissingEvents);
      return nullptr;
    }
    counters->events_.push_back(std::move(event));
  }
  return counters;
}

ProcessCounters::~ProcessCounters() {
  for (const Event& e : events_)
    if (e.fd >= 0) close(e.fd);
}

std::vector<Metric> ProcessCounters::Read() const {
  std::vector<Metric> out;
  for (const Event& e : events_) {
    Metric m{e.name, std::nullopt, EventUnit(e.name), Source::kPmu, "", e.reason};
    uint64_t values[3] = {};  // value, time enabled, time running
    if (e.fd >= 0) {
      if (read(e.fd, values, sizeof values) != static_cast<ssize_t>(sizeof values)) {
        m.note = std::string("read failed: ") + std::strerror(errno);
      } else if (values[2] == 0) {
        m.note = values[1] == 0 ? "never enabled: the program did not start"
                                : "never scheduled on a counter";
      } else if (values[2] < values[1]) {
        double coverage = static_cast<double>(values[2]) / static_cast<double>(values[1]);
        m.value = static_cast<double>(values[0]) / coverage;
        m.coverage = coverage;
        char note[64];
        std::snprintf(note, sizeof note, "multiplexed: counted %.0f %% of the time, scaled",
                      coverage * 100);
        m.note = note;
      } else {
        m.value = static_cast<double>(values[0]);
      }
    }
    AddNote(&m.note, e.note);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> ProcessCounters::CountedNames() const {
  std::vector<std::string> names;
  for (const Event& e : events_)
    if (e.fd >= 0) names.push_back(e.name);
  return names;
}

}  // namespace rprof
