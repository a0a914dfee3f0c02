#include "report/terminal_size.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace rprof {

namespace {

bool PositiveNumber(const std::string& text, size_t* out) {
  if (text.empty() || text.size() > 6) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  *out = std::strtoul(text.c_str(), nullptr, 10);
  return *out > 0;
}

}  // namespace

size_t TerminalRows(int fd) {
  size_t rows = 0;
  if (const char* lines = std::getenv("LINES"); lines && PositiveNumber(lines, &rows)) return rows;
  winsize size{};
  if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_row > 0)
    return size.ws_row;
  return kDefaultTextRows;
}

bool ParseSize(const std::string& text, size_t* width, size_t* height) {
  size_t x = text.find('x');
  if (x == std::string::npos) return false;
  return PositiveNumber(text.substr(0, x), width) && PositiveNumber(text.substr(x + 1), height);
}

}  // namespace rprof
