// The counters a marker region reads at its begin and its end, behind one small interface: PAPI
// (marker_counters_papi.cc, falling back on perf_event_open itself in marker_counters_perf.cc
// where PAPI's CPU component is off) when meson finds it, else none (marker_counters_none.cc), so
// the rest of the library has no #ifdef and counts time only without PAPI.
#ifndef RPROF_MARKER_MARKER_COUNTERS_H_
#define RPROF_MARKER_MARKER_COUNTERS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "rprof/marker.h"

namespace rprof::marker {

inline constexpr size_t kMaxEvents = RPROF_MARKER_MAX_EVENTS;

// One event the user asked for, and whether it can be counted in this process.
struct EventStatus {
  std::string name;
  bool ok = false;
  std::string reason;  // why it cannot be counted; empty when ok
};

// The counted events of one thread, running from creation on. Created, read and destroyed in the
// thread it counts; never shared.
class ThreadCounters {
 public:
  virtual ~ThreadCounters() = default;
  // Current totals of the counted events (the ok ones, in order) since creation. Hot path: no
  // allocation. False when the counters cannot be read; `values` is then unspecified.
  virtual bool Read(long long* values) = 0;
  // In a forked child, in the thread that forked: these counters still count the parent's thread
  // (the child shares its perf events), and stopping them would stop the parent's. Lets go of
  // them without stopping anything; the destructor then does nothing.
  virtual void Abandon() = 0;
};

class CounterBackend {
 public:
  virtual ~CounterBackend() = default;
  // Decides, once per process and in the calling thread, which events can be counted: each one
  // is actually added to an event set and started, never looked up in a table. Returns one
  // status per name, in order; at most kMaxEvents are ok. Never fails as a whole: when the
  // backend cannot start, every event is missing with the reason.
  virtual std::vector<EventStatus> Open(const std::vector<std::string>& names) = 0;
  // Starts the ok events in the calling thread. nullptr with *err (kEnvironment) when they
  // cannot run here.
  [[nodiscard]] virtual std::unique_ptr<ThreadCounters> StartThread(Error* err) = 0;
};

// The backend this library was built with.
std::unique_ptr<CounterBackend> CreateCounterBackend();

// perf_event_open itself (marker_counters_perf.cc): what the PAPI backend falls back on where
// PAPI cannot count (`papi_off` says why, for the presets it leaves missing).
std::unique_ptr<CounterBackend> CreatePerfEventBackend(const std::string& papi_off);

}  // namespace rprof::marker

#endif  // RPROF_MARKER_MARKER_COUNTERS_H_
