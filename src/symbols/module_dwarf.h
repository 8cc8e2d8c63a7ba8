// ModuleDwarf: per-module indexes over libdw so each address costs a binary search,
// not a walk of its CU: which CU covers an address, which function contains it.
// Internal to src/symbols.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace callprof::symbols_detail {

class ModuleDwarf {
 public:
  explicit ModuleDwarf(Dwfl_Module* mod) : mod_(mod) {}

  // The CU covering a runtime address, and in *bias what to subtract from runtime
  // addresses to get the CU's own; null when no DWARF covers it.
  Dwarf_Die* cu_at(Dwarf_Addr address, Dwarf_Addr* bias);

  // The innermost DW_TAG_subprogram whose code contains pc (a DWARF address in cu),
  // or null. Built from one walk over the CU, on its first use.
  Dwarf_Die* function_at(Dwarf_Die* cu, Dwarf_Addr pc);

  // "ns::Class::name" from the scopes around a function's declaration, for functions
  // without a linkage name to demangle; no parameter types. Memoized: it walks the CU.
  const std::string& qualified_name(Dwarf_Die* function);

  // The scopes between a function and the innermost one containing pc (lexical blocks,
  // inlined subroutines, try and catch blocks, as nested in the function's DIE), innermost
  // first, the function last: what a chain of inlined frames needs. The function's scope
  // tree is read once, on its first use: its call sites are looked up one by one, and
  // libdw's sibling walk through a large function's inlined code, done per lookup, was most
  // of the cost of placing them (zstd).
  std::vector<Dwarf_Die> scopes_at(Dwarf_Die* function, Dwarf_Addr pc);

 private:
  struct Range {
    Dwarf_Addr low, high;  // DWARF addresses, high exclusive
    Dwarf_Die die;
  };
  static constexpr uint32_t kNoScope = UINT32_MAX;
  struct Scope {
    Dwarf_Die die;
    uint32_t ranges_begin, ranges_end;  // in ScopeTree::ranges
    uint32_t first_child = kNoScope, next_sibling = kNoScope;
  };
  struct ScopeTree {
    std::vector<Scope> scopes;
    std::vector<Range> ranges;  // each scope's, in order
    uint32_t first = kNoScope;  // the function's first scope
  };
  void index_cus();
  std::vector<Range>& functions_of(Dwarf_Die* cu);
  uint32_t add_scopes(Dwarf_Die* parent, int depth, ScopeTree& tree);

  Dwfl_Module* mod_;
  bool cus_indexed_ = false;
  Dwarf_Addr cu_bias_ = 0;
  std::vector<Range> cus_;                                         // sorted by low
  std::unordered_map<const void*, std::vector<Range>> functions_;  // by CU DIE, sorted by low
  std::unordered_map<const void*, std::string> names_;             // by declaration DIE
  std::unordered_map<const void*, ScopeTree> scope_trees_;         // by function DIE
};

}  // namespace callprof::symbols_detail
