# cmake -DBUILD=dir -DTARGET=t -DHEADER=h -DEXPECT=pass|fail -P check.cmake
# Builds one layer case; a "fail" case must fail because the header is not
# found (not for any other reason), a "pass" case must build.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD} --target ${TARGET}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# gcc: "h: No such file or directory"; clang: "'h' file not found"
string(FIND "${out}${err}" "${HEADER}: No such file" missing)
if(missing EQUAL -1)
  string(FIND "${out}${err}" "'${HEADER}' file not found" missing)
endif()
if(EXPECT STREQUAL "fail")
  if(rc EQUAL 0 OR missing EQUAL -1)
    message(FATAL_ERROR "an upward include of ${HEADER} was not refused for the header's absence (rc ${rc}):\n${out}${err}")
  endif()
  message(STATUS "refused as expected: ${HEADER} is not visible")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "an allowed include of ${HEADER} did not build:\n${out}${err}")
endif()
