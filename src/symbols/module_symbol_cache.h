// What the last recording resolved in one module file with its own debug info (each
// address's function, source file and line, the inline chains at call sites, and the code
// before them that tells an indirect call), kept in
// callprof's cache directory (util/user_cache.h): the next recording of the same file takes
// them from there instead of reading the module's DWARF again, which was most of a short
// program's recording (zstd built by Clang: 9 of 19 ms of the recorder's CPU time). The key
// is the file (path, device, inode, size, modification time), its build id and the callprof
// binary itself (a rebuilt callprof may name things differently). docs/symbols.md, "The
// symbol cache".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbols/symbolizer.h"

namespace callprof::module_cache {
class ModuleSymbols;
}

namespace callprof::symbols_detail {

// The key of a cache file about the module file `file`: what the file holds (`kind`), the
// file's path, device, inode, size and modification time, `extra`, and the same of the
// callprof binary; nullopt when either cannot be looked at.
std::optional<std::string> module_file_key(std::string_view kind, const std::string& file, std::string_view extra);

inline constexpr size_t kSymbolCacheFilesKept = 32;
// A module's file holds the addresses the last recording asked for (its working set), at
// most this many: about 1.6 MB, read in some 10 ms and written in 30 (0.5 and 1.5 us an
// address: an address read from DWARF took 24 us on zstd).
inline constexpr size_t kSymbolCacheMaxAddresses = 20000;

class ModuleSymbolCache {
 public:
  // The cache of the module file `file` whose build id is `build_id` ("" none); nullopt when
  // there is no cache directory or the file cannot be looked at.
  static std::optional<ModuleSymbolCache> open(const std::string& file, const std::string& build_id);
  // An empty cache of key `key` with no file (tests).
  explicit ModuleSymbolCache(std::string key, std::string path = {}) : key_(std::move(key)), path_(std::move(path)) {}

  // What resolve() and resolve_inlined() gave for this file address before (module and
  // file_address not set), or nothing. An address asked for is kept by save().
  std::optional<SymbolInfo> symbol(uint64_t file_address);
  std::optional<std::vector<SymbolInfo>> chain(uint64_t file_address);
  // What Symbolizer::code_before(address, asked) gave, or nothing.
  std::optional<std::vector<uint8_t>> code(uint64_t file_address, size_t asked);
  void add_symbol(uint64_t file_address, const SymbolInfo& info);
  void add_chain(uint64_t file_address, const std::vector<SymbolInfo>& frames);
  void add_code(uint64_t file_address, size_t asked, const std::vector<uint8_t>& bytes);
  // Whether the file was there and decoded.
  bool loaded() const { return loaded_; }

  // The file's bytes (module_cache.proto's ModuleSymbols) with the addresses asked for or
  // added, and back: false for anything malformed or of another key (the cache is then
  // empty).
  std::string encode() const;
  bool decode(std::string_view bytes);
  // Writes the file when it would change: an address added, or one read but not asked
  // for (best effort).
  void save();

 private:
  template <typename T>
  struct Entry {
    T value;
    bool used = false;
  };
  // A SymbolInfo with its strings as indexes into the cache's strings: a module's names and
  // files repeat, and a file's strings are copied once rather than into every entry
  // (decoding zstd's file and freeing it took 2.3 M of a short recording's 12.3 M
  // instructions; bench/README.md, session 36).
  struct Packed {
    uint32_t name = 0, linkage_name = 0, file = 0, pc_file = 0;
    uint32_t line = 0, pc_line = 0;
    uint64_t offset = 0;
    bool inlined = false;
  };
  struct Span {  // [first, first + count) of a column
    uint32_t first = 0, count = 0;
  };
  struct Code {
    uint32_t asked = 0;
    Span before;  // in code_bytes_
  };
  // The file's rows (its symbols' then its chains' frames), or nothing when its columns
  // disagree in length or name a string it does not have.
  static std::optional<std::vector<Packed>> rows_of(const module_cache::ModuleSymbols& doc);
  // The next `count` of a column's `total`, `used` of them taken: nothing when it would
  // reach past the end.
  static std::optional<Span> next_span(uint64_t& used, uint64_t count, uint64_t total);
  bool decode_strings(const module_cache::ModuleSymbols& doc);
  bool decode_code(const module_cache::ModuleSymbols& doc);
  std::string_view string(uint32_t index) const {
    const Span s = strings_[index];
    return std::string_view(string_bytes_).substr(s.first, s.count);
  }
  uint32_t intern(const std::string& s);
  Packed pack(const SymbolInfo& info);
  SymbolInfo unpack(const Packed& p) const;

  std::string key_, path_;
  std::string string_bytes_;                             // each string once, one after another
  std::vector<Span> strings_;                            // in string_bytes_
  std::unordered_map<std::string, uint32_t> string_at_;  // built on the first intern()
  std::unordered_map<uint64_t, Entry<Packed>> symbols_;
  std::unordered_map<uint64_t, Entry<Span>> chains_;  // in frames_
  std::vector<Packed> frames_;
  std::unordered_map<uint64_t, Entry<Code>> code_;
  std::vector<uint8_t> code_bytes_;
  size_t used_ = 0;
  bool added_ = false;
  bool loaded_ = false;
};

}  // namespace callprof::symbols_detail
