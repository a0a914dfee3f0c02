// Where a number comes from, and the one order in which reports, placement and plots prefer
// one source's value over another's. The counter sources themselves (what each one counts and
// how) are registered in counters/source_registry.h, in this same order.
#ifndef RPROF_CORE_SOURCE_H_
#define RPROF_CORE_SOURCE_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// Time is always real wall time from the clock; the others count FLOPs, bytes and events.
enum class Source { kClock, kPmu, kSim, kModel };

struct SourceInfo {
  Source source;
  std::string_view name;  // as stored, as --counters takes it and as doctor's check is keyed
  bool measured;          // counted on the target, not from a formula or the clock
  // `rprof calibrate --counters NAME` checks it against the kernels' models and stores the
  // verdicts (calibrations.source): a measured source with a calibration of its own.
  bool calibratable;
};

// Every source once: the clock first, then the counting sources in order of preference. A new
// source is a line here (and its implementation in counters/source_registry.cc); the store's
// `sources` table follows this one at every open (store/closed_list_sync.cc).
inline constexpr std::array<SourceInfo, 4> kSources = {{
    {Source::kClock, "clock", false, false},
    {Source::kPmu, "pmu", true, true},
    {Source::kSim, "sim", true, true},
    {Source::kModel, "model", false, false},
}};

std::string_view SourceName(Source source);
std::optional<Source> ParseSource(std::string_view name);

// The sources that count work (FLOPs, bytes), best first: measured before modelled, the
// hardware before the simulator. The clock is not among them.
const std::vector<Source>& CountingSources();

// Whether values of this source were measured on the target (pmu, sim), not derived from a
// formula (model) or the clock.
bool IsMeasured(Source source);

// Whether `rprof calibrate` can check this source (its row's `calibratable`), and their names,
// "pmu or sim", for messages.
bool IsCalibratable(Source source);
std::string CalibratableSourceChoices();

}  // namespace rprof

#endif  // RPROF_CORE_SOURCE_H_
