// libFuzzer target for targets/marker_results.h: the file a profiled program writes (untrusted
// input). Any input must parse or fail with an error that names a line ("line N: ..."), without
// crashing, hanging or leaking; parsed results must be self-consistent (one count and one note
// per event in every region, unique names, a region's wall time never above its thread time)
// and turn into metrics that all belong to a parsed region.
//
// `scripts/fuzz 60 marker_results` builds and runs it (tests/fuzz/meson.build); by hand, in a
// build configured with CC=clang CXX=clang++ and -Dfuzzing=true:
//   build-fuzz/tests/fuzz/marker_results_libfuzzer NEW_CORPUS_DIR tests/fuzz/corpus/marker_results
//
// Built with -DRPROF_FUZZ_STANDALONE it is a plain program (for compilers without libFuzzer): it
// runs each file named on the command line (a directory: every file in it; the seeds and inputs
// that once failed) and a deterministic stream of mutations of them, and exits 0 when nothing
// failed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "targets/marker_results.h"

namespace {

void CheckError(const std::string& text, const std::string& err) {
  if (err.rfind("line ", 0) != 0) std::abort();
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  if (std::strtoull(err.c_str() + 5, nullptr, 10) > lines) std::abort();
}

void Check(const std::string& text) {
  rprof::MarkerResults results;
  rprof::Error err;
  if (!rprof::ParseMarkerResults(text, &results, &err)) return CheckError(text, err.message);
  std::set<std::string> events;
  for (const rprof::MarkerEvent& event : results.events)
    if (event.name.empty() || !events.insert(event.name).second) std::abort();
  std::set<std::string> regions;
  for (const rprof::MarkerRegion& region : results.regions) {
    if (region.name.empty() || !regions.insert(region.name).second) std::abort();
    if (region.counts.size() != results.events.size()) std::abort();
    if (region.count_notes.size() != results.events.size()) std::abort();
    if (!(region.seconds >= 0)) std::abort();
    if (region.thread_max_seconds && !(*region.thread_max_seconds <= region.seconds)) std::abort();
    for (size_t e = 0; e < region.counts.size(); ++e) {
      // A count is there, or a note says why not.
      if (region.counts[e] ? !(*region.counts[e] >= 0) : region.count_notes[e].empty())
        std::abort();
    }
  }
  for (const rprof::Metric& metric : rprof::MarkerMetrics(results))
    if (regions.count(metric.region) == 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Check(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}

#ifdef RPROF_FUZZ_STANDALONE
#include "fuzz_replay.h"

// Every seed, then deterministic mutations of them from an alphabet of the format's own pieces.
int main(int argc, char** argv) {
  return rprof::ReplayCorpusMain(argc, argv, "marker_results",
                                 "0123456789.-+e\t\n rprof-markersventgiolbm*okmissing", 20000,
                                 [](const std::string& text) { Check(text); });
}
#endif
