// core/formula.h, the evaluator every group formula goes through: grammar, precedence, names as
// PMU events spell them, errors with their column, and missing values that stay missing.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/formula.h"

namespace rprof {
namespace {

using Values = std::map<std::string, double, std::less<>>;

ValueLookup From(const Values& values) {
  return [&values](std::string_view name) -> std::optional<double> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

// Parses and evaluates; fails the test on a parse error.
std::optional<double> Eval(std::string_view text, const Values& values = {},
                           std::string* why = nullptr) {
  Error err;
  auto formula = Formula::Parse(text, &err);
  EXPECT_TRUE(formula) << text << ": " << err.message;
  if (!formula) return std::nullopt;
  Error failure;
  std::optional<double> value = formula->Evaluate(From(values), &failure);
  if (why) *why = failure.message;
  return value;
}

// The parse error of text ("" when it parses).
std::string ParseError(std::string_view text) {
  Error err;
  auto formula = Formula::Parse(text, &err);
  return formula ? "" : err.message;
}

TEST(Formula, Numbers) {
  EXPECT_DOUBLE_EQ(*Eval("1"), 1);
  EXPECT_DOUBLE_EQ(*Eval("2.5"), 2.5);
  EXPECT_DOUBLE_EQ(*Eval("1e9"), 1e9);
  EXPECT_DOUBLE_EQ(*Eval("1.0E-06"), 1e-6);
  EXPECT_DOUBLE_EQ(*Eval(".5"), 0.5);
  EXPECT_DOUBLE_EQ(*Eval("  64  "), 64);
}

TEST(Formula, Precedence) {
  EXPECT_DOUBLE_EQ(*Eval("1 + 2 * 3"), 7);
  EXPECT_DOUBLE_EQ(*Eval("2 * 3 + 1"), 7);
  EXPECT_DOUBLE_EQ(*Eval("10 - 4 - 3"), 3);  // left to right
  EXPECT_DOUBLE_EQ(*Eval("64 / 4 / 2"), 8);  // left to right
  EXPECT_DOUBLE_EQ(*Eval("8 / 2 * 4"), 16);
  EXPECT_DOUBLE_EQ(*Eval("1 + 6 / 3 - 2 * 2"), -1);
}

TEST(Formula, Parentheses) {
  EXPECT_DOUBLE_EQ(*Eval("(1 + 2) * 3"), 9);
  EXPECT_DOUBLE_EQ(*Eval("64 * (a + b)", {{"a", 1}, {"b", 2}}), 192);
  EXPECT_DOUBLE_EQ(*Eval("((((5))))"), 5);
  EXPECT_DOUBLE_EQ(*Eval("2 * (3 - (4 - 5))"), 8);
}

TEST(Formula, UnaryMinus) {
  EXPECT_DOUBLE_EQ(*Eval("-3"), -3);
  EXPECT_DOUBLE_EQ(*Eval("--3"), 3);
  EXPECT_DOUBLE_EQ(*Eval("2 * -3"), -6);
  EXPECT_DOUBLE_EQ(*Eval("2 - -3"), 5);
  EXPECT_DOUBLE_EQ(*Eval("-2 * 3 + 1"), -5);
  EXPECT_DOUBLE_EQ(*Eval("-(1 + 2)"), -3);
  EXPECT_DOUBLE_EQ(*Eval("-x", {{"x", 4}}), -4);
}

TEST(Formula, NamesWithColonsDotsAndAt) {
  Values v = {{"FP_ARITH_INST_RETIRED:SCALAR_DOUBLE", 10},
              {"icx::FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE", 5},
              {"l1d.replacement", 7},
              {"cycles@1", 3},
              {"_x", 1}};
  EXPECT_DOUBLE_EQ(*Eval("FP_ARITH_INST_RETIRED:SCALAR_DOUBLE + "
                         "2*icx::FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE",
                         v),
                   20);
  EXPECT_DOUBLE_EQ(*Eval("l1d.replacement * cycles@1 + _x", v), 22);
  Error err;
  auto f = Formula::Parse("a:b + c.d * a:b", &err);
  ASSERT_TRUE(f) << err.message;
  EXPECT_EQ(f->names(), (std::vector<std::string>{"a:b", "c.d"}));
  EXPECT_EQ(f->text(), "a:b + c.d * a:b");
}

TEST(Formula, NamesInOrderOfFirstUse) {
  Error err;
  auto f = Formula::Parse("64 * (rd0 + rd1 + wr0 + rd0) / time_s", &err);
  ASSERT_TRUE(f) << err.message;
  EXPECT_EQ(f->names(), (std::vector<std::string>{"rd0", "rd1", "wr0", "time_s"}));
}

TEST(Formula, ErrorsGiveTheColumn) {
  EXPECT_EQ(ParseError(""), "formula ends where a number, a name or '(' was expected at column 1");
  EXPECT_EQ(ParseError("1 +"),
            "formula ends where a number, a name or '(' was expected at column 4");
  EXPECT_EQ(ParseError("(1 + 2"), "missing ')' at column 7");
  EXPECT_EQ(ParseError("1 + 2)"), "unexpected ')' at column 6");
  EXPECT_EQ(ParseError("1 $ 2"), "unexpected '$' at column 3");
  EXPECT_EQ(ParseError("* 2"), "unexpected '*' at column 1");
  EXPECT_EQ(ParseError("2 3"), "unexpected '3' at column 3");
  EXPECT_EQ(ParseError("a b"), "unexpected 'b' at column 3");
  EXPECT_EQ(ParseError("()"), "unexpected ')' at column 2");
}

TEST(Formula, TrailingDotOrColonIsATypoNotAName) {
  // "n." must not silently become a name "n." that never has a value.
  EXPECT_EQ(ParseError("n."), "unexpected '.' at column 2");
  EXPECT_EQ(ParseError("2*n. + 1"), "unexpected '.' at column 4");
  EXPECT_EQ(ParseError("EVENT:"), "unexpected ':' at column 6");
  EXPECT_EQ(ParseError("a.:"), "unexpected '.' at column 2");
  EXPECT_EQ(ParseError("."), "bad number at column 1");
}

TEST(Formula, DivisionByZeroIsMissingWithReason) {
  std::string why;
  EXPECT_FALSE(Eval("1 / 0", {}, &why));
  EXPECT_EQ(why, "division by zero");
  why.clear();
  EXPECT_FALSE(Eval("misses / accesses", {{"misses", 3}, {"accesses", 0}}, &why));
  EXPECT_EQ(why, "division by zero");
  why.clear();
  EXPECT_FALSE(Eval("1 / -0", {}, &why));
  EXPECT_EQ(why, "division by zero");
  EXPECT_DOUBLE_EQ(*Eval("0 / 5"), 0);
}

TEST(Formula, MissingNameIsMissingWithReason) {
  std::string why;
  EXPECT_FALSE(Eval("flops / bytes_dram", {{"flops", 1}}, &why));
  EXPECT_EQ(why, "no value for 'bytes_dram'");
  // A missing input makes the result missing even where the arithmetic would not need it.
  why.clear();
  EXPECT_FALSE(Eval("0 * x", {}, &why));
  EXPECT_EQ(why, "no value for 'x'");
}

TEST(Formula, NonFiniteResultIsMissing) {
  std::string why;
  EXPECT_FALSE(Eval("1e308 * 10", {}, &why));
  EXPECT_EQ(why, "result is not a finite number");
  EXPECT_FALSE(Eval("x", {{"x", std::nan("")}}, &why));
}

TEST(Formula, EvaluateWithoutWhy) {
  Error err;
  auto f = Formula::Parse("1 / x", &err);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->Evaluate(From({}), nullptr));
  EXPECT_FALSE(f->Evaluate(From({{"x", 0}}), nullptr));
}

TEST(Formula, CopiesShareTheTreeAndStayValid) {
  Error err;
  std::optional<Formula> copy;
  {
    auto f = Formula::Parse("a * 2", &err);
    ASSERT_TRUE(f);
    copy = *f;
  }
  Values v = {{"a", 21}};
  EXPECT_DOUBLE_EQ(*copy->Evaluate(From(v), nullptr), 42);
  Formula moved = std::move(*copy);
  EXPECT_DOUBLE_EQ(*moved.Evaluate(From(v), nullptr), 42);
}

TEST(Formula, HostileInputIsBoundedNotACrash) {
  EXPECT_NE(ParseError(std::string(10000, '(') + "1" + std::string(10000, ')')), "");
  EXPECT_NE(ParseError(std::string(10000, '-') + "1"), "");
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += "+1";
  EXPECT_EQ(ParseError(chain).rfind("formula too long", 0), 0u) << ParseError(chain);
  std::string ok = "1";
  for (int i = 0; i < 1000; ++i) ok += "+1";
  EXPECT_DOUBLE_EQ(*Eval(ok), 1001);
}

}  // namespace
}  // namespace rprof
