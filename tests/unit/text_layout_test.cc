// The text for people fitted to a terminal: where lines break, how a table gives up width
// (notes first, then the widest text, then optional columns; numbers never), what is said once
// as a note, and where the width comes from. CSV and JSON are never cut.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "report/footnotes.h"
#include "report/render.h"
#include "report/terminal_width.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace rprof {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t Widest(const std::string& text) {
  size_t widest = 0;
  for (const std::string& line : Lines(text)) widest = std::max(widest, DisplayWidth(line));
  return widest;
}

TEST(DisplayWidth, CountsCharactersNotBytes) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("45 µs"), 5u);
  EXPECT_EQ(DisplayWidth(""), 0u);
}

TEST(WrapText, BreaksAtSpacesThenAfterPunctuationThenAnywhere) {
  EXPECT_EQ(WrapText("one two three", 7), (std::vector<std::string>{"one two", "three"}));
  EXPECT_EQ(WrapText("one two", 0), (std::vector<std::string>{"one two"}));
  EXPECT_EQ(WrapText("", 5), (std::vector<std::string>{""}));
  // A reference keeps its number.
  EXPECT_EQ(WrapText("no PMU; see note 1", 16),
            (std::vector<std::string>{"no PMU; see", "note 1"}));
  // A formula: after the operators.
  EXPECT_EQ(WrapText("4*seq*d+25*seq+seq", 10),
            (std::vector<std::string>{"4*seq*d+", "25*seq+seq"}));
  // A name with no break character: cut where the width ends.
  EXPECT_EQ(WrapText("abcdefghij", 4), (std::vector<std::string>{"abcd", "efgh", "ij"}));
  for (const std::string& line : WrapText("the quick brown fox jumps over the lazy dog", 9))
    EXPECT_LE(DisplayWidth(line), 9u) << line;
}

TEST(WrapText, NamesBreakAfterHyphensAndUnderscoresNumbersNever) {
  EXPECT_EQ(WrapText("matmul-naive n=384", 10),
            (std::vector<std::string>{"matmul-", "naive", "n=384"}));
  EXPECT_EQ(WrapText("DRAM-bandwidth-bound", 16),
            (std::vector<std::string>{"DRAM-bandwidth-", "bound"}));
  EXPECT_EQ(WrapText("a_long_region_name", 8),
            (std::vector<std::string>{"a_long_", "region_", "name"}));
  // A date and time: no break between two digits; after the "T"'s colon-free part only.
  EXPECT_EQ(LongestUnbreakable("2026-12-01T21:28:05.798Z"), 24u);
  EXPECT_EQ(LongestUnbreakable("matmul-naive n=384"), 7u);  // "matmul-", "naive", "n=", "384"
  EXPECT_EQ(LongestUnbreakable("(compulsory bytes)"), 11u);
  EXPECT_EQ(LongestUnbreakable(""), 0u);
  // A percentage stays whole: lab00's "l2 bandwidth, 17 / % of roof" read as two numbers.
  EXPECT_EQ(WrapText("l2 bandwidth, 17 % of roof", 18),
            (std::vector<std::string>{"l2 bandwidth, 17 %", "of roof"}));
  EXPECT_EQ(WrapText("l2 bandwidth, 17 % of roof", 17),
            (std::vector<std::string>{"l2", "bandwidth, 17 %", "of roof"}));
}

// Issue 38: a libpfm event longer than the line broke inside a part ("FILLS_FROM_" "SYSTEM"); a
// name breaks only between its parts, and "PMU::" stays one.
TEST(WrapText, ANameBreaksOnlyBetweenItsParts) {
  const std::string name =
      "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:MEM_IO_LCL:MEM_IO_RMT";
  EXPECT_EQ(WrapText(name, 50, WordBreaks::kName),
            (std::vector<std::string>{
                "amd64_fam19h_zen3::", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:",
                "MEM_IO_LCL:MEM_IO_RMT"}));
  EXPECT_EQ(LongestUnbreakable(name, WordBreaks::kName),
            std::string("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:").size());
  // Prose may break after '_' as before.
  EXPECT_EQ(WrapText("DATA_CACHE_FILLS", 12), (std::vector<std::string>{"DATA_CACHE_", "FILLS"}));
}

TEST(WrapProse, ContinuationLinesHangUnderTheirItem) {
  EXPECT_EQ(WrapProse("note: one two three four\n", 15), "note: one two\n  three four\n");
  EXPECT_EQ(WrapProse("  - alpha beta gamma delta epsilon\n", 24),
            "  - alpha beta gamma\n    delta epsilon\n");
  EXPECT_EQ(WrapProse("  12. alpha beta gamma delta epsilon\n", 25),
            "  12. alpha beta gamma\n      delta epsilon\n");
  EXPECT_EQ(WrapProse("short\n\nlines\n", 10), "short\n\nlines\n");
  EXPECT_EQ(WrapProse("no limit at all, however long the line is\n", 0),
            "no limit at all, however long the line is\n");
}

