// libFuzzer entry for callprof's cache files about modules (symbols/module_symbol_cache.h,
// symbols/hook_sites_cache.h): they live in the user's cache directory, where anything may
// have written them (a crash mid-write of another tool, a disk error, a hand edit). A file
// that does not decode is ignored; one that does must encode back to a file that decodes.
// Seeds (make_symbol_cache_seeds): one valid file of each kind, of key "k".
#include <cstdint>
#include <string>

#include "symbols/hook_sites_cache.h"
#include "symbols/module_symbol_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  callprof::symbols_detail::ModuleSymbolCache cache("k");
  if (cache.decode(bytes)) {
    callprof::symbols_detail::ModuleSymbolCache again("k");
    if (!again.decode(cache.encode())) __builtin_trap();
  }
  if (auto sites = callprof::symbols_detail::decode_hook_sites(bytes, "k")) {
    auto again =
        callprof::symbols_detail::decode_hook_sites(callprof::symbols_detail::encode_hook_sites(*sites, "k"), "k");
    if (!again || again->enter != sites->enter || again->tail_exits.size() != sites->tail_exits.size())
      __builtin_trap();
  }
  return 0;
}
