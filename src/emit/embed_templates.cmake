cmake_minimum_required(VERSION 3.22)
# Writes a .cpp holding the text of every template of src/emit/templates, as the table
# emit::template_text() reads: run with -DOUTPUT=<file.cpp> -DDIR=<templates folder>
# -DTEMPLATES=<a;b;...> (paths relative to DIR, the names template_text() takes).
# A template's `//@default NAME: TEXT` lines (the value its hole NAME takes when the build
# compiles the template: check_template.cmake) are not part of its text.
set(delimiter "liftc_template")
set(entries "")
foreach(name IN LISTS TEMPLATES)
  set(path "${DIR}/${name}")
  file(READ "${path}" text)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw-string delimiter )${delimiter}\"")
  endif()
  string(REGEX REPLACE "//@default [^\n]*\n" "" text "${text}")
  string(APPEND entries "    {\"${name}\", R\"${delimiter}(${text})${delimiter}\"},\n")
endforeach()
# -DEXTRA=<name=path;...>: files outside DIR embedded under a name of their own (liftc's
# header-only sources the host text carries, such as half.hpp).
foreach(entry IN LISTS EXTRA)
  string(FIND "${entry}" "=" eq)
  string(SUBSTRING "${entry}" 0 ${eq} name)
  math(EXPR path_at "${eq} + 1")
  string(SUBSTRING "${entry}" ${path_at} -1 path)
  file(READ "${path}" text)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw-string delimiter )${delimiter}\"")
  endif()
  string(APPEND entries "    {\"${name}\", R\"${delimiter}(${text})${delimiter}\"},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from src/emit/templates by src/emit/embed_templates.cmake. Do not edit.\n"
  "#include \"template_table.hpp\"\n\n"
  "namespace liftc::emit {\n\n"
  "const TemplateEntry kTemplates[] = {\n${entries}};\n\n"
  "const std::size_t kTemplateCount = sizeof(kTemplates) / sizeof(kTemplates[0]);\n\n"
  "}  // namespace liftc::emit\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