TEST(TextTable, FitsAtNaturalWidthsUnchanged) {
  TextTable table({"metric", "value"}, {false, true});
  table.AddRow({"flops", "2000"});
  table.FitTo(80);
  EXPECT_EQ(table.Render(), "metric  value\nflops    2000\n");
}

TEST(TextTable, ANoteTooLongBesideItsRowGoesBeneathIt) {
  TextTable table({{"metric"}, {"value", true}, {"note", false, true}});
  table.AddRow({"time_s", "0.5", "median of 3"});
  table.AddRow({"bytes_l1", "2400080",
                "memory-operand bytes of every executed instruction: loads and stores, the "
                "stack included, prefetches excluded"});
  table.FitTo(40);
  std::string out = table.Render();
  EXPECT_LE(Widest(out), 40u) << out;
  std::vector<std::string> lines = Lines(out);
  ASSERT_GE(lines.size(), 4u) << out;
  EXPECT_EQ(lines[1], "time_s        0.5  median of 3");
  EXPECT_EQ(lines[2], "bytes_l1  2400080");
  EXPECT_EQ(lines[3].substr(0, 4), "    ") << out;
  EXPECT_NE(out.find("prefetches excluded"), std::string::npos) << out;
}

TEST(TextTable, NumbersAreNeverCutTheWidestTextIs) {
  TextTable table({{"target"}, {"GFLOP/s (fp64)", true}, {"params"}});
  table.AddRow({"matmul-naive-fp32", "12345.678", "n=512 b=64 threads=1 seq=2048 d=64"});
  table.FitTo(40);
  std::string out = table.Render();
  EXPECT_LE(Widest(out), 40u) << out;
  EXPECT_NE(out.find("12345.678"), std::string::npos) << out;
  EXPECT_NE(out.find("matmul-naive-fp32"), std::string::npos) << out;  // a whole word fits
}

TEST(TextTable, NoWordOrNumberIsCutAtEightyColumns) {
  // history's columns at 80: the text columns wrap at spaces and inside names, never inside
  // a word, a number or a time.
  TextTable table({{"run", true},
                   {"started (UTC)"},
                   {"target"},
                   {"status"},
                   {"time/call", true},
                   {"GFLOP/s", true},
                   {"bound"}});
  table.AddRow({"12", "2026-12-01T21:28:05.798Z", "matmul-naive n=384", "ok", "423 ms", "1.234",
                "DRAM-bandwidth-bound (compulsory bytes)"});
  table.AddRow({"11", "2026-12-01T21:27:59.001Z", "triad n=1000000", "ok", "1.2 ms", "0.9",
                "compute (fp64_avx2_fma)"});
  table.FitTo(80);
  std::string out = table.Render();
  EXPECT_LE(Widest(out), 80u) << out;
  for (const char* whole : {"2026-12-01T21:28:05.798Z", "(compulsory", "bytes)", "n=384",
                            "n=1000000", "(fp64_avx2_fma)"})
    EXPECT_NE(out.find(whole), std::string::npos) << whole << " cut in\n" << out;
  for (const char* piece : {"matmul-", "naive", "DRAM-", "bound"})
    EXPECT_NE(out.find(piece), std::string::npos) << piece << "\n" << out;
}

TEST(TextTable, OptionalColumnsAreLeftOutLastFirstAndSaidSo) {
  TextTable table({{"name"},
                   {"a", true},
                   {"extra one", false, false, true},
                   {"b", true},
                   {"extra two", false, false, true}});
  table.AddRow({"x", "1", "aaaaaaaaaaaaaaaaaaaa", "2", "bbbbbbbbbbbbbbbbbbbb"});
  table.FitTo(32);  // room for one of the two
  std::string out = table.Render();
  EXPECT_LE(Widest(out), 32u) << out;
  EXPECT_NE(out.find("aaaaaaaaaaaaaaaaaaaa"), std::string::npos) << out;
  EXPECT_EQ(out.find("bbbb"), std::string::npos) << out;
  EXPECT_NE(out.find("(left out to fit 32 columns:"), std::string::npos) << out;
  EXPECT_NE(out.find("extra two;"), std::string::npos) << out;
}

TEST(TextTable, WithoutALimitEveryRowIsOneLine) {
  TextTable table(std::vector<TextColumn>{{"name"}, {"note", false, true}});
  std::string note(300, 'n');
  table.AddRow({"x", note});
  EXPECT_EQ(table.Render(), "name  note\nx     " + note + "\n");
}

