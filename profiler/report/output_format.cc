#include "report/output_format.h"

#include <iterator>

namespace rprof {

namespace {

struct FormatInfo {
  OutputFormat format;
  const char* name;
  bool for_people;
};

// Every format once, in the order help lists them.
constexpr FormatInfo kFormats[] = {
    {OutputFormat::kTable, "table", true},
    {OutputFormat::kCsv, "csv", false},
    {OutputFormat::kJson, "json", false},
};

}  // namespace

std::optional<OutputFormat> ParseOutputFormat(const std::string& text) {
  for (const FormatInfo& f : kFormats)
    if (text == f.name) return f.format;
  return std::nullopt;
}

std::string OutputFormatNames(const char* between, const char* before_last) {
  std::string out;
  constexpr size_t kCount = std::size(kFormats);
  for (size_t i = 0; i < kCount; ++i)
    out += std::string(i == 0 ? "" : i + 1 == kCount ? before_last : between) + kFormats[i].name;
  return out;
}

bool ForPeople(OutputFormat format) {
  for (const FormatInfo& f : kFormats)
    if (f.format == format) return f.for_people;
  return false;
}

}  // namespace rprof
