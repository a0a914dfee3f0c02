// The JSON rprof writes (reports) and reads back (the params and command columns of the store):
// numbers read back as the same double, strings escape what JSON requires, the writer places
// commas and nesting right, and the flat readers take what the writer wrote and nothing more.
#include "core/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace rprof {
namespace {

double ReadBack(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  EXPECT_EQ(*end, '\0') << "not a whole number text: " << text;
  return value;
}

TEST(JsonNumber, RoundTripsExactly) {
  for (double value : {0.1, 1e-300, 9007199254740992.0 /* 2^53 */, -2.5, -0.1, 1.0 / 3.0,
                       6.02214076e23, 5e-324, std::numeric_limits<double>::max()}) {
    SCOPED_TRACE(value);
    std::string text = JsonNumber(value);
    EXPECT_EQ(ReadBack(text), value) << text;
  }
}

TEST(JsonNumber, ShortestTextForCommonValues) {
  EXPECT_EQ(JsonNumber(0), "0");
  EXPECT_EQ(JsonNumber(0.1), "0.1");
  EXPECT_EQ(JsonNumber(1e-300), "1e-300");
  EXPECT_EQ(JsonNumber(-2.5), "-2.5");
  EXPECT_EQ(JsonNumber(2000), "2000");  // integers without a fraction
  EXPECT_EQ(JsonNumber(-7), "-7");
  EXPECT_EQ(JsonNumber(9007199254740992.0), "9007199254740992");
}

TEST(JsonNumber, NonFiniteIsNull) {
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(JsonNumber(std::nan("")), "null");
}

TEST(JsonQuote, EscapesQuoteBackslashAndControlCharacters) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote(""), "\"\"");
  EXPECT_EQ(JsonQuote("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(JsonQuote("C:\\dir"), "\"C:\\\\dir\"");
  EXPECT_EQ(JsonQuote("a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(JsonQuote(std::string("nul\0byte", 8)), "\"nul\\u0000byte\"");
  // Bytes of UTF-8 text pass through untouched.
  EXPECT_EQ(JsonQuote("µs"), "\"µs\"");
  // DEL is no C0 character, but a control character all the same.
  EXPECT_EQ(JsonQuote("\x7f"), "\"\\u007f\"");
  EXPECT_EQ(JsonQuote("\x1b[31m"), "\"\\u001b[31m\"");
}

TEST(JsonQuote, IllFormedUtf8BecomesTheReplacementCharacter) {
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(JsonQuote("tag \xff"), "\"tag " + fffd + "\"");
  EXPECT_EQ(JsonQuote("/tmp/caf\xe9/a.out"), "\"/tmp/caf" + fffd + "/a.out\"");  // Latin-1
  EXPECT_EQ(JsonQuote("\xc0\xaf"), "\"" + fffd + fffd + "\"");                   // overlong
  EXPECT_EQ(JsonQuote("\xed\xa0\x80"), "\"" + fffd + fffd + fffd + "\"");        // surrogate
  EXPECT_EQ(JsonQuote("\xe2\x82"), "\"" + fffd + "\"");                          // cut short
  // A cut sequence does not swallow the quote or escape after it.
  EXPECT_EQ(JsonQuote("\xe2\"\\"), "\"" + fffd + "\\\"\\\\\"");
  EXPECT_EQ(JsonQuote("\xe2\x82\xac \xf0\x9f\x98\x80"), "\"\xe2\x82\xac \xf0\x9f\x98\x80\"");
}

TEST(JsonWriter, KeysAndStringsAreValidUtf8) {
  JsonWriter w;
  w.BeginObject().Key("k\xff").String("v\x80").EndObject();
  EXPECT_EQ(w.str(), "{\"k\xef\xbf\xbd\":\"v\xef\xbf\xbd\"}");
  EXPECT_EQ(StringsToJsonArray({"./a\xfe"}), "[\"./a\xef\xbf\xbd\"]");
}

TEST(JsonWriter, NestsAndPlacesCommas) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a").Int(1);
  w.Key("list").BeginArray();
  w.Int(1).Number(2.5).String("x").Null().Bool(true).Bool(false);
  w.BeginObject().EndObject();
  w.BeginArray().EndArray();
  w.EndArray();
  w.Key("inner").BeginObject();
  w.Key("v").OptionalNumber(0.5);
  w.Key("missing").OptionalNumber(std::nullopt);
  w.Key("raw").Raw("{\"n\":3}");
  w.EndObject();
  w.Key("last").String("end");
  w.EndObject();
  EXPECT_EQ(w.str(),
            "{\"a\":1,\"list\":[1,2.5,\"x\",null,true,false,{},[]],"
            "\"inner\":{\"v\":0.5,\"missing\":null,\"raw\":{\"n\":3}},\"last\":\"end\"}");
}

