// Where rprof looks for a file's debug information: libdw's own search for separate debug
// files (build id, .gnu_debuglink beside the file, in .debug/, under /usr/lib/debug), the same
// one eu-addr2line and eu-stack use, and the places perf report looks. The path list stays
// libdw's default (":.debug:/usr/lib/debug"). One search for symbol names (function_names.cc)
// and source lines (source_line.cc), so a function and its lines come from the same file.
// Only for the libdw-built sources: it includes libdw's header.
// OpenElfAtLinkTime opens one file with that search, as both of them open it.
#ifndef RPROF_FUNCTIONS_DEBUG_INFO_SEARCH_H_
#define RPROF_FUNCTIONS_DEBUG_INFO_SEARCH_H_

#include <elfutils/libdwfl.h>

#include <string>

namespace rprof {

inline const Dwfl_Callbacks kDebugInfoSearch = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

// A libdw session holding the one ELF file `path`, its debug file searched for as above,
// reported at bias 0: its module's addresses are link-time addresses, the ones callgrind prints
// and callers give. *dwfl is the session, which the caller ends (dwfl_end); nullptr when `path`
// is not absolute (a name valgrind gives for no file, "???") or libdw cannot start one. Returns
// the file's module; nullptr when there is no session or the file cannot be read as ELF
// (dwfl_errmsg(-1) says why).
inline Dwfl_Module* OpenElfAtLinkTime(const std::string& path, Dwfl** dwfl) {
  *dwfl = nullptr;
  if (path.empty() || path[0] != '/') return nullptr;
  *dwfl = dwfl_begin(&kDebugInfoSearch);
  if (*dwfl == nullptr) return nullptr;
  dwfl_report_begin(*dwfl);
  Dwfl_Module* module =
      dwfl_report_elf(*dwfl, path.c_str(), path.c_str(), -1, 0, /*add_p_vaddr=*/false);
  dwfl_report_end(*dwfl, nullptr, nullptr);
  return module;
}

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_DEBUG_INFO_SEARCH_H_
