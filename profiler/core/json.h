// Just enough JSON for rprof: a streaming writer for reports, and readers for the flat objects
// and string arrays the store keeps in text columns (params, command).
#ifndef RPROF_CORE_JSON_H_
#define RPROF_CORE_JSON_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rprof {

std::string JsonQuote(std::string_view text);
// Shortest text that reads back as the same double; integers without a fraction.
std::string JsonNumber(double value);

// Writes one JSON document. Keys and values are added in order; commas and nesting are tracked.
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Number(double value);
  JsonWriter& Int(long long value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  JsonWriter& OptionalNumber(const std::optional<double>& value);  // null when absent
  JsonWriter& StringOrNull(std::string_view value);                // null when empty
  // A value already in JSON form (a stored params object).
  JsonWriter& Raw(std::string_view json);
  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  // Objects and arrays nest the same way; only the bracket differs.
  JsonWriter& Open(char bracket);
  JsonWriter& Close(char bracket);
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

using JsonPairs = std::vector<std::pair<std::string, std::string>>;

// {"k": "v", "n": 3} → pairs with values as text ("v", "3"). Nested values are refused.
bool ParseFlatJsonObject(std::string_view json, JsonPairs* out);
// ["a", "b"] → {"a", "b"}.
bool ParseJsonStringArray(std::string_view json, std::vector<std::string>* out);

// Params as a JSON object: integer-looking values as numbers, others as strings.
std::string PairsToJsonObject(const JsonPairs& pairs);
std::string StringsToJsonArray(const std::vector<std::string>& items);

}  // namespace rprof

#endif  // RPROF_CORE_JSON_H_
