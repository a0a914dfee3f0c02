// Where rprof looks for a file's debug information: libdw's own search for separate debug
// files (build id, .gnu_debuglink beside the file, in .debug/, under /usr/lib/debug), the same
// one eu-addr2line and eu-stack use, and the places perf report looks. The path list stays
// libdw's default (":.debug:/usr/lib/debug"). One search for symbol names (function_names.cc)
// and source lines (source_line.cc), so a function and its lines come from the same file.
// Only for the libdw-built sources: it includes libdw's header.
#ifndef RPROF_FUNCTIONS_DEBUG_INFO_SEARCH_H_
#define RPROF_FUNCTIONS_DEBUG_INFO_SEARCH_H_

#include <elfutils/libdwfl.h>

namespace rprof {

inline const Dwfl_Callbacks kDebugInfoSearch = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_DEBUG_INFO_SEARCH_H_
