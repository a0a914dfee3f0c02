// Text a report would say again and again (a remedy under every event it concerns, the cache
// geometry under every simulated metric): the text for people says it once, numbered in a
// "notes:" block at the end, and each place it stood reads "see note N". CSV and JSON keep
// every value whole.
#ifndef RPROF_REPORT_FOOTNOTES_H_
#define RPROF_REPORT_FOOTNOTES_H_

#include <cstddef>
#include <string>
#include <vector>

namespace rprof {

class Footnotes {
 public:
  // `texts`: what is to be said once. The longest is looked for first, so a text that holds
  // another is one note.
  explicit Footnotes(std::vector<std::string> texts);

  // `text` with each footnote text in it replaced by "see note N", numbered in the order they
  // are first referred to.
  std::string Refer(const std::string& text);
  // A table cell as Refer makes it, and then only references: where some of its clauses are
  // notes, the others become notes too (each whole, once), and the cell reads "see note 3" or
  // "see notes 3, 4, 7" (in order), never "see note 3; FMA = 2 per lane; see note 4".
  std::string ReferCell(const std::string& text);
  // "notes:" and a line for each note referred to, wrapped to `width` (0: no limit); "" when
  // none was.
  std::string Block(size_t width) const;

 private:
  // The number of `note`, given it now if it has none.
  size_t NumberOf(const std::string& note);

  std::vector<std::string> texts_;     // longest first
  std::vector<std::string> referred_;  // in the order of their numbers
};

// The parts of `texts` worth a footnote: clauses (the parts between "; " outside parentheses)
// at least `min_length` long that stand more than once among the texts, in one or in several.
// Clauses that always stand together, in the same order, are one part.
std::vector<std::string> RepeatedClauses(const std::vector<std::string>& texts, size_t min_length);

}  // namespace rprof

#endif  // RPROF_REPORT_FOOTNOTES_H_
