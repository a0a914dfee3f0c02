// The inputs a fuzz target's plain build (-DRPROF_FUZZ_STANDALONE) replays: the files named on
// its command line, a directory standing for every file in it (tests/fuzz/corpus/NAME/: the
// seeds, and inputs that once failed), in name order so that a failure is found again alike.
#ifndef RPROF_TESTS_FUZZ_FUZZ_REPLAY_H_
#define RPROF_TESTS_FUZZ_FUZZ_REPLAY_H_

#include <algorithm>
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

}  // namespace rprof

#endif  // RPROF_TESTS_FUZZ_FUZZ_REPLAY_H_
