// ModuleDwarf: CU and function range indexes (see module_dwarf.h).
#include "symbols/module_dwarf.h"

#include <dwarf.h>

#include <algorithm>
#include <iterator>

#include "symbols/elf_handles.h"

namespace callprof::symbols_detail {
namespace {

template <typename Range>
void sort_by_low(std::vector<Range>& ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.low < b.low; });
}

// Ranges may nest (GNU C nested functions) or, in odd DWARF, overlap: look back a
// little from the last range starting at or before pc, preferring the smallest.
template <typename Range>
Range* find_range(std::vector<Range>& ranges, Dwarf_Addr pc) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), pc, [](Dwarf_Addr a, const Range& r) { return a < r.low; });
  Range* best = nullptr;
  for (int looked = 0; it != ranges.begin() && looked < 64; ++looked) {
    --it;
    if (pc < it->high && (best == nullptr || it->high - it->low < best->high - best->low)) {
      best = &*it;
    }
  }
  return best;
}

template <typename Range>
void add_ranges(Dwarf_Die* die, std::vector<Range>& out) {
  Dwarf_Addr base = 0, low = 0, high = 0;
  for (ptrdiff_t offset = 0; (offset = dwarf_ranges(die, offset, &base, &low, &high)) > 0;) {
    if (low < high) out.push_back({low, high, *die});
  }
}

bool may_hold_functions(int tag) {
  switch (tag) {
    case DW_TAG_namespace:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_interface_type:
    case DW_TAG_module:
    case DW_TAG_subprogram:
    case DW_TAG_lexical_block:  // local classes, nested functions
      return true;
    default:
      return false;
  }
}

