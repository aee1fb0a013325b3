#pragma once
// Source positions and user-facing errors.
//
// Two kinds of error exist in liftc (STYLE.md, habit 6):
//  * a user error (bad program, bad flag, bad input file, a device that refuses) is a
//    liftc::Error carrying an optional source position; the driver prints it and exits 1;
//  * a broken internal invariant is LIFTC_ASSERT, which names the invariant and aborts.

#include <memory>
#include <stdexcept>
#include <string>

namespace liftc {

/// A source text and the name it was read from; shared by every position into it.
struct SourceFile {
  std::string path;
  std::string text;
};

/// A position in a source file (1-based line and column); `file == nullptr` means unknown.
struct SourceLoc {
  std::shared_ptr<const SourceFile> file;
  int line = 0;
  int col = 0;

  bool known() const { return file != nullptr && line > 0; }
};

/// Renders "path:line:col: error: message" followed by the source line and a caret.
std::string format_diagnostic(const SourceLoc& loc, const std::string& message);

/// A user error: bad input of any kind. what() is the fully formatted diagnostic.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, SourceLoc loc = {});
  const std::string& message() const { return message_; }
  const SourceLoc& loc() const { return loc_; }

 private:
  std::string message_;
  SourceLoc loc_;
};

[[noreturn]] void internal_error(const char* file, int line, const char* condition, const std::string& why);

}  // namespace liftc

/// Checks an internal invariant; on failure names it and aborts (never for user input).
#define LIFTC_ASSERT(cond, why) \
  do {                                                                  \
    if (!(cond)) ::liftc::internal_error(__FILE__, __LINE__, #cond, (why)); \
  } while (0)
