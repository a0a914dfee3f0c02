// rprof compare --invocation A --invocation B: two invocations of a Google Benchmark binary,
// benchmark by benchmark (matched by name), as google/benchmark's tools/compare.py compares two
// JSON files: the change in time per iteration and in GFLOP/s, and a Mann-Whitney U test over
// the repetitions' times, significant below alpha 0.05. --fail-if-slower fails only on a
// significant slow-down beyond the percentage.
#ifndef RPROF_CLI_COMPARE_INVOCATIONS_H_
#define RPROF_CLI_COMPARE_INVOCATIONS_H_

#include <optional>
#include <string>

#include "core/error.h"
#include "report/output_format.h"
#include "store/run_store.h"

namespace rprof {

// compare.py's alpha.
inline constexpr double kSignificanceAlpha = 0.05;

// `a`, `b`: invocation uids, or unique prefixes of them. kUsage for one that matches no
// invocation or several; kTargetFailed when fail_if_slower_pct is given and a benchmark is
// significantly slower by more than it.
// The one stored invocation uid `given` names: itself, or a unique prefix of one (as git takes
// a commit's). kUsage, naming how many matched, when none or several do.
bool ResolveInvocation(RunStore* store, const std::string& given, std::string* uid, Error* err);

bool CompareInvocations(RunStore* store, const std::string& a, const std::string& b,
                        std::optional<double> fail_if_slower_pct, OutputFormat format,
                        size_t text_width, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_COMPARE_INVOCATIONS_H_
