// Runs a program under valgrind's callgrind with the cache simulator and per-instruction output,
// for the sim counter source, or under rprofsim, rprof's own tool (CallgrindOptions::simtool),
// which writes the same format with a write-back hierarchy of every level:
//
//   valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes --collect-atstart=no
//            --callgrind-out-file=<dir>/callgrind.out.%p --log-file=<dir>/valgrind.%p.log
//            [extra args] -- argv...
//
// Collection starts off: the program (or the kernel runner, or the marker library) switches it on
// around the measured region with CALLGRIND_TOGGLE_COLLECT. The program's stdin, stdout and stderr
// are passed through; valgrind's own messages go to the log file, which is read afterwards to
// explain failures (an instruction valgrind cannot execute, such as AVX-512, which valgrind 3.19
// does not support).
//
// Under rprofsim: valgrind --tool=rprofsim --collect-atstart=no
//   --rprofsim-out-file=<dir>/rprofsim.out.%p --log-file=<dir>/valgrind.%p.log [extra] -- argv,
// with VALGRIND_LIB set to <dir>/vglib (simtool_location.h). It keeps regions apart itself: the
// whole run in rprofsim.out.<pid>, each marker region in rprofsim.out.<pid>.region<N>.
#ifndef RPROF_COUNTERS_SIM_CALLGRIND_RUNNER_H_
#define RPROF_COUNTERS_SIM_CALLGRIND_RUNNER_H_

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace rprof {

struct CallgrindOptions {
  // The valgrind executable; empty: the first "valgrind" on PATH.
  std::string valgrind;
  // rprofsim's path (SimtoolPath()); empty: callgrind. The extra arguments must then be
  // rprofsim's (--cache=..., --sim-prefetch=...).
  std::string simtool;
  // Directory for the outputs; empty: a new one inside rprof's scratch directory. An
  // existing directory should be empty: every callgrind.out.* in it is taken as this run's. The
  // caller owns it afterwards (RemoveCallgrindRun deletes what a run wrote).
  std::string output_dir;
  // Appended to valgrind's options, e.g. {"--D1=32768,8,64", "--LL=33554432,16,64"} to simulate
  // another hierarchy, {"--simulate-wb=yes"} to count dirty LL evictions.
  std::vector<std::string> extra_valgrind_args;
  // Set in the child's environment (added, or replacing an inherited value).
  std::vector<std::pair<std::string, std::string>> env;
  // Wall-clock limit in seconds; 0 = none. Past it valgrind and the program are stopped
  // (SIGTERM, then SIGKILL) and the run fails with an error saying so. An interrupted rprof
  // stops it the same way (see process/child_process.h).
  double timeout_s = 0;
  // The program's standard output to /dev/null and its standard error kept only for the
  // failure note (ReplayFailure): a replay of what the user ran already (a program's second
  // execution, a Google Benchmark binary's table and context of one short loop under
  // valgrind) prints nothing a second time.
  bool discard_output = false;
};

// How much of the end of a run's standard error CallgrindRun keeps.
inline constexpr size_t kOutputTailBytes = 320;

struct CallgrindRun {
  std::string output_dir;
  std::string simtool_lib;  // the VALGRIND_LIB folder made for rprofsim; empty under callgrind
  // Callgrind outputs of the program's process, sorted: the final dump, plus one per
  // CALLGRIND_DUMP_STATS (callgrind.out.<pid>.<n>). Each dump zeroes the counters, so these add up.
  std::vector<std::string> output_files;
  // Files of marker regions, each named by its "desc: Trigger: Client Request:
  // rprof-region:<name>". callgrind: output_files again (its dumps at region ends, which add up
  // to the run); rprofsim: files apart, not part of output_files (regions may overlap).
  std::vector<std::string> region_output_files;
  // Outputs of processes the program forked. Not to be added to output_files: callgrind copies its
  // counters into a forked child, so a child's output repeats the parent's costs up to the fork.
  std::vector<std::string> child_output_files;
  std::vector<std::string> log_files;  // valgrind's messages, one per process
  std::string log_tail;  // their last lines, when the program did not exit with status 0
  // valgrind's own fatal complaint in its logs (an internal error, out of memory, too many
  // threads), its first line; "" when there is none. The program's counts are then not its own.
  std::string valgrind_error;
  // The last lines the program wrote to its standard error (passed through as it ran), at most
  // kOutputTailBytes; "" when it wrote nothing.
  std::string output_tail;
  std::vector<std::string> command;  // what was executed: valgrind and all its arguments
  bool exited = false;  // true: exit_code is valid; false: term_signal is (or it timed out)
  int exit_code = -1;   // the program's exit status (valgrind passes it on)
  int term_signal = 0;  // the signal that ended it (valgrind re-raises the program's)
  bool timed_out = false;
  bool interrupted = false;  // rprof got SIGINT/SIGTERM/SIGHUP while it ran: stopped
  double wall_s = 0;         // wall time of the whole valgrind run [s]
};

// Runs argv (argv[0] is looked up on PATH when it has no '/') under callgrind and waits for it.
// Returns true when valgrind ran the program to its end and wrote output, whatever the program's
// exit status (see *out). Returns false and sets *err when
//   - valgrind is missing ("valgrind not found: install the Debian package valgrind
//     (apt-get install valgrind)"), the program is missing, or fork/exec fails;
//   - valgrind stopped on an instruction it cannot execute (the error names the bytes and, for
//     EVEX-encoded AVX-512, explains that sim runs need the AVX2 build);
//   - the run timed out or rprof was interrupted, or valgrind wrote no callgrind output (for
//   example because the program
//     exec'd another program, which valgrind does not follow without --trace-children=yes).
// *out is filled as far as the run got in every case (paths, status, wall time).
[[nodiscard]] bool RunUnderCallgrind(const std::vector<std::string>& argv,
                                     const CallgrindOptions& opts, CallgrindRun* out, Error* err);

// The path of the first executable `name` on $PATH (or `name` itself when it contains a '/' and
// is executable); empty when there is none.
std::string FindExecutable(const std::string& name);

// Deletes the files a run wrote and its output directory (when empty afterwards). Returns false
// with *err naming the first file it could not remove.
[[nodiscard]] bool RemoveCallgrindRun(const CallgrindRun& run, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_CALLGRIND_RUNNER_H_
