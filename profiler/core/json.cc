#include "core/json.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/utf8.h"

namespace rprof {

std::string JsonQuote(std::string_view text) {
  std::string out = "\"";
  for (size_t at = 0; at < text.size();) {
    Utf8Char next = NextUtf8Char(text.substr(at));
    char c = text[at];
    at += next.length;
    // Strict parsers refuse a string that is not UTF-8: an ill-formed part (a path or an
    // argument in another encoding) becomes U+FFFD rather than making the whole document
    // unreadable.
    if (!next.valid) {
      out += "\xef\xbf\xbd";
      continue;
    }
    if (next.length > 1) {
      out.append(text.substr(at - next.length, next.length));
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        // JSON requires only C0 escaped; DEL too, so that no control character reaches a
        // terminal that shows the document.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  if (value == std::floor(value) && std::fabs(value) < 9e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  char buf[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::Open(char bracket) {
  BeforeValue();
  out_ += bracket;
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::Close(char bracket) {
  out_ += bracket;
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::BeginObject() { return Open('{'); }
JsonWriter& JsonWriter::EndObject() { return Close('}'); }
JsonWriter& JsonWriter::BeginArray() { return Open('['); }
JsonWriter& JsonWriter::EndArray() { return Close(']'); }
JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  out_ += JsonQuote(key) + ":";
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  out_ += JsonQuote(value);
  return *this;
}
JsonWriter& JsonWriter::Number(double value) {
  BeforeValue();
  out_ += JsonNumber(value);
  return *this;
}
JsonWriter& JsonWriter::Int(long long value) {
  BeforeValue();
  out_ += std::to_string(value);
  return *this;
}
JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}
JsonWriter& JsonWriter::OptionalNumber(const std::optional<double>& value) {
  return value ? Number(*value) : Null();
}
JsonWriter& JsonWriter::StringOrNull(std::string_view value) {
  return value.empty() ? Null() : String(value);
}
JsonWriter& JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_ += json;
  return *this;
}

namespace {

// A cursor over flat JSON: strings (with the escapes JsonQuote writes) and bare scalars.
struct Reader {
  std::string_view s;
  size_t pos = 0;

  void Space() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  }
  bool Eat(char c) {
    Space();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    out->clear();
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (c == '\\' && pos < s.size()) {
        char e = s[pos++];
        if (e == 'n')
          c = '\n';
        else if (e == 't')
          c = '\t';
        else if (e == 'r')
          c = '\r';
        else if (e == 'u' && pos + 4 <= s.size()) {
          c = static_cast<char>(std::strtol(std::string(s.substr(pos, 4)).c_str(), nullptr, 16));
          pos += 4;
        } else
          c = e;
      }
      *out += c;
    }
    return Eat('"');
  }
  bool Scalar(std::string* out) {
    Space();
    if (pos < s.size() && s[pos] == '"') return String(out);
    size_t start = pos;
    while (pos < s.size() && s[pos] != ',' && s[pos] != '}' && s[pos] != ']' &&
           !std::isspace(static_cast<unsigned char>(s[pos])))
      ++pos;
    *out = std::string(s.substr(start, pos - start));
    return !out->empty() && (*out)[0] != '{' && (*out)[0] != '[';
  }
  bool AtEnd() {
    Space();
    return pos == s.size();
  }
};

}  // namespace

bool ParseFlatJsonObject(std::string_view json, JsonPairs* out) {
  Reader r{json};
  out->clear();
  if (!r.Eat('{')) return false;
  if (r.Eat('}')) return r.AtEnd();
  do {
    std::string key, value;
    if (!r.String(&key) || !r.Eat(':') || !r.Scalar(&value)) return false;
    out->emplace_back(std::move(key), std::move(value));
  } while (r.Eat(','));
  return r.Eat('}') && r.AtEnd();
}

bool ParseJsonStringArray(std::string_view json, std::vector<std::string>* out) {
  Reader r{json};
  out->clear();
  if (!r.Eat('[')) return false;
  if (r.Eat(']')) return r.AtEnd();
  do {
    std::string item;
    if (!r.String(&item)) return false;
    out->push_back(std::move(item));
  } while (r.Eat(','));
  return r.Eat(']') && r.AtEnd();
}

std::string PairsToJsonObject(const JsonPairs& pairs) {
  JsonWriter w;
  w.BeginObject();
  for (const auto& [key, value] : pairs) {
    w.Key(key);
    char* end = nullptr;
    long long number = value.empty() ? 0 : std::strtoll(value.c_str(), &end, 10);
    if (!value.empty() && *end == '\0' && std::to_string(number) == value)
      w.Int(number);
    else
      w.String(value);
  }
  w.EndObject();
  return w.str();
}

std::string StringsToJsonArray(const std::vector<std::string>& items) {
  JsonWriter w;
  w.BeginArray();
  for (const auto& item : items) w.String(item);
  w.EndArray();
  return w.str();
}

}  // namespace rprof
