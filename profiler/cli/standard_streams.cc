#include "cli/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <streambuf>

namespace rprof {

namespace {

// errno of the first write to standard output that failed; 0 while none has.
int g_first_write_errno = 0;

void RecordWriteError() {
  if (g_first_write_errno == 0) g_first_write_errno = errno;
}

// std::cout's buffer: stdio's stdout, written the way sync_with_stdio(true) writes it, each
// failure's errno recorded at once (by the time the command returns, other calls may have
// changed errno).
class StdoutBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    errno = 0;
    if (std::fputc(traits_type::to_char_type(c), stdout) == EOF) {
      RecordWriteError();
      return traits_type::eof();
    }
    return c;
  }
  std::streamsize xsputn(const char* text, std::streamsize size) override {
    errno = 0;
    size_t written = std::fwrite(text, 1, static_cast<size_t>(size), stdout);
    if (written < static_cast<size_t>(size)) RecordWriteError();
    return static_cast<std::streamsize>(written);
  }
  int sync() override {
    errno = 0;
    if (std::fflush(stdout) != EOF) return 0;
    RecordWriteError();
    return -1;
  }
};

const char* StreamName(int fd) {
  return fd == 0 ? "standard input" : fd == 1 ? "standard output" : "standard error";
}

bool WriteFailure(Error* err, const std::string& what_to_do) {
  // 0: a write through printf failed and its reason is gone.
  std::string why = g_first_write_errno ? std::strerror(g_first_write_errno) : "a write failed";
  return Fail(err, ErrorKind::kEnvironment,
              "cannot write the report to standard output: " + why + "; " + what_to_do);
}

}  // namespace

const char kStandardOutputAdvice[] =
    "check where standard output goes (a full disk, a closed descriptor), or send it elsewhere";

bool OpenClosedStandardStreams(Error* err) {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // The lowest free number: `fd` itself, as the ones below it are open by now.
    int opened = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (opened < 0)
      return Fail(err, ErrorKind::kEnvironment,
                  std::string(StreamName(fd)) + " is closed and /dev/null cannot take its place: " +
                      std::strerror(errno) + "; run rprof with its standard streams open");
    if (opened != fd) {
      dup2(opened, fd);
      close(opened);
    }
  }
  return true;
}

void KeepStandardOutputErrors() {
  // Never deleted: std::cout is flushed at exit, after this file's statics are gone.
  static StdoutBuffer* buffer = new StdoutBuffer;
  std::cout.rdbuf(buffer);
}

bool StandardOutputIntact(Error* err, const std::string& what_to_do) {
  if (g_first_write_errno == 0 && !std::ferror(stdout) && std::cout.good()) return true;
  return WriteFailure(err, what_to_do);
}

bool WriteStandardError(const std::string& report, Error* err, const std::string& what_to_do) {
  errno = 0;
  bool written = std::fwrite(report.data(), 1, report.size(), stderr) == report.size();
  written = std::fflush(stderr) != EOF && written;
  if (written) return true;
  std::string why = errno ? std::strerror(errno) : "a write failed";
  return Fail(err, ErrorKind::kEnvironment,
              "cannot write the report to standard error: " + why + "; " + what_to_do);
}

bool FlushStandardOutput(Error* err, const std::string& what_to_do) {
  // std::cout and printf share stdio's buffer; std::cout.flush() alone would skip it once
  // std::cout has failed.
  errno = 0;
  if (std::fflush(stdout) == EOF) RecordWriteError();
  return StandardOutputIntact(err, what_to_do);
}

}  // namespace rprof
