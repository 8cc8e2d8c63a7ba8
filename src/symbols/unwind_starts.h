// The start addresses of a module's functions as its unwind info knows them, for code
// without symbols (stripped files): the sorted initial locations of .eh_frame's entries
// (FDEs) from the .eh_frame_hdr search table, the one unwinders (libdw's too) search. libdw
// gives the rules at an address but not the start of the entry they come from (a
// Dwarf_Frame's range is one row of rules), so this reads the table itself.
// Internal to src/symbols.
#pragma once

#include <elfutils/libdwfl.h>

#include <optional>
#include <vector>

namespace callprof::symbols_detail {

class UnwindStarts {
 public:
  // Reads the table of the module's ELF file; empty when it has none or one not in the
  // usual encoding (4-byte offsets relative to the table), which is all GNU ld writes.
  explicit UnwindStarts(Dwfl_Module* mod);

  // The start of the function (or part of one: GCC's .cold parts have entries of their
  // own) whose unwind entry covers a runtime address; none when no entry covers it.
  std::optional<Dwarf_Addr> start_of(Dwarf_Addr address) const;

  bool empty() const { return starts_.empty(); }

 private:
  Dwfl_Module* mod_;
  Dwarf_Addr bias_ = 0;
  std::vector<Dwarf_Addr> starts_;  // ELF addresses, sorted
};

}  // namespace callprof::symbols_detail
