// Machine profiles as the user reads them: the ceiling table and the ladder of the memory
// hierarchy (level, size, latency, bandwidth) — the table the curriculum asks students to fill
// in for their own computer — or CSV/JSON for scripts.
#ifndef RPROF_REPORT_MACHINE_REPORT_H_
#define RPROF_REPORT_MACHINE_REPORT_H_

#include <string>
#include <vector>

#include "machine/machine_profile.h"
#include "report/output_format.h"
#include "report/terminal_width.h"

namespace rprof {

std::string FormatProfile(const StoredProfile& profile, OutputFormat format,
                          size_t text_width = kNoWidthLimit);
std::string FormatProfileList(const std::vector<StoredProfile>& profiles, OutputFormat format,
                              size_t text_width = kNoWidthLimit);

}  // namespace rprof

#endif  // RPROF_REPORT_MACHINE_REPORT_H_
