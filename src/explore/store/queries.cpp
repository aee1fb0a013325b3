// The statements both backends share, and the condition of `liftc results`' filters.

#include "queries.hpp"

#include <fmt/format.h>

namespace liftc::explore::queries {

std::string select_evaluations(const std::string& columns, const std::string& where, const std::string& order) {
  return fmt::format("SELECT {} FROM evaluations {} {}", columns, where, order);
}

Condition evaluation_filter(const EvaluationFilter& filter, const schema::Dialect& dialect) {
  std::vector<std::string> tests;
  Condition out;
  if (filter.run >= 0) {
    tests.push_back("run = ?");
    out.values.push_back(filter.run);
  }
  if (!filter.device.empty()) {
    tests.push_back("device = ?");
    out.values.push_back(filter.device);
  }
  if (!filter.program.empty()) {
    // The file as given, the program's hash, or the file's name after its last '/'.
    std::string tail = "/" + filter.program;
    std::int64_t characters = 0;  // SQL's length() counts characters, not UTF-8 bytes
    for (unsigned char c : tail) characters += (c & 0xC0) != 0x80;
    tests.push_back("(file = ? OR program = ? OR substr(file, length(file) - ? + 1) = ?)");
    out.values.insert(out.values.end(),
                      {filter.program, filter.program, characters, tail});
  }
  if (!filter.shapes.empty()) {
    tests.push_back(fmt::format(fmt::runtime(dialect.contains), "shapes", "?"));
    out.values.push_back(filter.shapes);
  }
  if (!tests.empty()) out.where = fmt::format("WHERE {}", fmt::join(tests, " AND "));
  return out;
}

}  // namespace liftc::explore::queries
