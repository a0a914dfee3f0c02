// --format table|csv|json, shared by every command that prints results.
#ifndef RPROF_REPORT_OUTPUT_FORMAT_H_
#define RPROF_REPORT_OUTPUT_FORMAT_H_

#include <optional>
#include <string>

namespace rprof {

enum class OutputFormat { kTable, kCsv, kJson };

std::optional<OutputFormat> ParseOutputFormat(const std::string& text);

}  // namespace rprof

#endif  // RPROF_REPORT_OUTPUT_FORMAT_H_
