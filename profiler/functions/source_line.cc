#include "functions/source_line.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>
#include <unordered_map>
#include <vector>

#include "functions/debug_info_search.h"

namespace rprof {
namespace {

static_assert(kDwarfTagSubprogram == DW_TAG_subprogram);
static_assert(kDwarfTagInlinedSubroutine == DW_TAG_inlined_subroutine);

// `file` as a path from the root: a relative one (gcc names a file as the compiler was given
// it, "../src/a.c") joined to the unit's compilation directory, as valgrind joins it.
std::string FromRoot(Dwarf_Die* cu, const char* file) {
  if (file[0] == '/') return file;
  Dwarf_Attribute attribute;
  const char* directory = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attribute));
  if (directory == nullptr || directory[0] != '/') return file;
  return std::string(directory) + "/" + file;
}

// The call site of inlined-subroutine scope `scope` of compile unit `cu`: its file (from the
// unit's file table) and line.
bool CallSite(Dwarf_Die* cu, Dwarf_Die* scope, std::string* file, uint32_t* line) {
  Dwarf_Attribute attribute;
  Dwarf_Word file_index = 0, line_number = 0;
  if (dwarf_attr(scope, DW_AT_call_file, &attribute) == nullptr ||
      dwarf_formudata(&attribute, &file_index) != 0 ||
      dwarf_attr(scope, DW_AT_call_line, &attribute) == nullptr ||
      dwarf_formudata(&attribute, &line_number) != 0 || line_number == 0)
    return false;
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_getsrcfiles(cu, &files, &count) != 0 || file_index >= count) return false;
  const char* name = dwarf_filesrc(files, file_index, nullptr, nullptr);
  if (name == nullptr) return false;
  *file = FromRoot(cu, name);
  *line = static_cast<uint32_t>(line_number);
  return true;
}

}  // namespace

struct SourceLines::File {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  std::string why_not;
  std::unordered_map<uint64_t, std::optional<CodeLine>> lines;

  ~File() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }

  std::optional<CodeLine> Find(uint64_t address) {
    if (module == nullptr) return std::nullopt;
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = dwfl_module_addrdie(module, address, &bias);
    if (cu == nullptr) return std::nullopt;
    const Dwarf_Addr pc = address - bias;
    Dwarf_Line* entry = dwarf_getsrc_die(cu, pc);
    int number = 0;
    const char* name = entry != nullptr ? dwarf_linesrc(entry, nullptr, nullptr) : nullptr;
    if (name == nullptr || dwarf_lineno(entry, &number) != 0 || number <= 0) return std::nullopt;
    CodeLine out{FromRoot(cu, name), static_cast<uint32_t>(number), "", 0};
    // dwarf_getscopes lists the scopes of the innermost inlined code, then those of its
    // abstract definition (a header's helper: the compile unit), not the function it was
    // inlined into: that concrete chain is dwarf_getscopes_die's, from the innermost
    // inlined_subroutine out to the function and its compile unit.
    Dwarf_Die* scopes = nullptr;
    Dwarf_Die* chain = nullptr;
    int count = dwarf_getscopes(cu, pc, &scopes);
    int innermost = 0;
    while (innermost < count && dwarf_tag(&scopes[innermost]) != DW_TAG_inlined_subroutine)
      ++innermost;
    int length = innermost < count ? dwarf_getscopes_die(&scopes[innermost], &chain) : 0;
    if (length > 0) {
      std::vector<int> tags;
      for (int i = 0; i < length; ++i) tags.push_back(dwarf_tag(&chain[i]));
      std::string file;
      uint32_t line = 0;
      if (std::optional<size_t> caller = CallerScope(tags);
          caller && CallSite(cu, &chain[*caller], &file, &line) &&
          (file != out.file || line != out.line)) {
        out.inlined_file = std::move(out.file);
        out.inlined_line = out.line;
        out.file = std::move(file);
        out.line = line;
      }
    }
    std::free(chain);
    std::free(scopes);
    return out;
  }
};

SourceLines::SourceLines() = default;
SourceLines::~SourceLines() = default;

SourceLines::File& SourceLines::Open(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return *it->second;
  auto file = std::make_unique<File>();
  // Opened as FunctionNames opens it, so that its addresses are the same link-time addresses.
  file->module = OpenElfAtLinkTime(path, &file->dwfl);
  Dwarf_Addr bias = 0;
  if (file->module == nullptr) {
    file->why_not = path + ": " + (file->dwfl != nullptr ? dwfl_errmsg(-1) : "not a file");
  } else if (dwfl_module_getdwarf(file->module, &bias) == nullptr) {
    file->why_not = path + " has no DWARF line information (stripped, or built without -g)";
    file->module = nullptr;
  }
  return *files_.emplace(path, std::move(file)).first->second;
}

std::optional<CodeLine> SourceLines::Find(const std::string& path, uint64_t address) {
  File& file = Open(path);
  auto cached = file.lines.find(address);
  if (cached != file.lines.end()) return cached->second;
  return file.lines.emplace(address, file.Find(address)).first->second;
}

std::string SourceLines::WhyNot(const std::string& path) { return Open(path).why_not; }

}  // namespace rprof
