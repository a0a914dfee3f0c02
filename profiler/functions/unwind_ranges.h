// Where a function starts in an object file that has no symbol for it (a stripped binary, and
// no debug file: function_names.h asks here last): the start of the unwind-table entry
// (.eh_frame's FDE) that covers an address. Compilers emit one FDE per function (and one per
// part GCC splits off, "f.cold"), and strip keeps .eh_frame, so this separates the functions of
// a stripped binary where no symbol table can. The FDE's start, not the start of the row of the
// unwind table the address is in (libdw's dwarf_frame_info): rows change at every push and pop,
// and took one function for five (issue 37).
#ifndef RPROF_FUNCTIONS_UNWIND_RANGES_H_
#define RPROF_FUNCTIONS_UNWIND_RANGES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/non_copyable.h"

namespace rprof {

class UnwindRanges : public NonCopyable {
 public:
  UnwindRanges();
  ~UnwindRanges();

  // The link-time start address of the FDE covering `address` (link-time, as valgrind prints
  // it) in the ELF file `path`; nullopt when the file cannot be read, has no .eh_frame or no
  // .eh_frame_hdr search table (which lists every FDE's start), or no entry covers the address.
  // Files are opened once and kept.
  std::optional<uint64_t> FunctionStart(const std::string& path, uint64_t address);

 private:
  struct File;
  std::map<std::string, std::unique_ptr<File>> files_;
};

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_UNWIND_RANGES_H_
