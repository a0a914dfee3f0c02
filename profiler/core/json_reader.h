// A strict JSON reader (RFC 8259) into a small tree, for documents rprof reads back whole: the
// run JSON that `rprof show --format json` and recovery files hold, read by `rprof import`.
// Input comes from files users hand over, so it is untrusted: every malformed input is an error
// with its line and column, never a crash, and nesting is limited so that depth cannot exhaust
// the stack. (The flat readers of core/json.h stay for the store's own text columns.)
#ifndef RPROF_CORE_JSON_READER_H_
#define RPROF_CORE_JSON_READER_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace rprof {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Members = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() = default;

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  // Each accessor is meaningful only for its type (false, 0, "" or empty otherwise).
  bool boolean() const { return bool_; }
  double number() const { return number_; }
  // A number exactly as written ("1000", "2.5e-3"): integers read back as the text they were,
  // whatever their size.
  const std::string& number_text() const { return text_; }
  const std::string& string() const { return text_; }  // decoded, valid UTF-8
  const std::vector<JsonValue>& items() const { return items_; }
  const Members& members() const { return members_; }  // in document order, keys unique

  // The member named `key` of an object, or nullptr (also when this is not an object).
  const JsonValue* Find(std::string_view key) const;

  // "null", "a boolean", "a number", "a string", "an array", "an object": for messages.
  static const char* TypeName(Type type);

 private:
  friend class JsonParser;
  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string text_;  // a string's value, or a number's text
  std::vector<JsonValue> items_;
  Members members_;
};

// The deepest nesting of arrays and objects ParseJson accepts: far more than any document rprof
// writes (a run is 6 deep), far less than would exhaust the stack.
inline constexpr int kJsonMaxDepth = 128;

// Parses one JSON document: exactly one value, surrounded by nothing but white space. Strict:
// no comments, trailing commas, single quotes, NaN, leading zeros or duplicate keys; strings must
// be valid UTF-8 and \u escapes pair their surrogates; numbers must fit a double. False with
// *err ("line 3, column 14: expected ':' after an object key") and *out unspecified otherwise;
// its kind is kUsage (the text is wrong), which a caller reading a target's output re-kinds.
// Any input is safe to pass (a fuzz target drives this function).
[[nodiscard]] bool ParseJson(std::string_view text, JsonValue* out, Error* err);

}  // namespace rprof

#endif  // RPROF_CORE_JSON_READER_H_