TEST(JsonWriter, TopLevelArrayOfObjects) {
  JsonWriter w;
  w.BeginArray();
  for (int i = 0; i < 3; ++i) w.BeginObject().Key("i").Int(i).EndObject();
  w.EndArray();
  EXPECT_EQ(w.str(), "[{\"i\":0},{\"i\":1},{\"i\":2}]");
}

TEST(FlatJson, ObjectRoundTrip) {
  JsonPairs pairs = {{"n", "1000"},
                     {"label", "a \"quoted\" word"},
                     {"path", "C:\\x\ny\tz"},
                     {"empty", ""},
                     {"neg", "-5"}};
  std::string json = PairsToJsonObject(pairs);
  JsonPairs back;
  ASSERT_TRUE(ParseFlatJsonObject(json, &back)) << json;
  EXPECT_EQ(back, pairs);
}

TEST(FlatJson, ObjectAcceptsSpacesAndEmpty) {
  JsonPairs out;
  ASSERT_TRUE(ParseFlatJsonObject(" { \"k\" : \"v\" , \"n\" : 3 } ", &out));
  EXPECT_EQ(out, (JsonPairs{{"k", "v"}, {"n", "3"}}));
  ASSERT_TRUE(ParseFlatJsonObject("{}", &out));
  EXPECT_TRUE(out.empty());
}

TEST(FlatJson, ObjectRefusesNestedAndGarbage) {
  for (const char* bad :
       {"{\"a\":{\"b\":1}}", "{\"a\": {\"b\": 1}}", "{\"a\":[1,2]}", "", "x", "{", "}", "[]",
        "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1", "{\"a\":1} trailing",
        "{\"a\":\"unterminated}", "{a:1}", "{\"a\" 1}", "{\"a\":1 \"b\":2}"}) {
    SCOPED_TRACE(bad);
    JsonPairs out;
    EXPECT_FALSE(ParseFlatJsonObject(bad, &out));
  }
}

TEST(FlatJson, StringArrayRoundTrip) {
  std::vector<std::string> items = {"./a.out", "--size",         "1 000", "quote\"back\\slash",
                                    "",        "del\x7f esc\x1b"};
  std::string json = StringsToJsonArray(items);
  std::vector<std::string> back;
  ASSERT_TRUE(ParseJsonStringArray(json, &back)) << json;
  EXPECT_EQ(back, items);

  ASSERT_TRUE(ParseJsonStringArray("[]", &back));
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(StringsToJsonArray({}), "[]");
}

TEST(FlatJson, StringArrayRefusesNestedAndGarbage) {
  for (const char* bad : {"[[\"a\"]]", "[\"a\", 1]", "[1]", "[\"a\",]", "[\"a\"", "{}", "",
                          "[\"a\"] x", "[{\"a\":\"b\"}]", "nope"}) {
    SCOPED_TRACE(bad);
    std::vector<std::string> out;
    EXPECT_FALSE(ParseJsonStringArray(bad, &out));
  }
}

TEST(PairsToJsonObject, IntegersAsNumbersOthersAsStrings) {
  EXPECT_EQ(PairsToJsonObject({{"n", "1000"}}), "{\"n\":1000}");
  EXPECT_EQ(PairsToJsonObject({{"n", "-3"}}), "{\"n\":-3}");
  EXPECT_EQ(PairsToJsonObject({{"n", "0"}}), "{\"n\":0}");
  // Anything that would not read back as the same text stays a string.
  EXPECT_EQ(PairsToJsonObject({{"s", "abc"}}), "{\"s\":\"abc\"}");
  EXPECT_EQ(PairsToJsonObject({{"s", "1.5"}}), "{\"s\":\"1.5\"}");
  EXPECT_EQ(PairsToJsonObject({{"s", "1e6"}}), "{\"s\":\"1e6\"}");
  EXPECT_EQ(PairsToJsonObject({{"s", "007"}}), "{\"s\":\"007\"}");
  EXPECT_EQ(PairsToJsonObject({{"s", " 12"}}), "{\"s\":\" 12\"}");
  EXPECT_EQ(PairsToJsonObject({{"s", "12abc"}}), "{\"s\":\"12abc\"}");
  EXPECT_EQ(PairsToJsonObject({{"s", ""}}), "{\"s\":\"\"}");
  EXPECT_EQ(PairsToJsonObject({{"s", "99999999999999999999"}}), "{\"s\":\"99999999999999999999\"}");
  EXPECT_EQ(PairsToJsonObject({{"n", "1"}, {"s", "x"}}), "{\"n\":1,\"s\":\"x\"}");
  EXPECT_EQ(PairsToJsonObject({}), "{}");
}

}  // namespace
}  // namespace rprof
