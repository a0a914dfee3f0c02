// The one place that decides what a function of a program is called, for the sim source's
// per-function counts (counters/sim/function_counts.h) and the sampler's per-function time
// (function_sampler.h) alike, so that both meet by name.
//
// A function is named the way perf report and eu-addr2line name it: by the symbol covering the
// address in the object's .symtab, else in its separate debug file's (found as libdw's
// dwfl_standard_find_debuginfo finds it: /usr/lib/debug/.build-id/xx/rest.debug by build id,
// else the .gnu_debuglink file next to the object, in its .debug/, or under
// /usr/lib/debug/<its directory>), else in its .dynsym. Only code no symbol covers anywhere
// falls back to its unwind-table entry (unwind_ranges.h), named "module+0xstart"
// (FunctionDisplayName), which no symbol looks like.
#ifndef RPROF_FUNCTIONS_FUNCTION_NAMES_H_
#define RPROF_FUNCTIONS_FUNCTION_NAMES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/non_copyable.h"
#include "functions/unwind_ranges.h"

namespace rprof {

// Where a function's name came from, most trusted first.
enum class NameSource {
  kSymbolTable,  // the file's own .symtab (else its .dynsym, where it has no .symtab)
  kDebugFile,    // the .symtab of its separate debug file (FunctionName::debug_file)
  kValgrind,     // valgrind's name, where the file gives none (it cannot be read any more)
  kUnwindTable,  // no symbol: the start of the unwind-table entry covering it
  kAddress,      // no symbol, no unwind entry: the address alone, no function's start
};

struct FunctionName {
  std::string name;    // the symbol (C++ demangled, as valgrind names it), else "module+0xstart"
  bool named = false;  // a symbol named it (kSymbolTable, kDebugFile, kValgrind)
  // Where its symbol starts (link-time): what tells one function from another. For code
  // without a symbol, the start of its unwind-table entry, else the address itself.
  uint64_t start = 0;
  NameSource source = NameSource::kAddress;
  std::string debug_file;  // kDebugFile: the file libdw found
};

class FunctionNames : public NonCopyable {
 public:
  FunctionNames();
  ~FunctionNames();

  // The function at link-time address `address` (as valgrind prints it, and as a sample's
  // address is after its mapping's bias is taken off) in the ELF file `path`. `known`: a name
  // the caller already has for it (valgrind's), used only when the file has no symbol for the
  // address or cannot be read (a file since deleted, code without a file): then a real name
  // (IsSymbolName) is kept as it is. Never fails: the fallback is "module+0xstart". Each file
  // is opened once, and each (file, address) looked up once.
  const FunctionName& Name(const std::string& path, uint64_t address, std::string_view known = "");

 private:
  struct File;
  File& Open(const std::string& path);
  // The name `path`'s symbols give the address (its .symtab, its debug file's, its .dynsym);
  // named is false where none covers it, or the file cannot be read. function_names.cc reads
  // them with libdw, function_names_stub.cc (no libdw) never has one.
  FunctionName FromSymbols(const std::string& path, uint64_t address);

  std::map<std::string, std::unique_ptr<File>> files_;
  std::map<std::string, std::unordered_map<uint64_t, FunctionName>> names_;  // by path, address
  UnwindRanges unwind_;
};

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_FUNCTION_NAMES_H_
