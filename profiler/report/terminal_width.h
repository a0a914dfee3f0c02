// How wide the text for people may be: the one place that decides it. Tables and prose are
// fitted to it by the text renderer (report/render.h); CSV and JSON never are.
#ifndef RPROF_REPORT_TERMINAL_WIDTH_H_
#define RPROF_REPORT_TERMINAL_WIDTH_H_

#include <cstddef>

namespace rprof {

// A width that means no limit: every row on one line, as wide as it is.
constexpr size_t kNoWidthLimit = 0;
// Where the width cannot be known (a pipe, a file): what a terminal has by default.
constexpr size_t kDefaultTextWidth = 80;

// The columns text written to `fd` may take: $COLUMNS when it is a number (COLUMNS=0: no
// limit), else the terminal's width when `fd` is a terminal, else kDefaultTextWidth. -1 for a
// file: $COLUMNS, else kDefaultTextWidth.
size_t TerminalWidth(int fd);

}  // namespace rprof

#endif  // RPROF_REPORT_TERMINAL_WIDTH_H_
