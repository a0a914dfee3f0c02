// An arithmetic formula over named values: the one evaluator behind kernel models ("2*n*n*n"),
// derived metrics ("flops / time_s / 1e9") and metric-group formulas over counter events.
//
// Grammar: numbers (1, 2.5, 1e9), names, + - * /, unary minus, parentheses. A name starts with
// a letter or '_' and may hold letters, digits, '_', '.', ':' and '@' (so PMU event names such as
// FP_ARITH_INST_RETIRED:SCALAR_DOUBLE are names), but never ends with '.' or ':'.
#ifndef RPROF_CORE_FORMULA_H_
#define RPROF_CORE_FORMULA_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace rprof {

// Looks a name up; nullopt when it has no value (the formula then has none either).
using ValueLookup = std::function<std::optional<double>(std::string_view name)>;

class Formula {
 public:
  // Parses text. On a syntax error returns nullopt and sets *err (kUsage: whoever wrote the
  // formula, a user or a group file, wrote it wrong) to the cause and the column.
  [[nodiscard]] static std::optional<Formula> Parse(std::string_view text, Error* err);

  // Evaluates with the values lookup gives. Returns nullopt and sets *why (kEnvironment: this
  // measurement lacks a value; may be null) when a name has no value ("no value for
  // 'bytes_dram'") or a division by zero occurs: a missing input makes a missing result, never 0.
  [[nodiscard]] std::optional<double> Evaluate(const ValueLookup& lookup, Error* why) const;

  // The names the formula reads, each once, in order of first use.
  const std::vector<std::string>& names() const { return names_; }
  // The text it was parsed from, exactly as written.
  const std::string& text() const { return text_; }

  struct Node;  // the parsed tree, private to formula.cc

  Formula(Formula&&) noexcept;
  Formula& operator=(Formula&&) noexcept;
  Formula(const Formula&);
  Formula& operator=(const Formula&);
  ~Formula();

 private:
  Formula() = default;
  std::string text_;
  std::vector<std::string> names_;
  std::shared_ptr<const Node> root_;  // immutable, so copies share it
};

}  // namespace rprof

#endif  // RPROF_CORE_FORMULA_H_
