# Writes a .cpp holding dsl/prelude.sr's text: run with -DINPUT=<prelude.sr> -DOUTPUT=<file.cpp>.
file(READ "${INPUT}" text)
set(delimiter "liftc_prelude")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )${delimiter}\"")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from dsl/prelude.sr by src/parse/embed_prelude.cmake. Do not edit.\n"
  "#include \"liftc/parse/parse.hpp\"\n\n"
  "namespace liftc::parse {\n\n"
  "const std::string& prelude_text() {\n"
  "  static const std::string text = R\"${delimiter}(${text})${delimiter}\";\n"
  "  return text;\n"
  "}\n\n"
  "}  // namespace liftc::parse\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
