#include "targets/benchmark_json.h"

#include <cmath>
#include <tuple>

#include "core/json_reader.h"

namespace rprof {

std::string NonFiniteTokensAsNull(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* token : {"-Infinity", "Infinity", "-NaN", "NaN"}) {
      size_t length = std::char_traits<char>::length(token);
      if (text.compare(i, length, token) == 0) {
        out += "null";
        i += length - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

namespace {

std::optional<double> Number(const JsonValue* v) {
  if (!v || !v->is_number() || !std::isfinite(v->number())) return std::nullopt;
  return v->number();
}

std::string Text(const JsonValue* v) { return v && v->is_string() ? v->string() : ""; }

// A count the binary wrote: absent -> `otherwise`; a whole number from `least` to 2^53 (a
// double holds every integer up to there) -> it; anything else (1e300, -1, 2.5) -> nullopt, so
// that no value outside int64_t's range is ever converted to one.
std::optional<int64_t> Integer(const JsonValue* v, int64_t otherwise, int64_t least) {
  if (!v) return otherwise;
  if (!v->is_number()) return std::nullopt;
  double d = v->number();
  if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(least) ||
      d > 9007199254740992.0)
    return std::nullopt;
  return static_cast<int64_t>(d);
}

// Seconds in one `unit` as Google Benchmark names them.
std::optional<double> UnitSeconds(const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return std::nullopt;
}

// The keys of a row that are not counters.
bool IsRowField(const std::string& key) {
  for (const char* field : {"name",
                            "family_index",
                            "per_family_instance_index",
                            "run_name",
                            "run_type",
                            "repetitions",
                            "repetition_index",
                            "threads",
                            "aggregate_name",
                            "aggregate_unit",
                            "iterations",
                            "real_time",
                            "cpu_time",
                            "time_unit",
                            "error_occurred",
                            "error_message",
                            "label",
                            "big_o",
                            "rms",
                            "complexity"})
    if (key == field) return true;
  return false;
}

}  // namespace

bool ParseBenchmarkJson(const std::string& text, BenchmarkReport* out, Error* err) {
  JsonValue root;
  Error json_err;
  if (!ParseJson(NonFiniteTokensAsNull(text), &root, &json_err)) {
    return Fail(err, ErrorKind::kTargetFailed, json_err.message);
  }
  const JsonValue* benchmarks = root.Find("benchmarks");
  if (!root.is_object() || !benchmarks || !benchmarks->is_array()) {
    return Fail(err, ErrorKind::kTargetFailed,
                "no \"benchmarks\" array: not Google Benchmark's JSON output");
  }
  if (const JsonValue* c = root.Find("context"); c && c->is_object()) {
    out->context.host_name = Text(c->Find("host_name"));
    out->context.date = Text(c->Find("date"));
    out->context.library_build_type = Text(c->Find("library_build_type"));
    if (auto n = Number(c->Find("num_cpus"))) out->context.num_cpus = static_cast<int64_t>(*n);
    out->context.mhz_per_cpu = Number(c->Find("mhz_per_cpu"));
  }
  for (size_t i = 0; i < benchmarks->items().size(); ++i) {
    const JsonValue& b = benchmarks->items()[i];
    BenchmarkRow row;
    row.name = Text(b.Find("name"));
    if (!b.is_object() || row.name.empty()) {
      return Fail(
          err, ErrorKind::kTargetFailed,
          "benchmarks[" + std::to_string(i) + "]: no name: not Google Benchmark's JSON output");
    }
    row.run_name = Text(b.Find("run_name"));
    if (row.run_name.empty()) row.run_name = row.name;
    row.aggregate = Text(b.Find("run_type")) == "aggregate";
    row.aggregate_name = Text(b.Find("aggregate_name"));
    // Counts and times the binary wrote are checked, never converted blindly: one out of range
    // makes the file unreadable, with the field named.
    auto where = [&](const char* field) {
      return "benchmarks[" + std::to_string(i) + "]: " + field + " ";
    };
    for (auto [field, value, otherwise, least] :
         {std::tuple{"repetitions", &row.repetitions, int64_t{1}, int64_t{1}},
          std::tuple{"repetition_index", &row.repetition_index, int64_t{0}, int64_t{0}},
          std::tuple{"threads", &row.threads, int64_t{1}, int64_t{1}},
          std::tuple{"iterations", &row.iterations, int64_t{0}, int64_t{0}}}) {
      std::optional<int64_t> n = Integer(b.Find(field), otherwise, least);
      if (!n) {
        return Fail(
            err, ErrorKind::kTargetFailed,
            where(field) + "is not a whole number from " + std::to_string(least) + " to 2^53");
      }
      *value = *n;
    }
    row.time_unit = Text(b.Find("time_unit"));
    const JsonValue* error = b.Find("error_occurred");
    row.error_occurred = error && error->is_bool() && error->boolean();
    row.error_message = Text(b.Find("error_message"));
    // The cv aggregate is a ratio, written in no time unit ("aggregate_unit": "percentage").
    bool ratio = Text(b.Find("aggregate_unit")) == "percentage";
    std::optional<double> scale = ratio ? std::optional<double>(1.0) : UnitSeconds(row.time_unit);
    for (auto [field, value] :
         {std::pair{"real_time", &row.real_time_s}, std::pair{"cpu_time", &row.cpu_time_s}}) {
      std::optional<double> t = Number(b.Find(field));
      if (t && *t < 0) {
        return Fail(err, ErrorKind::kTargetFailed, where(field) + "is negative");
      }
      if (t && scale) *value = *t * *scale;
    }
    for (const auto& [key, value] : b.members())
      if (!IsRowField(key) && (value.is_number() || value.is_null()))
        row.counters.emplace_back(key, Number(&value));
    out->rows.push_back(std::move(row));
  }
  return true;
}

std::optional<double> PerIterationFromRate(const BenchmarkRow& row, const std::string& counter) {
  for (const auto& [name, value] : row.counters)
    if (name == counter) {
      if (!value || !row.cpu_time_s) return std::nullopt;
      return *value * *row.cpu_time_s;
    }
  return std::nullopt;
}

}  // namespace rprof
