// Reader for callgrind output files ("Callgrind Format Specification", version 1) as written by
// `valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes`: the self cost of every executed
// instruction address in every object file, plus the simulated cache geometry.
//
// What is read:
//   - header lines `key: value` (version, creator, pid, cmd, part, thread, desc, positions,
//     events, event, summary, totals); unknown keys are ignored for forward compatibility;
//   - position specifications ob= fl= fi= fe= fn= cob= cfi= cfl= cfn= jfi= jfn= frfn= with name
//     compression: "(id) name" defines id, "(id)" refers back to it. Ids live in three spaces
//     (objects: ob/cob; files: fl/fi/fe/cfi/cfl/jfi; functions: fn/cfn/jfn/frfn) and stay valid
//     for the whole file, across parts;
//   - cost lines: one subposition per `positions:` entry (absolute "0x1a2b" or "42", relative
//     "+N" / "-N", or "*" = same as before), then up to one count per `events:` entry (missing
//     trailing counts are 0);
//   - calls=, jump= and jcnd= lines. The cost line after calls= is the *inclusive* cost of the
//     callee, already counted as self cost where the callee's instructions ran: it is skipped, so
//     nothing is counted twice. Like callgrind's writer (dump.c, fprint_jcc), the positions in a
//     call/jump line and in the line after it do not move the base of relative positions.
//
// Cost lines with the same (object, instruction address) are summed: callgrind writes one line
// per address per basic block and context, so an instruction reached from two blocks, two
// callers or two parts appears more than once.
#ifndef RPROF_COUNTERS_SIM_CALLGRIND_OUTPUT_H_
#define RPROF_COUNTERS_SIM_CALLGRIND_OUTPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace rprof {

// One simulated cache as callgrind describes it, e.g.
// "desc: D1 cache: 32768 B, 64 B, 8-way associative".
struct CacheLevelGeometry {
  uint64_t size_bytes = 0;
  uint32_t line_bytes = 0;
  uint32_t associativity = 0;  // ways; 1 = direct-mapped; 0 = fully associative
};

// The simulated hierarchy; a level is absent when the file does not describe it (no
// --cache-sim=yes, or an older format).
struct CacheGeometry {
  std::optional<CacheLevelGeometry> i1;
  std::optional<CacheLevelGeometry> d1;
  std::optional<CacheLevelGeometry> ll;  // last level ("LL", older files say "L2")
  // rprofsim's hierarchy, every data level from L1D down ("desc: D<k> cache:"), with each level's
  // inclusion policy ("desc: D<k> policy:"); empty in callgrind's files.
  std::vector<CacheLevelGeometry> levels;
  std::vector<std::string> policies;
  std::string prefetch;  // "desc: Prefetch:" ("none", "next-line", "stride"); rprofsim only
};

// Parses the text after "I1 cache:" ("32768 B, 64 B, 8-way associative", "... direct-mapped",
// "... fully associative"). Returns nullopt when it does not have that shape.
std::optional<CacheLevelGeometry> ParseCacheDescription(std::string_view text);

// An executed instruction: object file index and address as callgrind printed it (for code with
// debug info the link-time virtual address inside the object, see object_code.h).
struct InstructionSite {
  uint32_t object = 0;  // index into CallgrindOutput::objects
  uint64_t address = 0;

  friend bool operator==(const InstructionSite&, const InstructionSite&) = default;
};

// Where an instruction's code came from, as the file said (fn=, fl=/fi=/fe= and a line
// subposition): indexes into CallgrindOutput::functions and ::files.
struct SiteSource {
  static constexpr uint32_t kUnnamed = UINT32_MAX;  // the file named none
  uint32_t function = kUnnamed;
  uint32_t file = kUnnamed;
  uint32_t line = 0;  // 0: unknown
};

// The parsed content of one or more callgrind output files.
struct CallgrindOutput {
  // Event names in the column order of `costs` ("Ir", "Dr", "Dw", "I1mr", "D1mr", ...). When
  // parts or files list different events the columns are the union, in order of appearance.
  std::vector<std::string> events;

  // Object file names as ob= gave them (absolute paths for mapped files, "???" when callgrind did
  // not know). Cost lines before any ob= line belong to the object named "".
  std::vector<std::string> objects;

  // Every (object, address) with self cost, sorted by object then address, each once.
  std::vector<InstructionSite> sites;
  // Self costs, row-major: costs[i * events.size() + e] is event e at sites[i].
  std::vector<uint64_t> costs;

  // Function names (fn=) and source files (fl=, fi=, fe=) as written ("???" where valgrind had
  // none), each once; site_sources[i] says which are sites[i]'s. callgrind writes them always,
  // rprofsim with --rprofsim-functions=yes; without them every site is kUnnamed.
  std::vector<std::string> functions;
  std::vector<std::string> files;
  std::vector<SiteSource> site_sources;  // parallel to `sites`

  // Sum of every self cost line (equals the sum of `costs` per column).
  std::vector<uint64_t> self_totals;
  // Sum of the totals: lines; nullopt unless every part had one (a file whose writer was killed
  // has none). When present it is checked against the cost lines while parsing.
  std::optional<std::vector<uint64_t>> totals;

  CacheGeometry cache;               // from the first part that describes it
  bool has_instr_positions = false;  // `positions:` listed instr in every part with costs
  bool has_line_positions = false;
  std::string creator;                // "callgrind-3.19.0"
  std::string command;                // cmd: line of the first part
  std::vector<int64_t> pids;          // pid: lines, one per file
  std::vector<std::string> triggers;  // "desc: Trigger:" per part ("Program termination", ...)
  // rprofsim's "desc: Region thread:" per region part: the thread whose share of the region it
  // is and whether that thread opened the region ("3 entered", "4 did not enter").
  std::vector<std::string> region_threads;
  int parts = 0;  // parts read over all files

  // Column of an event, or -1 when the file did not list it.
  int EventIndex(std::string_view name) const;
  // Self cost of event column `event` at site index `site`; 0 when event < 0.
  uint64_t Cost(size_t site, int event) const {
    return event < 0 ? 0 : costs[site * events.size() + static_cast<size_t>(event)];
  }

  // A part of `whole` (a function's sites, a line's): its events, objects and geometry, no
  // sites yet. Not the run's function and file names: SimAnalyzer needs none, and a program of
  // thousands of functions (libpython) would copy them thousands of times.
  static CallgrindOutput PartOf(const CallgrindOutput& whole);
  // Appends `from`'s site `site` with its costs, added to self_totals (same events as `from`).
  void AddSite(const CallgrindOutput& from, size_t site);
};

// Parses one callgrind output text into *out (replacing its content). On malformed input returns
// false and sets *err (environment) to "line N: <what is wrong>"; *out is then unspecified.
[[nodiscard]] bool ParseCallgrindOutput(std::string_view text, CallgrindOutput* out, Error* err);

// Reads and parses the files (a run may leave several: one per dump and per forked process) and
// merges them into *out as if they were parts of one file. Errors name the path and line:
// "<path>:N: <what is wrong>", or "<path>: <errno text>" when it cannot be read.
[[nodiscard]] bool ReadCallgrindOutputFiles(const std::vector<std::string>& paths,
                                            CallgrindOutput* out, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_CALLGRIND_OUTPUT_H_
