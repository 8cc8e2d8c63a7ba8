// Decoding one function's code from its ELF file (see function_code.h).
#include "symbols/function_code.h"

#include <gelf.h>

#include <algorithm>

#include "symbols/debug_search.h"
#include "symbols/disassembler.h"
#include "symbols/elf_file.h"
#include "symbols/elf_functions.h"
#include "symbols/elf_handles.h"

namespace callprof {
namespace {

constexpr uint64_t kMaxFunctionBytes = 64 * 1024;

// [entry, end) among the file's `functions`: the symbol's size, else up to the next function's entry.
uint64_t function_end(const std::vector<ElfFunction>& functions, uint64_t entry) {
  uint64_t next = entry + kMaxFunctionBytes;
  for (const ElfFunction& f : functions) {
    if (f.address == entry && f.size > 0) return entry + std::min(f.size, kMaxFunctionBytes);
    if (f.address > entry) next = std::min(next, f.address);
  }
  return next;
}

// The bytes of [from, to) from the section that holds them.
Result<std::vector<uint8_t>> code_bytes(const std::string& path, uint64_t from, uint64_t to) {
  auto file = ElfFile::open(path);
  if (!file) return file.error();
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(file->elf(), scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    if (from < sh.sh_addr || from >= sh.sh_addr + sh.sh_size) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) break;
    const uint64_t end = std::min(to, sh.sh_addr + std::min<uint64_t>(sh.sh_size, data->d_size));
    const auto* p = static_cast<const uint8_t*>(data->d_buf) + (from - sh.sh_addr);
    return std::vector<uint8_t>(p, p + (end - from));
  }
  return make_error(path + " has no code at the function's address");
}

// The instructions of [from, to) of the file at `path`, appended to `out`.
Status decode_range(const std::string& path, uint64_t from, uint64_t to, std::vector<DecodedInstruction>& out) {
  auto bytes = code_bytes(path, from, to);
  if (!bytes) return bytes.error();
  Disassembler cs(CS_OPT_SKIPDATA);
  if (!cs.ok()) return make_error("cannot decode instructions: " + cs.error());
  const uint8_t* p = bytes->data();
  size_t left = bytes->size();
  uint64_t at = from;
  while (left > 0 && cs.next(&p, &left, &at)) {
    const cs_insn& i = cs.insn();
    std::string text = i.mnemonic;
    if (i.op_str[0]) text += std::string(" ") + i.op_str;
    out.push_back({i.address, std::move(text), "", 0});
  }
  return Ok{};
}

// The instructions of the function at `entry` of the file at `path`, in address order, with
// those of its cold parts (NAME.cold, elf_functions.h): they run on its frame, and its
// samples there are its own.
Result<std::vector<DecodedInstruction>> decode(const std::string& path, uint64_t entry) {
  std::vector<uint64_t> starts = {entry};
  for (const auto& [part, owner] : cold_part_owners(path))
    if (owner == entry) starts.push_back(part);
  auto functions = elf_functions(path);
  if (!functions) return functions.error();
  std::vector<DecodedInstruction> out;
  for (uint64_t start : starts)  // a part that cannot be read is left out, the function is not
    if (Status decoded = decode_range(path, start, function_end(*functions, start), out); !decoded && start == entry)
      return decoded.error();
  std::sort(out.begin(), out.end(),
            [](const DecodedInstruction& a, const DecodedInstruction& b) { return a.address < b.address; });
  return out;
}

// Each instruction's line from the debug info of the file (at its own addresses: bias 0).
void add_lines(const std::string& path, const std::string& build_id, std::vector<DecodedInstruction>& code) {
  if (code.empty()) return;
  auto symbols = Symbolizer::create({LoadedModule{path, 0, code.front().address, code.back().address + 16, build_id}});
  if (!symbols) return;
  for (DecodedInstruction& i : code) {
    const std::vector<SymbolInfo> chain = (*symbols)->resolve_inlined(i.address);
    if (!chain.empty()) i.file = chain.back().pc_file, i.line = chain.back().pc_line;
  }
}

}  // namespace

Result<std::vector<DecodedInstruction>> disassemble_function(const std::string& path, const std::string& build_id,
                                                             uint64_t entry) {
  Error why = make_error("cannot open " + path);
  for (const std::string& file : symbols_detail::file_candidates(path, default_symbolizer_options())) {
    auto id = symbols_detail::file_build_id(file);
    if (!id) {
      why = make_error(file + ": " + id.error().message);
      continue;
    }
    if (!build_id.empty() && *id != build_id) {
      why = make_error(file + " is another build than the profiled one (its build id differs)");
      continue;
    }
    auto code = decode(file, entry);
    if (code) add_lines(file, build_id, *code);
    return code;
  }
  return why;
}

}  // namespace callprof
