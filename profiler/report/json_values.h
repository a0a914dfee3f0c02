// The values rprof's JSON reports write as null where they are not known: never as 0 (a missing
// value is null, as it is NULL in the store), each in one call after its key, as JsonWriter's
// own OptionalNumber and StringOrNull write theirs:
//   PositiveOrNull(w->Key("latency_ns"), level.latency_ns);
#ifndef RPROF_REPORT_JSON_VALUES_H_
#define RPROF_REPORT_JSON_VALUES_H_

#include <concepts>
#include <optional>

#include "core/json.h"

namespace rprof {

// `value` where it is above 0, else null: a measured value (a clock, a latency, a roof) or a
// count whose 0 means "not measured".
inline JsonWriter& PositiveOrNull(JsonWriter& w, double value) {
  return value > 0 ? w.Number(value) : w.Null();
}
template <std::integral T>
JsonWriter& PositiveOrNull(JsonWriter& w, T value) {
  return value > 0 ? w.Int(static_cast<long long>(value)) : w.Null();
}

// `value` where there is one, else null: an exit code, a signal, a rank's node.
inline JsonWriter& IntOrNull(JsonWriter& w, const std::optional<long long>& value) {
  return value ? w.Int(*value) : w.Null();
}

inline JsonWriter& BoolOrNull(JsonWriter& w, const std::optional<bool>& value) {
  return value ? w.Bool(*value) : w.Null();
}

}  // namespace rprof

#endif  // RPROF_REPORT_JSON_VALUES_H_
