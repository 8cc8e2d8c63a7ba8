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

class Strings {
 public:
  explicit Strings(pb::ModuleSymbols& out) : out_(out) {}
  uint32_t index(const std::string& s) {
    auto [it, added] = at_.try_emplace(s, uint32_t(out_.strings_size()));
    if (added) out_.add_strings(s);
    return it->second;
  }

 private:
  pb::ModuleSymbols& out_;
  std::unordered_map<std::string, uint32_t> at_;
};

void encode_info(const SymbolInfo& i, Strings& s, pb::Info* out) {
  out->set_name(s.index(i.name));
  out->set_linkage_name(s.index(i.linkage_name));
  out->set_offset(i.offset);
  out->set_file(s.index(i.file));
  out->set_line(i.line);
  out->set_pc_file(s.index(i.pc_file));
  out->set_pc_line(i.pc_line);
  out->set_inlined(i.inlined);
}

// False when a string index is out of range.
bool decode_info(const pb::Info& in, const pb::ModuleSymbols& doc, SymbolInfo& i) {
  const uint32_t n = uint32_t(doc.strings_size());
  if (in.name() >= n || in.linkage_name() >= n || in.file() >= n || in.pc_file() >= n) return false;
  i.name = doc.strings(int(in.name()));
  i.linkage_name = doc.strings(int(in.linkage_name()));
  i.offset = in.offset();
  i.file = doc.strings(int(in.file()));
  i.line = in.line();
  i.pc_file = doc.strings(int(in.pc_file()));
  i.pc_line = in.pc_line();
  i.inlined = in.inlined();
  return true;
}

}  // namespace

std::optional<std::string> module_file_key(std::string_view kind, const std::string& file, std::string_view extra) {
  const auto file_id = file_identity(file);
  const auto self_id = file_identity("/proc/self/exe");
  if (!file_id || !self_id) return std::nullopt;
  return std::string(kind) + "; file " + file + " " + *file_id + "; " + std::string(extra) + "; callprof " + *self_id;
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

const SymbolInfo* ModuleSymbolCache::symbol(uint64_t file_address) {
  auto it = symbols_.find(file_address);
  if (it == symbols_.end()) return nullptr;
  used_ += !it->second.used;
  it->second.used = true;
  return &it->second.value;
}

const std::vector<SymbolInfo>* ModuleSymbolCache::chain(uint64_t file_address) {
  auto it = chains_.find(file_address);
  if (it == chains_.end()) return nullptr;
  used_ += !it->second.used;
  it->second.used = true;
  return &it->second.value;
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
  if (symbols_.try_emplace(file_address, Entry<SymbolInfo>{info, true}).second) ++used_, added_ = true;
}

void ModuleSymbolCache::add_chain(uint64_t file_address, const std::vector<SymbolInfo>& frames) {
  if (used_ >= kSymbolCacheMaxAddresses) return;
  if (chains_.try_emplace(file_address, Entry<std::vector<SymbolInfo>>{frames, true}).second) ++used_, added_ = true;
}

void ModuleSymbolCache::add_code(uint64_t file_address, size_t asked, const std::vector<uint8_t>& bytes) {
  if (used_ >= kSymbolCacheMaxAddresses) return;
  if (code_.try_emplace(file_address, Entry<Code>{Code{asked, bytes}, true}).second) ++used_, added_ = true;
}

std::string ModuleSymbolCache::encode() const {
  pb::ModuleSymbols doc;
  doc.set_key(key_);
  Strings strings(doc);
  for (const auto& [address, e] : symbols_) {
    if (!e.used) continue;
    pb::Symbol* out = doc.add_symbols();
    out->set_address(address);
    encode_info(e.value, strings, out->mutable_info());
  }
  for (const auto& [address, e] : chains_) {
    if (!e.used) continue;
    pb::Chain* out = doc.add_chains();
    out->set_address(address);
    for (const SymbolInfo& f : e.value) encode_info(f, strings, out->add_frames());
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
  symbols_.clear();
  chains_.clear();
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
  for (const pb::Symbol& s : doc.symbols()) {
    SymbolInfo info;
    if (!decode_info(s.info(), doc, info)) return decode({});
    symbols_[s.address()] = {std::move(info)};
  }
  for (const pb::Chain& c : doc.chains()) {
    std::vector<SymbolInfo> frames(size_t(c.frames_size()));
    for (int i = 0; i < c.frames_size(); ++i)
      if (!decode_info(c.frames(i), doc, frames[size_t(i)])) return decode({});
    chains_[c.address()] = {std::move(frames)};
  }
  for (const pb::Code& c : doc.code()) {
    if (c.before().size() > c.asked()) return decode({});
    const auto* bytes = reinterpret_cast<const uint8_t*>(c.before().data());
    code_[c.address()] = {Code{c.asked(), std::vector<uint8_t>(bytes, bytes + c.before().size())}};
  }
  loaded_ = true;
  return true;
}

void ModuleSymbolCache::save() {
  const bool changes = added_ || used_ < symbols_.size() + chains_.size() + code_.size();
  if (!changes || path_.empty()) return;
  if (write_cache_file(path_, encode(), kPrefix, kSuffix, kSymbolCacheFilesKept)) added_ = false;
}

}  // namespace callprof::symbols_detail
