// ModuleSymbolCache (see module_symbol_cache.h). The file: a ModuleSymbols message
// (module_cache.proto), each info's strings as indexes into its string list (a module's
// file names and names repeat).
#include "symbols/module_symbol_cache.h"

#include "symbols/module_cache.pb.h"
#include "util/user_cache.h"
#include "util/whole_file.h"

namespace callprof::symbols_detail {
namespace {

namespace pb = callprof::module_cache;

constexpr const char* kPrefix = "symbols";
constexpr const char* kSuffix = ".pb";

// The strings a file being written refers to, in the order first met: the cache's own
// string indexes mapped to the file's.
class Strings {
 public:
  Strings(const std::vector<std::string>& strings, pb::ModuleSymbols& out)
      : strings_(strings), out_(out), at_(strings.size(), kUnset) {}
  uint32_t index(uint32_t own) {
    if (at_[own] == kUnset) {
      at_[own] = uint32_t(out_.strings_size());
      out_.add_strings(strings_[own]);
    }
    return at_[own];
  }

 private:
  static constexpr uint32_t kUnset = UINT32_MAX;
  const std::vector<std::string>& strings_;
  pb::ModuleSymbols& out_;
  std::vector<uint32_t> at_;
};

}  // namespace

std::optional<std::string> module_file_key(std::string_view kind, const std::string& file, std::string_view extra) {
  const auto file_id = file_identity(file);
  const auto self_id = file_identity("/proc/self/exe");
  if (!file_id || !self_id) return std::nullopt;
  return std::string(kind) + "; file " + file + " " + *file_id + "; " + std::string(extra) + "; callprof " + *self_id;
}

uint32_t ModuleSymbolCache::intern(const std::string& s) {
  if (string_at_.empty())
    for (uint32_t i = 0; i < strings_.size(); ++i) string_at_.try_emplace(strings_[i], i);
  auto [it, added] = string_at_.try_emplace(s, uint32_t(strings_.size()));
  if (added) strings_.push_back(s);
  return it->second;
}

ModuleSymbolCache::Packed ModuleSymbolCache::pack(const SymbolInfo& i) {
  return Packed{intern(i.name), intern(i.linkage_name), intern(i.file), intern(i.pc_file), i.line, i.pc_line, i.offset,
                i.inlined};
}

SymbolInfo ModuleSymbolCache::unpack(const Packed& p) const {
  SymbolInfo i;
  i.name = strings_[p.name];
  i.linkage_name = strings_[p.linkage_name];
  i.offset = p.offset;
  i.file = strings_[p.file];
  i.line = p.line;
  i.pc_file = strings_[p.pc_file];
  i.pc_line = p.pc_line;
  i.inlined = p.inlined;
  return i;
}

std::optional<ModuleSymbolCache> ModuleSymbolCache::open(const std::string& file, const std::string& build_id) {
  const auto dir = user_cache_dir();
  auto key = module_file_key("symbols v2", file, "build id " + build_id);
  if (!dir || !key) return std::nullopt;
  const std::string path = (*dir / cache_file_name(kPrefix, *key, kSuffix)).string();
  ModuleSymbolCache cache(std::move(*key), path);
  cache.decode(read_whole_file(path));
  return cache;
}

std::optional<SymbolInfo> ModuleSymbolCache::symbol(uint64_t file_address) {
  auto it = symbols_.find(file_address);
  if (it == symbols_.end()) return std::nullopt;
  used_ += !it->second.used;
  it->second.used = true;
  return unpack(it->second.value);
}

std::optional<std::vector<SymbolInfo>> ModuleSymbolCache::chain(uint64_t file_address) {
  auto it = chains_.find(file_address);
  if (it == chains_.end()) return std::nullopt;
  used_ += !it->second.used;
  it->second.used = true;
  const Frames f = it->second.value;
  std::vector<SymbolInfo> frames;
  frames.reserve(f.count);
  for (uint32_t i = f.first; i < f.first + f.count; ++i) frames.push_back(unpack(frames_[i]));
  return frames;
}

const std::vector<uint8_t>* ModuleSymbolCache::code(uint64_t file_address, size_t asked) {
  auto it = code_.find(file_address);
  if (it == code_.end() || it->second.value.asked != asked) return nullptr;
  used_ += !it->second.used;
  it->second.used = true;
  return &it->second.value.before;
}

void ModuleSymbolCache::add_symbol(uint64_t file_address, const SymbolInfo& info) {
  if (used_ >= kSymbolCacheMaxAddresses) return;
  if (symbols_.contains(file_address)) return;
  symbols_.emplace(file_address, Entry<Packed>{pack(info), true});
  ++used_, added_ = true;
}

void ModuleSymbolCache::add_chain(uint64_t file_address, const std::vector<SymbolInfo>& frames) {
  if (used_ >= kSymbolCacheMaxAddresses) return;
  if (chains_.contains(file_address)) return;
  const Frames f{uint32_t(frames_.size()), uint32_t(frames.size())};
  for (const SymbolInfo& i : frames) frames_.push_back(pack(i));
  chains_.emplace(file_address, Entry<Frames>{f, true});
  ++used_, added_ = true;
}

void ModuleSymbolCache::add_code(uint64_t file_address, size_t asked, const std::vector<uint8_t>& bytes) {
  if (used_ >= kSymbolCacheMaxAddresses) return;
  if (code_.try_emplace(file_address, Entry<Code>{Code{asked, bytes}, true}).second) ++used_, added_ = true;
}

std::string ModuleSymbolCache::encode() const {
  pb::ModuleSymbols doc;
  doc.set_key(key_);
  Strings strings(strings_, doc);
  auto encode_info = [&](const Packed& p, pb::Info* out) {
    out->set_name(strings.index(p.name));
    out->set_linkage_name(strings.index(p.linkage_name));
    out->set_offset(p.offset);
    out->set_file(strings.index(p.file));
    out->set_line(p.line);
    out->set_pc_file(strings.index(p.pc_file));
    out->set_pc_line(p.pc_line);
    out->set_inlined(p.inlined);
  };
  for (const auto& [address, e] : symbols_) {
    if (!e.used) continue;
    pb::Symbol* out = doc.add_symbols();
    out->set_address(address);
    encode_info(e.value, out->mutable_info());
  }
  for (const auto& [address, e] : chains_) {
    if (!e.used) continue;
    pb::Chain* out = doc.add_chains();
    out->set_address(address);
    for (uint32_t i = e.value.first; i < e.value.first + e.value.count; ++i) encode_info(frames_[i], out->add_frames());
  }
  for (const auto& [address, e] : code_) {
    if (!e.used) continue;
    pb::Code* out = doc.add_code();
    out->set_address(address);
    out->set_asked(uint32_t(e.value.asked));
    out->set_before(e.value.before.data(), e.value.before.size());
  }
  doc.set_entries(uint64_t(doc.symbols_size()) + uint64_t(doc.chains_size()) + uint64_t(doc.code_size()) + 1);
  return doc.SerializeAsString();
}

bool ModuleSymbolCache::decode(std::string_view bytes) {
  strings_.clear();
  string_at_.clear();
  symbols_.clear();
  chains_.clear();
  frames_.clear();
  code_.clear();
  used_ = 0;
  added_ = false;
  loaded_ = false;
  // On an arena: the file's strings and messages are thousands of small allocations, freed
  // at once.
  google::protobuf::Arena arena;
  pb::ModuleSymbols& doc = *google::protobuf::Arena::CreateMessage<pb::ModuleSymbols>(&arena);
  if (bytes.empty() || !doc.ParseFromArray(bytes.data(), int(bytes.size())) || doc.key() != key_ ||
      doc.entries() != uint64_t(doc.symbols_size()) + uint64_t(doc.chains_size()) + uint64_t(doc.code_size()) + 1)
    return false;
  const uint32_t n = uint32_t(doc.strings_size());
  auto packed = [n](const pb::Info& in) -> std::optional<Packed> {
    if (in.name() >= n || in.linkage_name() >= n || in.file() >= n || in.pc_file() >= n) return std::nullopt;
    return Packed{in.name(), in.linkage_name(), in.file(),   in.pc_file(),
                  in.line(), in.pc_line(),      in.offset(), in.inlined()};
  };
  symbols_.reserve(size_t(doc.symbols_size()));
  for (const pb::Symbol& s : doc.symbols()) {
    const auto p = packed(s.info());
    if (!p) return decode({});
    symbols_[s.address()] = {*p};
  }
  chains_.reserve(size_t(doc.chains_size()));
  for (const pb::Chain& c : doc.chains()) {
    const Frames f{uint32_t(frames_.size()), uint32_t(c.frames_size())};
    for (const pb::Info& i : c.frames()) {
      const auto p = packed(i);
      if (!p) return decode({});
      frames_.push_back(*p);
    }
    chains_[c.address()] = {f};
  }
  for (const pb::Code& c : doc.code()) {
    if (c.before().size() > c.asked()) return decode({});
    const auto* bytes = reinterpret_cast<const uint8_t*>(c.before().data());
    code_[c.address()] = {Code{c.asked(), std::vector<uint8_t>(bytes, bytes + c.before().size())}};
  }
  strings_.assign(doc.strings().begin(), doc.strings().end());
  loaded_ = true;
  return true;
}

void ModuleSymbolCache::save() {
  const bool changes = added_ || used_ < symbols_.size() + chains_.size() + code_.size();
  if (!changes || path_.empty()) return;
  if (write_cache_file(path_, encode(), kPrefix, kSuffix, kSymbolCacheFilesKept)) added_ = false;
}

}  // namespace callprof::symbols_detail
