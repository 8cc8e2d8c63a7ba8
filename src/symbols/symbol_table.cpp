// SymbolTable: sorted function symbols of one module (see symbol_table.h).
#include "symbols/symbol_table.h"

#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string_view>
#include <tuple>

#include "symbols/plt_entries.h"

namespace callprof::symbols_detail {
namespace {

int binding_rank(unsigned char info) {
  switch (GELF_ST_BIND(info)) {
    case STB_GLOBAL:
      return 0;
    case STB_WEAK:
      return 1;
    default:
      return 2;
  }
}

size_t leading_underscores(const char* name) { return std::strspn(name, "_"); }

}  // namespace

SymbolTable::SymbolTable(Dwfl_Module* mod) {
  int count = dwfl_module_getsymtab(mod);
  for (int i = 0; i < count; ++i) {
    GElf_Sym sym;
    GElf_Addr address = 0;
    GElf_Word section = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &address, &section, nullptr, nullptr);
    if (name == nullptr || *name == '\0') continue;
    int type = GELF_ST_TYPE(sym.st_info);
    // Code only; SHN_UNDEF are imports, -1 symbols outside loaded sections.
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || section == SHN_UNDEF || section == static_cast<GElf_Word>(-1)) {
      continue;
    }
    entries_.push_back({address, sym.st_size, name, binding_rank(sym.st_info)});
  }
  GElf_Addr bias = 0;
  for (PltEntry& e : plt_entries(dwfl_module_getelf(mod, &bias))) {
    plt_names_.push_back(std::move(e.name));
    entries_.push_back({e.address + bias, e.size, plt_names_.back().c_str(), 3});  // a real symbol there wins
  }
  // Among aliases, the name a person would pick (as perf does): global before weak
  // before local, sized first, fewer leading underscores, shorter; then any, but
  // always the same one.
  auto key = [](const Entry& e) {
    std::string_view name(e.name);
    return std::make_tuple(e.address, e.binding, e.size == 0, leading_underscores(e.name), name.size(), name);
  };
  std::sort(entries_.begin(), entries_.end(), [&](const Entry& a, const Entry& b) { return key(a) < key(b); });
  std::vector<Entry> unique;
  for (const Entry& e : entries_) {
    if (!unique.empty() && unique.back().address == e.address) {
      unique.back().size = std::max(unique.back().size, e.size);
    } else {
      unique.push_back(e);
    }
  }
  entries_ = std::move(unique);
}

std::optional<SymbolTable::Hit> SymbolTable::find(Dwarf_Addr address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](Dwarf_Addr a, const Entry& e) { return a < e.address; });
  if (it == entries_.begin()) return std::nullopt;
  const Entry& nearest = *std::prev(it);
  if (nearest.size == 0 || address < nearest.address + nearest.size) {
    return Hit{nearest.name, address - nearest.address};
  }
  // Past the end of the nearest function: inside a bigger one that encloses it (a
  // sized label inside hand-written code), or in padding that belongs to none.
  for (auto back = std::prev(it); back != entries_.begin() && it - back < 16;) {
    --back;
    if (back->size != 0 && address < back->address + back->size) {
      return Hit{back->name, address - back->address};
    }
  }
  return std::nullopt;
}

}  // namespace callprof::symbols_detail
