#pragma once
// The embedded templates (templates.cpp, written by embed_templates.cmake at build time).

#include <cstddef>

namespace liftc::emit {

/// One template: its path under src/emit/templates and its text, holes unfilled.
struct TemplateEntry {
  const char* name;
  const char* text;
};

/// Every template of src/emit/templates.
extern const TemplateEntry kTemplates[];
/// How many kTemplates holds.
extern const std::size_t kTemplateCount;

}  // namespace liftc::emit
