// Symbolizer: turns runtime addresses of a recorded process into function names,
// source files and lines, from the ELF/DWARF files of its loaded modules (elfutils).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace callprof {

// One module mapped in the recorded process, as the recorder saw it (dl_iterate_phdr).
struct LoadedModule {
  std::string path;             // as the dynamic loader saw it; "" or "[vdso]" style names have no file
  uint64_t bias = 0;            // load bias (dlpi_addr): runtime address = ELF vaddr + bias
  uint64_t start = 0, end = 0;  // runtime range of its PT_LOAD segments; 0,0: take it from the file
  std::string build_id;         // lowercase hex from the target's memory, "" if none
};

struct SymbolInfo {
  int module = -1;            // index into the modules given, -1 if no module covers the address
  uint64_t file_address = 0;  // address - bias (ELF vaddr), for the profile's Function.address
  std::string name;           // demangled; "" if no symbol (see resolve_inlined for inline frames)
  std::string linkage_name;   // raw ELF symbol name; without one, DWARF's linkage or plain name
  // address - function start (0 for function entries). Without a name, the start is that
  // of the unwind info's range (FDE) around the address, so that the addresses of one
  // stripped function share a start; 0 when not even that is known.
  uint64_t offset = 0;
  std::string file;   // source file of the function (DWARF decl_file, else line table)
  uint32_t line = 0;  // line of the function's declaration, 0 when unknown
  // Where execution is at this address inside the function: the line table for the
  // innermost frame; for a frame around an inlined call, the call site. "" / 0 when unknown.
  std::string pc_file;
  uint32_t pc_line = 0;
  bool inlined = false;  // resolve_inlined(): this frame was inlined into the next one
};

// Where a module's symbols and debug info are looked for (docs/symbols.md);
// debug_search.h builds the search from these.
struct SymbolizerOptions {
  // Roots searched for separate debug files, like gdb's debug-file-directory:
  // <root>/.build-id/xx/yyyy.debug and <root>/<directory of the file>/<debuglink>.
  // The file's own directory and its .debug/ subdirectory are always searched, and
  // debuginfod when DEBUGINFOD_URLS is set (elfutils reads it).
  std::vector<std::string> debug_dirs = {"/usr/lib/debug"};
  // Like perf's --symfs: an absolute directory standing for "/" of the recorded system.
  // <symfs>/<module path> is preferred to the module path, and <symfs>/usr/lib/debug and
  // <symfs> itself are debug roots searched before debug_dirs. "" for none.
  std::string symfs;
  // Keep what is resolved in modules with their own debug info in callprof's cache
  // directory, and take it from there the next time (module_symbol_cache.h).
  bool cache = true;
};

// What symbolizers created without options use: the CLI sets it once from --symfs, before
// recording or reading starts (the collectors create one symbolizer per module layout,
// deep down, and the search is the same for the whole process).
const SymbolizerOptions& default_symbolizer_options();
void set_default_symbolizer_options(SymbolizerOptions options);
// callprof's cache directory (util/user_cache.h) for what is worked out about files and
// kept across recordings (hook call sites, start-up libraries, the kernel's names), none
// with --no-symbol-cache (the default options' `cache` off) or without a cache directory.
std::optional<std::filesystem::path> symbol_cache_dir();

// Not thread-safe: one thread symbolizes a recording. A module's file is opened when an
// address first falls into it that the symbol cache does not answer (in create() when the
// caller gives no range for it); debug info is loaded on the first address that needs it.
class Symbolizer {
 public:
  static Result<std::unique_ptr<Symbolizer>> create(std::vector<LoadedModule> modules,
                                                    SymbolizerOptions options = default_symbolizer_options());
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Never fails: what cannot be found stays empty. Memoized per address.
  SymbolInfo resolve(uint64_t runtime_address);

  // The inline chain at an address, innermost first; the last entry is the function
  // that was really called (as resolve() gives it). For a return address, pass
  // address - 1 so the call instruction, not the next one, is looked up.
  // Inline frames are named from DWARF: demangled linkage name when there is one,
  // else "ns::Class::name" without parameters (GCC, internal linkage).
  std::vector<SymbolInfo> resolve_inlined(uint64_t runtime_address);

  // Up to `count` bytes of the module's file that end just before `runtime_address`
  // (e.g. the call instruction before a return address); empty when unknown.
  std::vector<uint8_t> code_before(uint64_t runtime_address, size_t count);

  // How many resolve(), resolve_inlined() and code_before() answers came from callprof's symbol cache
  // (SymbolizerOptions::cache) rather than from the modules' files.
  uint64_t cached_answers() const;
  // How many modules have been given to libdwfl (their files looked at) so far.
  size_t opened_modules() const;

  // Problems worth telling the user, one line each, at most one per module and kind.
  // Grows as resolve() reaches modules, so read it after resolving.
  const std::vector<std::string>& warnings() const;

  const std::vector<LoadedModule>& modules() const;

  // The ELF file opened for a module (its path, its copy under --symfs, or a file found by
  // build id), "" when none; and the separate debug file libdwfl found for it (a .debug
  // file, a debuginfod cache entry), "" when none or not looked for yet (resolve() looks).
  std::string file(size_t module) const;
  std::string debug_file(size_t module) const;
  // The file whose symbol table names the module's functions: its separate debug file when
  // there is one (a stripped file has no .symtab), else its own file; "" when none.
  std::string symbols_file(size_t module) const;

 private:
  struct Impl;
  explicit Symbolizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// abi::__cxa_demangle for "_Z..." names (GCC clone suffixes such as ".constprop.0"
// included, and PLT stubs' "@plt": "_ZdlPv@plt" is "operator delete(void*)@plt"); anything
// else, or a name that fails to demangle, comes back unchanged.
std::string demangle(std::string_view linkage_name);

}  // namespace callprof
