// Small text helpers every part of rprof uses, header-only so that any library (machine/,
// counters/sim/) can use them without linking core.
#ifndef RPROF_CORE_TEXT_H_
#define RPROF_CORE_TEXT_H_

#include <cctype>
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

}  // namespace rprof

#endif  // RPROF_CORE_TEXT_H_
