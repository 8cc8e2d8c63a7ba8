// Symbolizer: reports the recorded modules to libdwfl at their load biases (offline,
// like a core file), checks build ids, and resolves addresses with a memo per address.
#include "symbols/symbolizer.h"

#include <gelf.h>

#include <algorithm>
#include <unordered_map>

#include "symbols/debug_search.h"
#include "symbols/decompressed_debug.h"
#include "symbols/dwarf_lookup.h"
#include "symbols/elf_handles.h"
#include "symbols/module_symbol_cache.h"
#include "symbols/stripped_modules.h"
#include "symbols/symbol_table.h"
#include "symbols/unwind_starts.h"
#include "util/user_cache.h"

namespace callprof {

namespace {

SymbolizerOptions& defaults() {
  static SymbolizerOptions options;
  return options;
}

}  // namespace

const SymbolizerOptions& default_symbolizer_options() { return defaults(); }

void set_default_symbolizer_options(SymbolizerOptions options) { defaults() = std::move(options); }

std::optional<std::filesystem::path> symbol_cache_dir() { return defaults().cache ? user_cache_dir() : std::nullopt; }

using symbols_detail::DwflPtr;
using symbols_detail::file_build_id;

namespace {

struct ModuleState {
  Dwfl_Module* dwfl = nullptr;                           // null: no readable file for it
  std::unique_ptr<symbols_detail::ModuleDwarf> dwarf;    // set with dwfl
  std::unique_ptr<symbols_detail::SymbolTable> symbols;  // set on first use
  std::unique_ptr<symbols_detail::UnwindStarts> unwind;  // set on the first address without a name
  std::vector<std::string> deferred;                     // warnings shown once an address falls into it
  bool reported = false;                                 // given to libdwfl (dwfl set when it could read it)
  bool used = false;
  std::optional<symbols_detail::ModuleSymbolCache> cache;  // what earlier recordings resolved in it
  bool cache_opened = false;
};

// Names the loader gives to mappings without a file (the vDSO) or the main program
// when the recorder could not name it.
bool has_file(const std::string& path) {
  return !path.empty() && path[0] != '[' && path != "linux-vdso.so.1" && path != "linux-gate.so.1";
}

// Whether the module's own file holds its DWARF, which libdwfl then reads: what it says
// cannot change while the file does not.
bool own_debug_info(Dwfl_Module* mod) {
  bool found = false;
  symbols_detail::for_each_section(mod, [&](Elf_Scn*, const GElf_Shdr& sh, const char* name) {
    found = found || (sh.sh_type != SHT_NOBITS && name != nullptr && std::string_view(name) == ".debug_info");
  });
  return found;
}

// The main and debug file names libdwfl holds for a module (null when none).
std::pair<const char*, const char*> module_files(Dwfl_Module* mod) {
  const char* main_file = nullptr;
  const char* debug = nullptr;
  if (mod != nullptr) dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, &main_file, &debug);
  return {main_file, debug};
}

// Whether the module's DWARF comes from a separate debug file, which the search finds now
// (opened here: any lookup would open it). Matched to the module by its build id, it says
// what the module's own DWARF would, wherever it lies: names from it are cached under the
// build id, and a module whose debug file turns up later (a -dbgsym package installed),
// not cached before, is cached from then on.
bool separate_debug_info(Dwfl_Module* mod) {
  Dwarf_Addr bias = 0;
  if (dwfl_module_getdwarf(mod, &bias) == nullptr) return false;
  auto [main_file, debug] = module_files(mod);
  return debug != nullptr && (main_file == nullptr || std::string_view(debug) != main_file);
}

std::string dwfl_error() {
  const char* message = dwfl_errmsg(-1);
  return message != nullptr ? message : "unknown error";
}

}  // namespace

