// Where a number comes from, and the one order in which reports, placement and plots prefer
// one source's value over another's. The counter sources themselves (what each one counts and
// how) are registered in counters/source_registry.h, in this same order.
#ifndef RPROF_CORE_SOURCE_H_
#define RPROF_CORE_SOURCE_H_

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace rprof {

// Time is always real wall time from the clock; the others count FLOPs, bytes and events.
enum class Source { kClock, kPmu, kSim, kModel };

struct SourceInfo {
  Source source;
  std::string_view name;  // as stored and as --counters takes it
  bool measured;          // counted on the target, not from a formula or the clock
};

// Every source once: the clock first, then the counting sources in order of preference. A new
// source is a line here (and its implementation in counters/source_registry.cc).
inline constexpr std::array<SourceInfo, 4> kSources = {{
    {Source::kClock, "clock", false},
    {Source::kPmu, "pmu", true},
    {Source::kSim, "sim", true},
    {Source::kModel, "model", false},
}};

std::string_view SourceName(Source source);
std::optional<Source> ParseSource(std::string_view name);

// The sources that count work (FLOPs, bytes), best first: measured before modelled, the
// hardware before the simulator. The clock is not among them.
const std::vector<Source>& CountingSources();

// Whether values of this source were measured on the target (pmu, sim), not derived from a
// formula (model) or the clock.
bool IsMeasured(Source source);

}  // namespace rprof

#endif  // RPROF_CORE_SOURCE_H_
