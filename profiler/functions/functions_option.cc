#include "functions/functions_option.h"

#include <charconv>

namespace rprof {

bool ParseFunctionsOption(const std::string& text, int* top, std::string* why) {
  if (text == "off" || text == "0") {
    *top = 0;
    return true;
  }
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > 1000) {
    *why = "--functions " + text + ": use a count from 1 to 1000, or off";
    return false;
  }
  *top = n;
  return true;
}

}  // namespace rprof
