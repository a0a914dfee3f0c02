// The UTF-8 validator the JSON writer and --tag rely on: every well-formed character accepted
// whole, and each ill-formed part (overlong forms, surrogates, code points above U+10FFFF,
// stray continuation bytes, sequences cut short) found and replaced by one U+FFFD, as Unicode
// ("maximal subparts") and the WHATWG decoder do.
#include "core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace rprof {
namespace {

const std::string kFffd = "\xef\xbf\xbd";

TEST(Utf8, WellFormedCharactersOfEveryLength) {
  struct Case {
    const char* bytes;
    size_t length;
    char32_t code_point;
  };
  for (const Case& c :
       {Case{"A", 1, U'A'}, Case{"\x7f", 1, 0x7f}, Case{"\xc2\x80", 2, 0x80},
        Case{"\xc2\xb5", 2, 0xb5} /* µ */, Case{"\xdf\xbf", 2, 0x7ff},
        Case{"\xe0\xa0\x80", 3, 0x800}, Case{"\xed\x9f\xbf", 3, 0xd7ff},
        Case{"\xee\x80\x80", 3, 0xe000}, Case{"\xef\xbf\xbd", 3, 0xfffd},
        Case{"\xf0\x90\x80\x80", 4, 0x10000}, Case{"\xf4\x8f\xbf\xbf", 4, 0x10ffff}}) {
    SCOPED_TRACE(c.bytes);
    Utf8Char next = NextUtf8Char(c.bytes);
    EXPECT_TRUE(next.valid);
    EXPECT_EQ(next.length, c.length);
    EXPECT_EQ(next.code_point, c.code_point);
    EXPECT_TRUE(IsValidUtf8(c.bytes));
  }
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8(std::string("nul\0inside", 10)));
  EXPECT_EQ(ValidUtf8("a µs ≤ 1 𝄞"), "a µs ≤ 1 𝄞");
}

TEST(Utf8, IllFormedPartsAreRefused) {
  for (const char* bad : {
           "\x80",              // a continuation byte alone
           "\xbf",              //
           "\xc0\xaf",          // overlong '/'
           "\xc1\xbf",          // overlong U+007F
           "\xe0\x80\xaf",      // overlong '/' in three bytes
           "\xe0\x9f\xbf",      // overlong U+07FF
           "\xf0\x80\x80\xaf",  // overlong in four bytes
           "\xf0\x8f\xbf\xbf",  // overlong U+FFFF
           "\xed\xa0\x80",      // U+D800, a surrogate
           "\xed\xbf\xbf",      // U+DFFF
           "\xf4\x90\x80\x80",  // U+110000
           "\xf5\x80\x80\x80",  // no lead byte above F4
           "\xff",              //
           "\xfe",              //
           "\xc3",              // cut short
           "\xe2\x82",          //
           "\xf0\x9f\x98",      //
           "\xc3(",             // a second byte that is no continuation
       }) {
    SCOPED_TRACE(testing::PrintToString(std::string(bad)));
    EXPECT_FALSE(IsValidUtf8(bad));
    EXPECT_FALSE(NextUtf8Char(bad).valid);
    EXPECT_EQ(FirstInvalidUtf8(std::string("ok ") + bad), 3u);
  }
}

TEST(Utf8, EachMaximalSubpartBecomesOneReplacement) {
  // The examples of the Unicode Standard, section 3.9 (U+FFFD substitution of maximal subparts).
  EXPECT_EQ(ValidUtf8(std::string("a\xff") + "b"), "a" + kFffd + "b");
  EXPECT_EQ(ValidUtf8("\xff\xfe"), kFffd + kFffd);
  EXPECT_EQ(ValidUtf8("\xe2\x82"), kFffd);                           // a truncated euro sign: one
  EXPECT_EQ(ValidUtf8(std::string("\xe2\x82") + "A"), kFffd + "A");  // the next one kept
  EXPECT_EQ(ValidUtf8("\xf0\x9f\x98\xe2\x82\xac"), kFffd + "\xe2\x82\xac");
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), kFffd + kFffd);              // C0 begins nothing: two parts
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), kFffd + kFffd + kFffd);  // a surrogate: ED alone, then two
  EXPECT_EQ(ValidUtf8("\xf4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(ValidUtf8("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
  EXPECT_EQ(NextUtf8Char("\xf1\x80\x80").length, 3u);
  EXPECT_EQ(NextUtf8Char("\xe1\x80\xc2").length, 2u);
}

TEST(Utf8, ResultIsAlwaysValid) {
  // Every byte pair, after any lead byte: what ValidUtf8 returns passes IsValidUtf8.
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; b += 3) {
      std::string text = {static_cast<char>(a), static_cast<char>(b), '\xbf'};
      ASSERT_TRUE(IsValidUtf8(ValidUtf8(text))) << a << " " << b;
    }
}

}  // namespace
}  // namespace rprof
