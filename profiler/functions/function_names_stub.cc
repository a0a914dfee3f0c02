// Without elfutils (libdw): no symbol table or debug file is read here, so a function is named
// by valgrind's symbol where it has one, else by its module and address (function_names.h).
#include "functions/function_names.h"
#include "functions/hot_functions.h"

namespace rprof {

struct FunctionNames::File {
  std::map<uint64_t, FunctionName> names;
};

FunctionNames::FunctionNames() = default;
FunctionNames::~FunctionNames() = default;

FunctionNames::File& FunctionNames::Open(const std::string& path) {
  auto& file = files_[path];
  if (!file) file = std::make_unique<File>();
  return *file;
}

const FunctionName& FunctionNames::Name(const std::string& path, uint64_t address,
                                        std::string_view known) {
  File& file = Open(path);
  auto cached = file.names.find(address);
  if (cached != file.names.end()) return cached->second;
  FunctionName out;
  out.start = address;
  if (IsSymbolName(known)) {
    out.name = std::string(known);
    out.named = true;
    out.source = NameSource::kValgrind;
  } else {
    out.name = FunctionDisplayName("", path, address, &out.named);
  }
  return file.names.emplace(address, std::move(out)).first->second;
}

}  // namespace rprof
