// FunctionNames::Name, the same with libdw or without: each (file, address) looked up once, in
// the order of trust of NameSource. The symbols come from function_names.cc (libdw) or
// function_names_stub.cc (none).
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "functions/function_names.h"
#include "functions/hot_functions.h"

namespace rprof {

const FunctionName& FunctionNames::Name(const std::string& path, uint64_t address,
                                        std::string_view known) {
  std::unordered_map<uint64_t, FunctionName>& names = names_[path];
  auto cached = names.find(address);
  if (cached != names.end()) return cached->second;
  FunctionName out = FromSymbols(path, address);
  if (!out.named && IsSymbolName(known)) {
    out.name = std::string(known);
    out.named = true;
    out.start = address;
    out.source = NameSource::kValgrind;
  }
  if (!out.named) {
    std::optional<uint64_t> start = unwind_.FunctionStart(path, address);
    out.start = start.value_or(address);
    out.source = start ? NameSource::kUnwindTable : NameSource::kAddress;
    bool named = false;
    out.name = FunctionDisplayName("", path, out.start, &named);
  }
  return names.emplace(address, std::move(out)).first->second;
}

}  // namespace rprof
