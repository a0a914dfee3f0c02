#include "functions/functions_option.h"

#include <charconv>

namespace rprof {

bool ParseFunctionsOption(const std::string& text, int* top, Error* err) {
  if (text == "off" || text == "0") {
    *top = 0;
    return true;
  }
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > 1000)
    return Fail(err, ErrorKind::kUsage,
                "--functions " + text + ": use a count from 1 to 1000, or off");
  *top = n;
  return true;
}

}  // namespace rprof
