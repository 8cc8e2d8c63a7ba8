// SymbolTable: a module's function symbols sorted by address, so naming an address is
// a binary search (dwfl_module_addrinfo scans the whole table on every call).
// Internal to src/symbols.
#pragma once

#include <elfutils/libdwfl.h>

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace callprof::symbols_detail {

class SymbolTable {
 public:
  // Reads every symbol libdwfl offers for the module (.symtab, else .dynsym, plus
  // .gnu_debugdata), keeping functions, and names the PLT stubs ("sin@plt",
  // plt_entries.h). Names point into libelf's data, which lives as long as the Dwfl.
  explicit SymbolTable(Dwfl_Module* mod);

  struct Hit {
    const char* name;
    Dwarf_Addr offset;  // from the symbol's start
  };
  // The function symbol covering a runtime address; a sizeless symbol covers up to
  // the next symbol.
  std::optional<Hit> find(Dwarf_Addr address) const;

 private:
  struct Entry {
    Dwarf_Addr address;  // runtime address
    Dwarf_Addr size;
    const char* name;
    int binding;  // 0 global, 1 weak, 2 local: the order aliases are preferred in
  };
  std::vector<Entry> entries_;         // by address, one per address
  std::deque<std::string> plt_names_;  // the PLT stubs' names (a deque: entries point into it)
};

}  // namespace callprof::symbols_detail
