// DWARF side of symbolization: declaration and call-site locations, line table
// positions, inline frames. Every query tolerates missing or damaged DWARF.
#include "symbols/dwarf_lookup.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace callprof::symbols_detail {
namespace {

// Paths from libdw are relative to the CU's compilation directory unless absolute;
// the profile must stand alone, so put it in front. Builds with a relative comp dir
// (-fdebug-prefix-map=...=.) stay relative, and then DWARF 5 files of directory 0
// already start with it. "dir/../" is folded (GCC's include paths are full of it).
std::string source_path(const char* path, const char* comp_dir) {
  namespace fs = std::filesystem;
  if (path == nullptr || *path == '\0') return {};
  fs::path result = fs::path(path).lexically_normal();
  if (result.is_relative() && comp_dir != nullptr && *comp_dir != '\0') {
    fs::path dir = fs::path(comp_dir).lexically_normal();
    bool has_dir = dir.is_relative() && dir != "." &&
                   std::mismatch(dir.begin(), dir.end(), result.begin(), result.end()).first == dir.end();
    if (!has_dir) result = (dir / result).lexically_normal();
  }
  return result.string();
}

const char* comp_dir_of(Dwarf_Die* cu) {
  Dwarf_Attribute attr;
  return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
}

// Entry `index` of the file table of the CU an attribute was read from. Not
// dwarf_decl_file: elfutils 0.188 takes index 0 for "none", which DWARF 5 uses for
// the primary source file (clang writes it).
std::string file_entry(Dwarf_Attribute* attr) {
  Dwarf_Word index = 0;
  Dwarf_Die cu;
  Dwarf_Half version = 0;
  if (attr == nullptr || dwarf_formudata(attr, &index) != 0 ||
      dwarf_cu_die(attr->cu, &cu, &version, nullptr, nullptr, nullptr, nullptr, nullptr) == nullptr ||
      (index == 0 && version < 5)) {
    return {};
  }
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_getsrcfiles(&cu, &files, &count) != 0 || index >= count) return {};
  return source_path(dwarf_filesrc(files, index, nullptr, nullptr), comp_dir_of(&cu));
}

// Through abstract origins and specifications, like the declaration it describes.
std::string decl_file(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  return file_entry(dwarf_attr_integrate(die, DW_AT_decl_file, &attr));
}

uint32_t decl_line(Dwarf_Die* die) {
  int line = 0;
  return dwarf_decl_line(die, &line) == 0 && line > 0 ? static_cast<uint32_t>(line) : 0;
}

std::string call_file(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  return file_entry(dwarf_attr(die, DW_AT_call_file, &attr));
}

uint32_t call_line(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  Dwarf_Word line = 0;
  if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &line) != 0) return 0;
  return static_cast<uint32_t>(line);
}

// The mangled name, through abstract origins and specifications; "" when DWARF has
// none (C, and GCC for C++ functions with internal linkage).
std::string linkage_name(Dwarf_Die* die) {
  for (unsigned int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    Dwarf_Attribute attr;
    if (const char* s = dwarf_formstring(dwarf_attr_integrate(die, name, &attr))) return s;
  }
  return {};
}

// Name, declaration and offset of a subprogram or inlined-subroutine DIE.
void describe_die(ModuleDwarf& dwarf, Dwarf_Die* die, Dwarf_Addr pc, SymbolInfo& info) {
  info.linkage_name = linkage_name(die);
  if (!info.linkage_name.empty()) {
    info.name = demangle(info.linkage_name);
  } else {
    info.name = dwarf.qualified_name(die);
    const char* plain = dwarf_diename(die);
    info.linkage_name = plain != nullptr ? plain : "";
  }
  Dwarf_Addr entry = 0;
  if (dwarf_entrypc(die, &entry) == 0 && pc >= entry) info.offset = pc - entry;
  info.file = decl_file(die);
  info.line = decl_line(die);
}

void line_table_location(ModuleDwarf& dwarf, Dwarf_Addr address, SymbolInfo& info) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwarf.cu_at(address, &bias);
  Dwarf_Line* line = cu != nullptr ? dwarf_getsrc_die(cu, address - bias) : nullptr;
  if (line == nullptr) return;
  int number = 0;
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  if (file == nullptr || dwarf_lineno(line, &number) != 0) return;
  info.pc_file = source_path(file, comp_dir_of(cu));
  info.pc_line = number > 0 ? static_cast<uint32_t>(number) : 0;
}

}  // namespace

void describe_from_dwarf(ModuleDwarf& dwarf, Dwarf_Addr address, SymbolInfo& info) {
  line_table_location(dwarf, address, info);
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwarf.cu_at(address, &bias);
  Dwarf_Die* function = cu != nullptr ? dwarf.function_at(cu, address - bias) : nullptr;
  if (function != nullptr) {
    if (info.linkage_name.empty()) {
      describe_die(dwarf, function, address - bias, info);  // no ELF symbol: DWARF names it
    } else {
      info.file = decl_file(function);
      info.line = decl_line(function);
    }
  }
  if (info.file.empty()) {  // no usable subprogram: the entry's line is the best guess
    info.file = info.pc_file;
    info.line = info.pc_line;
  }
}

std::vector<SymbolInfo> inline_chain(ModuleDwarf& dwarf, Dwarf_Addr address, const SymbolInfo& outer) {
  std::vector<SymbolInfo> frames;
  std::string at_file = outer.pc_file;
  uint32_t at_line = outer.pc_line;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwarf.cu_at(address, &bias);
  Dwarf_Die* function = cu != nullptr ? dwarf.function_at(cu, address - bias) : nullptr;
  std::vector<Dwarf_Die> scopes;
  if (function != nullptr) scopes = dwarf.scopes_at(function, address - bias);
  for (Dwarf_Die& die : scopes) {
    if (dwarf_tag(&die) != DW_TAG_inlined_subroutine) continue;
    SymbolInfo frame;
    frame.module = outer.module;
    frame.file_address = outer.file_address;
    frame.inlined = true;
    describe_die(dwarf, &die, address - bias, frame);
    frame.pc_file = std::move(at_file);
    frame.pc_line = at_line;
    at_file = call_file(&die);  // the caller is executing the line that was inlined
    at_line = call_line(&die);
    frames.push_back(std::move(frame));
  }
  SymbolInfo last = outer;
  if (!frames.empty()) {
    last.pc_file = std::move(at_file);
    last.pc_line = at_line;
  }
  frames.push_back(std::move(last));
  return frames;
}

}  // namespace callprof::symbols_detail
