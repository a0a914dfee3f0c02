// Function names as perf report gives them (functions/function_names.h, issue 37): a fixture
// built here, then stripped of its .symtab, is named from its separate debug file found by
// .gnu_debuglink (beside it, and in .debug/), libc from /usr/lib/debug/.build-id; without any
// symbol, code is named by its function's unwind-table entry, the same name for every address of
// one function (not one per unwind row, which made one function five); and the sim source's
// split by function (counters/sim/function_counts.h) takes those names. Needs gcc and binutils
// (objcopy, nm): skipped with the reason without them.
#include "functions/function_names.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "counters/sim/function_counts.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

// hidden_work is static (no .dynsym entry: once .symtab is gone, only a debug file names it)
// and keeps values across calls, so it pushes callee-saved registers: its unwind table has
// several rows, and an address past the pushes is in another row than its first byte.
constexpr const char* kSource = R"(
#include <stdio.h>
#include <stdlib.h>
extern double sink(double x, double y, double z);
__attribute__((noinline)) static double hidden_work(int n, double a, double b) {
  double s = 0, t = 1, u = 2;
  for (int i = 0; i < n; ++i) {
    s += sink(a, t, u);
    t = sink(s, b, t);
    u = sink(u, s, a);
  }
  return s + t + u;
}
double sink(double x, double y, double z) { return x * 0.5 + y * 0.25 + z * 0.125; }
int main(int argc, char** argv) {
  printf("%f\n", hidden_work(argc > 1 ? atoi(argv[1]) : 3, 1.5, 2.5));
  return 0;
}
)";

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

struct Symbol {
  uint64_t start = 0, size = 0;
};

// `nm -S`'s functions of `path`, by name.
std::map<std::string, Symbol> Functions(const std::string& path) {
  std::map<std::string, Symbol> out;
  int status = 0;
  std::istringstream lines(Shell("nm -S " + path, &status));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string address, size, type, name;
    if (!(fields >> address >> size >> type >> name)) continue;
    if (type != "t" && type != "T") continue;
    out[name] = {std::stoull(address, nullptr, 16), std::stoull(size, nullptr, 16)};
  }
  return out;
}

std::string Hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

class FunctionNamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int status = 0;
    for (const char* tool : {"gcc", "objcopy", "nm"})
      if (Shell(std::string("command -v ") + tool, &status), status != 0)
        GTEST_SKIP() << tool << " is not installed (Debian: apt-get install gcc binutils)";
    char pattern[] = "/tmp/rprof-function-names-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ / "app.c") << kSource;
    // -O1: hidden_work stays a function of its own; -g: the debug file has lines too.
    std::string out = Shell(
        "gcc -O1 -g -fno-inline -o " + (dir_ / "app").string() + " " + (dir_ / "app.c").string(),
        &status);
    ASSERT_EQ(status, 0) << out;
    symbols_ = Functions((dir_ / "app").string());
    ASSERT_TRUE(symbols_.count("hidden_work")) << "no hidden_work in nm -S of the fixture";
    hidden_ = symbols_["hidden_work"];
    ASSERT_GT(hidden_.size, 16u);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Copies the fixture to `name`, its debug information into `debug` (relative to dir_, ""
  // for none), strips the copy of .symtab and debug information, and links the debug file by
  // .gnu_debuglink. Returns the stripped copy's path.
  std::string Stripped(const std::string& name, const std::string& debug) {
    std::string app = (dir_ / name).string();
    int status = 0;
    std::string out = Shell("cp " + (dir_ / "app").string() + " " + app, &status);
    EXPECT_EQ(status, 0) << out;
    if (!debug.empty()) {
      std::string debug_path = (dir_ / debug).string();
      fs::create_directories(fs::path(debug_path).parent_path());
      out = Shell("objcopy --only-keep-debug " + app + " " + debug_path, &status);
      EXPECT_EQ(status, 0) << out;
      // objcopy finds the debug file by the name it is given; the link holds its base name.
      out = Shell("objcopy --strip-all --add-gnu-debuglink=" + debug_path + " " + app, &status);
    } else {
      out = Shell("objcopy --strip-all " + app, &status);
    }
    EXPECT_EQ(status, 0) << out;
    // The copy has no symbol of hidden_work left (its .symtab is gone).
    EXPECT_FALSE(Functions(app).count("hidden_work")) << "objcopy --strip-all kept .symtab";
    return app;
  }

  fs::path dir_;
  std::map<std::string, Symbol> symbols_;
  Symbol hidden_;
};

TEST_F(FunctionNamesTest, SymbolTableOfTheFileItself) {
  FunctionNames names;
  const FunctionName& f = names.Name((dir_ / "app").string(), hidden_.start + hidden_.size - 1);
  EXPECT_EQ(f.name, "hidden_work");
  EXPECT_TRUE(f.named);
  EXPECT_EQ(f.source, NameSource::kSymbolTable);
  EXPECT_EQ(f.start, hidden_.start);
}

TEST_F(FunctionNamesTest, StrippedFileNamedFromItsDebugLinkBesideIt) {
  std::string app = Stripped("app-beside", "app-beside.debug");
  FunctionNames names;
  for (uint64_t address :
       {hidden_.start, hidden_.start + hidden_.size / 2, hidden_.start + hidden_.size - 1}) {
    const FunctionName& f = names.Name(app, address);
    EXPECT_EQ(f.name, "hidden_work") << Hex(address);
    EXPECT_TRUE(f.named);
    EXPECT_EQ(f.source, NameSource::kDebugFile);
    EXPECT_EQ(fs::path(f.debug_file).filename(), "app-beside.debug") << f.debug_file;
    EXPECT_EQ(f.start, hidden_.start);
  }
  // valgrind's "???" changes nothing where the debug file has the symbol.
  EXPECT_EQ(names.Name(app, hidden_.start + 1, "???").name, "hidden_work");
}

