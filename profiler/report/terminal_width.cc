#include "report/terminal_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace rprof {

size_t TerminalWidth(int fd) {
  // $COLUMNS first, as ls and git read it, so a script or a test can ask for a width
  // (COLUMNS=80) or for none (COLUMNS=0) whatever the output is.
  if (const char* columns = std::getenv("COLUMNS"); columns && *columns) {
    char* end = nullptr;
    unsigned long value = std::strtoul(columns, &end, 10);
    if (*end == '\0' && columns[0] != '-') return static_cast<size_t>(value);
  }
  winsize size{};
  if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  return kDefaultTextWidth;
}

}  // namespace rprof
