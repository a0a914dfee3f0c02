// "Did you mean": the closest known name to a misspelt one, for group, PMU and event names.
#ifndef RPROF_COUNTERS_PMU_SPELLING_H_
#define RPROF_COUNTERS_PMU_SPELLING_H_

#include <string>
#include <string_view>
#include <vector>

namespace rprof {

// Levenshtein distance between a and b, compared without regard to ASCII case.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to word, or "" when none is close enough to be a likely typo (distance
// above max(2, word.size() / 3)). Ties go to the earliest candidate.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'X'?)" for the closest candidate, or "" when there is none: ready to append to an
// error message.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_SPELLING_H_
