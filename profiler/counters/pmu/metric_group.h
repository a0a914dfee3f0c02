// A metric group: the counter events to program together and the formulas that turn their counts
// into canonical metrics. Groups are data files (groups/<pmu>/<GROUP>.txt, format in
// profiler/counters/groups/README.md); this is their parsed, validated form.
#ifndef RPROF_COUNTERS_PMU_METRIC_GROUP_H_
#define RPROF_COUNTERS_PMU_METRIC_GROUP_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/formula.h"

namespace rprof {

// The group-file format version this build reads (the file's FORMAT line).
inline constexpr int kGroupFormatVersion = 1;

// The PMU name of the fallback set written over PAPI presets.
inline constexpr std::string_view kGenericPmu = "generic";

struct GroupEvent {
  std::string alias;     // short name the formulas use, e.g. "p256"
  std::string event;     // libpfm4 name with its PMU ("icx::L1D:REPLACEMENT") or a PAPI preset
  bool required = true;  // false: missing only makes the metrics that read it absent
  int line = 0;          // where it is declared in the file
};

struct MetricNote {
  enum class Kind {
    kNote,           // "note:" any remark
    kApproximation,  // "approximation:" the value is an estimate, not a count of the quantity
    kUncore,         // "uncore:" counts the whole socket (or CCX), not only the measured process
  };
  Kind kind = Kind::kNote;
  std::string text;
};

// "note", "approximation" or "uncore": the keyword that introduces the note in a file.
std::string_view NoteKindName(MetricNote::Kind kind);

// Whether any of `notes` is of this kind.
bool HasNoteOfKind(const std::vector<MetricNote>& notes, MetricNote::Kind kind);

// One definition of a metric. A group may define the same metric more than once: the definitions
// are alternatives tried in file order, the first whose inputs all have values wins (an exact
// uncore formula first, an approximation from core events after it).
struct GroupMetric {
  std::string name;  // canonical (see canonical_metrics.h)
  std::string unit;  // the canonical unit of name
  Formula formula;   // reads event aliases and time_s only
  std::vector<MetricNote> notes;
  int line = 0;

  bool approximated() const;  // has an approximation note
  bool uncore() const;        // has an uncore note
};

// A canonical metric this group cannot give on its PMU, with the reason (e.g. AMD Zen has no
// SP/DP split of RETIRED_SSE_AVX_FLOPS).
struct AbsentMetric {
  std::string name;
  std::string reason;
  int line = 0;
};

struct MetricGroup {
  std::string name;         // file name without ".txt", e.g. "FLOPS_DP"
  std::string pmu;          // PMU model as libpfm4 names it ("icx"), or "generic"
  std::string description;  // the SHORT line
  std::string details;      // the LONG section, verbatim (may be empty)
  std::string origin;       // file path (or the name given to ParseMetricGroup), for messages
  std::vector<GroupEvent> events;
  std::vector<GroupMetric> metrics;  // file order; alternatives of one name keep their order
  std::vector<AbsentMetric> absent;

  // The event with this alias, or nullptr.
  const GroupEvent* FindEvent(std::string_view alias) const;
  // The distinct metric names this group defines or declares absent, in file order.
  std::vector<std::string> MetricNames() const;
};

// Parses and validates group-file text. name is the group name (the file stem), origin is what
// errors start with (usually the path). On failure returns false and sets *err (environment) to
// "<origin>:<line>: <cause>" (line omitted for whole-file problems); *group is then unspecified.
// Validation: FORMAT, SHORT and PMU present; aliases unique and well formed; event names
// qualified with the group's PMU or one of its uncore PMUs (PAPI presets for "generic"); metric
// names canonical with their canonical unit; formulas parse and read only declared aliases and
// time_s; every event read by some formula; absent metrics canonical and not also defined.
[[nodiscard]] bool ParseMetricGroup(std::string_view text, std::string_view name,
                                    std::string_view origin, MetricGroup* group, Error* err);

// Reads and parses a group file; the group name is the file name without ".txt".
[[nodiscard]] bool LoadMetricGroupFile(const std::string& path, MetricGroup* group, Error* err);

// Whether text is a well-formed group name: upper-case letters, digits and '_'.
bool IsValidGroupName(std::string_view text);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_METRIC_GROUP_H_
