#include "counters/event_names.h"

#include <strings.h>

#include "core/spelling.h"
#include "counters/papi/papi_presets.h"
#include "counters/pmu/pfm_events.h"

namespace rprof {

const std::vector<PerfEventName>& PerfEventNames() {
  // Cycles and instructions are the PAPI presets rprof counts by default, so `-e cycles` and a
  // default run store the same metric. The rest are perf's generic events under libpfm4's
  // names for them: what `perf stat` counts, exactly.
  static const std::vector<PerfEventName> names = {
      {"cycles", "PAPI_TOT_CYC"},
      {"cpu-cycles", "PAPI_TOT_CYC"},
      {"instructions", "PAPI_TOT_INS"},
      {"branches", "perf::BRANCHES"},
      {"branch-instructions", "perf::BRANCH-INSTRUCTIONS"},
      {"branch-misses", "perf::BRANCH-MISSES"},
      {"cache-references", "perf::CACHE-REFERENCES"},
      {"cache-misses", "perf::CACHE-MISSES"},
      {"bus-cycles", "perf::BUS-CYCLES"},
      {"ref-cycles", "perf::REF-CYCLES"},
      {"stalled-cycles-frontend", "perf::STALLED-CYCLES-FRONTEND"},
      {"stalled-cycles-backend", "perf::STALLED-CYCLES-BACKEND"},
      {"L1-dcache-loads", "perf::L1-DCACHE-LOADS"},
      {"L1-dcache-load-misses", "perf::L1-DCACHE-LOAD-MISSES"},
      {"L1-dcache-stores", "perf::L1-DCACHE-STORES"},
      {"L1-icache-load-misses", "perf::L1-ICACHE-LOAD-MISSES"},
      {"LLC-loads", "perf::LLC-LOADS"},
      {"LLC-load-misses", "perf::LLC-LOAD-MISSES"},
      {"LLC-stores", "perf::LLC-STORES"},
      {"LLC-store-misses", "perf::LLC-STORE-MISSES"},
      {"dTLB-loads", "perf::DTLB-LOADS"},
      {"dTLB-load-misses", "perf::DTLB-LOAD-MISSES"},
      {"iTLB-loads", "perf::ITLB-LOADS"},
      {"iTLB-load-misses", "perf::ITLB-LOAD-MISSES"},
      {"task-clock", "perf::TASK-CLOCK"},
      {"cpu-clock", "perf::CPU-CLOCK"},
      {"page-faults", "perf::PAGE-FAULTS"},
      {"faults", "perf::PAGE-FAULTS"},
      {"minor-faults", "perf::MINOR-FAULTS"},
      {"major-faults", "perf::MAJOR-FAULTS"},
      {"context-switches", "perf::CONTEXT-SWITCHES"},
      {"cs", "perf::CONTEXT-SWITCHES"},
      {"cpu-migrations", "perf::CPU-MIGRATIONS"},
      {"migrations", "perf::CPU-MIGRATIONS"},
  };
  return names;
}

std::string EventForName(const std::string& name) {
  for (const PerfEventName& n : PerfEventNames())
    if (strcasecmp(n.perf, name.c_str()) == 0) return n.event;
  return name;
}

bool CheckEventName(const std::string& name, Error* err) {
  if (name.find(":::") != std::string::npos) return true;
  Error why;
  // Every PAPI preset, defined on this CPU or not: one missing from the list is no preset.
  std::vector<PapiPreset> presets;
  // Without PAPI or libpfm4 nothing can be checked: every name passes, so no reason is kept.
  if (!ListPapiPresets(&presets, nullptr) || !InitPfm(&why)) return true;
  std::vector<std::string> known;
  for (const PapiPreset& p : presets) {
    if (p.name == name) return true;
    known.push_back(p.name);
  }
  const std::string listed = " (`rprof events` lists the events, --all every native one)";
  if (name.rfind("PAPI_", 0) == 0)
    return Fail(err, ErrorKind::kUsage,
                name + ": PAPI has no such preset" + DidYouMean(name, known) + listed);
  if (name.find("::") != std::string::npos) {
    if (EventExistsInTable(name, &why)) return true;
    return Fail(err, ErrorKind::kUsage, name + ": " + why.message + listed);
  }
  if (LibpfmFindsEvent(name)) return true;
  for (const PerfEventName& n : PerfEventNames()) known.push_back(n.perf);
  return Fail(err, ErrorKind::kUsage,
              name +
                  ": neither a PAPI preset, nor perf's name of an event, nor an event libpfm4 "
                  "finds on this CPU's PMUs" +
                  DidYouMean(name, known) + listed);
}

}  // namespace rprof
