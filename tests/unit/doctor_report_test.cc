// doctor's screen (report/doctor_report.h): for people a check a row, its fix on the row beneath
// and the verdict as a sentence; for scripts the checks with a null remedy where there is none,
// and the verdict beside them.
#include "report/doctor_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/output_format.h"
#include "report/render.h"

namespace rprof {
namespace {

std::vector<DoctorCheck> TwoChecks() {
  return {{"gnuplot", CheckStatus::kOk, "on PATH", ""},
          {"rdpmc", CheckStatus::kMissing, "no rdpmc", "see pmu"}};
}

TEST(CheckStatusName, NamesEachStatus) {
  EXPECT_STREQ(CheckStatusName(CheckStatus::kOk), "ok");
  EXPECT_STREQ(CheckStatusName(CheckStatus::kLimited), "limited");
  EXPECT_STREQ(CheckStatusName(CheckStatus::kMissing), "missing");
}

TEST(ChecksReport, TextPutsTheFixBeneathItsCheckThenTheVerdict) {
  EXPECT_EQ(Render(ChecksReport(TwoChecks(), false, "rprof cannot do its basic job here: no x"),
                   OutputFormat::kTable),
            "check    status   detail\n"
            "gnuplot  ok       on PATH\n"
            "rdpmc    missing  no rdpmc\n"
            "                  fix: see pmu\n"
            "\n"
            "rprof cannot do its basic job here: no x.\n");
}

// CSV is the checks alone: the verdict is the exit status's to tell.
TEST(ChecksReport, CsvHasEveryColumnAndAnEmptyRemedy) {
  EXPECT_EQ(Render(ChecksReport(TwoChecks(), false, "rprof cannot do its basic job here: no x"),
                   OutputFormat::kCsv),
            "name,status,detail,remedy\n"
            "gnuplot,ok,on PATH,\n"
            "rdpmc,missing,no rdpmc,see pmu\n");
}

TEST(ChecksReport, JsonHasTheChecksANullRemedyAndTheVerdict) {
  EXPECT_EQ(
      Render(ChecksReport(TwoChecks(), true, "rprof can do its job here: y"), OutputFormat::kJson),
      "{\"checks\":["
      "{\"name\":\"gnuplot\",\"status\":\"ok\",\"detail\":\"on PATH\",\"remedy\":null},"
      "{\"name\":\"rdpmc\",\"status\":\"missing\",\"detail\":\"no rdpmc\",\"remedy\":\"see pmu\"}],"
      "\"basic_job\":true,\"verdict\":\"rprof can do its job here: y\"}\n");
}

}  // namespace
}  // namespace rprof
