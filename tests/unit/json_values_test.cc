// The values the JSON reports write as null where they are not known: 0 and below for a
// measured value or a count, an absent optional; what is known is written as JsonWriter writes it.
#include "report/json_values.h"

#include <gtest/gtest.h>

#include <optional>

namespace rprof {
namespace {

TEST(JsonValues, PositiveOrNullWritesNullForZeroAndBelow) {
  JsonWriter w;
  w.BeginObject();
  PositiveOrNull(w.Key("ghz"), 2.5);
  PositiveOrNull(w.Key("zero"), 0.0);
  PositiveOrNull(w.Key("below"), -1.0);
  PositiveOrNull(w.Key("count"), 3);
  PositiveOrNull(w.Key("no_count"), 0);
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"ghz":2.5,"zero":null,"below":null,"count":3,"no_count":null})");
}

TEST(JsonValues, IntAndBoolOrNullWriteNullWhereAbsent) {
  JsonWriter w;
  w.BeginObject();
  IntOrNull(w.Key("exit_code"), std::optional<int>(0));
  IntOrNull(w.Key("signal"), std::optional<int>());
  IntOrNull(w.Key("bytes"), std::optional<long long>(1LL << 40));
  BoolOrNull(w.Key("yes"), true);
  BoolOrNull(w.Key("no"), false);
  BoolOrNull(w.Key("unknown"), std::nullopt);
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"exit_code":0,"signal":null,"bytes":1099511627776,"yes":true,"no":false,)"
                     R"("unknown":null})");
}

}  // namespace
}  // namespace rprof
