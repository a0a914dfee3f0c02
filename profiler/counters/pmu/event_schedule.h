// Which events share an event set, and how counts from event sets that take turns become totals.
//
// A PMU has few counters. Events that do not fit together are split into passes: event sets of
// one component (PAPI cannot mix components in one set), one pass of each component counted per
// repetition, in turn. Each event's count is then scaled by the time measured over the time its
// pass counted, and that fraction (its coverage) is kept beside the value. Socket-wide (uncore)
// components get one pass that counts every repetition.
//
// Pure logic: opening event sets is behind EventSetProbe (PAPI in the pmu source, a fake in
// tests), so the schedule is decided by actually adding events, never by an event table.
#ifndef RPROF_COUNTERS_PMU_EVENT_SCHEDULE_H_
#define RPROF_COUNTERS_PMU_EVENT_SCHEDULE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

// What adding one event to an event set did.
struct AddResult {
  enum class Kind {
    kOk,
    kConflict,  // the event exists but this set has no counter left for it
    kError,     // the event cannot be counted here, in any set
  };
  Kind kind = Kind::kOk;
  std::string reason;  // for kConflict and kError: why, worded for the user
};

// Opens event sets and adds events to them.
class EventSetProbe {
 public:
  virtual ~EventSetProbe() = default;
  // A new, empty event set for `component`, as a handle for TryAdd; nullopt with *err
  // (environment) when the component cannot have one (e.g. socket-wide counting without the
  // privilege). The probe owns every set it opens, used by the schedule or not.
  [[nodiscard]] virtual std::optional<int> NewSet(const std::string& component, Error* err) = 0;
  // Adds `event` to `set`. A failed add leaves the set as it was.
  virtual AddResult TryAdd(int set, const std::string& event) = 0;
};

// One requested event.
struct EventToSchedule {
  std::string name;
  std::string component;  // events of different components never share an event set
  // The component counts a whole socket (uncore): it gets a single pass, always counting, and
  // an event that does not fit there is missing rather than rotated.
  bool socket_wide = false;
};

// One event set: counted in every repetition whose turn it is.
struct EventPass {
  int set = -1;                // the probe's handle
  std::vector<size_t> events;  // indices into the requested events, in the set's order
};

struct ComponentSchedule {
  std::string component;
  bool socket_wide = false;
  std::vector<EventPass> passes;  // never empty; exactly one when socket_wide
};

struct MissingEvent {
  size_t event = 0;  // index into the requested events
  std::string reason;
};

struct EventSchedule {
  // The components with at least one counted event, in the order they were first requested.
  std::vector<ComponentSchedule> components;
  std::vector<MissingEvent> missing;  // in request order

  // The repetitions one full rotation takes: the most passes of any component; 1 when every
  // event fits at once or nothing is counted.
  int PassCount() const;
};

// Places each event, in order, in the first pass of its component that has a counter left for
// it; when none has, in a new pass. An event is missing, with the reason, when adding it fails
// with an error, when it does not fit even in a new empty set, when its component cannot open a
// set, when a socket-wide component has no counter left, or when it was already requested.
EventSchedule BuildSchedule(const std::vector<EventToSchedule>& events, EventSetProbe* probe);

// The totals of a schedule's events over the repetitions of a run. Repetition r counts pass
// (r mod P) of each component (P: that component's pass count), all over the same timed span.
class PassAccumulator {
 public:
  explicit PassAccumulator(const EventSchedule& schedule);

  // The pass of components[component] that repetition `repetition` counts.
  size_t PassOf(size_t component, int repetition) const;

  // Adds the next repetition, `seconds` long: counts[c] holds what components[c]'s pass
  // PassOf(c, repetitions()) counted, one value per event of that pass, in its order.
  void AddRepetition(double seconds, const std::vector<std::vector<long long>>& counts);

  int repetitions() const { return repetitions_; }

  struct Total {
    // The estimated count over all repetitions: what the pass counted × (time measured ÷ time
    // the pass counted). nullopt when the pass never ran.
    std::optional<double> value;
    // Time the pass counted ÷ time measured, when less than 1; nullopt when it counted
    // throughout (or never ran).
    std::optional<double> coverage;
    std::string reason;  // why value is absent: the repetitions the schedule needs
  };
  // The total of the `slot`-th event of pass `pass` of components[component].
  Total TotalOf(size_t component, size_t pass, size_t slot) const;

 private:
  struct PassCounts {
    std::vector<long long> sums;  // one per event of the pass
    double seconds = 0;           // time the pass counted
    int repetitions = 0;          // repetitions the pass counted
  };
  std::vector<std::vector<PassCounts>> passes_;  // [component][pass]
  double seconds_ = 0;
  int repetitions_ = 0;
};

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_EVENT_SCHEDULE_H_
