// The inputs a fuzz target's plain build (-DRPROF_FUZZ_STANDALONE) replays: the files named on
// its command line, a directory standing for every file in it (tests/fuzz/corpus/NAME/: the
// seeds, and inputs that once failed), in name order so that a failure is found again alike.
#ifndef RPROF_TESTS_FUZZ_FUZZ_REPLAY_H_
#define RPROF_TESTS_FUZZ_FUZZ_REPLAY_H_

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace rprof {

// False, with the path printed on stderr, when a path cannot be read.
inline bool ReadReplayInputs(int argc, char** argv, std::vector<std::string>* inputs) {
  std::vector<std::filesystem::path> paths;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (!std::filesystem::is_directory(argv[i], ec)) {
      paths.push_back(argv[i]);
      continue;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(argv[i], ec))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    paths.insert(paths.end(), files.begin(), files.end());
  }
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << argv[0] << ": cannot read " << path.string() << "\n";
      return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    inputs->push_back(text.str());
  }
  return true;
}

// `rounds` deterministic mutants of the seeds, each given to `check`: one to four edits each, a
// byte replaced or inserted from `alphabet` (the format's own pieces), a short run erased, a
// field erased up to the next tab or newline, a line erased or duplicated. Returns `rounds`.
template <typename Check>
size_t CheckMutations(const std::vector<std::string>& seeds, const std::string& alphabet,
                      int rounds, Check&& check) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  auto line_at = [](const std::string& text, size_t at, size_t* start, size_t* length) {
    *start = text.rfind('\n', at);
    *start = *start == std::string::npos ? 0 : *start + 1;
    size_t end = text.find('\n', at);
    *length = end == std::string::npos ? std::string::npos : end - *start + 1;
  };
  for (int i = 0; i < rounds; ++i) {
    std::string text = seeds[next() % seeds.size()];
    int edits = 1 + static_cast<int>(next() % 4);
    for (int k = 0; k < edits && !text.empty(); ++k) {
      size_t at = next() % text.size(), start = 0, length = 0;
      switch (next() % 6) {
        case 0:
          text[at] = alphabet[next() % alphabet.size()];
          break;
        case 1:
          text.insert(at, 1, alphabet[next() % alphabet.size()]);
          break;
        case 2:
          text.erase(at, 1 + next() % 8);
          break;
        case 3: {
          size_t end = text.find_first_of("\t\n", at + 1);
          text.erase(at, end == std::string::npos ? std::string::npos : end - at);
          break;
        }
        case 4:
          line_at(text, at, &start, &length);
          text.erase(start, length);
          break;
        default:
          line_at(text, at, &start, &length);
          text.insert(start, text.substr(start, length));
          break;
      }
    }
    check(text);
  }
  return static_cast<size_t>(rounds);
}

// The whole plain build of a target fed from its corpus alone: every seed, then `rounds`
// mutants of them. Exit status 0 when nothing failed (a failure aborts), 2 on a usage error.
template <typename Check>
int ReplayCorpusMain(int argc, char** argv, const std::string& name, const std::string& alphabet,
                     int rounds, Check&& check) {
  std::vector<std::string> seeds;
  if (!ReadReplayInputs(argc, argv, &seeds)) return 2;
  if (seeds.empty()) {
    std::cerr << "usage: " << argv[0] << " FILE|DIRECTORY...  (the seeds: tests/fuzz/corpus/"
              << name << "/)\n";
    return 2;
  }
  for (const std::string& seed : seeds) check(seed);
  size_t runs = seeds.size() + CheckMutations(seeds, alphabet, rounds, check);
  std::cout << name << "_fuzz: " << runs << " inputs, no failure\n";
  return 0;
}

}  // namespace rprof

#endif  // RPROF_TESTS_FUZZ_FUZZ_REPLAY_H_
