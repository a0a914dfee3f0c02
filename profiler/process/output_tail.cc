#include "process/output_tail.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rprof {

namespace {

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

void WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t put = write(fd, data, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return;  // standard error gone: the tail is still kept
    data += put;
    n -= static_cast<size_t>(put);
  }
}

}  // namespace

OutputTail::~OutputTail() {
  if (copier_.joinable()) Finish();
  CloseFd(&read_fd_);
  CloseFd(&write_fd_);
  CloseFd(&stop_read_);
  CloseFd(&stop_write_);
}

bool OutputTail::Open(Error* err) {
  int data[2], stop[2];
  if (pipe2(data, O_CLOEXEC) != 0) {
    Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
    return false;
  }
  if (pipe2(stop, O_CLOEXEC) != 0) {
    Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
    close(data[0]);
    close(data[1]);
    return false;
  }
  read_fd_ = data[0];
  write_fd_ = data[1];
  stop_read_ = stop[0];
  stop_write_ = stop[1];
  return true;
}

void OutputTail::AttachChild() const {
  if (write_fd_ >= 0) dup2(write_fd_, STDERR_FILENO);  // dup2 clears O_CLOEXEC on the copy
}

void OutputTail::Start() {
  CloseFd(&write_fd_);  // the child holds its own copy: EOF comes when it (and its heirs) end
  if (read_fd_ >= 0) copier_ = std::thread([this] { Copy(); });
}

void OutputTail::Copy() {
  char buf[4096];
  bool stopping = false;
  for (;;) {
    pollfd fds[2] = {{read_fd_, POLLIN, 0}, {stop_read_, POLLIN, 0}};
    // Once asked to stop: only what is already in the pipe.
    int ready = poll(fds, stopping ? 1 : 2, stopping ? 0 : -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return;
    if (!stopping && (fds[1].revents & (POLLIN | POLLHUP))) stopping = true;
    if (!(fds[0].revents & (POLLIN | POLLHUP))) {
      if (stopping) continue;
      return;
    }
    ssize_t got = read(read_fd_, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;  // EOF: every writer is gone
    if (pass_through_) WriteAll(STDERR_FILENO, buf, static_cast<size_t>(got));
    tail_.append(buf, static_cast<size_t>(got));
    if (tail_.size() > 2 * keep_) {
      tail_.erase(0, tail_.size() - keep_);
      cut_ = true;
    }
  }
}

std::string OutputTail::Finish() {
  if (copier_.joinable()) {
    char one = 1;
    (void)!write(stop_write_, &one, 1);
    copier_.join();
  }
  CloseFd(&read_fd_);
  std::string text = tail_.size() > keep_ ? tail_.substr(tail_.size() - keep_) : tail_;
  if (cut_ || text.size() < tail_.size()) {
    // Cut where a line starts, when one starts in the first half; else after any UTF-8
    // continuation bytes the cut split.
    size_t newline = text.find('\n');
    if (newline != std::string::npos && newline < text.size() / 2) {
      text.erase(0, newline + 1);
    } else {
      size_t skip = 0;
      while (skip < text.size() && (static_cast<unsigned char>(text[skip]) & 0xC0) == 0x80) ++skip;
      text.erase(0, skip);
    }
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace rprof
