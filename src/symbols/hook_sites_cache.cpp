#include "symbols/hook_sites_cache.h"

#include "symbols/module_cache.pb.h"
#include "symbols/module_symbol_cache.h"
#include "symbols/symbolizer.h"
#include "util/user_cache.h"

namespace callprof {

namespace symbols_detail {

std::string encode_hook_sites(const HookCallSites& sites, const std::string& key) {
  module_cache::HookSites doc;
  doc.set_key(key);
  for (uint64_t a : sites.enter) doc.add_enter(a);
  for (uint64_t a : sites.exit) doc.add_exit(a);
  for (const HookCallSites::TailExit& t : sites.tail_exits) {
    module_cache::TailExit* out = doc.add_tail_exits();
    out->set_function(t.function);
    out->set_site(t.site);
  }
  doc.set_ret_byte(sites.ret_byte);
  for (uint64_t a : sites.stubs[0]) doc.add_enter_stubs(a);
  for (uint64_t a : sites.stubs[1]) doc.add_exit_stubs(a);
  doc.set_other_calls(sites.other_calls);
  doc.set_entries(sites.enter.size() + sites.exit.size() + sites.tail_exits.size() + 1);
  return doc.SerializeAsString();
}

std::optional<HookCallSites> decode_hook_sites(std::string_view bytes, const std::string& key) {
  module_cache::HookSites doc;
  if (bytes.empty() || !doc.ParseFromArray(bytes.data(), int(bytes.size())) || doc.key() != key ||
      doc.entries() != uint64_t(doc.enter_size()) + uint64_t(doc.exit_size()) + uint64_t(doc.tail_exits_size()) + 1)
    return std::nullopt;
  HookCallSites sites;
  sites.enter.assign(doc.enter().begin(), doc.enter().end());
  sites.exit.assign(doc.exit().begin(), doc.exit().end());
  for (const module_cache::TailExit& t : doc.tail_exits()) sites.tail_exits.push_back({t.function(), t.site()});
  sites.ret_byte = doc.ret_byte();
  sites.stubs[0].assign(doc.enter_stubs().begin(), doc.enter_stubs().end());
  sites.stubs[1].assign(doc.exit_stubs().begin(), doc.exit_stubs().end());
  sites.other_calls = size_t(doc.other_calls());
  return sites;
}

}  // namespace symbols_detail

Result<HookCallSites> cached_hook_call_sites(const std::string& path) {
  const auto dir = symbol_cache_dir();
  const auto key = dir ? symbols_detail::module_file_key("hook sites v1", path, "") : std::nullopt;
  if (!key) return find_hook_call_sites(path);
  return cached_value(
      *dir, *key, "hooksites", ".pb", symbols_detail::kSymbolCacheFilesKept, [&] { return find_hook_call_sites(path); },
      [&](const std::string& bytes) { return symbols_detail::decode_hook_sites(bytes, *key); },
      [&](const HookCallSites& sites) { return symbols_detail::encode_hook_sites(sites, *key); });
}

}  // namespace callprof
