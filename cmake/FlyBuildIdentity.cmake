# Writes OUTPUT, a C++ include defining FLY_BUILD_IDENTITY: the SHA-256 of
# the lines of INPUTS, where a line that names a file under the source root
# stands for its path relative to the root and the SHA-256 of its contents,
# and any other line (compiler, build type, flags) stands for itself.
# Relative paths: two checkouts of the same sources share one identity.
# OUTPUT is rewritten only when the identity changes, so an unchanged one
# recompiles nothing.
#
#   cmake -DINPUTS=<file> -DOUTPUT=<file> -P FlyBuildIdentity.cmake
file(STRINGS ${INPUTS} lines)
list(POP_FRONT lines root_line)
string(REGEX REPLACE "^root " "" root "${root_line}")
set(material "")
foreach(line IN LISTS lines)
  if(IS_ABSOLUTE "${line}" AND EXISTS "${line}")
    file(SHA256 "${line}" digest)
    file(RELATIVE_PATH relative "${root}" "${line}")
    string(APPEND material "${relative} ${digest}\n")
  else()
    string(APPEND material "${line}\n")
  endif()
endforeach()
string(SHA256 identity "${material}")
file(CONFIGURE OUTPUT ${OUTPUT} CONTENT
     "#define FLY_BUILD_IDENTITY \"${identity}\"\n")
