#include "report/output_format.h"

#include <utility>

namespace rprof {

namespace {

// Every format once, in the order help lists them.
constexpr std::pair<OutputFormat, const char*> kFormats[] = {
    {OutputFormat::kTable, "table"},
    {OutputFormat::kCsv, "csv"},
    {OutputFormat::kJson, "json"},
};

}  // namespace

std::optional<OutputFormat> ParseOutputFormat(const std::string& text) {
  for (const auto& [format, name] : kFormats)
    if (text == name) return format;
  return std::nullopt;
}

std::string OutputFormatNames() {
  std::string out;
  constexpr size_t kCount = std::size(kFormats);
  for (size_t i = 0; i < kCount; ++i)
    out += std::string(i == 0 ? "" : i + 1 == kCount ? " or " : ", ") + kFormats[i].second;
  return out;
}

}  // namespace rprof
