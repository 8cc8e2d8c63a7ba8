// ModuleSymbolCache (see module_symbol_cache.h). The file: a ModuleSymbols message
// (module_cache.proto) of columns, each info's strings as indexes into its string list (a
// module's file names and names repeat).
#include "symbols/module_symbol_cache.h"

#include "symbols/module_cache.pb.h"
#include "util/user_cache.h"
#include "util/whole_file.h"

namespace callprof::symbols_detail {
namespace {

namespace pb = callprof::module_cache;

constexpr const char* kPrefix = "symbols";
constexpr const char* kSuffix = ".pb";

}  // namespace

std::optional<std::string> module_file_key(std::string_view kind, const std::string& file, std::string_view extra) {
  const auto file_id = file_identity(file);
  const auto self_id = file_identity("/proc/self/exe");
  if (!file_id || !self_id) return std::nullopt;
  return std::string(kind) + "; file " + file + " " + *file_id + "; " + std::string(extra) + "; callprof " + *self_id;
}

uint32_t ModuleSymbolCache::intern(const std::string& s) {
  if (string_at_.empty())
    for (uint32_t i = 0; i < strings_.size(); ++i) string_at_.try_emplace(std::string(string(i)), i);
  auto [it, added] = string_at_.try_emplace(s, uint32_t(strings_.size()));
  if (added) {
    strings_.push_back(Span{uint32_t(string_bytes_.size()), uint32_t(s.size())});
    string_bytes_ += s;
  }
  return it->second;
}

ModuleSymbolCache::Packed ModuleSymbolCache::pack(const SymbolInfo& i) {
  return Packed{intern(i.name), intern(i.linkage_name), intern(i.file), intern(i.pc_file), i.line, i.pc_line, i.offset,
                i.inlined};
}

SymbolInfo ModuleSymbolCache::unpack(const Packed& p) const {
  SymbolInfo i;
  i.name = string(p.name);
  i.linkage_name = string(p.linkage_name);
  i.offset = p.offset;
  i.file = string(p.file);
  i.line = p.line;
  i.pc_file = string(p.pc_file);
  i.pc_line = p.pc_line;
  i.inlined = p.inlined;
  return i;
}

std::optional<ModuleSymbolCache> ModuleSymbolCache::open(const std::string& file, const std::string& build_id) {
  const auto dir = user_cache_dir();
  auto key = module_file_key("symbols v3", file, "build id " + build_id);
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
  const Span f = it->second.value;
  std::vector<SymbolInfo> frames;
  frames.reserve(f.count);
  for (uint32_t i = f.first; i < f.first + f.count; ++i) frames.push_back(unpack(frames_[i]));
  return frames;
}

std::optional<std::vector<uint8_t>> ModuleSymbolCache::code(uint64_t file_address, size_t asked) {
  auto it = code_.find(file_address);
  if (it == code_.end() || it->second.value.asked != asked) return std::nullopt;
  used_ += !it->second.used;
  it->second.used = true;
  const Span b = it->second.value.before;
  return std::vector<uint8_t>(code_bytes_.begin() + b.first, code_bytes_.begin() + b.first + b.count);
}

void ModuleSymbolCache::add_symbol(uint64_t file_address, const SymbolInfo& info) {
  if (used_ >= kSymbolCacheMaxAddresses || symbols_.contains(file_address)) return;
  symbols_.emplace(file_address, Entry<Packed>{pack(info), true});
  ++used_, added_ = true;
}

void ModuleSymbolCache::add_chain(uint64_t file_address, const std::vector<SymbolInfo>& frames) {
  if (used_ >= kSymbolCacheMaxAddresses || chains_.contains(file_address)) return;
  const Span f{uint32_t(frames_.size()), uint32_t(frames.size())};
  for (const SymbolInfo& i : frames) frames_.push_back(pack(i));
  chains_.emplace(file_address, Entry<Span>{f, true});
  ++used_, added_ = true;
}

void ModuleSymbolCache::add_code(uint64_t file_address, size_t asked, const std::vector<uint8_t>& bytes) {
  if (used_ >= kSymbolCacheMaxAddresses || code_.contains(file_address)) return;
  const Span b{uint32_t(code_bytes_.size()), uint32_t(bytes.size())};
  code_bytes_.insert(code_bytes_.end(), bytes.begin(), bytes.end());
  code_.emplace(file_address, Entry<Code>{Code{uint32_t(asked), b}, true});
  ++used_, added_ = true;
}

std::string ModuleSymbolCache::encode() const {
  pb::ModuleSymbols doc;
  doc.set_key(key_);
  // The strings the entries kept refer to, in the order first met: the cache's own indexes
  // mapped to the file's.
  pb::Strings& strings = *doc.mutable_strings();
  std::vector<uint32_t> file_index(strings_.size(), UINT32_MAX);
  auto index = [&](uint32_t own) {
    uint32_t& at = file_index[own];
    if (at == UINT32_MAX) {
      at = uint32_t(strings.lengths_size());
      strings.mutable_bytes()->append(string(own));
      strings.add_lengths(strings_[own].count);
    }
    return at;
  };
  pb::Infos& infos = *doc.mutable_infos();
  auto add_info = [&](const Packed& p) {
    infos.add_name(index(p.name));
    infos.add_linkage_name(index(p.linkage_name));
    infos.add_offset(p.offset);
    infos.add_file(index(p.file));
    infos.add_line(p.line);
    infos.add_pc_file(index(p.pc_file));
    infos.add_pc_line(p.pc_line);
    infos.add_inlined(p.inlined);
  };
  for (const auto& [address, e] : symbols_) {
    if (!e.used) continue;
    doc.add_symbol_addresses(address);
    add_info(e.value);
  }
  for (const auto& [address, e] : chains_) {
    if (!e.used) continue;
    doc.add_chain_addresses(address);
    doc.add_chain_lengths(e.value.count);
    for (uint32_t i = e.value.first; i < e.value.first + e.value.count; ++i) add_info(frames_[i]);
  }
  pb::Code& code = *doc.mutable_code();
  for (const auto& [address, e] : code_) {
    if (!e.used) continue;
    code.add_addresses(address);
    code.add_asked(e.value.asked);
    code.add_lengths(e.value.before.count);
    code.mutable_before()->append(reinterpret_cast<const char*>(code_bytes_.data()) + e.value.before.first,
                                  e.value.before.count);
  }
  doc.set_entries(uint64_t(doc.symbol_addresses_size()) + uint64_t(doc.chain_addresses_size()) +
                  uint64_t(code.addresses_size()) + 1);
  return doc.SerializeAsString();
}

std::optional<std::vector<ModuleSymbolCache::Packed>> ModuleSymbolCache::rows_of(const pb::ModuleSymbols& doc) {
  const pb::Infos& in = doc.infos();
  const int n = in.name_size();
  if (in.linkage_name_size() != n || in.offset_size() != n || in.file_size() != n || in.line_size() != n ||
      in.pc_file_size() != n || in.pc_line_size() != n || in.inlined_size() != n ||
      doc.chain_lengths_size() != doc.chain_addresses_size())
    return std::nullopt;
  uint64_t expected = uint64_t(doc.symbol_addresses_size());
  for (const uint32_t length : doc.chain_lengths()) expected += length;
  if (expected != uint64_t(n)) return std::nullopt;
  const uint32_t strings = uint32_t(doc.strings().lengths_size());
  std::vector<Packed> rows(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Packed& p = rows[size_t(i)];
    p = Packed{in.name(i), in.linkage_name(i), in.file(i),   in.pc_file(i),
               in.line(i), in.pc_line(i),      in.offset(i), in.inlined(i)};
    if (p.name >= strings || p.linkage_name >= strings || p.file >= strings || p.pc_file >= strings)
      return std::nullopt;
  }
  return rows;
}

std::optional<ModuleSymbolCache::Span> ModuleSymbolCache::next_span(uint64_t& used, uint64_t count, uint64_t total) {
  if (count > total - used) return std::nullopt;
  const Span s{uint32_t(used), uint32_t(count)};
  used += count;
  return s;
}

bool ModuleSymbolCache::decode_strings(const pb::ModuleSymbols& doc) {
  const pb::Strings& in = doc.strings();
  uint64_t used = 0;
  strings_.reserve(size_t(in.lengths_size()));
  for (const uint32_t length : in.lengths()) {
    const auto s = next_span(used, length, in.bytes().size());
    if (!s) return false;
    strings_.push_back(*s);
  }
  if (used != in.bytes().size()) return false;
  string_bytes_ = in.bytes();
  return true;
}

bool ModuleSymbolCache::decode_code(const pb::ModuleSymbols& doc) {
  const pb::Code& in = doc.code();
  const int n = in.addresses_size();
  if (in.asked_size() != n || in.lengths_size() != n) return false;
  uint64_t used = 0;
  code_.reserve(size_t(n));
  for (int i = 0; i < n; ++i) {
    const auto before = next_span(used, in.lengths(i), in.before().size());
    if (!before || before->count > in.asked(i)) return false;
    code_[in.addresses(i)] = {Code{in.asked(i), *before}};
  }
  if (used != in.before().size()) return false;
  code_bytes_.assign(in.before().begin(), in.before().end());
  return true;
}

bool ModuleSymbolCache::decode(std::string_view bytes) {
  *this = ModuleSymbolCache(std::move(key_), std::move(path_));  // empty, of the same key and file
  // On an arena: the message's columns are freed at once.
  google::protobuf::Arena arena;
  pb::ModuleSymbols& doc = *google::protobuf::Arena::CreateMessage<pb::ModuleSymbols>(&arena);
  if (bytes.empty() || !doc.ParseFromArray(bytes.data(), int(bytes.size())) || doc.key() != key_ ||
      doc.entries() != uint64_t(doc.symbol_addresses_size()) + uint64_t(doc.chain_addresses_size()) +
                           uint64_t(doc.code().addresses_size()) + 1)
    return false;
  const std::optional<std::vector<Packed>> rows = rows_of(doc);
  if (!rows || !decode_strings(doc) || !decode_code(doc)) return decode({});
  size_t row = 0;
  symbols_.reserve(size_t(doc.symbol_addresses_size()));
  for (const uint64_t address : doc.symbol_addresses()) symbols_[address] = {(*rows)[row++]};
  frames_.assign(rows->begin() + ptrdiff_t(row), rows->end());
  chains_.reserve(size_t(doc.chain_addresses_size()));
  uint32_t first = 0;
  for (int i = 0; i < doc.chain_addresses_size(); ++i) {
    chains_[doc.chain_addresses(i)] = {Span{first, doc.chain_lengths(i)}};
    first += doc.chain_lengths(i);
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