struct Symbolizer::Impl {
  std::vector<LoadedModule> modules;
  SymbolizerOptions options;
  // libdwfl keeps pointers to these for its whole life.
  std::string debuginfo_path;
  char* debuginfo_path_ptr = nullptr;
  Dwfl_Callbacks callbacks{};
  DwflPtr dwfl;
  std::vector<ModuleState> state;
  std::vector<size_t> by_start;  // indexes of modules with a range, sorted by start
  std::unordered_map<uint64_t, SymbolInfo> memo;
  std::vector<std::string> warnings;
  uint64_t cached_answers = 0;

  Status open();
  std::string choose_file(const LoadedModule& module, std::vector<std::string>& deferred);
  std::string find_by_build_id(const std::string& build_id) const;
  void report(size_t index);
  ModuleState& reported(size_t index);
  void index_ranges();
  int module_at(uint64_t address) const;
  ModuleState& use(size_t index);
  void say_deferred(ModuleState& st);
  const symbols_detail::UnwindStarts& unwind_starts(ModuleState& st);
  SymbolInfo lookup(uint64_t address);
  symbols_detail::ModuleSymbolCache* cache_of(int index);
  std::vector<uint8_t> code_in_file(size_t index, uint64_t runtime_address, size_t count);
  ~Impl();
};

symbols_detail::ModuleSymbolCache* Symbolizer::Impl::cache_of(int index) {
  if (index < 0 || !options.cache) return nullptr;
  ModuleState& st = state[size_t(index)];
  if (st.cache_opened) return st.cache ? &*st.cache : nullptr;
  st.cache_opened = true;
  const LoadedModule& module = modules[size_t(index)];
  const std::string separate = module.build_id + "; from a separate debug file";
  // Without --symfs the module's file is its recorded path. A cache under that file's key
  // (its identity and the recorded build id) was written when the file was of that build,
  // with its own DWARF or a debug file of that build id; unchanged, it says the same: the
  // module's file need not be opened until an address the cache does not hold.
  if (options.symfs.empty() && has_file(module.path)) {
    auto cache = symbols_detail::ModuleSymbolCache::open(module.path, module.build_id);
    if ((!cache || !cache->loaded()) && !module.build_id.empty())
      cache = symbols_detail::ModuleSymbolCache::open(module.path, separate);
    if (cache && cache->loaded()) return &*(st.cache = std::move(cache));
  }
  reported(size_t(index));
  const char* file = module_files(st.dwfl).first;
  if (file != nullptr && own_debug_info(st.dwfl))
    st.cache = symbols_detail::ModuleSymbolCache::open(file, module.build_id);
  else if (file != nullptr && !module.build_id.empty() && separate_debug_info(st.dwfl))
    st.cache = symbols_detail::ModuleSymbolCache::open(file, separate);
  return st.cache ? &*st.cache : nullptr;
}

Symbolizer::Impl::~Impl() {
  for (ModuleState& st : state)
    if (st.cache) st.cache->save();
}

Status Symbolizer::Impl::open() {
  // The standard callback tries, in order: <root>/.build-id/xx/yyyy.debug for each root,
  // the .gnu_debuglink name beside the file, in .debug/ and under each root by the
  // file's directory, then debuginfod (when DEBUGINFOD_URLS is set); every candidate must
  // have the module's build id (else the link's CRC).
  debuginfo_path = symbols_detail::debuginfo_path(options);
  debuginfo_path_ptr = debuginfo_path.data();
  callbacks.find_elf = dwfl_build_id_find_elf;
  // Compressed DWARF read through a decompressed copy in the cache (decompressed_debug.h).
  callbacks.find_debuginfo = options.cache ? symbols_detail::find_debuginfo_decompressed : dwfl_standard_find_debuginfo;
  callbacks.section_address = dwfl_offline_section_address;
  callbacks.debuginfo_path = &debuginfo_path_ptr;
  dwfl.reset(dwfl_begin(&callbacks));
  if (!dwfl) return make_error("symbolizer: cannot start libdwfl: " + dwfl_error());
  dwfl_report_begin(dwfl.get());
  state.resize(modules.size());
  // A module whose range the caller knows is opened when an address first falls into it
  // (reported()): most libraries of a process have none in a profile, and opening each
  // took 0.04 ms (16 libraries: 0.6 ms of a short recording). The others are opened now,
  // their range read from their files.
  for (size_t i = 0; i < modules.size(); ++i)
    if (modules[i].start >= modules[i].end) report(i);
  if (dwfl_report_end(dwfl.get(), nullptr, nullptr) != 0) {
    return make_error("symbolizer: libdwfl rejected the module list: " + dwfl_error());
  }
  index_ranges();
  return Ok{};
}

