// Messages between rprof and a worker process it forked to run code it does not trust (a
// plugin's constructors, a kernel): a kind byte, a 32-bit length, then that many bytes. The
// parent reads with a deadline and a bound, so a worker that hangs or floods the pipe cannot
// hold rprof; a worker that dies mid-message reads as a closed pipe.
#ifndef RPROF_PROCESS_WORKER_PIPE_H_
#define RPROF_PROCESS_WORKER_PIPE_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

namespace rprof {

// Writes one message whole; retries on EINTR. False when the other end is gone.
bool WriteMessage(int fd, char kind, std::string_view payload);

enum class ReadOutcome {
  kMessage,   // *kind and *payload hold one message
  kClosed,    // the writer closed the pipe (or died) before a whole message
  kTimedOut,  // nothing whole before the deadline
  kStopped,   // `stop` said so (checked at least every 100 ms)
  kTooLarge,  // a message longer than max_bytes: the pipe is no longer in step
};

// Reads one message from `fd` within `timeout_s` (<= 0: no deadline). `stop`, when given, is
// asked at least every 100 ms and whenever a signal interrupts the wait.
ReadOutcome ReadMessage(int fd, double timeout_s, size_t max_bytes,
                        const std::function<bool()>& stop, char* kind, std::string* payload);

// "killed by SIGSEGV", "exited with status 3": a wait status in words.
std::string WaitStatusText(int wait_status);

}  // namespace rprof

#endif  // RPROF_PROCESS_WORKER_PIPE_H_
