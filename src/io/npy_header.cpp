#include "npy_header.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::io::detail {

namespace {

// A Python literal of the subset numpy headers use.
struct PyValue {
  enum class Kind { Str, Bool, Int, Tuple, Dict, None } kind = Kind::None;
  std::string str;
  bool boolean = false;
  std::int64_t integer = 0;
  std::vector<PyValue> items;                // Tuple (also lists)
  std::map<std::string, PyValue> entries;    // Dict
};

// Up to 24 characters either side of `at`, on one line: control and non-ASCII bytes as
// \xNN, "..." where text is left out (a crafted header can be megabytes long).
std::string excerpt(std::string_view text, std::size_t at) {
  constexpr std::size_t kSide = 24;
  std::size_t begin = at > kSide ? at - kSide : 0;
  std::size_t end = std::min(text.size(), at + kSide);
  std::string out = begin > 0 ? "..." : "";
  for (std::size_t i = begin; i < end; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  if (end < text.size()) out += "...";
  return out;
}

// Recursive-descent reader of one Python literal; errors name the file.
class LiteralReader {
 public:
  LiteralReader(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  PyValue read_all() {
    PyValue v = value();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the header dict");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: malformed .npy header: {} (at offset {}: '{}')", path_, what, pos_,
                            excerpt(text_, pos_)));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool eat_word(std::string_view w) {
    skip_space();
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  PyValue value() {
    // Real headers nest two levels (the dict, its shape tuple); a crafted one could nest
    // deep enough to overflow the stack of this recursive reader.
    if (depth_ >= kMaxNesting) fail(fmt::format("nested deeper than {} levels", kMaxNesting));
    struct Nest {
      int& depth;
      explicit Nest(int& d) : depth(++d) {}
      ~Nest() { --depth; }
    } nest(depth_);
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end of header");
    char c = text_[pos_];
    PyValue v;
    if (c == '\'' || c == '"') {
      v.kind = PyValue::Kind::Str;
      v.str = string_literal();
    } else if (c == '{') {
      v.kind = PyValue::Kind::Dict;
      ++pos_;
      while (!eat('}')) {
        skip_space();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) fail("expected a quoted key");
        std::string key = string_literal();
        if (!eat(':')) fail("expected ':' after key '" + key + "'");
        v.entries[key] = value();
        if (!eat(',')) {
          if (!eat('}')) fail("expected ',' or '}'");
          break;
        }
      }
    } else if (c == '(' || c == '[') {
      char close = c == '(' ? ')' : ']';
      v.kind = PyValue::Kind::Tuple;
      ++pos_;
      while (!eat(close)) {
        v.items.push_back(value());
        if (!eat(',')) {
          if (!eat(close)) fail(fmt::format("expected ',' or '{}'", close));
          break;
        }
      }
    } else if (eat_word("True")) {
      v.kind = PyValue::Kind::Bool;
      v.boolean = true;
    } else if (eat_word("False")) {
      v.kind = PyValue::Kind::Bool;
    } else if (eat_word("None")) {
      v.kind = PyValue::Kind::None;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      v.kind = PyValue::Kind::Int;
      v.integer = integer_literal();
    } else {
      fail(fmt::format("unexpected character '{}'", c));
    }
    return v;
  }

  std::string string_literal() {
    char quote = text_[pos_++];
    std::string s;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      s += text_[pos_++];
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return s;
  }

  std::int64_t integer_literal() {
    bool negative = text_[pos_] == '-';
    if (negative) ++pos_;
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) fail("expected a digit");
    std::int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (v > (INT64_MAX - 9) / 10) fail("integer too large");
      v = v * 10 + (text_[pos_++] - '0');
    }
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;  // Python 2 longs
    return negative ? -v : v;
  }

  static constexpr int kMaxNesting = 32;  // dicts, tuples and lists inside one another

  std::string_view text_;
  const std::string& path_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

NpyHeader parse_npy_header(std::string_view text, const std::string& path) {
  PyValue dict = LiteralReader(text, path).read_all();
  if (dict.kind != PyValue::Kind::Dict)
    throw Error(fmt::format("{}: .npy header is not a dict: '{}'", path, excerpt(text, 0)));
  auto field = [&](const char* key, PyValue::Kind kind, const char* what) -> const PyValue& {
    auto it = dict.entries.find(key);
    if (it == dict.entries.end()) throw Error(fmt::format("{}: .npy header has no '{}' key", path, key));
    if (it->second.kind != kind) throw Error(fmt::format("{}: .npy header's '{}' is not {}", path, key, what));
    return it->second;
  };
  NpyHeader h;
  h.descr = field("descr", PyValue::Kind::Str, "a dtype string").str;
  h.fortran_order = field("fortran_order", PyValue::Kind::Bool, "True or False").boolean;
  for (const PyValue& d : field("shape", PyValue::Kind::Tuple, "a tuple").items) {
    if (d.kind != PyValue::Kind::Int) throw Error(fmt::format("{}: .npy header's 'shape' holds a non-integer", path));
    if (d.integer < 0) throw Error(fmt::format("{}: .npy header's 'shape' holds a negative dimension {}", path, d.integer));
    h.shape.push_back(d.integer);
  }
  return h;
}

std::string format_npy_header(const NpyHeader& h) {
  std::string shape;
  if (h.shape.size() == 1)
    shape = fmt::format("({},)", h.shape[0]);
  else
    shape = fmt::format("({})", fmt::join(h.shape, ", "));
  return fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", h.descr,
                     h.fortran_order ? "True" : "False", shape);
}

}  // namespace liftc::io::detail
