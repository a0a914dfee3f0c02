#include "process/worker_pipe.h"

#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "process/interruption.h"

namespace rprof {

namespace {

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool WriteMessage(int fd, char kind, std::string_view payload) {
  // One write: a message up to PIPE_BUF bytes reaches the pipe whole, so a reader never waits
  // between its header and its payload on a writer that was stopped or killed in between.
  std::string message(5, '\0');
  message[0] = kind;
  uint32_t size = static_cast<uint32_t>(payload.size());
  std::memcpy(message.data() + 1, &size, 4);
  message.append(payload);
  return WriteAll(fd, message.data(), message.size());
}

ReadOutcome ReadMessage(int fd, double timeout_s, size_t max_bytes,
                        const std::function<bool()>& stop, char* kind, std::string* payload) {
  const double deadline = timeout_s > 0 ? Now() + timeout_s : INFINITY;
  char header[5];
  size_t have_header = 0;
  uint32_t size = 0;
  payload->clear();
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    // A message begun is read to its end when the rest is there: stopping halfway would leave
    // the pipe out of step for the next read. Between messages, and while the rest is not
    // there, `stop` and the deadline are looked at first.
    int ready = have_header > 0 ? poll(&p, 1, 0) : 0;
    if (ready <= 0) {
      // Read what is there without blocking past the next look at the clock and `stop`.
      if (stop && stop()) return ReadOutcome::kStopped;
      double now = Now();
      if (now >= deadline) return ReadOutcome::kTimedOut;
      int wait_ms = static_cast<int>(std::ceil(std::min(0.1, deadline - now) * 1000));
      ready = poll(&p, 1, wait_ms);
    }
    if (ready < 0 && errno != EINTR) return ReadOutcome::kClosed;
    if (ready <= 0) continue;
    ssize_t n;
    if (have_header < sizeof header) {
      n = read(fd, header + have_header, sizeof header - have_header);
    } else {
      char buffer[65536];
      n = read(fd, buffer, std::min<size_t>(sizeof buffer, size - payload->size()));
      if (n > 0) payload->append(buffer, static_cast<size_t>(n));
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadOutcome::kClosed;
    if (have_header < sizeof header) {
      have_header += static_cast<size_t>(n);
      if (have_header < sizeof header) continue;
      *kind = header[0];
      std::memcpy(&size, header + 1, 4);
      if (size > max_bytes) return ReadOutcome::kTooLarge;
    }
    if (payload->size() == size) return ReadOutcome::kMessage;
  }
}

std::string WaitStatusText(int wait_status) {
  if (WIFSIGNALED(wait_status)) return "killed by " + SignalName(WTERMSIG(wait_status));
  if (WIFEXITED(wait_status))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  return "ended (wait status " + std::to_string(wait_status) + ")";
}

}  // namespace rprof
