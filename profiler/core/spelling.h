// "Did you mean": the closest known name to an unknown one, for commands, kernels, groups.
#ifndef RPROF_CORE_SPELLING_H_
#define RPROF_CORE_SPELLING_H_

#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// The candidate closest to `text` by edit distance, if it is close enough to be a likely typo
// (at most a third of the word's length, at least 1 edit); "" otherwise.
std::string ClosestMatch(std::string_view text, const std::vector<std::string>& candidates);

// ", did you mean 'x'?" or "" — ready to append to an error message.
std::string DidYouMean(std::string_view text, const std::vector<std::string>& candidates);

}  // namespace rprof

#endif  // RPROF_CORE_SPELLING_H_
