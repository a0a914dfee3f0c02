// Text for people cut to a width: where a line may break, and how wide text is on a terminal.
// The text renderer (report/render.cc) and the text table (report/text_table.h) are the only
// callers; CSV and JSON are never wrapped.
#ifndef RPROF_REPORT_TEXT_WRAP_H_
#define RPROF_REPORT_TEXT_WRAP_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// The columns `text` takes on a terminal: one per character (UTF-8 code point). Characters two
// columns wide (CJK) count one: rprof's own text has none, and an approximation only makes a
// line of someone else's text a little wider than planned, never broken.
size_t DisplayWidth(std::string_view text);

// Where a word too long for its line may break.
enum class WordBreaks {
  // Prose: after one of , ; : + / = ) - _ (a formula, a path, a list without spaces, a name:
  // "matmul-" "naive").
  kText,
  // A name a user types back (an event, libpfm's PMU::EVENT:UMASK:UMASK): only between its
  // parts, after : , or =, never inside one ("FILLS_FROM_" "SYSTEM" read as two names).
  kName,
};

// `text` in lines of at most `width` columns (0: no limit, one line). Breaks at spaces, which
// are dropped; a word longer than the width breaks where `breaks` lets it, never between two
// digits (a date, a number), else, only when a piece is wider than the width, where the width
// ends. Never returns no line: "" gives {""}.
std::vector<std::string> WrapText(std::string_view text, size_t width,
                                  WordBreaks breaks = WordBreaks::kText);
// The widest piece of `text` WrapText never cuts: a word, or the part of a long word between
// two places it may break. A column at least this wide wraps without cutting a word or number.
size_t LongestUnbreakable(std::string_view text, WordBreaks breaks = WordBreaks::kText);
// The same with a first line of its own width (a hanging indent).
std::vector<std::string> WrapText(std::string_view text, size_t first_width, size_t width,
                                  WordBreaks breaks = WordBreaks::kText);

// Prose as the text renderer prints it: each line longer than `width` wrapped, its
// continuation lines indented by the line's own indentation plus `hang` (past the number of a
// numbered item, "1. "), so a wrapped "note: …" or "  - reason" reads as one item; hang 0 for
// paragraphs. Width 0: unchanged.
std::string WrapProse(std::string_view text, size_t width, size_t hang = 2);

}  // namespace rprof

#endif  // RPROF_REPORT_TEXT_WRAP_H_
