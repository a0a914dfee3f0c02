// Runs as the user reads them: a table for people, CSV for spreadsheets, JSON for scripts.
// The JSON keys are stable and documented in README ("Output fields"): scripts depend on them.
#ifndef RPROF_REPORT_RUN_REPORT_H_
#define RPROF_REPORT_RUN_REPORT_H_

#include <string>
#include <vector>

#include "core/run.h"
#include "report/output_format.h"
#include "report/terminal_width.h"
#include "roofline/placement.h"

namespace rprof {

// How much of a run the text for people shows (CSV and JSON are always whole: scripts depend
// on their keys).
enum class RunDetail {
  kSummary,  // one screen (report/run_summary.h): rprof run and rprof show without -v
  kFull,     // every metric of every region, every note: -v
};

// One run, every metric with its source (rprof run, rprof show), and its placement when given;
// the text for people fitted to `text_width` columns (report/render.h), whole or, with
// RunDetail::kSummary, on one screen.
std::string FormatRun(const RunRecord& run, OutputFormat format,
                      const RunPlacement* placement = nullptr, size_t text_width = kNoWidthLimit,
                      RunDetail detail = RunDetail::kFull);

// Many runs, one line each with the headline figures (rprof history).
std::string FormatRunList(const std::vector<RunRecord>& runs, OutputFormat format,
                          size_t text_width = kNoWidthLimit);

// ", Slurm job 812 step 0": the batch scheduler's own name for a rank's job, as squeue gives
// it; "" when no scheduler ran it.
std::string SchedulerJobText(const JobRank& job);

// "n=1000 m=3".
std::string ParamsText(const KeyValues& params);

}  // namespace rprof

#endif  // RPROF_REPORT_RUN_REPORT_H_
