// history --since: every accepted form becomes the UTC text runs are stored under (so the store
// compares it as text), and anything else is refused rather than matching nothing (issue 15:
// `--since yesterday` once returned no runs, silently).
#include "core/since_time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace rprof {
namespace {

// 2026-11-29T14:30:15Z.
constexpr std::time_t kNow = 1795962615;

std::string Since(const std::string& text) {
  std::string utc;
  Error why;
  EXPECT_TRUE(ParseSinceTime(text, kNow, &utc, &why)) << text << ": " << why.message;
  return utc;
}

std::string Refused(const std::string& text) {
  std::string utc;
  Error why;
  EXPECT_FALSE(ParseSinceTime(text, kNow, &utc, &why)) << text << " gave " << utc;
  EXPECT_EQ(why.kind, ErrorKind::kUsage) << text;
  return why.message;
}

TEST(SinceTime, TheClockIsWhatTheTestsSayItIs) {
  std::tm utc{};
  std::time_t now = kNow;
  gmtime_r(&now, &utc);
  EXPECT_EQ(utc.tm_year + 1900, 2026);
  EXPECT_EQ(utc.tm_mon + 1, 11);
  EXPECT_EQ(utc.tm_mday, 29);
  EXPECT_EQ(utc.tm_hour, 14);
}

TEST(SinceTime, IsoDatesAndTimesAreUtcWithoutAnOffset) {
  EXPECT_EQ(Since("2026"), "2026-01-01T00:00:00.000Z");  // a prefix, as --since once took
  EXPECT_EQ(Since("2026-11"), "2026-11-01T00:00:00.000Z");
  EXPECT_EQ(Since("9999"), "9999-01-01T00:00:00.000Z");
  EXPECT_EQ(Since("2026-11-29"), "2026-11-29T00:00:00.000Z");
  EXPECT_EQ(Since("2026-11-29T14:05"), "2026-11-29T14:05:00.000Z");
  EXPECT_EQ(Since("2026-11-29 14:05:09"), "2026-11-29T14:05:09.000Z");
  EXPECT_EQ(Since("2026-11-29T14:05:09.5Z"), "2026-11-29T14:05:09.500Z");
  EXPECT_EQ(Since("2026-11-29T14:05:09.123456"), "2026-11-29T14:05:09.123Z");
}

TEST(SinceTime, AnOffsetIsTurnedIntoUtc) {
  EXPECT_EQ(Since("2026-11-29T14:00+02:00"), "2026-11-29T12:00:00.000Z");
  EXPECT_EQ(Since("2026-11-29T22:00-0500"), "2026-11-30T03:00:00.000Z");
}

TEST(SinceTime, SpansCountBackFromNow) {
  EXPECT_EQ(Since("45s"), "2026-11-29T14:29:30.000Z");
  EXPECT_EQ(Since("30m"), "2026-11-29T14:00:15.000Z");
  EXPECT_EQ(Since("2h"), "2026-11-29T12:30:15.000Z");
  EXPECT_EQ(Since("3d"), "2026-11-26T14:30:15.000Z");
  EXPECT_EQ(Since("1w"), "2026-11-22T14:30:15.000Z");
}

TEST(SinceTime, TodayAndYesterdayStartAtLocalMidnight) {
  // In UTC, local midnight is UTC midnight; elsewhere the same day boundary, shifted.
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(Since("today"), "2026-11-29T00:00:00.000Z");
  EXPECT_EQ(Since("yesterday"), "2026-11-28T00:00:00.000Z");
  setenv("TZ", "JST-9", 1);  // UTC+9, POSIX spelling (no zoneinfo needed): 23:30 there
  tzset();
  EXPECT_EQ(Since("today"), "2026-11-28T15:00:00.000Z");
  unsetenv("TZ");
  tzset();
}

TEST(SinceTime, AnythingElseIsRefused) {
  for (const char* bad :
       {"", "tomorrow", "last week", "2h ago", "2 h", "-2h", "3y", "202", "20261", "2026-1",
        "2026-11T14:00", "29.11.2026", "2026-11-29T14", "2026-11-29X14:00", "2026-11-29T14:00+2"})
    EXPECT_EQ(Refused(bad), "not a time rprof reads") << bad;
}

TEST(SinceTime, ADateOrTimeThatDoesNotExistIsRefused) {
  for (const char* bad : {"2026-02-30", "2026-13-01", "2026-00-10", "2026-11-29T25:00",
                          "2026-11-29T14:60", "2026-11-29T14:00:61"})
    EXPECT_EQ(Refused(bad), "no such date or time") << bad;
  EXPECT_EQ(Refused("2026-11-29T14:00+24:00"), "no such offset from UTC");
}

}  // namespace
}  // namespace rprof
