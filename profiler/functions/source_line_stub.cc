// Without elfutils (libdw): no file's lines are read here; the sim source keeps valgrind's.
#include "functions/source_line.h"

namespace rprof {

struct SourceLines::File {};

SourceLines::SourceLines() = default;
SourceLines::~SourceLines() = default;

SourceLines::File& SourceLines::Open(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) it = files_.emplace(path, std::make_unique<File>()).first;
  return *it->second;
}

std::optional<CodeLine> SourceLines::Find(const std::string&, uint64_t) { return std::nullopt; }

std::string SourceLines::WhyNot(const std::string&) {
  return "rprof was built without elfutils (libdw-dev): no line information read";
}

}  // namespace rprof
