# write_if_changed(PATH CONTENT): writes CONTENT to PATH unless PATH already holds it, so a
# generated source that did not change recompiles nothing. For the cmake -P scripts that
# embed files into C++ sources (src/render/embed_script.cmake, src/html/embed_assets.cmake).
function(write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()
