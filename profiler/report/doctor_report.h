// What `rprof doctor` prints: each check of this machine (pipeline/doctor_checks.h finds them)
// with its status and remedy, then the verdict on rprof's basic job, as text, CSV or JSON.
#ifndef RPROF_REPORT_DOCTOR_REPORT_H_
#define RPROF_REPORT_DOCTOR_REPORT_H_

#include <string>
#include <vector>

#include "report/table.h"

namespace rprof {

// How far a check lets rprof go: all the way, part of the way, or not at all.
enum class CheckStatus { kOk, kLimited, kMissing };

// "ok", "limited" or "missing": the status column of text, CSV and JSON.
const char* CheckStatusName(CheckStatus status);

// One thing doctor looked at or tried.
struct DoctorCheck {
  std::string name;  // stable key: a source's name (SourceName), "gnuplot", …
  CheckStatus status = CheckStatus::kOk;
  std::string detail;
  std::string remedy;  // "" when there is nothing to do
};

// For people, a check a row with its fix ("fix: …") on the row beneath, then `verdict` as a
// sentence; for scripts, the table "checks" (name, status, detail, remedy: null when there is
// none) and the fields basic_job and verdict beside it. `verdict` has no final period.
Report ChecksReport(const std::vector<DoctorCheck>& checks, bool basic, const std::string& verdict);

}  // namespace rprof

#endif  // RPROF_REPORT_DOCTOR_REPORT_H_
