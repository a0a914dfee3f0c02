// libFuzzer target for core/formula.h: any input must parse or fail with a message, and a parsed
// formula must evaluate or fail with a reason, without crashing, hanging or leaking.
//
// `scripts/fuzz 60 formula` builds and runs it (tests/fuzz/meson.build); by hand:
//   clang++ -std=c++20 -fsanitize=fuzzer,address,undefined -I profiler
//       tests/fuzz/formula_fuzz.cc profiler/core/formula.cc -o formula_fuzz
//   ./formula_fuzz -max_total_time=60
//
// Built with -DRPROF_FUZZ_STANDALONE it is a plain program (for compilers without libFuzzer):
// it runs each file named on the command line (a directory: every file in it), then a built-in
// corpus and a deterministic stream of generated inputs, and exits 0 when nothing failed.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/formula.h"

namespace {

// Checks the contract on one input; aborts (a fuzzer finding) when it is broken.
void Check(std::string_view text) {
  rprof::Error err;
  auto formula = rprof::Formula::Parse(text, &err);
  if (!formula) {
    if (err.message.find("column") == std::string::npos) std::abort();
    return;
  }
  if (formula->text() != text) std::abort();
  // Give every name a value derived from its spelling, and leave one out to exercise "missing".
  size_t seen = 0;
  auto lookup = [&seen](std::string_view name) -> std::optional<double> {
    if (++seen % 5 == 0) return std::nullopt;
    return static_cast<double>(name.size() % 7) - 3.0;  // includes 0, for divisions by zero
  };
  rprof::Error why;
  auto value = formula->Evaluate(lookup, &why);
  if (value && !std::isfinite(*value)) std::abort();
  if (!value && why.message.empty()) std::abort();
  // Copies evaluate the same.
  rprof::Formula copy = *formula;
  seen = 0;
  rprof::Error why2;
  auto again = copy.Evaluate(lookup, &why2);
  if (value.has_value() != again.has_value()) std::abort();
  if (value && *value != *again) std::abort();
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
  const char* corpus[] = {"",
                          "1",
                          "1+",
                          "(1",
                          "1)",
                          "-",
                          "--1",
                          "2*-3",
                          "1/0",
                          "0/0",
                          "a/b",
                          "n.",
                          "a:",
                          "a..b",
                          "64 * (rd0 + rd1 + wr0 + wr1) / time_s",
                          "scalar + 2*p128 + 4*p256 + 8*p512",
                          "icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE * 1e-9",
                          "1e308*1e308",
                          "1e-308/1e308",
                          ".5",
                          "0x10",
                          "1e",
                          "1e+",
                          "((((((((((1))))))))))",
                          "a@b",
                          "_",
                          "9a",
                          "\t1\n+\r2"};
  size_t runs = replayed.size();
  for (const char* text : corpus) {
    Check(text);
    ++runs;
  }
  Check(std::string_view("a\0b", 3));  // an embedded NUL
  ++runs;
  // A deterministic generator over the grammar's alphabet, with a bias towards long inputs.
  const std::string alphabet = "0123456789.eE+-*/() \t_abxyz:@#$";
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 200000; ++i) {
    std::string text;
    size_t length = next() % (i % 100 == 0 ? 4000 : 40);
    for (size_t j = 0; j < length; ++j) text += alphabet[next() % alphabet.size()];
    Check(text);
    ++runs;
  }
  // Deep nesting and long chains: bounded by the parser, not by the stack.
  Check(std::string(100000, '('));
  Check(std::string(100000, '-') + "1");
  std::string chain = "1";
  for (int i = 0; i < 50000; ++i) chain += "+1";
  Check(chain);
  runs += 3;
  std::cout << "formula_fuzz: " << runs << " inputs, no failure\n";
  return 0;
}
#endif
