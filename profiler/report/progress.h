// Progress of long work, on standard error: one line, redrawn in place and erased when the
// work ends, so nothing of it stays in the output. Drawn only where someone watches: standard
// error is a terminal and --quiet was not given (QuietProgress). A pipe, a log file or a
// script gets no progress at all. The one helper every long step uses (machine measure's
// ceilings, the sim step's wait).
#ifndef RPROF_REPORT_PROGRESS_H_
#define RPROF_REPORT_PROGRESS_H_

#include <unistd.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace rprof {

// From here on no progress is drawn (--quiet).
void QuietProgress();

class ProgressLine {
 public:
  // Draws on `fd` when it is a terminal and progress is not quiet; else does nothing.
  explicit ProgressLine(int fd = STDERR_FILENO);
  ~ProgressLine();  // erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Replaces the line with `text`, cut to the terminal's width (a line that wrapped could no
  // longer be redrawn in place). Safe to call from any one thread at a time.
  void Show(const std::string& text);
  // Erases the line (a message printed next starts at the line's start).
  void Clear();
  bool drawn() const { return drawn_; }

 private:
  int fd_;
  bool on_terminal_;
  bool drawn_ = false;
};

// The elapsed time of one wait that cannot say how far it is (valgrind running), against what
// it was expected to take: "sim: valgrind running, 3.2 s of about 12 s". Drawn by a thread of
// its own, first after half a second (shorter work shows nothing), then 4 times a second,
// until destroyed.
class ElapsedProgress {
 public:
  ElapsedProgress(std::string what, double expected_s, int fd = STDERR_FILENO);
  ~ElapsedProgress();
  ElapsedProgress(const ElapsedProgress&) = delete;
  ElapsedProgress& operator=(const ElapsedProgress&) = delete;

 private:
  void Draw();

  std::string what_;
  double expected_s_;
  ProgressLine line_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;
};

// An ElapsedProgress as CounterRequest::wait_progress takes it: drawn until the result is
// destroyed.
std::shared_ptr<void> StartElapsedProgress(const std::string& what, double expected_s);

}  // namespace rprof

#endif  // RPROF_REPORT_PROGRESS_H_
