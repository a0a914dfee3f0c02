// What a target hands rprof is untrusted input (issue 26): files it writes
// (core/untrusted_file.h), a plugin's kernel table (targets/plugin_descriptor.h), names that
// end up in XML (report/roofline_svg.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "builtin_kernels.h"
#include "core/run_bounds.h"
#include "core/untrusted_file.h"
#include "gtest/gtest.h"
#include "report/roofline_svg.h"
#include "targets/benchmark_json.h"
#include "targets/marker_results.h"
#include "targets/plugin_descriptor.h"

namespace rprof {
namespace {

class UntrustedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/rprof-untrusted-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(UntrustedFileTest, ReadsARegularFileWhole) {
  std::string path = dir_ + "/f";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_EQ(write(fd, "abc", 3), 3);
  close(fd);
  std::string text;
  Error why;
  EXPECT_EQ(ReadUntrustedFile(path, 10, &text, &why), UntrustedRead::kRead);
  EXPECT_EQ(text, "abc");
  EXPECT_EQ(ReadUntrustedFile(dir_ + "/none", 10, &text, &why), UntrustedRead::kAbsent);
}

TEST_F(UntrustedFileTest, RefusesWhatIsNotABoundedRegularFile) {
  std::string text;
  Error why;
  std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadUntrustedFile(fifo, 10, &text, &why), UntrustedRead::kRefused);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));  // no block
  EXPECT_NE(why.message.find("a FIFO"), std::string::npos) << why.message;
  EXPECT_EQ(why.kind, ErrorKind::kTargetFailed);
  std::string link = dir_ + "/link";
  ASSERT_EQ(symlink("/dev/urandom", link.c_str()), 0);
  EXPECT_EQ(ReadUntrustedFile(link, 10, &text, &why), UntrustedRead::kRefused);
  EXPECT_NE(why.message.find("symbolic link"), std::string::npos) << why.message;
  std::string big = dir_ + "/big";
  int fd = open(big.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_EQ(ftruncate(fd, 11), 0);
  close(fd);
  EXPECT_EQ(ReadUntrustedFile(big, 10, &text, &why), UntrustedRead::kRefused);
  EXPECT_TRUE(text.empty());
}

TEST(QuotedExcerptTest, CutsLongTextAtACharacter) {
  EXPECT_EQ(QuotedExcerpt("abc"), "'abc'");
  std::string long_text(1000, 'x');
  std::string excerpt = QuotedExcerpt(long_text, 10);
  EXPECT_EQ(excerpt, "'xxxxxxxxxx'… (1000 bytes)");
  // "é" is two bytes: a cut between them backs up to before it.
  EXPECT_EQ(QuotedExcerpt("aé", 2), "'a'… (3 bytes)");
}

TEST(CapNoteTest, KeepsANoteUnder64KiB) {
  std::string note(kMaxNoteBytes * 3, 'n');
  CapNote(&note);
  EXPECT_LE(note.size(), kMaxNoteBytes);
  EXPECT_NE(note.find("note cut"), std::string::npos);
  std::string small = "short";
  CapNote(&small);
  EXPECT_EQ(small, "short");
}

TEST(MarkerResultsTest, ManyRegionsParseInLinearTime) {
  std::string text = "rprof-markers\t2\t1\n";
  for (int i = 0; i < 100000; ++i)
    text += "region\tr" + std::to_string(i) + "\t1\t0.5\t0.5\t1\t-\t-\n";
  MarkerResults results;
  Error err;
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  std::vector<Metric> metrics = MarkerMetrics(results);
  // Linear: a quadratic merge took minutes. 5 s, not 1: the sanitized build on a busy 2-core
  // machine took 1.2 s (a bound that catches the quadratic case, not a benchmark).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // A run keeps kMaxRegions of them (core/run_bounds.h), the rest said in one note.
  EXPECT_EQ(results.regions.size(), kMaxRegions);
  ASSERT_FALSE(results.problems.empty());
  EXPECT_NE(results.problems.back().find("90000 region(s) left out past the first 10000"),
            std::string::npos)
      << results.problems.back();
}

TEST(MarkerResultsTest, QuotesAnExcerptOfABadLine) {
  MarkerResults results;
  Error err;
  EXPECT_FALSE(ParseMarkerResults(std::string(1 << 20, 'y'), &results, &err));
  EXPECT_LT(err.message.size(), 500u) << err.message.substr(0, 600);
}

