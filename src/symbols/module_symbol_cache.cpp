// ModuleSymbolCache (see module_symbol_cache.h). The file: CBOR (nlohmann) of
// {"key", "strings": [...], "symbols": [[address, info...], ...], "chains": [[address,
// [info...], ...], ...]}, each info [name, linkage name, offset, file, line, pc file, pc
// line, inlined] with its strings as indexes into "strings" (a module's file names and
// names repeat).
#include "symbols/module_symbol_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "util/user_cache.h"

namespace callprof::symbols_detail {
namespace {

using nlohmann::json;

constexpr const char* kPrefix = "symbols";
constexpr const char* kSuffix = ".cbor";

// Device, inode, size and modification time (to the nanosecond) of a file.
std::optional<std::string> identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

class Strings {
 public:
  uint64_t index(const std::string& s) {
    auto [it, added] = at_.try_emplace(s, list_.size());
    if (added) list_.push_back(s);
    return it->second;
  }
  json list() const { return json(list_); }

 private:
  std::unordered_map<std::string, uint64_t> at_;
  std::vector<std::string> list_;
};

json encode_info(const SymbolInfo& i, Strings& s) {
  return json::array({s.index(i.name), s.index(i.linkage_name), i.offset, s.index(i.file), i.line, s.index(i.pc_file),
                      i.pc_line, i.inlined});
}

// Throws (json's exceptions) on anything malformed.
SymbolInfo decode_info(const json& j, const std::vector<std::string>& strings) {
  if (!j.is_array() || j.size() != 8) throw std::invalid_argument("info");
  SymbolInfo i;
  i.name = strings.at(j.at(0).get<size_t>());
  i.linkage_name = strings.at(j.at(1).get<size_t>());
  i.offset = j.at(2).get<uint64_t>();
  i.file = strings.at(j.at(3).get<size_t>());
  i.line = j.at(4).get<uint32_t>();
  i.pc_file = strings.at(j.at(5).get<size_t>());
  i.pc_line = j.at(6).get<uint32_t>();
  i.inlined = j.at(7).get<bool>();
  return i;
}

}  // namespace

std::optional<std::string> module_file_key(std::string_view kind, const std::string& file, std::string_view extra) {
  const auto file_id = identity(file);
  const auto self_id = identity("/proc/self/exe");
  if (!file_id || !self_id) return std::nullopt;
  return std::string(kind) + "; file " + file + " " + *file_id + "; " + std::string(extra) + "; callprof " + *self_id;
}

std::optional<ModuleSymbolCache> ModuleSymbolCache::open(const std::string& file, const std::string& build_id) {
  const auto dir = user_cache_dir();
  auto key = module_file_key("symbols v1", file, "build id " + build_id);
  if (!dir || !key) return std::nullopt;
  const std::string path = (*dir / cache_file_name(kPrefix, *key, kSuffix)).string();
  ModuleSymbolCache cache(std::move(*key), path);
  cache.decode(read_cache_file(path));
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

void ModuleSymbolCache::add_symbol(uint64_t file_address, const SymbolInfo& info) {
  if (used_ >= kSymbolCacheMaxAddresses) return;
  if (symbols_.try_emplace(file_address, Entry<SymbolInfo>{info, true}).second) ++used_, added_ = true;
}

void ModuleSymbolCache::add_chain(uint64_t file_address, const std::vector<SymbolInfo>& frames) {
  if (used_ >= kSymbolCacheMaxAddresses) return;
  if (chains_.try_emplace(file_address, Entry<std::vector<SymbolInfo>>{frames, true}).second) ++used_, added_ = true;
}

std::string ModuleSymbolCache::encode() const {
  Strings strings;
  json symbols = json::array(), chains = json::array();
  for (const auto& [address, e] : symbols_)
    if (e.used) symbols.push_back(json::array({address, encode_info(e.value, strings)}));
  for (const auto& [address, e] : chains_) {
    if (!e.used) continue;
    json list = json::array();
    for (const SymbolInfo& f : e.value) list.push_back(encode_info(f, strings));
    chains.push_back(json::array({address, std::move(list)}));
  }
  const json doc = {{"key", key_}, {"strings", strings.list()}, {"symbols", symbols}, {"chains", chains}};
  const std::vector<uint8_t> bytes = json::to_cbor(doc);
  return std::string(bytes.begin(), bytes.end());
}

bool ModuleSymbolCache::decode(std::string_view bytes) {
  symbols_.clear();
  chains_.clear();
  used_ = 0;
  added_ = false;
  if (bytes.empty()) return false;
  try {
    const json doc = json::from_cbor(bytes.begin(), bytes.end());
    if (doc.at("key").get<std::string>() != key_) return false;
    const auto strings = doc.at("strings").get<std::vector<std::string>>();
    for (const json& s : doc.at("symbols")) symbols_[s.at(0).get<uint64_t>()] = {decode_info(s.at(1), strings)};
    for (const json& c : doc.at("chains")) {
      std::vector<SymbolInfo> frames;
      for (const json& f : c.at(1)) frames.push_back(decode_info(f, strings));
      chains_[c.at(0).get<uint64_t>()] = {std::move(frames)};
    }
    return true;
  } catch (const std::exception&) {
    symbols_.clear();
    chains_.clear();
    return false;
  }
}

void ModuleSymbolCache::save() {
  const bool changes = added_ || used_ < symbols_.size() + chains_.size();
  if (!changes || path_.empty()) return;
  if (write_cache_file(path_, encode(), kPrefix, kSuffix, kSymbolCacheFilesKept)) added_ = false;
}

}  // namespace callprof::symbols_detail
