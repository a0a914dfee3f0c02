// Which line of its function an instruction is (functions/source_line.h, issue 38): the rule
// over an instruction's DWARF scopes (inlined code: the outermost call site inside its
// function), then libdw on a fixture built here with gcc -O2 -g, whose helper, always inlined
// from a header and inlining another, has its every instruction on the caller's line, the
// innermost header's line kept as where it was inlined from. Needs gcc and binutils (nm) for the
// latter: skipped without them.
#include "functions/source_line.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace rprof {
namespace {

namespace fs = std::filesystem;

constexpr int kLexicalBlock = 0x0b;  // DW_TAG_lexical_block
constexpr int kCompileUnit = 0x11;   // DW_TAG_compile_unit

TEST(CallerScope, OutermostInlinedSubroutineInsideTheFunction) {
  // Plain code of the function: its own line.
  std::vector<int> plain = {kLexicalBlock, kDwarfTagSubprogram, kCompileUnit};
  EXPECT_EQ(CallerScope(plain), std::nullopt);
  // Inlined once: that call site.
  std::vector<int> once = {kDwarfTagInlinedSubroutine, kDwarfTagSubprogram, kCompileUnit};
  EXPECT_EQ(CallerScope(once), 0u);
  // Inlined into inlined code (an intrinsic inside a helper inside F), blocks between: the
  // outermost, whose call site is F's own line.
  std::vector<int> nested = {
      kLexicalBlock, kDwarfTagInlinedSubroutine, kLexicalBlock, kDwarfTagInlinedSubroutine,
      kLexicalBlock, kDwarfTagSubprogram,        kCompileUnit};
  EXPECT_EQ(CallerScope(nested), 3u);
  // A subprogram nested in another (a GNU C nested function): the innermost subprogram is the
  // function; scopes beyond it are not its.
  std::vector<int> nested_function = {kDwarfTagInlinedSubroutine, kDwarfTagSubprogram,
                                      kDwarfTagInlinedSubroutine, kDwarfTagSubprogram};
  EXPECT_EQ(CallerScope(nested_function), 0u);
  // No enclosing subprogram: nothing says whose line it is.
  std::vector<int> orphan = {kDwarfTagInlinedSubroutine, kCompileUnit};
  EXPECT_EQ(CallerScope(orphan), std::nullopt);
  EXPECT_EQ(CallerScope({}), std::nullopt);
}

// The helper inlines another (an intrinsic in a compiler's header, as Eigen's GEMM has
// fmaintrin.h's): its multiply is on inner.h's line 2, inside helper.h's line 4, inside line 5.
constexpr const char* kInner = R"(static inline __attribute__((always_inline)) double
times(double a, double x) { return a * x; }
)";
constexpr const char* kHelper = R"(#include "inner.h"
static inline __attribute__((always_inline)) double
scaled_add(double y, double a, double x) {
  return y + times(a, x);
}
)";
// Line 5: the loop that calls the helper.
constexpr const char* kSource = R"(#include <stdlib.h>
#include "helper.h"
__attribute__((noinline)) void axpy(double* y, const double* x, double a, long n) {
  long i;
  for (i = 0; i < n; ++i) y[i] = scaled_add(y[i], a, x[i]);
}
int main(int argc, char** argv) {
  double y[64] = {0}, x[64] = {1};
  axpy(y, x, argc, 64);
  return (int)y[3];
}
)";
constexpr uint32_t kCallerLine = 5;
constexpr uint32_t kHelperLine = 4;
constexpr uint32_t kInnerLine = 2;

std::string Shell(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    *status = -1;
    return out;
  }
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  *status = pclose(pipe);
  return out;
}

class SourceLinesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int status = 0;
    for (const char* tool : {"gcc", "nm"})
      if (Shell(std::string("command -v ") + tool, &status), status != 0)
        GTEST_SKIP() << tool << " is not installed (Debian: apt-get install gcc binutils)";
    char pattern[] = "/tmp/rprof-source-line-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ / "inner.h") << kInner;
    std::ofstream(dir_ / "helper.h") << kHelper;
    std::ofstream(dir_ / "app.c") << kSource;
    // Compiled from its directory by a relative name, as meson compiles: the DWARF then names
    // the file relative to DW_AT_comp_dir.
    std::string out = Shell("cd " + dir_.string() + " && gcc -O2 -g -o app ./app.c", &status);
    ASSERT_EQ(status, 0) << out;
    std::istringstream lines(Shell("nm -S " + (dir_ / "app").string(), &status));
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string address, size, type, name;
      if (fields >> address >> size >> type >> name && name == "axpy") {
        start_ = std::stoull(address, nullptr, 16);
        size_ = std::stoull(size, nullptr, 16);
      }
    }
    ASSERT_GT(size_, 0u) << "no axpy in nm -S of the fixture";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  fs::path dir_;
  uint64_t start_ = 0, size_ = 0;
};

TEST_F(SourceLinesTest, InlinedCodeOnTheCallersLineFromTheRoot) {
  SourceLines lines;
  const std::string app = (dir_ / "app").string();
  EXPECT_EQ(lines.WhyNot(app), "");
  size_t found = 0, inlined = 0, nested = 0;
  // Every byte of axpy: no line of it is a header's; the helpers' arithmetic is on line 5.
  for (uint64_t address = start_; address < start_ + size_; ++address) {
    std::optional<CodeLine> line = lines.Find(app, address);
    if (!line) continue;
    ++found;
    EXPECT_EQ(fs::path(line->file).filename(), "app.c") << line->file << ":" << line->line;
    EXPECT_EQ(line->file[0], '/') << line->file;  // joined to the compilation directory
    if (line->inlined_line == 0) continue;
    ++inlined;
    EXPECT_EQ(line->line, kCallerLine);
    // Where it came from: the innermost location, the helper's line or the inner helper's.
    std::string from = fs::path(line->inlined_file).filename();
    if (from == "inner.h") {
      ++nested;
      EXPECT_EQ(line->inlined_line, kInnerLine);
    } else {
      EXPECT_EQ(from, "helper.h");
      EXPECT_EQ(line->inlined_line, kHelperLine);
    }
  }
  EXPECT_GT(found, 0u);
  EXPECT_GT(inlined, 0u) << "no instruction of axpy came from helper.h";
  EXPECT_GT(nested, 0u) << "no instruction of axpy came from inner.h";
}

TEST_F(SourceLinesTest, NoDwarfSaysSo) {
  int status = 0;
  std::string stripped = (dir_ / "app-stripped").string();
  std::string out = Shell("strip -o " + stripped + " " + (dir_ / "app").string(), &status);
  ASSERT_EQ(status, 0) << out;
  SourceLines lines;
  EXPECT_EQ(lines.Find(stripped, start_), std::nullopt);
  EXPECT_NE(lines.WhyNot(stripped).find("no DWARF line information"), std::string::npos)
      << lines.WhyNot(stripped);
  EXPECT_EQ(lines.Find("/nonexistent/app", start_), std::nullopt);
  EXPECT_NE(lines.WhyNot("/nonexistent/app"), "");
}

}  // namespace
}  // namespace rprof
