// The strict JSON reader `rprof import` reads run files with: every value type, what RFC 8259
// refuses refused with the place named, UTF-8 checked and decoded, depth bounded, and mangled
// input (truncated, bit-flipped, random) answered with an error, never a crash.
#include "core/json_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "core/json.h"

namespace rprof {
namespace {

JsonValue Parsed(std::string_view text) {
  JsonValue value;
  Error err;
  EXPECT_TRUE(ParseJson(text, &value, &err)) << text << ": " << err.message;
  return value;
}

// The error for text, which must fail.
std::string Refused(std::string_view text) {
  JsonValue value;
  Error err;
  EXPECT_FALSE(ParseJson(text, &value, &err)) << "accepted: " << text;
  EXPECT_FALSE(err.message.empty()) << text;
  EXPECT_EQ(err.kind, ErrorKind::kUsage) << text;
  return err.message;
}

TEST(ParseJson, EveryType) {
  JsonValue v = Parsed(
      R"({"n": null, "t": true, "f": false, "i": -12, "d": 2.5e-3, "s": "x", "a": [1, [2]],
          "o": {"k": {}}})");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.members().size(), 8u);
  EXPECT_EQ(v.members()[0].first, "n");  // document order
  EXPECT_TRUE(v.Find("n")->is_null());
  EXPECT_TRUE(v.Find("t")->is_bool() && v.Find("t")->boolean());
  EXPECT_FALSE(v.Find("f")->boolean());
  EXPECT_EQ(v.Find("i")->number(), -12);
  EXPECT_EQ(v.Find("i")->number_text(), "-12");
  EXPECT_EQ(v.Find("d")->number(), 2.5e-3);
  EXPECT_EQ(v.Find("s")->string(), "x");
  ASSERT_EQ(v.Find("a")->items().size(), 2u);
  EXPECT_EQ(v.Find("a")->items()[1].items()[0].number(), 2);
  EXPECT_TRUE(v.Find("o")->Find("k")->is_object());
  EXPECT_EQ(v.Find("missing"), nullptr);
  EXPECT_EQ(v.Find("s")->Find("x"), nullptr);  // not an object
}

TEST(ParseJson, ScalarsAtTheTopAndWhiteSpaceAround) {
  EXPECT_TRUE(Parsed(" \t\r\n null \n").is_null());
  EXPECT_EQ(Parsed("0").number(), 0);
  EXPECT_EQ(Parsed("\"\"").string(), "");
  EXPECT_TRUE(Parsed("[]").items().empty());
  EXPECT_TRUE(Parsed("{ }").members().empty());
}

TEST(ParseJson, NumbersReadBackAsTheWriterWroteThem) {
  for (double value : {0.1, 1.0 / 3.0, -2.5, 6.02214076e23, 5e-324, 1.7976931348623157e308}) {
    std::string text = JsonNumber(value);
    EXPECT_EQ(Parsed(text).number(), value) << text;
  }
  // Integers keep their text whatever their size (a parameter, a count).
  EXPECT_EQ(Parsed("123456789012345678901234567890").number_text(),
            "123456789012345678901234567890");
  EXPECT_EQ(Parsed("-0").number_text(), "-0");
  EXPECT_EQ(Parsed("1E+2").number(), 100);
}

TEST(ParseJson, NumbersJsonDoesNotHave) {
  for (const char* text : {"01", "-", "+1", "1.", ".5", "1e", "1e+", "0x10", "NaN", "Infinity",
                           "-Infinity", "1.5.2", "--1", "1 2"})
    Refused(text);
  EXPECT_NE(Refused("1e400").find("out of the range of a double"), std::string::npos);
  EXPECT_NE(Refused("-1e400").find("out of the range"), std::string::npos);
  EXPECT_NE(Refused("1e-400").find("out of the range"), std::string::npos);
}

TEST(ParseJson, StringEscapes) {
  EXPECT_EQ(Parsed(R"("a\"b\\c\/d\b\f\n\r\t")").string(), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(Parsed(R"("\u0041\u00e9\u20AC")").string(), "A\xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(Parsed(R"("\u0000")").string(), std::string(1, '\0'));
  // A surrogate pair is one character: U+1F600 in four bytes.
  EXPECT_EQ(Parsed(R"("\ud83d\ude00")").string(), "\xf0\x9f\x98\x80");
  // What the writer escapes reads back.
  std::string text = "tab\there \"quoted\" back\\slash \x01 newline\n";
  EXPECT_EQ(Parsed(JsonQuote(text)).string(), text);
}

TEST(ParseJson, BadEscapesAndSurrogates) {
  EXPECT_NE(Refused(R"("\x41")").find("unknown escape \\x"), std::string::npos);
  EXPECT_NE(Refused(R"("\u12")").find("four hex digits"), std::string::npos);
  EXPECT_NE(Refused(R"("\u12g4")").find("four hex digits"), std::string::npos);
  EXPECT_NE(Refused(R"("\ud83d")").find("without its low surrogate"), std::string::npos);
  EXPECT_NE(Refused(R"("\ud83dx")").find("without its low surrogate"), std::string::npos);
  EXPECT_NE(Refused(R"("\ud83d\u0041")").find("without its low surrogate"), std::string::npos);
  EXPECT_NE(Refused(R"("\ude00")").find("low surrogate without"), std::string::npos);
  Refused("\"\\");
}

TEST(ParseJson, Utf8IsCheckedAndKept) {
  EXPECT_EQ(Parsed("\"gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80\"").string(),
            "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
  for (const char* bad : {
           "\"\xff\"",              // never in UTF-8
           "\"\x80\"",              // a continuation byte alone
           "\"\xc3\"",              // a lead byte cut short by the quote
           "\"\xc0\xaf\"",          // overlong '/'
           "\"\xe0\x80\xaf\"",      // overlong, three bytes
           "\"\xed\xa0\x80\"",      // a surrogate, encoded
           "\"\xf4\x90\x80\x80\"",  // above U+10FFFF
           "\"\xf8\x88\x80\x80\x80\"",
       })
    EXPECT_NE(Refused(bad).find("invalid UTF-8"), std::string::npos) << bad;
  // Outside strings, any byte that is not JSON is refused too.
  Refused("\xef\xbb\xbf{}");  // a byte-order mark
}

TEST(ParseJson, ControlCharactersMustBeEscaped) {
  EXPECT_NE(Refused("\"a\nb\"").find("control character"), std::string::npos);
  EXPECT_NE(Refused(std::string("\"a\0b\"", 5)).find("control character"), std::string::npos);
}

TEST(ParseJson, StructureErrorsNameThePlace) {
  EXPECT_EQ(Refused("{\n  \"a\": 1,\n}"), "line 3, column 1: trailing ',' before '}'");
  EXPECT_EQ(Refused("[1, 2,]"), "line 1, column 7: trailing ',' before ']'");
  EXPECT_EQ(Refused("{\"a\" 1}"), "line 1, column 6: expected ':' after the object key \"a\"");
  EXPECT_EQ(Refused("{\"a\": 1 \"b\": 2}"),
            "line 1, column 9: expected ',' or '}' after an object member, found '\"'");
  EXPECT_EQ(Refused("{'a': 1}"), "line 1, column 2: expected a quoted object key, found '''");
  EXPECT_EQ(Refused("[1 2]"),
            "line 1, column 4: expected ',' or ']' after an array element, "
            "found '2'");
  EXPECT_EQ(Refused(""), "line 1, column 1: unexpected end of the document: expected a value");
  EXPECT_EQ(Refused("{} {}"), "line 1, column 4: unexpected text after the document's one value");
  EXPECT_EQ(Refused("nul"), "line 1, column 1: unexpected word: expected true, false or null");
  EXPECT_EQ(Refused("// comment\n{}"), "line 1, column 1: unexpected '/': expected a value");
  EXPECT_NE(Refused("[1, 2").find("unexpected end of the document"), std::string::npos);
  EXPECT_NE(Refused("{\"a\": ").find("unexpected end of the document"), std::string::npos);
  EXPECT_NE(Refused("\"abc").find("unterminated string"), std::string::npos);
}

TEST(ParseJson, DuplicateKeysAreRefusedAtTheSecond) {
  EXPECT_EQ(Refused("{\"a\": 1, \"b\": 2, \"a\": 3}"),
            "line 1, column 18: the key \"a\" appears twice in one object");
  // The same key in different objects is fine.
  Parsed("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 2}, {\"a\": 3}]}");
}

TEST(ParseJson, DepthIsBounded) {
  auto nested = [](int depth) {
    return std::string(static_cast<size_t>(depth), '[') +
           std::string(static_cast<size_t>(depth), ']');
  };
  Parsed(nested(kJsonMaxDepth));
  EXPECT_NE(Refused(nested(kJsonMaxDepth + 1)).find("nested more than"), std::string::npos);
  // Far deeper than any stack would take if the depth were not counted.
  EXPECT_NE(Refused(std::string(1000000, '[')).find("nested more than"), std::string::npos);
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  EXPECT_NE(Refused(objects).find("nested more than"), std::string::npos);
}

TEST(ParseJson, ManyKeysAreCheckedQuickly) {
  std::string text = "{";
  for (int i = 0; i < 200000; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  text += "}";
  EXPECT_EQ(Parsed(text).members().size(), 200000u);
}

// What a fuzz target does, briefly and deterministically: every prefix of a real document, and
// random byte changes to it, parse or fail cleanly (run under the sanitizers in a debug build).
TEST(ParseJson, MangledInputFailsCleanly) {
  const std::string seed =
      R"({"run_id": 3, "uid": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "params": {"n": 1000},)"
      R"( "note": "caf\u00e9 \ud83d\ude00", "samples_s": [1.5e-06, 2e-06], "tags": {},)"
      R"( "metrics": {"flops": {"model": {"value": 2000, "unit": "FLOP", "note": "x"}}},)"
      R"( "trust": [], "ok": true, "none": null})";
  Parsed(seed);
  for (size_t cut = 0; cut < seed.size(); ++cut) {
    JsonValue value;
    Error err;
    EXPECT_FALSE(ParseJson(seed.substr(0, cut), &value, &err)) << cut;
    EXPECT_FALSE(err.message.empty());
  }
  std::mt19937 random(14);
  for (int round = 0; round < 20000; ++round) {
    std::string text = seed;
    int changes = 1 + static_cast<int>(random() % 4);
    for (int c = 0; c < changes; ++c) {
      size_t at = random() % text.size();
      switch (random() % 3) {
        case 0:
          text[at] = static_cast<char>(random() % 256);
          break;
        case 1:
          text.erase(at, 1 + random() % 8);
          break;
        default:
          text.insert(at, 1, "{}[]\",:\\u0e-"[random() % 12]);
      }
      if (text.empty()) text.push_back('x');
    }
    JsonValue value;
    Error err;
    if (!ParseJson(text, &value, &err)) {
      EXPECT_FALSE(err.message.empty()) << text;
    }
  }
}

}  // namespace
}  // namespace rprof