// The file whose symbols describe the recorded module: its copy under --symfs or the file
// at its path, when it is the one that was loaded; else a copy found by build id; else ""
// (none).
std::string Symbolizer::Impl::choose_file(const LoadedModule& module, std::vector<std::string>& deferred) {
  Result<std::string> on_disk = std::string();
  for (const std::string& file : symbols_detail::file_candidates(module.path, options)) {
    Result<std::string> id = file_build_id(file);
    if (id.ok() && (module.build_id.empty() || id.value() == module.build_id)) return file;
    if (file == module.path) on_disk = std::move(id);
  }
  std::string problem = on_disk.ok() ? "build id differs from the recording (file changed since?)"
                                     : "cannot open (" + on_disk.error().message + ")";
  std::string found = module.build_id.empty() ? "" : find_by_build_id(module.build_id);
  if (!found.empty()) {
    deferred.push_back(module.path + ": " + problem + "; using " + found + ", found by build id");
  } else {
    deferred.push_back(module.path + ": " + problem + "; its addresses are left unnamed");
  }
  return found;
}

std::string Symbolizer::Impl::find_by_build_id(const std::string& build_id) const {
  if (build_id.size() < 3) return {};
  std::string relative = "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2);
  for (const std::string& root : symbols_detail::debug_roots(options)) {
    // Without suffix: the binary itself (Fedora-style links); .debug: its debug file.
    for (const char* suffix : {"", ".debug"}) {
      std::string candidate = root + relative + suffix;
      Result<std::string> id = file_build_id(candidate);
      if (id.ok() && id.value() == build_id) return candidate;
    }
  }
  return {};
}

void Symbolizer::Impl::report(size_t index) {
  const LoadedModule& module = modules[index];
  ModuleState& st = state[index];
  st.reported = true;
  if (!has_file(module.path)) return;
  std::string file = choose_file(module, st.deferred);
  if (file.empty()) return;
  // add_p_vaddr=true makes `base` the load bias for ET_DYN (with false it would be
  // the address of the first segment); for ET_EXEC libdwfl ignores it and uses 0.
  st.dwfl = dwfl_report_elf(dwfl.get(), module.path.c_str(), file.c_str(), -1, module.bias, true);
  if (st.dwfl == nullptr) {
    st.deferred.push_back(module.path + ": cannot read (" + dwfl_error() + "); its addresses are left unnamed");
    return;
  }
  st.dwarf = std::make_unique<symbols_detail::ModuleDwarf>(st.dwfl);
}

ModuleState& Symbolizer::Impl::reported(size_t index) {
  ModuleState& st = state[index];
  if (st.reported) return st;
  dwfl_report_begin_add(dwfl.get());
  report(index);
  if (dwfl_report_end(dwfl.get(), nullptr, nullptr) != 0 && st.dwfl != nullptr) {
    st.deferred.push_back(modules[index].path + ": cannot read (" + dwfl_error() + "); its addresses are left unnamed");
    st.dwarf.reset();
    st.dwfl = nullptr;
  }
  return st;
}

void Symbolizer::Impl::index_ranges() {
  for (size_t i = 0; i < modules.size(); ++i) {
    LoadedModule& module = modules[i];
    if (module.start >= module.end && state[i].dwfl != nullptr) {
      Dwarf_Addr start = 0, end = 0;
      dwfl_module_info(state[i].dwfl, nullptr, &start, &end, nullptr, nullptr, nullptr, nullptr);
      module.start = start;
      module.end = end;
    }
    if (module.start < module.end) {
      by_start.push_back(i);
    } else {  // no address reaches it: its file's problems are said now or never
      say_deferred(state[i]);
    }
  }
  std::sort(by_start.begin(), by_start.end(), [&](size_t a, size_t b) { return modules[a].start < modules[b].start; });
}

