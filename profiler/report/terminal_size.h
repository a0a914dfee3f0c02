// How many rows a picture drawn in the terminal may take (its columns: terminal_width.h).
#ifndef RPROF_REPORT_TERMINAL_SIZE_H_
#define RPROF_REPORT_TERMINAL_SIZE_H_

#include <cstddef>
#include <string>

namespace rprof {

// Where the height cannot be known (a pipe, a file): a classic terminal's.
constexpr size_t kDefaultTextRows = 24;

// The rows of the terminal `fd` is: $LINES when it is a positive number, else the terminal's
// own (ioctl) when `fd` is one, else kDefaultTextRows.
size_t TerminalRows(int fd);

// "WxH" (e.g. "80x24") as two positive numbers; false when it is not that.
bool ParseSize(const std::string& text, size_t* width, size_t* height);

}  // namespace rprof

#endif  // RPROF_REPORT_TERMINAL_SIZE_H_
