// A whole file read as text, for the small files rprof's children leave behind (marker
// results, a benchmark's JSON, the shim's iteration count). Header-only, like core/text.h.
#ifndef RPROF_CORE_FILE_TEXT_H_
#define RPROF_CORE_FILE_TEXT_H_

#include <fstream>
#include <sstream>
#include <string>

namespace rprof {

// The file's bytes; "" when it is missing or unreadable (the caller says what that means).
inline std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace rprof

#endif  // RPROF_CORE_FILE_TEXT_H_
