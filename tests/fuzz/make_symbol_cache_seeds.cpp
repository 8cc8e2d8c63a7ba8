// Writes the symbol cache fuzzer's seeds into the directory given: a module's symbol cache
// and its hook call sites, both of key "k" (symbol_cache_fuzz.cpp).
#include <fstream>
#include <string>

#include "symbols/hook_sites_cache.h"
#include "symbols/module_symbol_cache.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  callprof::symbols_detail::ModuleSymbolCache cache("k");
  callprof::SymbolInfo f;
  f.name = "compute";
  f.linkage_name = "_Z7computed";
  f.file = "/src/main.cpp";
  f.line = 12;
  f.pc_file = "/src/main.cpp";
  f.pc_line = 14;
  cache.add_symbol(0x1130, f);
  callprof::SymbolInfo helper = f;
  helper.name = "helper";
  helper.inlined = true;
  cache.add_chain(0x1141, {helper, f});
  cache.add_code(0x1146, 8, {0x48, 0x89, 0xc7, 0xe8, 0x10, 0, 0, 0});
  std::ofstream(dir + "/symbols.pb", std::ios::binary) << cache.encode();
  callprof::HookCallSites sites;
  sites.enter = {0x1134, 0x1204};
  sites.exit = {0x1160, 0x1230};
  sites.tail_exits = {{0x1200, 0x1240}};
  sites.ret_byte = 0x1245;
  sites.stubs[0] = {0x1030};
  sites.stubs[1] = {0x1040};
  std::ofstream(dir + "/hooksites.pb", std::ios::binary) << callprof::symbols_detail::encode_hook_sites(sites, "k");
  return 0;
}
