# fly_check_layers(): the layering of ARCHITECTURE.md, checked each time
# CMake configures the project. Call it once every target is defined (the
# top-level CMakeLists.txt defers it to its end): a broken rule is a
# configure error that names the target, what it reaches and through which
# links.
#
# The layers below the compiler, and what their targets may link:
#
#   support/   targets of support/, LLVM, system libraries
#   runtime/   targets of runtime/ and support/, LLVM, system libraries
#
# A target's layer is the top-level directory that defines it. Links are
# followed transitively: LINK_LIBRARIES (PUBLIC and PRIVATE links) and
# INTERFACE_LINK_LIBRARIES, through $<LINK_ONLY:...>, $<BUILD_INTERFACE:...>
# and $<LINK_LIBRARY:feature,...>. Reaching a target of any other directory
# (compiler/, frontend/, test/, ..., or the top level) or MLIR (an MLIR* or mlir_* target, or a
# libMLIR* file) is an error. So is a compiler/ directory, of the source or
# of the build tree, on a lower layer's (INTERFACE_)INCLUDE_DIRECTORIES.
#
# Limits: a link item that is another generator expression (e.g.
# $<$<CONFIG:Debug>:x>) is not followed; imported targets are not followed
# (none of the project's targets is behind one).

set(FLY_LAYERS_ALLOWED_support support)
set(FLY_LAYERS_ALLOWED_runtime runtime support)

# The targets defined in `dir` and its subdirectories.
function(_fly_targets_under dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _fly_targets_under(${subdir} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# The top-level directory of the project that defines `target` ("." for the
# top-level CMakeLists.txt); empty for an imported target.
function(_fly_layer_of target out)
  get_target_property(imported ${target} IMPORTED)
  if(imported)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  get_target_property(dir ${target} SOURCE_DIR)
  file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${dir})
  string(REGEX REPLACE "/.*" "" layer "${relative}")
  if(layer STREQUAL "")
    set(layer ".")
  endif()
  set(${out} ${layer} PARENT_SCOPE)
endfunction()

# `item` with the wrappers that do not change what is linked taken off.
function(_fly_unwrap item out)
  while(TRUE)
    if(item MATCHES "^\\$<(LINK_ONLY|BUILD_INTERFACE|BUILD_LOCAL_INTERFACE):(.*)>$")
      set(item "${CMAKE_MATCH_2}")
    elseif(item MATCHES "^\\$<LINK_LIBRARY:[^,>]*,(.*)>$")
      set(item "${CMAKE_MATCH_1}")
    else()
      break()
    endif()
  endwhile()
  set(${out} "${item}" PARENT_SCOPE)
endfunction()

# What `target` links directly: targets (aliases resolved) and other items.
function(_fly_links_of target out)
  set(items "")
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(links ${target} LINK_LIBRARIES)
    if(links)
      list(APPEND items ${links})
    endif()
  endif()
  get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
  if(links)
    list(APPEND items ${links})
  endif()
  set(result "")
  foreach(item IN LISTS items)
    # ::@(directory-id) marks the directory a link was added from.
    if(item MATCHES "^::@")
      continue()
    endif()
    _fly_unwrap("${item}" item)
    if(TARGET "${item}")
      get_target_property(aliased "${item}" ALIASED_TARGET)
      if(aliased)
        set(item ${aliased})
      endif()
    endif()
    list(APPEND result "${item}")
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

function(_fly_is_mlir item out)
  if(item MATCHES "^(MLIR|mlir_)" OR item MATCHES "(^|/)libMLIR[^/]*$")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# The layering errors of `target`, a target of `layer`, appended to the
# caller's list named `out_list`.
function(_fly_check_target target layer out_list)
  set(found ${${out_list}})
  set(allowed ${FLY_LAYERS_ALLOWED_${layer}})

  foreach(property INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES)
    get_target_property(directories ${target} ${property})
    if(NOT directories)
      continue()
    endif()
    foreach(directory IN LISTS directories)
      _fly_unwrap("${directory}" directory)
      foreach(root ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
        string(FIND "${directory}/" "${root}/compiler/" at)
        if(at EQUAL 0)
          list(APPEND found "${layer} target ${target} has the compiler's \
headers on its include path (${property}: ${directory})")
        endif()
      endforeach()
    endforeach()
  endforeach()

  # Breadth first from `target`; via_<id> is the target an item was reached
  # from, to print the chain of links.
  set(queue ${target})
  set(seen ${target})
  while(queue)
    list(POP_FRONT queue current)
    _fly_links_of(${current} links)
    foreach(item IN LISTS links)
      if(item IN_LIST seen)
        continue()
      endif()
      list(APPEND seen "${item}")
      string(MAKE_C_IDENTIFIER "${item}" id)
      set(via_${id} ${current})

      set(problem "")
      _fly_is_mlir("${item}" mlir)
      if(mlir)
        set(problem "an MLIR library")
      elseif(TARGET "${item}")
        _fly_layer_of("${item}" item_layer)
        if(item_layer STREQUAL ".")
          set(problem "a target of the top-level CMakeLists.txt")
        elseif(item_layer AND NOT item_layer IN_LIST allowed)
          set(problem "a target of ${item_layer}/")
        elseif(item_layer)
          list(APPEND queue "${item}")
        endif()
      endif()
      if(problem)
        set(chain "${item}")
        set(step "${item}")
        while(NOT step STREQUAL target)
          string(MAKE_C_IDENTIFIER "${step}" step_id)
          set(step ${via_${step_id}})
          set(chain "${step} -> ${chain}")
        endwhile()
        list(APPEND found "${layer} target ${target} reaches ${item}, \
${problem}, through ${chain}")
      endif()
    endforeach()
  endwhile()
  set(${out_list} ${found} PARENT_SCOPE)
endfunction()

function(fly_check_layers)
  set(fly_layer_errors "")
  foreach(layer support runtime)
    if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${layer})
      continue()
    endif()
    _fly_targets_under(${PROJECT_SOURCE_DIR}/${layer} targets)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(type STREQUAL "UTILITY")
        continue()
      endif()
      _fly_check_target(${target} ${layer} fly_layer_errors)
    endforeach()
  endforeach()
  if(fly_layer_errors)
    list(JOIN fly_layer_errors "\n  " text)
    message(FATAL_ERROR "FlyDSL's layers (ARCHITECTURE.md) are broken:\n  "
            "${text}\n"
            "runtime/ links only targets of runtime/ and support/, support/ "
            "only its own; both may link LLVM and system libraries, neither "
            "MLIR nor the compiler. What the compiler and the runtime both "
            "need lives in support/, below both.")
  endif()
endfunction()
