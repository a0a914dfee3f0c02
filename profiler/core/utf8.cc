#include "core/utf8.h"

namespace rprof {

namespace {

constexpr Utf8Char kReplacement(size_t length) { return {false, length, U'\uFFFD'}; }

bool Continuation(unsigned char byte, unsigned char low = 0x80, unsigned char high = 0xbf) {
  return byte >= low && byte <= high;
}

}  // namespace

Utf8Char NextUtf8Char(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t size = text.size();
  unsigned char lead = s[0];
  if (lead < 0x80) return {true, 1, lead};
  // The lead byte fixes the length and the range of the second byte: that range is what
  // excludes overlong forms (E0, F0), surrogates (ED) and code points above U+10FFFF (F4).
  size_t length;
  unsigned char low = 0x80, high = 0xbf;
  char32_t code_point;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code_point = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code_point = lead & 0x0f;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code_point = lead & 0x07;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return kReplacement(1);  // a continuation byte alone, C0, C1 (overlong) or F5..FF
  }
  for (size_t i = 1; i < length; ++i) {
    bool fits = i < size && (i == 1 ? Continuation(s[i], low, high) : Continuation(s[i]));
    if (!fits) return kReplacement(i);  // the bytes so far could begin a character: one U+FFFD
    code_point = (code_point << 6) | (s[i] & 0x3f);
  }
  return {true, length, code_point};
}

size_t FirstInvalidUtf8(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    Utf8Char c = NextUtf8Char(text.substr(at));
    if (!c.valid) return at;
    at += c.length;
  }
  return std::string_view::npos;
}

bool IsValidUtf8(std::string_view text) { return FirstInvalidUtf8(text) == std::string_view::npos; }

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    Utf8Char c = NextUtf8Char(text.substr(at));
    if (c.valid)
      out.append(text.substr(at, c.length));
    else
      out.append("\xef\xbf\xbd");
    at += c.length;
  }
  return out;
}

}  // namespace rprof
