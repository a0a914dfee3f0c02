// libFuzzer target for core/json_reader.h and report/run_from_json.h: the files `rprof import`
// reads (recovery files, runs moved between databases: untrusted input). Any input must parse
// or fail with an error that names its place ("line N, column M: ..."), without crashing,
// hanging or leaking; a parsed document read as runs must give runs or an error that says why,
// and parsing is deterministic.
//
// `scripts/fuzz 60 json_reader` builds and runs it (tests/fuzz/meson.build); by hand, in a build
// configured with CC=clang CXX=clang++ and -Dfuzzing=true:
//   build-fuzz/tests/fuzz/json_reader_libfuzzer NEW_CORPUS_DIR tests/fuzz/corpus/json_reader
//
// Built with -DRPROF_FUZZ_STANDALONE it is a plain program (for compilers without libFuzzer): it
// runs each file named on the command line (a directory: every file in it) and a deterministic
// stream of mutations of them, and exits 0 when nothing failed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_reader.h"
#include "report/run_from_json.h"

namespace {

// The depth of the deepest array or object in `value`.
int Depth(const rprof::JsonValue& value) {
  int deepest = 0;
  for (const rprof::JsonValue& item : value.items()) deepest = std::max(deepest, Depth(item));
  for (const auto& [key, member] : value.members()) deepest = std::max(deepest, Depth(member));
  return value.is_array() || value.is_object() ? deepest + 1 : 0;
}

void Check(std::string_view text) {
  rprof::JsonValue value;
  rprof::Error err;
  if (!rprof::ParseJson(text, &value, &err)) {
    const std::string& why = err.message;
    if (why.rfind("line ", 0) != 0 || why.find(", column ") == std::string::npos) std::abort();
  } else {
    if (Depth(value) > rprof::kJsonMaxDepth) std::abort();
    rprof::JsonValue again;
    rprof::Error err2;
    if (!rprof::ParseJson(text, &again, &err2) || again.type() != value.type()) std::abort();
  }
  // What import does with the same bytes: runs, or a reason.
  std::vector<rprof::RunRecord> runs;
  rprof::Error why;
  bool read = rprof::RunsFromJsonText(text, &runs, &why);
  if (!read && why.message.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

#ifdef RPROF_FUZZ_STANDALONE
#include "fuzz_replay.h"

// Every seed, then deterministic mutations of them from JSON's own alphabet.
int main(int argc, char** argv) {
  return rprof::ReplayCorpusMain(argc, argv, "json_reader",
                                 "{}[]:,\"\\ntrufalse0123456789.-+eE \xc3\xa9\xff", 20000,
                                 [](const std::string& text) { Check(text); });
}
#endif