TEST_F(FunctionNamesTest, StrippedFileNamedFromItsDebugLinkInDotDebug) {
  std::string app = Stripped("app-dotdebug", ".debug/app-dotdebug.debug");
  FunctionNames names;
  const FunctionName& f = names.Name(app, hidden_.start + hidden_.size / 2);
  EXPECT_EQ(f.name, "hidden_work");
  EXPECT_EQ(f.source, NameSource::kDebugFile);
  EXPECT_NE(f.debug_file.find("/.debug/app-dotdebug.debug"), std::string::npos) << f.debug_file;
}

TEST_F(FunctionNamesTest, WithoutAnySymbolOneFunctionIsOneNameItsStart) {
  std::string app = Stripped("app-bare", "");
  FunctionNames names;
  // Every address of hidden_work: its first byte, past its pushes, its last byte. Each is in
  // another unwind row; all are one function, named by where it starts.
  std::string expected = "app-bare+" + Hex(hidden_.start);
  for (uint64_t address :
       {hidden_.start, hidden_.start + hidden_.size / 2, hidden_.start + hidden_.size - 1}) {
    const FunctionName& f = names.Name(app, address);
    EXPECT_EQ(f.name, expected) << Hex(address);
    EXPECT_FALSE(f.named);
    EXPECT_EQ(f.source, NameSource::kUnwindTable);
    EXPECT_EQ(f.start, hidden_.start);
  }
  // main too: an executable's .dynsym names none of its own functions.
  EXPECT_EQ(names.Name(app, symbols_["main"].start + 4).name,
            "app-bare+" + Hex(symbols_["main"].start));
  // valgrind's name is kept where the file has none.
  EXPECT_EQ(names.Name(app, hidden_.start + 2, "from_valgrind").name, "from_valgrind");
  // A file that cannot be read: module and address.
  EXPECT_EQ(names.Name("/nonexistent/lib.so", 0x1234).name, "lib.so+0x1234");
}

// libc, found by build id under /usr/lib/debug/.build-id where libc6-dbg is installed: its
// static functions (msort_with_tmp, qsort's worker) named, as perf report names them.
TEST_F(FunctionNamesTest, LibcFromBuildIdDebugFile) {
  std::string libc;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    size_t slash = line.find('/');
    if (slash != std::string::npos && line.find("/libc.so.6") != std::string::npos) {
      libc = line.substr(slash);
      break;
    }
  }
  if (libc.empty()) GTEST_SKIP() << "this test is not linked to libc.so.6";
  int status = 0;
  std::string id = Shell("readelf -n " + libc + " | sed -n 's/.*Build ID: //p'", &status);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (status != 0 || id.size() < 3) GTEST_SKIP() << "no build id read from " << libc;
  std::string debug = "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
  if (!fs::exists(debug))
    GTEST_SKIP() << "no debug file for " << libc << " (" << debug
                 << "): install libc6-dbg (Debian) to test names from build-id debug files";
  std::map<std::string, Symbol> debug_symbols = Functions(debug);
  ASSERT_TRUE(debug_symbols.count("msort_with_tmp.part.0") ||
              debug_symbols.count("msort_with_tmp"));
  const Symbol& msort = debug_symbols.count("msort_with_tmp.part.0")
                            ? debug_symbols["msort_with_tmp.part.0"]
                            : debug_symbols["msort_with_tmp"];
  FunctionNames names;
  const FunctionName& f = names.Name(libc, msort.start + msort.size / 2);
  EXPECT_EQ(f.name.rfind("msort_with_tmp", 0), 0u) << f.name;
  EXPECT_EQ(f.source, NameSource::kDebugFile);
  EXPECT_EQ(f.debug_file, debug);
  // Aliases at one address get perf's choice: malloc, not __libc_malloc.
  if (debug_symbols.count("malloc")) {
    EXPECT_EQ(names.Name(libc, debug_symbols["malloc"].start).name, "malloc");
  }
}

// The sim source's split (callgrind's fn= "???" for code valgrind could not name): the debug
// file's name, one slice for the whole function.
TEST_F(FunctionNamesTest, SimSplitTakesTheDebugFilesName) {
  std::string app = Stripped("app-sim", "app-sim.debug");
  std::string text =
      "version: 1\ncreator: rprofsim-1\npart: 1\npositions: instr line\n"
      "events: Ir\nob=(1) " +
      app + "\nfl=(1) ???\nfn=(1) ???\n" + Hex(hidden_.start) + " 0 10\n" +
      Hex(hidden_.start + hidden_.size - 1) + " 0 20\ntotals: 30\n";
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput(text, &out, &err)) << err.message;
  // SplitByFunction splits only outputs that name functions: fn=??? is a name.
  std::vector<FunctionSlice> slices = SplitByFunction(out);
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].name, "hidden_work");
  EXPECT_TRUE(slices[0].named);
  EXPECT_EQ(slices[0].output.sites.size(), 2u);
}

}  // namespace
}  // namespace rprof
