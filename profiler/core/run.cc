#include "core/run.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

#include "core/closed_list.h"

namespace rprof {

const char* RunStatusName(RunStatus status) {
  for (const RunStatusInfo& s : kRunStatuses)
    if (s.status == status) return s.name;
  return "?";
}

std::optional<RunStatus> ParseRunStatus(const std::string& name) {
  return ParseIn<&RunStatusInfo::status>(kRunStatuses, name);
}

std::string RunStatusChoices() { return ChoicesIn(kRunStatuses); }

std::string SourceAbsentNote(Source source, const std::string& reason) {
  return std::string(SourceName(source)) + " counts absent: " + reason;
}

bool SourceWasAbsent(const RunRecord& run, Source source) {
  return run.note.find(SourceAbsentNote(source, "")) != std::string::npos;
}

bool IsPythonRun(const RunRecord& run) {
  auto ends_with = [](const std::string& text, std::string_view end) {
    return text.size() >= end.size() &&
           text.compare(text.size() - end.size(), end.size(), end) == 0;
  };
  if (ends_with(run.target, ".py")) return true;
  if (run.command.empty()) return false;
  const std::string& program = run.command.front();
  std::string base = program.substr(program.rfind('/') + 1);
  return base.rfind("python", 0) == 0;
}

std::string UtcNow() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

std::string NewRunUid() {
  // random_device reads the kernel's entropy: two processes started in the same nanosecond
  // still differ.
  std::random_device random;
  std::string uid;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(random()));
    uid += part;
  }
  return uid;
}

bool IsRunUid(const std::string& text) {
  if (text.size() != 32) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace rprof
