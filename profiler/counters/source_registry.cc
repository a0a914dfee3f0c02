#include "counters/source_registry.h"

#include "core/text.h"
#include "counters/model/model_source.h"
#include "counters/pmu_source.h"
#include "counters/sim_source.h"

namespace rprof {

namespace {

bool IsStatic(const CounterSource& s) {
  return s.scope(CountedTarget::Kind::kKernel) == CounterScope::kStatic;
}

bool IsReplayed(const CounterSource& s) {
  return s.scope(CountedTarget::Kind::kKernel) == CounterScope::kReplayed;
}

}  // namespace

const std::vector<const CounterSource*>& CounterSources() {
  static const std::vector<const CounterSource*> sources = {
      &PmuCounterSource(),
      &SimCounterSource(),
      &ModelCounterSource(),
  };
  return sources;
}

const CounterSource* FindCounterSource(Source id) {
  for (const CounterSource* s : CounterSources())
    if (s->id() == id) return s;
  return nullptr;
}

const CounterSource* FindCounterSource(std::string_view name) {
  std::optional<Source> id = ParseSource(name);
  return id ? FindCounterSource(*id) : nullptr;
}

bool ChooseSources(std::string_view counters, std::vector<ChosenSource>* out, Error* err) {
  out->clear();
  if (counters == "auto") {
    for (const CounterSource* s : CounterSources()) out->push_back({s, false});
    return true;
  }
  const CounterSource* named = FindCounterSource(counters);
  if (!named)
    return Fail(
        err, ErrorKind::kUsage,
        "no counter source '" + std::string(counters) + "': use " + JoinChoices(CounterChoices()));
  for (const CounterSource* s : CounterSources()) {
    bool beside = IsStatic(*named) ? IsStatic(*s) : !IsReplayed(*s);
    if (s == named || beside) out->push_back({s, s == named});
  }
  return true;
}

std::vector<std::string> CounterChoices() {
  std::vector<std::string> names = {"auto"};
  for (const CounterSource* s : CounterSources()) names.emplace_back(SourceName(s->id()));
  return names;
}

}  // namespace rprof
