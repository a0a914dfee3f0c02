// A run's report on one screen (issue 38), as perf stat's fits one: the heading, the verdict,
// the figures that decided it, the hottest functions (a shared library's folded into one line,
// as `perf report --sort dso` folds them), the marker regions by time, and only the trust notes
// that change the verdict. The full report (report/run_report.h, RunDetail::kFull) is one flag
// away: `rprof show RUN -v`; the summary's last line says so and what it left out.
#ifndef RPROF_REPORT_RUN_SUMMARY_H_
#define RPROF_REPORT_RUN_SUMMARY_H_

#include <string>
#include <string_view>

#include "core/run.h"
#include "report/table.h"
#include "roofline/placement.h"

namespace rprof {

// The hot functions and the marker regions the summary lists, at most this many each.
inline constexpr size_t kSummaryTopRows = 5;

// Adds the summary's parts after the heading to `report` (text only: CSV and JSON are
// FormatRun's whole). `placement`: as FormatRun takes it; nullptr, the stored verdict.
void AddRunSummary(const RunRecord& run, const RunPlacement* placement, Report* report);

// The shared library a hot function's code is in ("libc.so.6"), from the note sim stored with
// its instructions ("function malloc in /lib/x86_64-linux-gnu/libc.so.6 (its symbol)") or its
// name ("libm.so.6+0x1a2b"); "" for the program's own code, or where nothing says.
std::string SharedLibraryOf(std::string_view function, std::string_view instructions_note,
                            std::string_view program);

}  // namespace rprof

#endif  // RPROF_REPORT_RUN_SUMMARY_H_
