# C++ for a protobuf schema of src/ (generated code: never hand-encoded), with src/ as
# protoc's root so the schema registers as "FOLDER/NAME.proto": a bare "profile.proto"
# would collide with pprof's schema of that name in the same binary. (protobuf_generate
# always puts the schema's own folder first on the import path, hence the command.)
#   callprof_proto_sources(VAR FOLDER NAME) sets VAR to the generated .pb.cc and
#   VAR_INCLUDE to the directory to add to the library's include path.
function(callprof_proto_sources var folder name)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/gen)
  add_custom_command(
    OUTPUT ${out}/${folder}/${name}.pb.h ${out}/${folder}/${name}.pb.cc
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
    COMMAND protobuf::protoc --cpp_out=lite:${out} -I ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/${folder}/${name}.proto
    DEPENDS ${PROJECT_SOURCE_DIR}/src/${folder}/${name}.proto protobuf::protoc
    COMMENT "Generating C++ for ${folder}/${name}.proto"
    VERBATIM)
  set_source_files_properties(${out}/${folder}/${name}.pb.cc PROPERTIES COMPILE_OPTIONS -w)
  set(${var} ${out}/${folder}/${name}.pb.cc PARENT_SCOPE)
  set(${var}_INCLUDE ${out} PARENT_SCOPE)
endfunction()