TEST(PluginDescriptorTest, BuiltinTableRoundTrips) {
  const rprof_kernel_set* set = rprof_builtin_kernels();
  std::unique_ptr<PluginDescriptor> d;
  Error err;
  ASSERT_TRUE(DecodeKernelSet(EncodeKernelSet(set), "builtin", &d, &err)) << err.message;
  ASSERT_EQ(d->set().kernel_count, set->kernel_count);
  for (uint32_t i = 0; i < set->kernel_count; ++i) {
    const rprof_kernel& a = set->kernels[i];
    const rprof_kernel& b = d->set().kernels[i];
    EXPECT_STREQ(a.name, b.name);
    EXPECT_STREQ(a.flops_formula, b.flops_formula);
    EXPECT_EQ(a.param_count, b.param_count);
    for (uint32_t p = 0; p < a.param_count; ++p) {
      EXPECT_STREQ(a.params[p].name, b.params[p].name);
      EXPECT_EQ(a.params[p].default_value, b.params[p].default_value);
    }
    EXPECT_EQ(b.run, nullptr);  // the copy describes, it never runs
  }
}

TEST(PluginDescriptorTest, RefusesMalformedTables) {
  rprof_param params[] = {{"n", "", 5, 10, 20}};  // default below its range
  auto noop_setup = [](const rprof_args*, rprof_error*) -> void* { return nullptr; };
  auto noop_run = [](void*) {};
  auto noop_check = [](void*, rprof_error*) { return 1; };
  rprof_kernel k{"k",        "",       RPROF_PRECISION_FP64, params,  1, "n", "n",
                 noop_setup, noop_run, noop_check,           noop_run};
  rprof_kernel_set set{RPROF_KERNEL_ABI_VERSION, "s", &k, 1};
  std::unique_ptr<PluginDescriptor> d;
  Error err;
  EXPECT_FALSE(DecodeKernelSet(EncodeKernelSet(&set), "lib.so", &d, &err));
  EXPECT_NE(err.message.find("outside its range"), std::string::npos) << err.message;
  params[0].min_value = 1;
  k.name = nullptr;
  EXPECT_FALSE(DecodeKernelSet(EncodeKernelSet(&set), "lib.so", &d, &err));
  EXPECT_NE(err.message.find("null name"), std::string::npos) << err.message;
  k.name = "bad name\x1b";
  EXPECT_FALSE(DecodeKernelSet(EncodeKernelSet(&set), "lib.so", &d, &err));
  k.name = "k";
  k.run = nullptr;
  EXPECT_FALSE(DecodeKernelSet(EncodeKernelSet(&set), "lib.so", &d, &err));
  EXPECT_NE(err.message.find("lacks one of its functions"), std::string::npos) << err.message;
  k.run = noop_run;
  EXPECT_TRUE(DecodeKernelSet(EncodeKernelSet(&set), "lib.so", &d, &err)) << err.message;
  EXPECT_FALSE(DecodeKernelSet(EncodeKernelSet(&set).substr(0, 20), "lib.so", &d, &err));
}

TEST(BenchmarkJsonTest, OutOfRangeCountsAndNegativeTimesAreRefused) {
  BenchmarkReport report;
  Error err;
  EXPECT_FALSE(ParseBenchmarkJson(
      R"({"benchmarks": [{"name": "BM_x", "iterations": 1e300, "time_unit": "s"}]})", &report,
      &err));
  EXPECT_NE(err.message.find("iterations"), std::string::npos) << err.message;
  EXPECT_FALSE(ParseBenchmarkJson(
      R"({"benchmarks": [{"name": "BM_x", "iterations": 5, "real_time": -1, "time_unit": "s"}]})",
      &report, &err));
  EXPECT_NE(err.message.find("real_time"), std::string::npos) << err.message;
  EXPECT_FALSE(
      ParseBenchmarkJson(R"({"benchmarks": [{"name": "BM_x", "threads": 0}]})", &report, &err));
}

TEST(XmlEscapeTest, NothingXmlForbidsGetsThrough) {
  EXPECT_EQ(XmlEscape("a<b&\"c'>"), "a&lt;b&amp;&quot;c&#39;&gt;");
  EXPECT_EQ(XmlEscape("x\x1b[31m\x01y"), "x\\x1b[31m\\x01y");
  EXPECT_EQ(XmlEscape("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(XmlEscape("tab\tnl\n"), "tab\tnl\n");
  EXPECT_EQ(XmlEscape("é"), "é");
  EXPECT_EQ(XmlEscape("\xef\xbf\xbe"), "\\ufffe");
}

}  // namespace
}  // namespace rprof
