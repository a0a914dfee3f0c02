#include "counters/pmu/event_schedule.h"

#include <algorithm>
#include <set>

namespace rprof {

namespace {

// A component while its events are being placed.
struct ComponentState {
  ComponentSchedule schedule;
  // A set opened for a new pass whose first event then failed: the next new pass reuses it
  // rather than opening yet another.
  std::optional<int> spare;
  std::string unavailable;  // why the component cannot open a set; "" while it can
};

// Adds events[index] to the first pass of `state` with a counter left for it, else to a new pass.
// "" when it is counted, else why not.
std::string Place(size_t index, const EventToSchedule& event, ComponentState* state,
                  EventSetProbe* probe) {
  if (!state->unavailable.empty()) return state->unavailable;
  for (EventPass& pass : state->schedule.passes) {
    AddResult added = probe->TryAdd(pass.set, event.name);
    if (added.kind == AddResult::Kind::kOk) {
      pass.events.push_back(index);
      return "";
    }
    // An error is the event's own, not this set's: another set would fail the same way.
    if (added.kind == AddResult::Kind::kError) return added.reason;
  }
  // A socket-wide set counts every repetition; rotating it would leave parts of the run with
  // no socket-wide counts at all.
  if (event.socket_wide && !state->schedule.passes.empty())
    return "no " + event.component +
           " counter left: the socket-wide events requested before it take them all; request "
           "fewer of them";
  if (!state->spare) {
    Error why;
    state->spare = probe->NewSet(event.component, &why);
    if (!state->spare) {
      state->unavailable = why.message;
      return why.message;
    }
  }
  AddResult added = probe->TryAdd(*state->spare, event.name);
  switch (added.kind) {
    case AddResult::Kind::kOk:
      state->schedule.passes.push_back({*state->spare, {index}});
      state->spare.reset();
      return "";
    case AddResult::Kind::kConflict:
      return "cannot be counted even alone in an empty event set: " + added.reason;
    case AddResult::Kind::kError:
      break;
  }
  return added.reason;
}

std::string Repetitions(int n) {
  return std::to_string(n) + (n == 1 ? " repetition" : " repetitions");
}

}  // namespace

int EventSchedule::PassCount() const {
  size_t most = 1;
  for (const ComponentSchedule& c : components) most = std::max(most, c.passes.size());
  return static_cast<int>(most);
}

EventSchedule BuildSchedule(const std::vector<EventToSchedule>& events, EventSetProbe* probe) {
  EventSchedule schedule;
  std::vector<ComponentState> states;
  std::set<std::string> requested;
  for (size_t i = 0; i < events.size(); ++i) {
    const EventToSchedule& event = events[i];
    // The same event twice would take a second counter (or a second pass) for the same count.
    if (!requested.insert(event.name).second) {
      schedule.missing.push_back({i, "listed more than once: only its first listing is counted"});
      continue;
    }
    auto state = std::find_if(states.begin(), states.end(), [&](const ComponentState& s) {
      return s.schedule.component == event.component;
    });
    if (state == states.end()) {
      states.push_back({{event.component, event.socket_wide, {}}, std::nullopt, ""});
      state = states.end() - 1;
    }
    std::string why = Place(i, event, &*state, probe);
    if (!why.empty()) schedule.missing.push_back({i, why});
  }
  for (ComponentState& state : states)
    if (!state.schedule.passes.empty()) schedule.components.push_back(std::move(state.schedule));
  return schedule;
}

PassAccumulator::PassAccumulator(const EventSchedule& schedule) {
  for (const ComponentSchedule& component : schedule.components) {
    std::vector<PassCounts> passes;
    for (const EventPass& pass : component.passes)
      passes.push_back({std::vector<long long>(pass.events.size(), 0), 0, 0});
    passes_.push_back(std::move(passes));
  }
}

size_t PassAccumulator::PassOf(size_t component, int repetition) const {
  return static_cast<size_t>(repetition) % passes_[component].size();
}

void PassAccumulator::AddRepetition(double seconds,
                                    const std::vector<std::vector<long long>>& counts) {
  for (size_t c = 0; c < passes_.size(); ++c) {
    PassCounts& pass = passes_[c][PassOf(c, repetitions_)];
    for (size_t i = 0; i < pass.sums.size(); ++i) pass.sums[i] += counts[c][i];
    pass.seconds += seconds;
    ++pass.repetitions;
  }
  seconds_ += seconds;
  ++repetitions_;
}

PassAccumulator::Total PassAccumulator::TotalOf(size_t component, size_t pass, size_t slot) const {
  const PassCounts& counted = passes_[component][pass];
  Total total;
  if (counted.repetitions == 0) {
    int needed = static_cast<int>(pass) + 1;
    total.reason = "counted in pass " + std::to_string(needed) + " of " +
                   std::to_string(passes_[component].size()) + ", but only " +
                   Repetitions(repetitions_) + " ran: use -r " + std::to_string(needed) +
                   " or more";
    return total;
  }
  // Repetitions too short for the clock to see still say how the turns were shared.
  double coverage = seconds_ > 0 ? counted.seconds / seconds_
                                 : static_cast<double>(counted.repetitions) / repetitions_;
  total.value = static_cast<double>(counted.sums[slot]) / coverage;
  if (coverage < 1) total.coverage = coverage;
  return total;
}

}  // namespace rprof
