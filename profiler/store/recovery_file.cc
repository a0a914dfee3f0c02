#include "store/recovery_file.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "process/replace_file.h"

namespace rprof {

namespace fs = std::filesystem;

namespace {

// A file name from any text: letters, digits, '.', '-' and '_' kept, the rest made '-'.
std::string FileNamePart(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool plain = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 c == '.' || c == '-' || c == '_';
    out += plain ? c : '-';
  }
  return out;
}

}  // namespace

std::string RecoveryDirectory() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  std::string state_home = xdg && *xdg     ? std::string(xdg)
                           : home && *home ? std::string(home) + "/.local/state"
                                           : std::string(".");
  return state_home + "/rprof/recovered";
}

bool WriteRecoveryFile(const RunRecord& run, std::string_view json, std::string* path, Error* err) {
  std::string dir = RecoveryDirectory();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Fail(err, ErrorKind::kEnvironment, "cannot create " + dir + ": " + ec.message());
  std::string uid = run.uid.empty() ? NewRunUid() : run.uid;
  *path = dir + "/run-" + FileNamePart(run.started_at) + "-" + FileNamePart(uid) + ".json";
  std::string text = std::string(json);
  if (text.empty() || text.back() != '\n') text += '\n';
  // After a crash the file is whole or absent, never empty (process/replace_file.h).
  Error why;
  if (!ReplaceFile(*path, text, &why))
    return Fail(err, ErrorKind::kEnvironment, "cannot write " + *path + ": " + why.message);
  return true;
}

bool InRecoveryDirectory(const std::string& path) {
  std::error_code ec;
  fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return false;
  fs::path dir = fs::weakly_canonical(fs::absolute(RecoveryDirectory(), ec), ec);
  return !ec && file.parent_path() == dir;
}

}  // namespace rprof
