#include "functions/function_names.h"

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "functions/debug_info_search.h"

namespace rprof {
namespace {

// valgrind names C++ functions demangled: so does rprof, so that both meet.
std::string Demangled(const char* name) {
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && text != nullptr ? text : name;
  std::free(text);
  return out;
}

}  // namespace

struct FunctionNames::File {
  struct Symbol {
    uint64_t start = 0, size = 0;
    std::string name;
    bool from_debug_file = false;
  };
  std::vector<Symbol> symbols;  // functions, by start, one per start (Better's choice)
  std::string debug_file;       // where libdw found the symbols, when not in the file itself
};

namespace {

size_t LeadingUnderscores(const std::string& name) {
  size_t n = name.find_first_not_of('_');
  return n == std::string::npos ? name.size() : n;
}

// Of two function symbols at one address (aliases: malloc and __libc_malloc), the one perf
// report shows (choose_best_symbol in tools/perf/util/symbol.c): one with a size, not weak,
// global, with fewer leading underscores, then the longer name. The same counts name the same
// function the same way every time.
bool Better(const GElf_Sym& a, const std::string& a_name, const GElf_Sym& b,
            const std::string& b_name) {
  if ((a.st_size != 0) != (b.st_size != 0)) return a.st_size != 0;
  bool a_weak = GELF_ST_BIND(a.st_info) == STB_WEAK, b_weak = GELF_ST_BIND(b.st_info) == STB_WEAK;
  if (a_weak != b_weak) return !a_weak;
  bool a_global = GELF_ST_BIND(a.st_info) == STB_GLOBAL;
  bool b_global = GELF_ST_BIND(b.st_info) == STB_GLOBAL;
  if (a_global != b_global) return a_global;
  size_t a_under = LeadingUnderscores(a_name), b_under = LeadingUnderscores(b_name);
  if (a_under != b_under) return a_under < b_under;
  if (a_name.size() != b_name.size()) return a_name.size() > b_name.size();
  return a_name < b_name;
}

}  // namespace

FunctionNames::FunctionNames() = default;
FunctionNames::~FunctionNames() = default;

FunctionNames::File& FunctionNames::Open(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return *it->second;
  auto file = std::make_unique<File>();
  // One session per file, ended once its symbols are copied.
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = OpenElfAtLinkTime(path, &dwfl);
  // The symbol table libdw chose: the file's .symtab, else its debug file's (found by
  // dwfl_standard_find_debuginfo), else its .dynsym; read whole once, as perf reads it.
  int count = module != nullptr ? dwfl_module_getsymtab(module) : -1;
  GElf_Addr bias = 0;
  Elf* main_elf = module != nullptr ? dwfl_module_getelf(module, &bias) : nullptr;
  std::vector<std::pair<File::Symbol, GElf_Sym>> all;
  for (int i = 1; i < count; ++i) {
    GElf_Sym sym;
    GElf_Addr address = 0;
    GElf_Word section = 0;
    Elf* elf = nullptr;
    const char* name = dwfl_module_getsym_info(module, i, &sym, &address, &section, &elf, nullptr);
    if (name == nullptr || *name == '\0' || sym.st_shndx == SHN_UNDEF || address == 0) continue;
    int type = GELF_ST_TYPE(sym.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    all.push_back({{address, sym.st_size, name, elf != main_elf}, sym});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first.start < b.first.start; });
  for (size_t i = 0; i < all.size();) {
    size_t best = i, j = i + 1;
    for (; j < all.size() && all[j].first.start == all[i].first.start; ++j)
      if (Better(all[j].second, all[j].first.name, all[best].second, all[best].first.name))
        best = j;
    file->symbols.push_back(std::move(all[best].first));
    i = j;
  }
  if (module != nullptr && std::any_of(file->symbols.begin(), file->symbols.end(),
                                       [](const File::Symbol& s) { return s.from_debug_file; })) {
    const char* debug_file = nullptr;
    dwfl_module_info(module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &debug_file);
    file->debug_file = debug_file != nullptr ? debug_file : "";
  }
  if (dwfl != nullptr) dwfl_end(dwfl);
  return *files_.emplace(path, std::move(file)).first->second;
}

FunctionName FunctionNames::FromSymbols(const std::string& path, uint64_t address) {
  File& file = Open(path);
  FunctionName out;
  auto after = std::upper_bound(file.symbols.begin(), file.symbols.end(), address,
                                [](uint64_t a, const File::Symbol& s) { return a < s.start; });
  // The last function to start at or below the address, where it covers it (a symbol without a
  // size covers up to the next one, as perf takes it).
  if (after != file.symbols.begin()) {
    const File::Symbol& sym = *(after - 1);
    if (sym.size == 0 || address - sym.start < sym.size) {
      out.name = Demangled(sym.name.c_str());
      out.named = true;
      out.start = sym.start;
      out.source = sym.from_debug_file ? NameSource::kDebugFile : NameSource::kSymbolTable;
      if (sym.from_debug_file) out.debug_file = file.debug_file;
    }
  }
  return out;
}

}  // namespace rprof
