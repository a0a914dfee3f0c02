// libFuzzer target for counters/sim/callgrind_output.h: any input must parse or fail with an error
// that names a line ("line N: ..."), without crashing, hanging or leaking; a parsed output must be
// self-consistent (sorted unique sites, cost rows that sum to self_totals, totals that agree).
//
// `scripts/fuzz 60 callgrind_output` builds and runs it (tests/fuzz/meson.build); by hand:
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I profiler
//       tests/fuzz/callgrind_output_fuzz.cc profiler/counters/sim/callgrind_output.cc
//       -o callgrind_output_fuzz
//   ./callgrind_output_fuzz -max_len=4096 -max_total_time=60
// (one command line; Debian: clang-14 and libclang-rt-14-dev give -fsanitize=fuzzer)
//
// Built with -DRPROF_FUZZ_STANDALONE it is a plain program (for compilers without libFuzzer):
// it runs each file named on the command line (a directory: every file in it), then a built-in
// corpus and a deterministic stream of mutations of it, and exits 0 when nothing failed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "counters/sim/callgrind_output.h"

namespace {

void Check(std::string_view text) {
  rprof::CallgrindOutput out;
  rprof::Error err;
  if (!rprof::ParseCallgrindOutput(text, &out, &err)) {
    if (err.message.rfind("line ", 0) != 0) std::abort();
    size_t lines = 1;
    for (char c : text) lines += c == '\n';
    if (std::strtoull(err.message.c_str() + 5, nullptr, 10) > lines) std::abort();
    return;
  }
  size_t stride = out.events.size();
  if (out.costs.size() != out.sites.size() * stride) std::abort();
  if (out.self_totals.size() != stride) std::abort();
  std::vector<uint64_t> sums(stride, 0);
  for (size_t i = 0; i < out.sites.size(); ++i) {
    if (out.sites[i].object >= out.objects.size()) std::abort();
    if (i > 0) {
      const auto& a = out.sites[i - 1];
      const auto& b = out.sites[i];
      if (!(a.object < b.object || (a.object == b.object && a.address < b.address))) std::abort();
    }
    for (size_t e = 0; e < stride; ++e) sums[e] += out.costs[i * stride + e];
  }
  if (sums != out.self_totals) std::abort();
  if (out.totals && *out.totals != out.self_totals) std::abort();
  for (size_t e = 0; e < stride; ++e) {
    if (out.EventIndex(out.events[e]) != static_cast<int>(e)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

#ifdef RPROF_FUZZ_STANDALONE
#include <iostream>

#include "fuzz_replay.h"

int main(int argc, char** argv) {
  std::vector<std::string> replayed;  // tests/fuzz/corpus/NAME/: seeds, inputs that once failed
  if (!rprof::ReadReplayInputs(argc, argv, &replayed)) return 2;
  for (const std::string& text : replayed) Check(text);
  const std::string sample =
      "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 4808\ncmd:  ./t 1000\n"
      "part: 1\n\ndesc: I1 cache: 32768 B, 64 B, 8-way associative\n"
      "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
      "desc: LL cache: 268435456 B, 64 B, direct-mapped\n\ndesc: Trigger: Program termination\n"
      "\npositions: instr line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 0\n\n"
      "ob=(1) /lib/ld.so\nfl=(1) ???\nfn=(0) 0x1ab70\ncob=(5) /tmp/t\ncfi=(139) ???\n"
      "cfn=(502) (below main)\ncalls=1 0x12f0 0 \n0x1abaa 0 6017 2002 1007 3 1 17 3 1\n\n"
      "ob=(5)\nfl=(139)\nfn=(536) main\n0x11ac 0 1 0 1\n+5 0 1 1\n+20 0 1\n+3 0 1 1\n"
      "jcnd=1/1 +26 0\n* 0\n+5 0 1 1\n+6 0 1 0 1\n-11 0 999 999\n+5 0 999 999\n"
      "+6 0 999 0 999 0 0 16\njump=1 0x11ac 0\n* 0\n\ntotals: 3003 2001 1001 0 0 16\n"
      "part: 2\nevents: Ir Bc\nob=(5)\n0x10 1 2\n";
  const char* corpus[] = {"",
                          "\n",
                          "events:",
                          "events: Ir\n",
                          "events: Ir\n0x10 1\n",
                          "events: Ir\n+1 1\n-2 1\n",
                          "positions: instr line\nevents: Ir\n* * 1\n",
                          "events: Ir\ncalls=1 2\n",
                          "events: Ir\ncalls=1 2\n3 4\n",
                          "events: Ir\nfn=(1)\n",
                          "ob=(18446744073709551615) x\n",
                          "events: Ir\n0xffffffffffffffff 1\n+1 1\n",
                          "events: Ir\ntotals: 1\n",
                          "totals: 1\n",
                          "events: Ir Dr\npart: 2\nevents: Dr Ir\n0 1 2\n",
                          "desc: D1 cache: 1 B, 1 B, 1-way associative\nevents: Ir\n",
                          "version: 1\r\nevents: Ir\r\n0x1 2\r\n"};
  size_t runs = replayed.size();
  for (const char* text : corpus) {
    Check(text);
    ++runs;
  }
  {
    rprof::CallgrindOutput out;
    rprof::Error err;
    if (!rprof::ParseCallgrindOutput(sample, &out, &err)) {  // mutations must start from valid
      std::cerr << "callgrind_output_fuzz: the built-in sample does not parse: " << err.message
                << "\n";
      return 1;
    }
  }
  Check(sample);
  Check(std::string_view("events: Ir\n0x1\0 1\n", 17));  // an embedded NUL
  runs += 2;
  // Deterministic mutations of the sample, from an alphabet of the format's own pieces.
  runs += rprof::CheckMutations({sample}, "0123456789abcdefx+-*=():( )\n\t #/Ircalsobfnpitevm",
                                100000, [](const std::string& text) { Check(text); });
  // Big inputs stay linear: many events, many sites.
  std::string wide = "events:";
  for (int e = 0; e < 2000; ++e) wide += " E" + std::to_string(e);
  wide += "\n0x1 1\n";
  Check(wide);
  std::string tall = "positions: instr\nevents: Ir\nob=(1) /x\n0x1000 1\n";
  for (int k = 0; k < 200000; ++k) tall += "+1 1\n";
  Check(tall);
  runs += 2;
  std::cout << "callgrind_output_fuzz: " << runs << " inputs, no failure\n";
  return 0;
}
#endif
