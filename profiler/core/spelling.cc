#include "core/spelling.h"

#include <algorithm>

namespace rprof {

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring letters each cost 1 ("tirad" is one edit from "triad").
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string ClosestMatch(std::string_view text, const std::vector<std::string>& candidates) {
  size_t best = std::max<size_t>(1, text.size() / 3) + 1;
  std::string match;
  for (const std::string& candidate : candidates) {
    size_t d = EditDistance(text, candidate);
    if (d < best) {
      best = d;
      match = candidate;
    }
  }
  return match;
}

std::string DidYouMean(std::string_view text, const std::vector<std::string>& candidates) {
  std::string match = ClosestMatch(text, candidates);
  return match.empty() ? "" : "; did you mean '" + match + "'?";
}

}  // namespace rprof
