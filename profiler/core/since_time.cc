#include "core/since_time.h"

#include <cstdio>
#include <cstdlib>
#include <regex>

namespace rprof {

namespace {

std::string IsoUtc(std::time_t t, int millis) {
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[96];  // room for any int in every field, as the compiler counts
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  return text;
}

// Local midnight `days_back` days before the day of `now`.
std::time_t LocalMidnight(std::time_t now, int days_back) {
  std::tm local{};
  localtime_r(&now, &local);
  local.tm_mday -= days_back;
  local.tm_hour = local.tm_min = local.tm_sec = 0;
  local.tm_isdst = -1;  // whatever daylight saving time says on that day
  return std::mktime(&local);
}

int Number(const std::ssub_match& m) { return m.matched ? std::atoi(m.str().c_str()) : 0; }

}  // namespace

bool ParseSinceTime(const std::string& text, std::time_t now, std::string* utc, Error* why) {
  if (text == "today" || text == "yesterday") {
    *utc = IsoUtc(LocalMidnight(now, text == "today" ? 0 : 1), 0);
    return true;
  }
  static const std::regex span(R"(([0-9]{1,6})([smhdw]))");
  static const std::regex iso(R"(([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?)"
                              R"((?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?)?)"
                              R"((Z|[+-][0-9]{2}:?[0-9]{2})?)");
  std::smatch m;
  if (std::regex_match(text, m, span)) {
    long long seconds_per = 1;
    switch (m[2].str()[0]) {
      case 'm':
        seconds_per = 60;
        break;
      case 'h':
        seconds_per = 3600;
        break;
      case 'd':
        seconds_per = 86400;
        break;
      case 'w':
        seconds_per = 7 * 86400;
        break;
    }
    *utc = IsoUtc(now - static_cast<std::time_t>(std::atoll(m[1].str().c_str()) * seconds_per), 0);
    return true;
  }
  if (!std::regex_match(text, m, iso)) {
    return Fail(why, ErrorKind::kUsage, "not a time rprof reads");
  }
  // A time needs the whole date before it (2026-11T14:00 says nothing).
  if (m[4].matched && !m[3].matched) {
    return Fail(why, ErrorKind::kUsage, "not a time rprof reads");
  }
  std::tm fields{};
  fields.tm_year = Number(m[1]) - 1900;
  fields.tm_mon = m[2].matched ? Number(m[2]) - 1 : 0;  // 2026 is 2026-01-01, as ISO reads it
  fields.tm_mday = m[3].matched ? Number(m[3]) : 1;
  fields.tm_hour = Number(m[4]);
  fields.tm_min = Number(m[5]);
  fields.tm_sec = Number(m[6]);
  std::tm normalised = fields;
  std::time_t t = timegm(&normalised);
  // timegm rolls 2026-02-30 over into March: a date or time that does not exist is refused.
  if (normalised.tm_mday != fields.tm_mday || normalised.tm_mon != fields.tm_mon ||
      normalised.tm_hour != fields.tm_hour || normalised.tm_min != fields.tm_min ||
      normalised.tm_sec != fields.tm_sec) {
    return Fail(why, ErrorKind::kUsage, "no such date or time");
  }
  std::string zone = m[8].str();
  if (!zone.empty() && zone != "Z") {
    int hours = std::atoi(zone.substr(1, 2).c_str());
    int minutes = std::atoi(zone.substr(zone.size() - 2).c_str());
    if (hours > 23 || minutes > 59) {
      return Fail(why, ErrorKind::kUsage, "no such offset from UTC");
    }
    int offset = (hours * 3600 + minutes * 60) * (zone[0] == '-' ? -1 : 1);
    t -= offset;  // 14:00+02:00 is 12:00 UTC
  }
  std::string fraction = (m[7].str() + "000").substr(0, 3);
  *utc = IsoUtc(t, std::atoi(fraction.c_str()));
  return true;
}

}  // namespace rprof
