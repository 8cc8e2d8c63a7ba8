#include "symbols/hook_sites_cache.h"

#include <nlohmann/json.hpp>

#include "symbols/module_symbol_cache.h"
#include "symbols/symbolizer.h"
#include "util/user_cache.h"

namespace callprof {

namespace symbols_detail {

using nlohmann::json;

std::string encode_hook_sites(const HookCallSites& sites, const std::string& key) {
  json tails = json::array();
  for (const HookCallSites::TailExit& t : sites.tail_exits) tails.push_back(json::array({t.function, t.site}));
  const json doc = {{"key", key},
                    {"enter", sites.enter},
                    {"exit", sites.exit},
                    {"tail_exits", tails},
                    {"ret_byte", sites.ret_byte},
                    {"stubs", json::array({sites.stubs[0], sites.stubs[1]})},
                    {"other_calls", sites.other_calls}};
  const std::vector<uint8_t> bytes = json::to_cbor(doc);
  return std::string(bytes.begin(), bytes.end());
}

std::optional<HookCallSites> decode_hook_sites(std::string_view bytes, const std::string& key) {
  if (bytes.empty()) return std::nullopt;
  try {
    const json doc = json::from_cbor(bytes.begin(), bytes.end());
    if (doc.at("key").get<std::string>() != key) return std::nullopt;
    HookCallSites sites;
    sites.enter = doc.at("enter").get<std::vector<uint64_t>>();
    sites.exit = doc.at("exit").get<std::vector<uint64_t>>();
    for (const json& t : doc.at("tail_exits")) {
      if (!t.is_array() || t.size() != 2) return std::nullopt;
      sites.tail_exits.push_back({t.at(0).get<uint64_t>(), t.at(1).get<uint64_t>()});
    }
    sites.ret_byte = doc.at("ret_byte").get<uint64_t>();
    const json& stubs = doc.at("stubs");
    if (!stubs.is_array() || stubs.size() != 2) return std::nullopt;
    for (size_t i = 0; i < 2; ++i) sites.stubs[i] = stubs.at(i).get<std::vector<uint64_t>>();
    sites.other_calls = doc.at("other_calls").get<size_t>();
    return sites;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace symbols_detail

Result<HookCallSites> cached_hook_call_sites(const std::string& path) {
  const auto dir = default_symbolizer_options().cache ? user_cache_dir() : std::nullopt;
  const auto key = dir ? symbols_detail::module_file_key("hook sites v1", path, "") : std::nullopt;
  if (!key) return find_hook_call_sites(path);
  const auto file = *dir / cache_file_name("hooksites", *key, ".cbor");
  if (auto cached = symbols_detail::decode_hook_sites(read_cache_file(file), *key)) return *cached;
  auto sites = find_hook_call_sites(path);
  if (sites)
    (void)write_cache_file(file, symbols_detail::encode_hook_sites(*sites, *key), "hooksites", ".cbor",
                           symbols_detail::kSymbolCacheFilesKept);
  return sites;
}

}  // namespace callprof
