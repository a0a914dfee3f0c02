#include "report/footnotes.h"

#include <algorithm>
#include <unordered_map>

#include "report/text_table.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

constexpr char kSeparator[] = "; ";

// The clauses of `text`: cut at "; " where no parenthesis is open, so "(a; b)" stays whole.
std::vector<std::string> Clauses(const std::string& text) {
  std::vector<std::string> clauses;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth > 0) --depth;
    if (depth == 0 && text.compare(i, 2, kSeparator) == 0) {
      clauses.push_back(text.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  clauses.push_back(text.substr(start));
  return clauses;
}

// Each distinct text once, with how many times it stands: a run with 10^5 regions has as many
// notes, most of them alike, and comparing every pair of them would cost minutes.
struct CountedText {
  std::string text;
  size_t times;
};

// How many times `part` stands in `texts`, without overlap.
size_t Occurrences(const std::string& part, const std::vector<CountedText>& texts) {
  if (part.empty()) return 0;
  size_t count = 0;
  for (const CountedText& t : texts)
    for (size_t at = t.text.find(part); at != std::string::npos;
         at = t.text.find(part, at + part.size()))
      count += t.times;
  return count;
}

void AddOnce(std::vector<std::string>* parts, std::string part) {
  if (std::find(parts->begin(), parts->end(), part) == parts->end())
    parts->push_back(std::move(part));
}

}  // namespace

std::vector<std::string> RepeatedClauses(const std::vector<std::string>& all_texts,
                                         size_t min_length) {
  // The distinct texts in order of first appearance: the parts found, and their order, are
  // those the texts one by one would give.
  std::vector<CountedText> texts;
  std::unordered_map<std::string, size_t> index;
  for (const std::string& text : all_texts) {
    auto [at, added] = index.emplace(text, texts.size());
    if (added) texts.push_back({text, 0});
    ++texts[at->second].times;
  }
  std::vector<std::string> parts;
  for (const CountedText& counted : texts) {
    std::vector<std::string> clauses = Clauses(counted.text);
    // Each run of clauses that stand elsewhere too.
    for (size_t begin = 0; begin < clauses.size();) {
      size_t end = begin;
      while (end < clauses.size() && Occurrences(clauses[end], texts) > 1) ++end;
      if (end == begin) {
        ++begin;
        continue;
      }
      std::string run;
      size_t least = SIZE_MAX;
      for (size_t c = begin; c < end; ++c) {
        run += (c == begin ? "" : kSeparator) + clauses[c];
        least = std::min(least, Occurrences(clauses[c], texts));
      }
      // Clauses that always go together make one note; else each is a note of its own.
      if (Occurrences(run, texts) == least) {
        if (run.size() >= min_length) AddOnce(&parts, run);
      } else {
        for (size_t c = begin; c < end; ++c)
          if (clauses[c].size() >= min_length) AddOnce(&parts, clauses[c]);
      }
      begin = end;
    }
  }
  return parts;
}

Footnotes::Footnotes(std::vector<std::string> texts) : texts_(std::move(texts)) {
  std::stable_sort(texts_.begin(), texts_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::erase_if(texts_, [](const std::string& t) { return t.empty(); });
}

std::string Footnotes::Refer(const std::string& text) {
  std::string out = text;
  for (const std::string& note : texts_) {
    size_t at = out.find(note);
    if (at == std::string::npos) continue;
    std::string reference = "see note " + std::to_string(NumberOf(note));
    for (; at != std::string::npos; at = out.find(note, at + reference.size()))
      out.replace(at, note.size(), reference);
  }
  return out;
}

size_t Footnotes::NumberOf(const std::string& note) {
  auto known = std::find(referred_.begin(), referred_.end(), note);
  if (known == referred_.end()) {
    referred_.push_back(note);
    return referred_.size();
  }
  return static_cast<size_t>(known - referred_.begin()) + 1;
}

std::string Footnotes::ReferCell(const std::string& text) {
  std::string referred = Refer(text);
  if (referred == text) return text;
  std::vector<std::string> clauses = Clauses(referred);
  std::vector<size_t> numbers;
  for (const std::string& clause : clauses) {
    const std::string kSee = "see note ";
    bool reference = clause.rfind(kSee, 0) == 0 && clause.size() > kSee.size() &&
                     clause.find_first_not_of("0123456789", kSee.size()) == std::string::npos;
    // A note only in part (a reference inside a clause): the cell stays as Refer made it.
    if (!reference && clause.find(kSee) != std::string::npos) return referred;
    size_t n = reference ? std::stoul(clause.substr(kSee.size())) : NumberOf(clause);
    if (std::find(numbers.begin(), numbers.end(), n) == numbers.end()) numbers.push_back(n);
  }
  std::sort(numbers.begin(), numbers.end());
  std::string out = numbers.size() == 1 ? "see note " : "see notes ";
  for (size_t i = 0; i < numbers.size(); ++i) out += (i ? ", " : "") + std::to_string(numbers[i]);
  return out;
}

std::string Footnotes::Block(size_t width) const {
  if (referred_.empty()) return "";
  std::string out = "\nnotes:\n";
  for (size_t i = 0; i < referred_.size(); ++i)
    out += WrapProse("  " + std::to_string(i + 1) + ". " + EscapeForTerminal(referred_[i]) + "\n",
                     width);
  return out;
}

}  // namespace rprof
