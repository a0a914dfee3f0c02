#include "core/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>

#include "core/json.h"

namespace rprof {

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [name, value] : members_)
    if (name == key) return &value;
  return nullptr;
}

const char* JsonValue::TypeName(Type type) {
  // Indexed by Type, in its order.
  static constexpr const char* kNames[] = {"null",     "a boolean", "a number",
                                           "a string", "an array",  "an object"};
  return kNames[static_cast<int>(type)];
}

// Recursive descent over the text; the depth counter is what keeps recursion bounded.
class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}

  bool Document(JsonValue* out, std::string* err) {
    err_ = err;
    SkipSpace();
    if (!Value(out, 0)) return false;
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text after the document's one value");
    return true;
  }

 private:
  bool Error(const std::string& what) {
    // Line and column of pos_, counted only now: errors are rare, documents can be long.
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    *err_ = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
    return false;
  }

  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }

  void SkipSpace() {
    while (!AtEnd() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  bool Value(JsonValue* out, int depth) {
    if (AtEnd()) return Error("unexpected end of the document: expected a value");
    char c = s_[pos_];
    switch (c) {
      case '{':
        return Object(out, depth + 1);
      case '[':
        return Array(out, depth + 1);
      case '"':
        out->type_ = JsonValue::Type::kString;
        return String(&out->text_);
      case 't':
        return Literal("true", out, JsonValue::Type::kBool, true);
      case 'f':
        return Literal("false", out, JsonValue::Type::kBool, false);
      case 'n':
        return Literal("null", out, JsonValue::Type::kNull, false);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return Number(out);
        return Error(std::string("unexpected ") + Describe(c) + ": expected a value");
    }
  }

  // A character as a message shows it: printable ones quoted, others by code.
  static std::string Describe(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    char text[16];
    std::snprintf(text, sizeof text, "byte 0x%02x", u);
    return text;
  }

  bool Literal(std::string_view word, JsonValue* out, JsonValue::Type type, bool value) {
    if (s_.substr(pos_, word.size()) != word)
      return Error("unexpected word: expected true, false or null");
    pos_ += word.size();
    out->type_ = type;
    out->bool_ = value;
    return true;
  }

  bool Digits() {
    size_t start = pos_;
    while (!AtEnd() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }

  bool Number(JsonValue* out) {
    size_t start = pos_;
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
      if (Peek() >= '0' && Peek() <= '9') return Error("a number may not start with 0");
    } else if (!Digits()) {
      return Error("expected a digit after '-'");
    }
    if (Peek() == '.') {
      ++pos_;
      if (!Digits()) return Error("expected a digit after the decimal point");
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!Digits()) return Error("expected a digit in the exponent");
    }
    std::string_view text = s_.substr(start, pos_ - start);
    double value = 0;
    // from_chars: the same in every locale, unlike strtod.
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      pos_ = start;
      return Error("number " + std::string(text) + " is out of the range of a double");
    }
    out->type_ = JsonValue::Type::kNumber;
    out->number_ = value;
    out->text_ = std::string(text);
    return true;
  }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // The four hex digits after "\u", at pos_.
  bool Hex4(uint32_t* code) {
    if (s_.size() - pos_ < 4) return Error("expected four hex digits after \\u");
    *code = 0;
    for (int i = 0; i < 4; ++i) {
      int d = HexDigit(s_[pos_ + i]);
      if (d < 0) return Error("expected four hex digits after \\u");
      *code = *code * 16 + static_cast<uint32_t>(d);
    }
    pos_ += 4;
    return true;
  }

  static void AppendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      *out += static_cast<char>(code);
    } else if (code < 0x800) {
      *out += static_cast<char>(0xc0 | (code >> 6));
      *out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      *out += static_cast<char>(0xe0 | (code >> 12));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      *out += static_cast<char>(0xf0 | (code >> 18));
      *out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  // The length of the valid UTF-8 sequence at pos_ (a non-ASCII lead byte), or 0: no overlong
  // forms, no surrogates, nothing above U+10FFFF (RFC 3629).
  size_t Utf8Length() const {
    auto byte = [&](size_t i) -> unsigned {
      return pos_ + i < s_.size() ? static_cast<unsigned char>(s_[pos_ + i]) : 0u;
    };
    auto cont = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xbf) {
      return byte(i) >= lo && byte(i) <= hi;
    };
    unsigned b = byte(0);
    if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
    if (b == 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
    if ((b >= 0xe1 && b <= 0xec) || b == 0xee || b == 0xef) return cont(1) && cont(2) ? 3 : 0;
    if (b == 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
    if (b == 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    if (b >= 0xf1 && b <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
    if (b == 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
    return 0;
  }

  bool String(std::string* out) {
    ++pos_;  // the opening quote
    out->clear();
    while (true) {
      if (AtEnd()) return Error("unterminated string: expected '\"'");
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20)
        return Error("control character " + Describe(s_[pos_]) +
                     " in a string: write it as an escape");
      if (c >= 0x80) {
        size_t length = Utf8Length();
        if (length == 0) return Error("invalid UTF-8 (" + Describe(s_[pos_]) + ") in a string");
        out->append(s_.substr(pos_, length));
        pos_ += length;
        continue;
      }
      if (c != '\\') {
        *out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (AtEnd()) return Error("unterminated string: expected an escape after '\\'");
      char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          *out += e;
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'n':
          *out += '\n';
          break;
        case 'r':
          *out += '\r';
          break;
        case 't':
          *out += '\t';
          break;
        case 'u': {
          uint32_t code = 0;
          if (!Hex4(&code)) return false;
          if (code >= 0xdc00 && code <= 0xdfff)
            return Error("\\u escape of a low surrogate without the high one before it");
          if (code >= 0xd800 && code <= 0xdbff) {
            uint32_t low = 0;
            if (s_.substr(pos_, 2) != "\\u")
              return Error("\\u escape of a high surrogate without its low surrogate");
            pos_ += 2;
            if (!Hex4(&low)) return false;
            if (low < 0xdc00 || low > 0xdfff)
              return Error("\\u escape of a high surrogate without its low surrogate");
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          }
          AppendUtf8(code, out);
          break;
        }
        default:
          --pos_;
          return Error("unknown escape \\" + std::string(1, e) +
                       " (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      }
    }
  }

  bool TooDeep(int depth) {
    if (depth <= kJsonMaxDepth) return false;
    Error("nested more than " + std::to_string(kJsonMaxDepth) + " arrays and objects deep");
    return true;
  }

  // The elements of an array or the members of an object, after its opening bracket and up to
  // its `close` bracket: element() reads one, and a ',' stands between two, never after the
  // last. `element_name` names one in messages ("an array element").
  template <typename Element>
  bool Elements(char close, const char* element_name, Element&& element) {
    SkipSpace();
    if (Peek() == close) {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (!element()) return false;
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        SkipSpace();
        if (Peek() == close) return Error("trailing ',' before " + Quoted(close));
        continue;
      }
      if (Peek() == close) {
        ++pos_;
        return true;
      }
      return Error(AtEnd() ? "unexpected end of the document: expected ',' or " + Quoted(close)
                           : "expected ',' or " + Quoted(close) + " after " + element_name +
                                 ", found " + Describe(Peek()));
    }
  }

  static std::string Quoted(char bracket) { return std::string("'") + bracket + "'"; }

  bool Array(JsonValue* out, int depth) {
    if (TooDeep(depth)) return false;
    ++pos_;  // '['
    out->type_ = JsonValue::Type::kArray;
    return Elements(']', "an array element", [&] {
      out->items_.emplace_back();
      return Value(&out->items_.back(), depth);
    });
  }

  bool Object(JsonValue* out, int depth) {
    if (TooDeep(depth)) return false;
    ++pos_;  // '{'
    out->type_ = JsonValue::Type::kObject;
    std::vector<size_t> key_positions;
    auto member = [&] {
      if (Peek() != '"')
        return Error(AtEnd() ? "unexpected end of the document: expected an object key"
                             : "expected a quoted object key, found " + Describe(Peek()));
      key_positions.push_back(pos_);
      std::string key;
      if (!String(&key)) return false;
      SkipSpace();
      if (Peek() != ':') return Error("expected ':' after the object key " + Shown(key));
      ++pos_;
      SkipSpace();
      out->members_.emplace_back(std::move(key), JsonValue());
      return Value(&out->members_.back().second, depth);
    };
    return Elements('}', "an object member", member) && UniqueKeys(out->members_, key_positions);
  }

  // A key given twice has no one meaning (readers differ on which wins): refused. Sorted, not
  // compared pairwise, so that an object of many keys costs n log n.
  bool UniqueKeys(const JsonValue::Members& members, const std::vector<size_t>& positions) {
    std::vector<size_t> order(members.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return members[a].first != members[b].first ? members[a].first < members[b].first : a < b;
    });
    for (size_t i = 1; i < order.size(); ++i) {
      if (members[order[i]].first == members[order[i - 1]].first) {
        pos_ = positions[order[i]];  // the second time it appears
        return Error("the key " + Shown(members[order[i]].first) + " appears twice in one object");
      }
    }
    return true;
  }

  // A key as a message quotes it: escaped (it may hold anything), cut short when long.
  static std::string Shown(const std::string& key) {
    constexpr size_t kLongest = 60;
    if (key.size() <= kLongest) return JsonQuote(key);
    size_t cut = kLongest;
    while (cut > 0 && (static_cast<unsigned char>(key[cut]) & 0xc0) == 0x80)
      --cut;  // whole characters
    return JsonQuote(key.substr(0, cut)) + "...";
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string* err_ = nullptr;
};

bool ParseJson(std::string_view text, JsonValue* out, Error* err) {
  *out = JsonValue();
  JsonParser parser(text);
  std::string cause;
  if (!parser.Document(out, &cause)) return Fail(err, ErrorKind::kUsage, std::move(cause));
  return true;
}

}  // namespace rprof
