// Which source line of its function a machine instruction is, the one place that decides it for
// the sampler's lines (function_sampler.cc) and the sim source's (counters/sim/line_counts.cc).
//
// The line table alone gives an instruction's innermost location: for code inlined into the
// function, a line of the inlined function (Eigen's GEMM had its FLOPs on the compiler's
// fmaintrin.h:49, not on the user's line that called it). A user fixes the line of their own
// function, so an instruction inside inlined code is put on the line of the function that
// called it: the DW_AT_call_file / DW_AT_call_line of the outermost DW_TAG_inlined_subroutine
// between the instruction and its function's DW_TAG_subprogram (libdw: dwarf_getscopes finds the
// innermost inlined code, dwarf_getscopes_die the concrete scopes around it), as `addr2line -i`
// lists it last. The innermost location is kept beside it ("inlined from"). Where libdw cannot
// say (no scope information), the line table's line stands.
#ifndef RPROF_FUNCTIONS_SOURCE_LINE_H_
#define RPROF_FUNCTIONS_SOURCE_LINE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/non_copyable.h"

namespace rprof {

// An instruction's line in its function, and where inlined code came from.
struct CodeLine {
  std::string file;  // as libdw joins it to its directory; a relative one to DW_AT_comp_dir
  uint32_t line = 0;
  // The innermost location (the line table's) where it differs: the inlined code's own line.
  std::string inlined_file;
  uint32_t inlined_line = 0;
};

// DWARF's tags for the scopes the rule reads (DW_TAG_*, so that this header needs no libdw).
inline constexpr int kDwarfTagSubprogram = 0x2e;
inline constexpr int kDwarfTagInlinedSubroutine = 0x1d;

// The rule alone: of an instruction's scopes' tags, innermost first (dwarf_getscopes' order),
// the index of the scope whose call site is its line in its function: the outermost
// inlined_subroutine before the first subprogram. nullopt when it is in no inlined code (or no
// subprogram encloses it: then nothing says which function it is the line of).
inline std::optional<size_t> CallerScope(std::span<const int> tags) {
  std::optional<size_t> outermost;
  for (size_t i = 0; i < tags.size(); ++i) {
    if (tags[i] == kDwarfTagSubprogram) return outermost;
    if (tags[i] == kDwarfTagInlinedSubroutine) outermost = i;
  }
  return std::nullopt;
}

// ELF files' lines by link-time address (the addresses FunctionNames takes and callgrind
// prints), from their DWARF or their separate debug files (found as FunctionNames finds them:
// build id, .gnu_debuglink, /usr/lib/debug). Each file is opened once, each address looked up
// once.
class SourceLines : public NonCopyable {
 public:
  SourceLines();
  ~SourceLines();

  // The line in its function of the instruction at `address` in `path`; nullopt without one
  // (WhyNot says why).
  std::optional<CodeLine> Find(const std::string& path, uint64_t address);
  // Why Find finds nothing in `path`: "PATH has no DWARF line information (stripped, or built
  // without -g)", or "" when the file has line information (an address it does not cover).
  std::string WhyNot(const std::string& path);

 private:
  struct File;
  File& Open(const std::string& path);
  std::map<std::string, std::unique_ptr<File>> files_;
};

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_SOURCE_LINE_H_
