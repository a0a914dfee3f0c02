#include "core/formula.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace rprof {

struct Formula::Node {
  enum class Kind { kNumber, kName, kNegate, kAdd, kSubtract, kMultiply, kDivide };
  Kind kind = Kind::kNumber;
  double number = 0;
  std::string name;
  std::unique_ptr<Node> left, right;
};

namespace {

using Node = Formula::Node;

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
         c == '@';
}

// Recursive descent over:  expr = term {(+|-) term};  term = unary {(*|/) unary};
//                          unary = -unary | primary;    primary = number | name | ( expr )
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::unique_ptr<Node> ParseAll(std::string* err) {
    auto node = ParseExpr();
    SkipSpace();
    if (node && pos_ != text_.size()) Fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    if (!error_.empty()) {
      *err = error_;
      return nullptr;
    }
    return node;
  }

  std::vector<std::string> TakeNames() { return std::move(names_); }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void Fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at column " + std::to_string(pos_ + 1);
  }
  std::unique_ptr<Node> Binary(Node::Kind kind, std::unique_ptr<Node> l, std::unique_ptr<Node> r) {
    // Evaluation recurses along chains like 1+1+1+…: bound their length as nesting is bounded.
    if (++operations_ > kMaxOperations) {
      Fail("formula too long");
      return nullptr;
    }
    auto node = std::make_unique<Node>();
    node->kind = kind;
    node->left = std::move(l);
    node->right = std::move(r);
    return node;
  }

  std::unique_ptr<Node> ParseExpr() {
    return ParseChain(&Parser::ParseTerm, '+', Node::Kind::kAdd, '-', Node::Kind::kSubtract);
  }

  std::unique_ptr<Node> ParseTerm() {
    return ParseChain(&Parser::ParseUnary, '*', Node::Kind::kMultiply, '/', Node::Kind::kDivide);
  }

  // One precedence level: operand {(first|second) operand}, grouped to the left (a-b-c is
  // (a-b)-c) as arithmetic reads.
  std::unique_ptr<Node> ParseChain(std::unique_ptr<Node> (Parser::*operand)(), char first,
                                   Node::Kind first_kind, char second, Node::Kind second_kind) {
    auto left = (this->*operand)();
    while (left) {
      SkipSpace();
      if (pos_ >= text_.size() || (text_[pos_] != first && text_[pos_] != second)) break;
      Node::Kind kind = text_[pos_++] == first ? first_kind : second_kind;
      auto right = (this->*operand)();
      if (!right) return nullptr;
      left = Binary(kind, std::move(left), std::move(right));
    }
    return error_.empty() ? std::move(left) : nullptr;
  }

  // Parses what a '-' or '(' opens, one level deeper. Bounds the nesting so a hostile "-----…"
  // or "(((((…" cannot exhaust the stack.
  std::unique_ptr<Node> ParseNested(std::unique_ptr<Node> (Parser::*parse)()) {
    if (++depth_ > kMaxDepth) {
      Fail("formula nested too deeply");
      return nullptr;
    }
    auto node = (this->*parse)();
    --depth_;
    return node;
  }

  std::unique_ptr<Node> ParseUnary() {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '-') {
      ++pos_;
      auto operand = ParseNested(&Parser::ParseUnary);
      if (!operand) return nullptr;
      auto node = std::make_unique<Node>();
      node->kind = Node::Kind::kNegate;
      node->left = std::move(operand);
      return node;
    }
    return ParsePrimary();
  }

  std::unique_ptr<Node> ParsePrimary() {
    SkipSpace();
    if (pos_ >= text_.size()) {
      Fail("formula ends where a number, a name or '(' was expected");
      return nullptr;
    }
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      auto inner = ParseNested(&Parser::ParseExpr);
      if (!inner) return nullptr;
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ')') {
        Fail("missing ')'");
        return nullptr;
      }
      ++pos_;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::string digits(text_.substr(pos_));
      char* end = nullptr;
      double value = std::strtod(digits.c_str(), &end);
      if (end == digits.c_str()) {
        Fail("bad number");
        return nullptr;
      }
      pos_ += static_cast<size_t>(end - digits.c_str());
      auto node = std::make_unique<Node>();
      node->number = value;
      return node;
    }
    if (IsNameStart(c)) {
      size_t start = pos_;
      while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
      // A trailing '.' or ':' belongs to no name ("n." is a typo, not a name).
      while (pos_ > start + 1 && (text_[pos_ - 1] == '.' || text_[pos_ - 1] == ':')) --pos_;
      auto node = std::make_unique<Node>();
      node->kind = Node::Kind::kName;
      node->name = std::string(text_.substr(start, pos_ - start));
      bool seen = false;
      for (const auto& n : names_) seen = seen || n == node->name;
      if (!seen) names_.push_back(node->name);
      return node;
    }
    Fail("unexpected '" + std::string(1, c) + "'");
    return nullptr;
  }

  static constexpr int kMaxDepth = 200;
  static constexpr int kMaxOperations = 2000;
  int operations_ = 0;
  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
  std::vector<std::string> names_;
};

std::optional<double> Eval(const Node& node, const ValueLookup& lookup, std::string* why) {
  switch (node.kind) {
    case Node::Kind::kNumber:
      return node.number;
    case Node::Kind::kName: {
      auto value = lookup(node.name);
      if (!value) *why = "no value for '" + node.name + "'";
      return value;
    }
    case Node::Kind::kNegate: {
      auto v = Eval(*node.left, lookup, why);
      if (!v) return std::nullopt;
      return -*v;
    }
    default:
      break;
  }
  auto l = Eval(*node.left, lookup, why);
  if (!l) return std::nullopt;
  auto r = Eval(*node.right, lookup, why);
  if (!r) return std::nullopt;
  switch (node.kind) {
    case Node::Kind::kAdd:
      return *l + *r;
    case Node::Kind::kSubtract:
      return *l - *r;
    case Node::Kind::kMultiply:
      return *l * *r;
    case Node::Kind::kDivide:
      if (*r == 0) {
        *why = "division by zero";
        return std::nullopt;
      }
      return *l / *r;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<Formula> Formula::Parse(std::string_view text, Error* err) {
  Parser parser(text);
  std::string cause;
  std::unique_ptr<Node> root = parser.ParseAll(&cause);
  if (!root) {
    Fail(err, ErrorKind::kUsage, std::move(cause));
    return std::nullopt;
  }
  Formula formula;
  formula.text_ = std::string(text);
  formula.names_ = parser.TakeNames();
  formula.root_ = std::shared_ptr<const Node>(std::move(root));
  return formula;
}

std::optional<double> Formula::Evaluate(const ValueLookup& lookup, Error* why) const {
  std::string cause;
  auto value = Eval(*root_, lookup, &cause);
  if (value && !std::isfinite(*value)) {
    Fail(why, ErrorKind::kEnvironment, "result is not a finite number");
    return std::nullopt;
  }
  if (!value) Fail(why, ErrorKind::kEnvironment, std::move(cause));
  return value;
}

Formula::Formula(Formula&&) noexcept = default;
Formula& Formula::operator=(Formula&&) noexcept = default;
Formula::Formula(const Formula&) = default;
Formula& Formula::operator=(const Formula&) = default;
Formula::~Formula() = default;

}  // namespace rprof