TEST(RepeatedClauses, ClausesSaidMoreThanOnceAndLongEnough) {
  const std::string remedy =
      "enable the virtual PMU in the hypervisor (KVM/libvirt: <cpu mode='host-passthrough'>)";
  std::vector<std::string> texts = {
      "no hardware PMU here; " + remedy, "no hardware PMU here; " + remedy,
      "2 events could not be counted: no hardware PMU here; run with --counters sim, or " + remedy,
      "median of 3 repetitions", ""};
  EXPECT_EQ(RepeatedClauses(texts, 40), (std::vector<std::string>{remedy}));
  // Clauses that always go together are one note; "(a; b)" is one clause.
  std::vector<std::string> sim = {"bytes_l2 = misses x line; caches (D1; LL); LL is inclusive",
                                  "caches (D1; LL); LL is inclusive"};
  EXPECT_EQ(RepeatedClauses(sim, 10),
            (std::vector<std::string>{"caches (D1; LL); LL is inclusive"}));
}

TEST(Footnotes, SaidOnceNumberedInTheOrderReferredTo) {
  Footnotes notes({"the long remedy text", "the geometry of the caches"});
  EXPECT_EQ(notes.Refer("cause; the geometry of the caches"), "cause; see note 1");
  EXPECT_EQ(notes.Refer("x; the long remedy text; the long remedy text"),
            "x; see note 2; see note 2");
  EXPECT_EQ(notes.Refer("nothing to refer to"), "nothing to refer to");
  EXPECT_EQ(notes.Block(0),
            "\nnotes:\n  1. the geometry of the caches\n  2. the long remedy text\n");
}

TEST(Footnotes, ACellReferringToNotesReferstoNotesOnly) {
  Footnotes notes({"the geometry of the caches", "the long remedy text"});
  EXPECT_EQ(notes.ReferCell("the long remedy text; FMA = 2 per lane; the geometry of the caches"),
            "see notes 1, 2, 3");
  // Numbered as Refer numbers them (the longest note text first), the cell's own clause next.
  EXPECT_EQ(notes.ReferCell("the geometry of the caches"), "see note 1");
  EXPECT_EQ(notes.ReferCell("FMA = 2 per lane; the long remedy text"), "see notes 2, 3");
  EXPECT_EQ(notes.ReferCell("nothing to refer to"), "nothing to refer to");
  EXPECT_EQ(notes.Block(0),
            "\nnotes:\n  1. the geometry of the caches\n  2. the long remedy text\n"
            "  3. FMA = 2 per lane\n");
}

TEST(Render, TheTextIsFittedCsvAndJsonKeepEveryValueWhole) {
  Report report;
  const std::string remedy =
      "enable the virtual PMU in the hypervisor (KVM/libvirt: <cpu mode='host-passthrough'>)";
  report.AddText("a heading line that is rather longer than the thirty columns it may take\n");
  Table& table = report.AddTable({{"metric", "metric"}, Column("note", "note").Notes()});
  table.AddRow({Cell::Text("PAPI_TOT_INS"), Cell::Text("no PMU; " + remedy)});
  table.AddRow({Cell::Text("PAPI_TOT_CYC"), Cell::Text("no PMU; " + remedy)});
  report.AddFootnote(remedy);
  std::string text = Render(report, OutputFormat::kTable, 30);
  EXPECT_LE(Widest(text), 30u) << text;
  // The cell's own clause a note too: a table refers to notes only (issue 30).
  EXPECT_NE(text.find("see notes 1, 2"), std::string::npos) << text;
  EXPECT_NE(text.find("  2. no PMU\n"), std::string::npos) << text;
  EXPECT_NE(text.find("notes:\n  1. enable the virtual PMU"), std::string::npos) << text;
  EXPECT_EQ(text.find("host-passthrough"), text.rfind("host-passthrough")) << "said once";
  std::string csv = Render(report, OutputFormat::kCsv, 30);
  EXPECT_NE(csv.find("no PMU; " + remedy), std::string::npos) << csv;
  std::string json = Render(report, OutputFormat::kJson, 30);
  EXPECT_NE(json.find("no PMU; " + remedy), std::string::npos) << json;
}

TEST(TerminalWidth, ColumnsFirstThenTheTerminalThenEighty) {
  const char* saved = std::getenv("COLUMNS");
  std::string restore = saved ? saved : "";
  setenv("COLUMNS", "123", 1);
  EXPECT_EQ(TerminalWidth(STDOUT_FILENO), 123u);
  setenv("COLUMNS", "0", 1);
  EXPECT_EQ(TerminalWidth(STDOUT_FILENO), kNoWidthLimit);
  setenv("COLUMNS", "wide", 1);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(TerminalWidth(fds[1]), kDefaultTextWidth);  // a pipe is no terminal
  unsetenv("COLUMNS");
  EXPECT_EQ(TerminalWidth(fds[1]), kDefaultTextWidth);
  EXPECT_EQ(TerminalWidth(-1), kDefaultTextWidth);  // a file
  close(fds[0]);
  close(fds[1]);
  if (saved) setenv("COLUMNS", restore.c_str(), 1);
}

}  // namespace
}  // namespace rprof
