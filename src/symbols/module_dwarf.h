// ModuleDwarf: per-module indexes over libdw so each address costs a binary search,
// not a walk of its CU: which CU covers an address, which function contains it.
// Internal to src/symbols.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

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

 private:
  struct Range {
    Dwarf_Addr low, high;  // DWARF addresses, high exclusive
    Dwarf_Die die;
  };
  void index_cus();
  std::vector<Range>& functions_of(Dwarf_Die* cu);

  Dwfl_Module* mod_;
  bool cus_indexed_ = false;
  Dwarf_Addr cu_bias_ = 0;
  std::vector<Range> cus_;                                         // sorted by low
  std::unordered_map<const void*, std::vector<Range>> functions_;  // by CU DIE, sorted by low
  std::unordered_map<const void*, std::string> names_;             // by declaration DIE
};

}  // namespace callprof::symbols_detail
