# Each library exports only its own folder of src/ as its include root (ARCHITECTURE.md): a
# header of a library it does not link is not found, so a missing dependency edge fails at
# compile time, not only in scripts/check-deps.py. The root is a directory of the build tree
# that holds one symbolic link, ROOT/FOLDER -> src/FOLDER, so includes keep their
# "folder/file.h" form.
#   callprof_include_root(TARGET FOLDER [INTERFACE])
function(callprof_include_root target folder)
  set(root ${CMAKE_BINARY_DIR}/include_roots/${target})
  get_filename_component(parent ${root}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT IS_SYMLINK ${root}/${folder})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${folder} ${root}/${folder} SYMBOLIC)
  endif()
  set(scope PUBLIC)
  if(ARGN STREQUAL "INTERFACE")
    set(scope INTERFACE)
  endif()
  target_include_directories(${target} ${scope} ${root})
endfunction()
