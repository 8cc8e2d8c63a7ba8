// find_hook_call_sites through callprof's cache directory (util/user_cache.h): a module's
// hook call sites are found once per file (scanning its code is linear in its size: 0.7 ms
// of zstd's 900 KB, tens of ms for a large program) and read back by later recordings of the
// same file (module_symbol_cache.h's key). Off with SymbolizerOptions::cache
// (--no-symbol-cache).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "symbols/hook_call_sites.h"

namespace callprof {

Result<HookCallSites> cached_hook_call_sites(const std::string& path);

namespace symbols_detail {
// The cache file's bytes (module_cache.proto's HookSites) for sites found under `key`, and
// back: nullopt for anything
// malformed or of another key.
std::string encode_hook_sites(const HookCallSites& sites, const std::string& key);
std::optional<HookCallSites> decode_hook_sites(std::string_view bytes, const std::string& key);
}  // namespace symbols_detail

}  // namespace callprof