int Symbolizer::Impl::module_at(uint64_t address) const {
  auto it = std::upper_bound(by_start.begin(), by_start.end(), address,
                             [&](uint64_t a, size_t i) { return a < modules[i].start; });
  if (it != by_start.begin() && address < modules[*std::prev(it)].end) {
    return static_cast<int>(*std::prev(it));
  }
  // Ranges of a real process do not overlap; if a recording has them, any match will do.
  for (size_t i : by_start) {
    if (modules[i].start <= address && address < modules[i].end) return static_cast<int>(i);
  }
  return -1;
}

ModuleState& Symbolizer::Impl::use(size_t index) {
  ModuleState& st = reported(index);
  if (st.used) return st;
  st.used = true;
  say_deferred(st);
  if (st.dwfl == nullptr) return st;
  st.symbols = std::make_unique<symbols_detail::SymbolTable>(st.dwfl);
  Dwarf_Addr bias = 0;
  if (dwfl_module_getdwarf(st.dwfl, &bias) == nullptr)
    warnings.push_back(symbols_detail::missing_debug_info_warning(
        st.dwfl, modules[index], [&] { return !unwind_starts(st).empty(); }, options));
  return st;
}

void Symbolizer::Impl::say_deferred(ModuleState& st) {
  for (std::string& w : st.deferred) warnings.push_back(std::move(w));
  st.deferred.clear();
}

const symbols_detail::UnwindStarts& Symbolizer::Impl::unwind_starts(ModuleState& st) {
  if (!st.unwind) st.unwind = std::make_unique<symbols_detail::UnwindStarts>(st.dwfl);
  return *st.unwind;
}

SymbolInfo Symbolizer::Impl::lookup(uint64_t address) {
  SymbolInfo info;
  int index = module_at(address);
  if (index < 0) return info;
  info.module = index;
  info.file_address = address - modules[index].bias;
  ModuleState& st = use(static_cast<size_t>(index));
  if (st.dwfl == nullptr) return info;
  if (auto symbol = st.symbols->find(address)) {
    info.linkage_name = symbol->name;
    info.name = demangle(symbol->name);
    info.offset = symbol->offset;
  }
  symbols_detail::describe_from_dwarf(*st.dwarf, address, info);
  if (info.name.empty()) {
    // Stripped: the unwind info still tells where the function starts, so its addresses
    // add up to one row instead of one per address.
    if (auto start = unwind_starts(st).start_of(address)) info.offset = address - *start;
  }
  return info;
}

Symbolizer::Symbolizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Symbolizer::~Symbolizer() = default;

Result<std::unique_ptr<Symbolizer>> Symbolizer::create(std::vector<LoadedModule> modules, SymbolizerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->modules = std::move(modules);
  impl->options = std::move(options);
  if (Status opened = impl->open(); !opened.ok()) return opened.error();
  return std::unique_ptr<Symbolizer>(new Symbolizer(std::move(impl)));
}

SymbolInfo Symbolizer::resolve(uint64_t runtime_address) {
  auto it = impl_->memo.find(runtime_address);
  if (it != impl_->memo.end()) return it->second;
  const int index = impl_->module_at(runtime_address);
  symbols_detail::ModuleSymbolCache* cache = impl_->cache_of(index);
  const uint64_t file_address = index >= 0 ? runtime_address - impl_->modules[size_t(index)].bias : 0;
  // The cache's answers are not kept again here: asking it twice costs what a copy from
  // here would.
  if (std::optional<SymbolInfo> cached = cache ? cache->symbol(file_address) : std::nullopt) {
    ++impl_->cached_answers;
    cached->module = index;
    cached->file_address = file_address;
    return std::move(*cached);
  }
  SymbolInfo info = impl_->lookup(runtime_address);
  if (cache) cache->add_symbol(file_address, info);
  impl_->memo.emplace(runtime_address, info);
  return info;
}

