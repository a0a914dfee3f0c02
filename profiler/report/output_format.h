// --format table|csv|json, shared by every command that prints results. The formats are listed
// once (output_format.cc) for parsing, help and errors; report/render.cc renders each.
#ifndef RPROF_REPORT_OUTPUT_FORMAT_H_
#define RPROF_REPORT_OUTPUT_FORMAT_H_

#include <optional>
#include <string>

namespace rprof {

enum class OutputFormat { kTable, kCsv, kJson };

// "table", "csv", "json"; nullopt for any other name.
std::optional<OutputFormat> ParseOutputFormat(const std::string& text);

// The names in order: "table, csv or json" for prose (--help, the error on an unknown name);
// OutputFormatNames("|", "|") is "table|csv|json" for a usage line.
std::string OutputFormatNames(const char* between = ", ", const char* before_last = " or ");

// Whether people read it (the table): then progress lines on stderr help; a script reading CSV
// or JSON is better served by silence.
bool ForPeople(OutputFormat format);

}  // namespace rprof

#endif  // RPROF_REPORT_OUTPUT_FORMAT_H_
