// The one place an output format is chosen: a Report (report/table.h) as an aligned text table
// for people, CSV for spreadsheets or JSON for scripts. A new format is one more case here and
// one more name in report/output_format.cc; no command changes.
#ifndef RPROF_REPORT_RENDER_H_
#define RPROF_REPORT_RENDER_H_

#include <string>

#include "report/output_format.h"
#include "report/table.h"

namespace rprof {

// The whole output, ending in a newline (unless the report is empty).
std::string Render(const Report& report, OutputFormat format);

}  // namespace rprof

#endif  // RPROF_REPORT_RENDER_H_
