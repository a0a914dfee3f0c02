// A child's standard error passed through to rprof's own as it is written (or, for a child whose
// output the user has seen once already, only kept), its last bytes kept either way: a replay
// that fails says why in the run's note with the program's own last words.
//
//   OutputTail tail;
//   if (!tail.Open(&why)) ...                 // before fork
//   pid_t pid = fork();
//   if (pid == 0) { tail.AttachChild(); execve(...); }
//   tail.Start();                              // in the parent
//   ... wait for the child ...
//   std::string last = tail.Finish();
#ifndef RPROF_PROCESS_OUTPUT_TAIL_H_
#define RPROF_PROCESS_OUTPUT_TAIL_H_

#include <cstddef>
#include <string>
#include <thread>

#include "core/error.h"

namespace rprof {

class OutputTail {
 public:
  // `pass_through`: copied to rprof's standard error as it comes; else only its tail is kept.
  explicit OutputTail(size_t keep_bytes, bool pass_through = true)
      : keep_(keep_bytes), pass_through_(pass_through) {}
  ~OutputTail();
  OutputTail(const OutputTail&) = delete;
  OutputTail& operator=(const OutputTail&) = delete;

  // Before fork: the pipe the child will write into. False with *err (kEnvironment) when it
  // cannot be made.
  [[nodiscard]] bool Open(Error* err);
  // In the child, between fork and exec: its standard error becomes the pipe.
  // Async-signal-safe.
  void AttachChild() const;
  // In the parent after fork: copies the pipe to standard error on a thread of its own, so a
  // child writing much never blocks on a full pipe.
  void Start();
  // After the child ended: copies what is still in the pipe (not waiting for a process the
  // child left behind that holds it open) and returns the last keep_bytes written, cut at a
  // line start where one is near, invalid UTF-8 at the cut dropped.
  std::string Finish();

 private:
  void Copy();

  size_t keep_;
  bool pass_through_;
  int read_fd_ = -1, write_fd_ = -1, stop_read_ = -1, stop_write_ = -1;
  std::thread copier_;
  std::string tail_;
  bool cut_ = false;  // bytes before tail_ were dropped: its start may be mid-line
};

}  // namespace rprof

#endif  // RPROF_PROCESS_OUTPUT_TAIL_H_
