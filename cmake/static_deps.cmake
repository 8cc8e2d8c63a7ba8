# callprof_prefer_static(PREFIX...): the imported targets PkgConfig::<PREFIX> (from
# pkg_check_modules(<PREFIX> IMPORTED_TARGET ...)) link their libraries' archives instead of
# the shared libraries, with what pkg-config --static says they need, each as an archive
# where one is installed (Debian's -dev packages ship them; scripts/install-deps.sh installs
# libbz2-dev, which libdw-dev does not pull in) and by name otherwise (pthread).
#
# Why: every shared library is work for the dynamic loader at each start of callprof (its
# relocations, its initialisers), and a short recording's start-up is part of what it costs:
# linked statically, elfutils, zstd, libbpf, libseccomp and protobuf took 0.9-1.0 ms off each
# start (bench/README.md, "A short recording's fixed cost"). CALLPROF_STATIC_DEPS=OFF links
# them shared, as pkg-config gives them.
function(callprof_prefer_static)
  foreach(prefix IN LISTS ARGN)
    set(archives)
    foreach(name IN LISTS ${prefix}_STATIC_LIBRARIES)
      if(name STREQUAL "pthread" OR name STREQUAL "dl" OR name STREQUAL "m")
        list(APPEND archives ${name})
        continue()
      endif()
      find_library(CALLPROF_ARCHIVE_${name} NAMES lib${name}.a HINTS ${${prefix}_STATIC_LIBRARY_DIRS})
      if(CALLPROF_ARCHIVE_${name})
        list(APPEND archives ${CALLPROF_ARCHIVE_${name}})
      else()
        list(APPEND archives ${name})
      endif()
    endforeach()
    list(REMOVE_DUPLICATES archives)
    set_target_properties(PkgConfig::${prefix} PROPERTIES INTERFACE_LINK_LIBRARIES "${archives}")
  endforeach()
endfunction()

# callprof_prefer_static_imported(PREFIX): the imported shared-library targets whose names
# start with PREFIX (abseil's CMake package: absl::) link the archive beside their .so file
# where one is installed.
function(callprof_prefer_static_imported prefix)
  get_directory_property(targets IMPORTED_TARGETS)
  foreach(target IN LISTS targets)
    string(FIND "${target}" "${prefix}" at)
    if(NOT at EQUAL 0)
      continue()
    endif()
    get_target_property(type ${target} TYPE)
    get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
    if(NOT type STREQUAL "SHARED_LIBRARY" OR NOT configs)
      continue()
    endif()
    foreach(config IN LISTS configs)
      get_target_property(location ${target} IMPORTED_LOCATION_${config})
      string(REGEX REPLACE "\\.so(\\.[0-9.]*)?$" ".a" archive "${location}")
      if(location AND EXISTS "${archive}")
        set_target_properties(${target} PROPERTIES IMPORTED_LOCATION_${config} "${archive}" IMPORTED_NO_SONAME_${config} ON)
      endif()
    endforeach()
  endforeach()
endfunction()
