// UTF-8 as Unicode defines it well-formed: no overlong forms, no surrogates (U+D800..U+DFFF),
// nothing above U+10FFFF, no sequence cut short. Text rprof did not write itself (program
// paths and arguments, a plugin's messages, SQL results) can hold any bytes; JSON must not.
#ifndef RPROF_CORE_UTF8_H_
#define RPROF_CORE_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace rprof {

// The first character of `text` (not empty): `length` bytes (1 to 4) holding `code_point` when
// `valid`; else `length` bytes (1 to 3) that begin no well-formed character, Unicode's "maximal
// subpart", which one U+FFFD replaces (so "\xe2\x82" cut short is one U+FFFD, "\xff\xff" two).
struct Utf8Char {
  bool valid;
  size_t length;
  char32_t code_point;  // U+FFFD when not valid
};
Utf8Char NextUtf8Char(std::string_view text);

bool IsValidUtf8(std::string_view text);

// `text` with each ill-formed part replaced by U+FFFD ("\xef\xbf\xbd"); valid text unchanged.
std::string ValidUtf8(std::string_view text);

// The offset of the first byte of `text` that begins no well-formed character, or npos.
size_t FirstInvalidUtf8(std::string_view text);

}  // namespace rprof

#endif  // RPROF_CORE_UTF8_H_