template <typename Range>
void collect_functions(Dwarf_Die* parent, int depth, std::vector<Range>& out) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0) return;  // bounded: damaged DWARF
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram) add_ranges(&child, out);
    if (may_hold_functions(tag)) collect_functions(&child, depth + 1, out);
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The DIE that declares a function, reached through DW_AT_abstract_origin (inlined
// and out-of-line instances) and DW_AT_specification (out-of-class definitions).
Dwarf_Die declaration_of(Dwarf_Die* die) {
  Dwarf_Die current = *die;
  for (int hops = 0; hops < 8; ++hops) {  // bounded: damaged DWARF may loop
    Dwarf_Attribute attr;
    Dwarf_Attribute* ref = dwarf_attr(&current, DW_AT_abstract_origin, &attr);
    if (ref == nullptr) ref = dwarf_attr(&current, DW_AT_specification, &attr);
    Dwarf_Die next;
    if (ref == nullptr || dwarf_formref_die(ref, &next) == nullptr) break;
    current = next;
  }
  return current;
}

bool c_language(Dwarf_Die* die) {
  Dwarf_Die cu;
  if (dwarf_diecu(die, &cu, nullptr, nullptr) == nullptr) return false;
  switch (dwarf_srclang(&cu)) {
    case DW_LANG_C89:
    case DW_LANG_C:
    case DW_LANG_C99:
    case DW_LANG_C11:
      return true;
    default:
      return false;
  }
}

bool scope_tag(int tag) {
  return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
         tag == DW_TAG_catch_block;
}

std::string scoped_name(Dwarf_Die* declaration) {
  const char* base = dwarf_diename(declaration);
  if (base == nullptr) return {};
  std::string name = base;
  // C has no enclosing scopes to name, and finding them walks the CU from its start.
  if (c_language(declaration)) return name;
  Dwarf_Die* found = nullptr;
  int count = dwarf_getscopes_die(declaration, &found);
  MallocPtr<Dwarf_Die> scopes(found);
  for (int i = 1; i < count; ++i) {
    int tag = dwarf_tag(&found[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type) {
      continue;
    }
    const char* scope = dwarf_diename(&found[i]);
    const char* unnamed = tag == DW_TAG_namespace ? "(anonymous namespace)" : "(anonymous)";
    name = std::string(scope != nullptr ? scope : unnamed) + "::" + name;
  }
  return name;
}

}  // namespace

const std::string& ModuleDwarf::qualified_name(Dwarf_Die* function) {
  Dwarf_Die declaration = declaration_of(function);  // shared by all inlined copies
  auto [it, added] = names_.try_emplace(declaration.addr);
  if (added) it->second = scoped_name(&declaration);
  return it->second;
}

Dwarf_Die* ModuleDwarf::cu_at(Dwarf_Addr address, Dwarf_Addr* bias) {
  if (Dwarf_Die* cu = dwfl_module_addrdie(mod_, address, bias)) return cu;
  // libdwfl finds CUs through .debug_aranges, which clang does not emit (and
  // elfutils 0.188 has no fallback): search the CUs' own ranges instead.
  if (!cus_indexed_) index_cus();
  Range* found = find_range(cus_, address - cu_bias_);
  if (found == nullptr) return nullptr;
  *bias = cu_bias_;
  return &found->die;
}

void ModuleDwarf::index_cus() {
  cus_indexed_ = true;
  if (dwfl_module_getdwarf(mod_, &cu_bias_) == nullptr) return;
  Dwarf_Addr bias = 0;
  for (Dwarf_Die* cu = dwfl_module_nextcu(mod_, nullptr, &bias); cu != nullptr;
       cu = dwfl_module_nextcu(mod_, cu, &bias)) {
    add_ranges(cu, cus_);
  }
  sort_by_low(cus_);
}

std::vector<ModuleDwarf::Range>& ModuleDwarf::functions_of(Dwarf_Die* cu) {
  auto [it, added] = functions_.try_emplace(cu->addr);
  if (added) {
    collect_functions(cu, 0, it->second);
    sort_by_low(it->second);
  }
  return it->second;
}

Dwarf_Die* ModuleDwarf::function_at(Dwarf_Die* cu, Dwarf_Addr pc) {
  Range* found = find_range(functions_of(cu), pc);
  return found != nullptr ? &found->die : nullptr;
}

// The scope children of `parent` (not through other DIEs, as the walk this replaces did
// not descend into them), in order, each with its own; the index of the first, or kNoScope.
uint32_t ModuleDwarf::add_scopes(Dwarf_Die* parent, int depth, ScopeTree& tree) {
  Dwarf_Die child;
  if (depth > 255 || dwarf_child(parent, &child) != 0) return kNoScope;  // bounded: damaged DWARF
  uint32_t first = kNoScope, last = kNoScope;
  do {
    if (!scope_tag(dwarf_tag(&child))) continue;
    const auto at = uint32_t(tree.scopes.size());
    const auto begin = uint32_t(tree.ranges.size());
    add_ranges(&child, tree.ranges);
    tree.scopes.push_back({child, begin, uint32_t(tree.ranges.size())});
    (last == kNoScope ? first : tree.scopes[last].next_sibling) = at;
    last = at;
    const uint32_t children = add_scopes(&child, depth + 1, tree);
    tree.scopes[at].first_child = children;
  } while (dwarf_siblingof(&child, &child) == 0);
  return first;
}

std::vector<Dwarf_Die> ModuleDwarf::scopes_at(Dwarf_Die* function, Dwarf_Addr pc) {
  auto [it, added] = scope_trees_.try_emplace(function->addr);
  ScopeTree& tree = it->second;
  if (added) tree.first = add_scopes(function, 0, tree);
  auto contains = [&](const Scope& s) {
    for (uint32_t r = s.ranges_begin; r < s.ranges_end; ++r)
      if (pc >= tree.ranges[r].low && pc < tree.ranges[r].high) return true;
    return false;
  };
  std::vector<Dwarf_Die> path{*function};
  for (uint32_t at = tree.first; at != kNoScope;) {  // the first scope at each level that holds pc
    while (at != kNoScope && !contains(tree.scopes[at])) at = tree.scopes[at].next_sibling;
    if (at == kNoScope) break;
    path.push_back(tree.scopes[at].die);
    at = tree.scopes[at].first_child;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace callprof::symbols_detail
