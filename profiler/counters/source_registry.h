// The registry of counter sources: the one list that --counters, `rprof doctor`, calibration
// and the measuring driver read. A new source is its folder plus one line in
// source_registry.cc (and its name in core/source.h).
#ifndef RPROF_COUNTERS_SOURCE_REGISTRY_H_
#define RPROF_COUNTERS_SOURCE_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "counters/counter_source.h"

namespace rprof {

// Every counter source, in the order of CountingSources() (core/source.h).
const std::vector<const CounterSource*>& CounterSources();

// The source with this id or name, or nullptr.
const CounterSource* FindCounterSource(Source id);
const CounterSource* FindCounterSource(std::string_view name);

// A source to run for one measurement, and whether the user chose it by name (it must then
// count, or the run fails saying why).
struct ChosenSource {
  const CounterSource* source = nullptr;
  bool chosen = false;
};

// The sources a --counters value runs:
//   "auto"    every source, each where it can count and fits;
//   a source  that one, chosen; beside it the sources that cost no extra execution (static and
//             live ones), never another replayed one;
//   a static source (model) alone: no counters at all.
// kUsage for a value that is neither (the message lists the choices).
bool ChooseSources(std::string_view counters, std::vector<ChosenSource>* out, Error* err);

// "auto" and every source's name, for help and errors.
std::vector<std::string> CounterChoices();

}  // namespace rprof

#endif  // RPROF_COUNTERS_SOURCE_REGISTRY_H_
