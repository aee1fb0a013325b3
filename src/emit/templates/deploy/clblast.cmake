# A point of this front calls CLBlast (a clblast- candidate): the library needs it.
find_library(CLBLAST_LIBRARY clblast)
find_path(CLBLAST_INCLUDE_DIR clblast_c.h)
if(NOT CLBLAST_LIBRARY OR NOT CLBLAST_INCLUDE_DIR)
  message(FATAL_ERROR "CLBlast was not found, and a point of this front calls it: install it (Debian/Ubuntu: "
                      "apt-get install libclblast-dev) or give -DCLBLAST_LIBRARY=... -DCLBLAST_INCLUDE_DIR=...")
endif()
target_compile_definitions(@{name:name}_front PUBLIC LIFTC_HOST_CLBLAST)
target_include_directories(@{name:name}_front PUBLIC ${CLBLAST_INCLUDE_DIR})
target_link_libraries(@{name:name}_front PUBLIC ${CLBLAST_LIBRARY})
