// Separate debug files whose DWARF is compressed (SHF_COMPRESSED: Debian's -dbgsym packages
// and libc6-dbg, zlib) are read through a decompressed copy in callprof's cache directory:
// libdw inflates every .debug_* section of a file when it opens it, and for libc's 4 MB debug
// file (10 MB inflated) that was 60 ms of every sample-mode recording with a libc frame.
// Internal to src/symbols.
#pragma once

#include <elfutils/libdwfl.h>

#include <string>

namespace callprof::symbols_detail {

// libdwfl's find_debuginfo callback: the decompressed copy made for the module's build id,
// when there is one; else dwfl_standard_find_debuginfo's search, and when the file it found
// has compressed DWARF, a decompressed copy of it made for the next recordings (the 4 made
// last are kept). Any failure gives what the standard search gives.
int find_debuginfo_decompressed(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                                const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                                char** debuginfo_file_name);

// Whether the ELF file open at `fd` has a compressed .debug_ section.
bool has_compressed_debug(int fd);

// Writes the ELF file `from` to `out` with its compressed sections decompressed; false (and
// `out` removed) when that could not be done.
bool write_decompressed(const std::string& from, const std::string& out);

}  // namespace callprof::symbols_detail
