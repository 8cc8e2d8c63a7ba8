#include "collect/stacks/kernel_symbols.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "collect/stacks/kernel_symbols_cache.pb.h"
#include "symbols/symbolizer.h"
#include "util/user_cache.h"
#include "util/whole_file.h"

namespace callprof::stacks {
namespace {

// The hex number at `at` (the line's start), and where it ended.
uint64_t hex_at(std::string_view text, size_t& at) {
  uint64_t v = 0;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) break;
    v = v << 4 | uint64_t(d);
  }
  return v;
}

}  // namespace

std::string KernelSymbols::encode(const std::string& key) const {
  stacks_cache::KernelSymbols m;
  m.set_key(key);
  std::string* names = m.mutable_names();
  for (const Symbol& s : symbols_) {
    m.add_addresses(s.address);
    names->append(names_, s.name_at, s.name_bytes);
    m.add_name_ends(uint32_t(names->size()));
  }
  m.set_count(uint64_t(symbols_.size()) + 1);
  return m.SerializeAsString();
}

std::optional<KernelSymbols> KernelSymbols::decode(const std::string& bytes, const std::string& key) {
  stacks_cache::KernelSymbols m;
  if (!m.ParseFromString(bytes) || m.key() != key || m.count() != uint64_t(m.addresses_size()) + 1 ||
      m.name_ends_size() != m.addresses_size())
    return std::nullopt;
  KernelSymbols k;
  k.symbols_.reserve(size_t(m.addresses_size()));
  uint32_t at = 0;
  for (int i = 0; i < m.addresses_size(); ++i) {
    const uint32_t end = m.name_ends(i);
    // Checked, as anything read from a file: names within `names`, addresses in order.
    if (end < at || end > m.names().size() || (i > 0 && m.addresses(i) < m.addresses(i - 1))) return std::nullopt;
    k.symbols_.push_back(Symbol{m.addresses(i), at, end - at});
    at = end;
  }
  k.names_ = std::move(*m.mutable_names());
  return k;
}

std::optional<std::string> KernelSymbols::kallsyms_cache_key() {
  const std::string boot = read_whole_file("/proc/sys/kernel/random/boot_id");
  const std::string modules = read_whole_file("/proc/modules");
  if (boot.empty()) return std::nullopt;
  return "kallsyms v1; boot " + boot.substr(0, boot.find('\n')) + "; modules " +
         std::to_string(std::hash<std::string>{}(modules)) + " (" + std::to_string(modules.size()) + " bytes); euid " +
         std::to_string(geteuid()) + "; kptr_restrict " +
         read_whole_file("/proc/sys/kernel/kptr_restrict").substr(0, 1);
}

KernelSymbols KernelSymbols::load(const std::string& path, const std::optional<std::string>& cache_key) {
  const auto read = [&] { return std::optional<KernelSymbols>(parse(read_whole_file(path))); };
  const auto dir = symbol_cache_dir();
  if (!cache_key || !dir) return *read();
  const auto decode = [&](const std::string& bytes) { return KernelSymbols::decode(bytes, *cache_key); };
  const auto encode = [&](const KernelSymbols& k) { return k.encode(*cache_key); };
  return *cached_value(*dir, *cache_key, "kallsyms", ".pb", 2, read, decode, encode);
}

KernelSymbols KernelSymbols::parse(std::string_view text) {
  KernelSymbols k;
  // "ffffffff81000000 T _stext\t[module]": 122,000 lines, each name kept in one string.
  k.names_.reserve(text.size() / 2);
  bool sorted = true;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    size_t p = at;
    const uint64_t a = hex_at(text, p);
    if (a != 0 && p > at && p + 2 < end && text[p] == ' ' && text[p + 2] == ' ' &&
        std::strchr("tTwW", text[p + 1]) != nullptr) {
      const size_t name = p + 3;
      size_t name_end = text.find_first_of(" \t", name);
      if (name_end == std::string_view::npos || name_end > end) name_end = end;
      if (!k.symbols_.empty() && a < k.symbols_.back().address) sorted = false;
      k.symbols_.push_back(Symbol{a, uint32_t(k.names_.size()), uint32_t(name_end - name)});
      k.names_.append(text.substr(name, name_end - name));
    }
    at = end + 1;
  }
  if (!sorted) std::stable_sort(k.symbols_.begin(), k.symbols_.end());
  return k;
}

std::string_view KernelSymbols::name(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return {};
  --it;
  return std::string_view(names_).substr(it->name_at, it->name_bytes);
}

}  // namespace callprof::stacks
