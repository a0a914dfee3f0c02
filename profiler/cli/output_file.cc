#include "cli/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "cli/standard_streams.h"
#include "process/replace_file.h"

namespace rprof {

bool CheckOutputFile(const std::string& option, const std::string& path, Error* err) {
  const std::string what = option + " " + path + ": ";
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return Fail(err, ErrorKind::kEnvironment,
                what + "is a directory; name a file in it (" + path + "/NAME)");
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (stat(dir.c_str(), &st) != 0) {
    int error = errno;
    return Fail(
        err, ErrorKind::kEnvironment,
        what + "directory " + dir +
            (error == ENOENT ? " does not exist" : ": " + std::string(std::strerror(error))) +
            "; create it or write elsewhere");
  }
  if (!S_ISDIR(st.st_mode))
    return Fail(err, ErrorKind::kEnvironment, what + dir + " is not a directory; write elsewhere");
  // An existing file may be writable in a directory that is not (it is replaced in place).
  bool exists = access(path.c_str(), F_OK) == 0;
  if (access(exists ? path.c_str() : dir.c_str(), W_OK) != 0) {
    int error = errno;
    return Fail(err, ErrorKind::kEnvironment,
                what + "cannot write " + (exists ? "it" : "in " + dir) + " (" +
                    std::strerror(error) + "); write elsewhere");
  }
  return true;
}

bool WriteReport(const std::string& report, const std::string& output, ReportStream stream,
                 const std::string& stored, Error* err) {
  if (output.empty() && stream == ReportStream::kStandardError)
    return WriteStandardError(report, err, stored);
  if (output.empty()) {
    std::cout << report;
    return FlushStandardOutput(err, stored);
  }
  // Whole or not at all: a kill or a full disk leaves the previous report as it was.
  Error why;
  if (!ReplaceFile(output, report, &why))
    return Fail(err, ErrorKind::kEnvironment,
                "--output " + output + ": cannot write: " + why.message +
                    "; the file is as it was before; " + stored);
  return true;
}

}  // namespace rprof
