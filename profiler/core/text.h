// Small text helpers every part of rprof uses, header-only so that any library (machine/,
// counters/sim/) can use them without linking core.
#ifndef RPROF_CORE_TEXT_H_
#define RPROF_CORE_TEXT_H_

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// `text` without leading and trailing white space (spaces, tabs, CR, LF).
inline std::string_view Trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// Appends `more` to a note, "; " between clauses; nothing when `more` is empty.
inline void AddNote(std::string* note, const std::string& more) {
  if (!more.empty()) *note += (note->empty() ? "" : "; ") + more;
}

// The items with `separator` between them: Join({"a", "b"}, ",") is "a,b".
inline std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

// The items as a person lists choices: "a", "a or b", "a, b or c".
inline std::string JoinChoices(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string_view separator = i == 0 ? "" : i + 1 == items.size() ? " or " : ", ";
    out.append(separator).append(items[i]);
  }
  return out;
}

// printf into a std::string (up to 511 characters: one sentence of a note or warning).
inline std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline std::string Format(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

// `text` in upper case ("dram" -> "DRAM"), ASCII letters only.
// A path's last component: "libc.so.6" of "/usr/lib/x86_64-linux-gnu/libc.so.6".
inline std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

inline std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace rprof

#endif  // RPROF_CORE_TEXT_H_