std::vector<SymbolInfo> Symbolizer::resolve_inlined(uint64_t runtime_address) {
  // A chain the cache holds needs nothing else: not the address's own symbol (a call
  // site's return address less one, which nothing else asks for).
  const int index = impl_->module_at(runtime_address);
  symbols_detail::ModuleSymbolCache* cache = impl_->cache_of(index);
  const uint64_t file_address = index >= 0 ? runtime_address - impl_->modules[size_t(index)].bias : 0;
  if (std::optional<std::vector<SymbolInfo>> cached = cache ? cache->chain(file_address) : std::nullopt) {
    std::vector<SymbolInfo> frames = std::move(*cached);
    ++impl_->cached_answers;
    for (SymbolInfo& f : frames) {
      f.module = index;
      f.file_address = file_address;
    }
    return frames;
  }
  SymbolInfo outer = resolve(runtime_address);
  if (outer.module < 0) return {outer};
  ModuleState& st = impl_->reported(static_cast<size_t>(outer.module));
  if (st.dwarf == nullptr) return {outer};
  std::vector<SymbolInfo> frames = symbols_detail::inline_chain(*st.dwarf, runtime_address, outer);
  if (cache) cache->add_chain(outer.file_address, frames);
  return frames;
}

std::vector<uint8_t> Symbolizer::code_before(uint64_t runtime_address, size_t count) {
  const int index = impl_->module_at(runtime_address);
  if (index < 0) return {};
  symbols_detail::ModuleSymbolCache* cache = impl_->cache_of(index);
  const uint64_t file_address = runtime_address - impl_->modules[size_t(index)].bias;
  if (std::optional<std::vector<uint8_t>> cached = cache ? cache->code(file_address, count) : std::nullopt) {
    ++impl_->cached_answers;
    return std::move(*cached);
  }
  std::vector<uint8_t> code = impl_->code_in_file(size_t(index), runtime_address, count);
  if (cache) cache->add_code(file_address, count, code);
  return code;
}

std::vector<uint8_t> Symbolizer::Impl::code_in_file(size_t index, uint64_t runtime_address, size_t count) {
  // Only the module's ELF file is needed: no symbol table or DWARF is loaded for this
  // (main's call site is in libc, whose debug info is large).
  Dwfl_Module* mod = reported(index).dwfl;
  if (mod == nullptr) return {};
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(mod, &bias);
  if (elf == nullptr) return {};
  const uint64_t end = runtime_address - bias;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    if (end <= sh.sh_addr || end > sh.sh_addr + sh.sh_size) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr || data->d_size != sh.sh_size) return {};
    const uint64_t offset = end - sh.sh_addr;
    const uint64_t n = std::min<uint64_t>(count, offset);
    const auto* bytes = static_cast<const uint8_t*>(data->d_buf) + offset - n;
    return std::vector<uint8_t>(bytes, bytes + n);
  }
  return {};
}

uint64_t Symbolizer::cached_answers() const { return impl_->cached_answers; }

size_t Symbolizer::opened_modules() const {
  return size_t(
      std::count_if(impl_->state.begin(), impl_->state.end(), [](const ModuleState& st) { return st.reported; }));
}

const std::vector<std::string>& Symbolizer::warnings() const { return impl_->warnings; }

const std::vector<LoadedModule>& Symbolizer::modules() const { return impl_->modules; }

std::string Symbolizer::file(size_t module) const {
  if (module >= impl_->state.size()) return {};
  const char* main_file = module_files(impl_->reported(module).dwfl).first;
  return main_file != nullptr ? main_file : "";
}

std::string Symbolizer::debug_file(size_t module) const {
  if (module >= impl_->state.size()) return {};
  auto [main_file, debug] = module_files(impl_->reported(module).dwfl);
  // A file with its own DWARF is its own debug file: not a separate one.
  return debug != nullptr && (main_file == nullptr || std::string_view(debug) != main_file) ? debug : "";
}

std::string Symbolizer::symbols_file(size_t module) const {
  std::string debug = debug_file(module);
  return debug.empty() ? file(module) : debug;
}

}  // namespace callprof
