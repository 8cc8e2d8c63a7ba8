// Function starts from .eh_frame_hdr (see unwind_starts.h). The table's layout (LSB, "Exception
// Frame Header"): version 1, three pointer encodings (eh_frame_ptr, fde_count, table), the
// encoded eh_frame_ptr and fde_count, then fde_count pairs (initial location, FDE address).
#include "symbols/unwind_starts.h"

#include <elfutils/libdw.h>
#include <gelf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <span>

namespace callprof::symbols_detail {
namespace {

constexpr uint8_t kOmit = 0xff;
constexpr uint8_t kDatarelSdata4 = 0x3b;  // DW_EH_PE_datarel | DW_EH_PE_sdata4

// Bytes of a fixed-size DW_EH_PE value (low nibble of the encoding); 0: variable or unknown.
size_t encoded_size(uint8_t encoding, bool elf64) {
  switch (encoding & 0x0f) {
    case 0x00:
      return elf64 ? 8 : 4;  // absptr
    case 0x02:
    case 0x0a:
      return 2;
    case 0x03:
    case 0x0b:
      return 4;
    case 0x04:
    case 0x0c:
      return 8;
    default:
      return 0;
  }
}

uint64_t read_unsigned(std::span<const uint8_t> bytes, bool little_endian) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t b = little_endian ? bytes[bytes.size() - 1 - i] : bytes[i];
    value = (value << 8) | b;
  }
  return value;
}

// The table's bytes and its ELF address, from the PT_GNU_EH_FRAME segment (section headers
// may be gone).
std::span<const uint8_t> header_bytes(Elf* elf, GElf_Addr* address) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return {};
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_GNU_EH_FRAME) continue;
    Elf_Data* data = elf_getdata_rawchunk(elf, static_cast<int64_t>(ph.p_offset), ph.p_filesz, ELF_T_BYTE);
    if (data == nullptr || data->d_buf == nullptr) return {};
    *address = ph.p_vaddr;
    return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
  }
  return {};
}

// The initial locations of the table (ELF addresses), or none when it is not readable.
std::vector<Dwarf_Addr> table_starts(Elf* elf) {
  GElf_Addr table_address = 0;
  const std::span<const uint8_t> hdr = header_bytes(elf, &table_address);
  const unsigned char* ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  if (hdr.size() < 4 || ident == nullptr || hdr[0] != 1 || hdr[3] != kDatarelSdata4) return {};
  const bool elf64 = ident[EI_CLASS] == ELFCLASS64, little = ident[EI_DATA] == ELFDATA2LSB;
  const size_t frame_ptr = hdr[1] == kOmit ? 0 : encoded_size(hdr[1], elf64);
  const size_t count_size = encoded_size(hdr[2], elf64);
  if ((hdr[1] != kOmit && frame_ptr == 0) || count_size == 0 || (hdr[2] & 0x70) != 0) return {};
  size_t at = 4 + frame_ptr;
  if (hdr.size() < at + count_size) return {};
  const uint64_t count = read_unsigned(hdr.subspan(at, count_size), little);
  at += count_size;
  if (count > (hdr.size() - at) / 8) return {};  // a damaged count: nothing rather than garbage
  std::vector<Dwarf_Addr> starts;
  starts.reserve(count);
  for (uint64_t i = 0; i < count; ++i, at += 8) {
    const auto offset = static_cast<int32_t>(static_cast<uint32_t>(read_unsigned(hdr.subspan(at, 4), little)));
    starts.push_back(table_address + static_cast<int64_t>(offset));
  }
  std::sort(starts.begin(), starts.end());  // sorted by the linker; not trusted
  return starts;
}

}  // namespace

UnwindStarts::UnwindStarts(Dwfl_Module* mod) : mod_(mod) {
  Elf* elf = dwfl_module_getelf(mod, &bias_);
  if (elf != nullptr) starts_ = table_starts(elf);
}

std::optional<Dwarf_Addr> UnwindStarts::start_of(Dwarf_Addr address) const {
  if (address < bias_) return std::nullopt;
  const Dwarf_Addr elf_address = address - bias_;
  auto it = std::upper_bound(starts_.begin(), starts_.end(), elf_address);
  if (it == starts_.begin()) return std::nullopt;
  // The nearest start below may belong to an entry that ends before the address (padding,
  // code without unwind info): ask libdw whether an entry covers the address at all. Entries
  // do not overlap, so one that does is the entry of that start.
  Dwarf_Addr cfi_bias = 0;
  Dwarf_CFI* cfi = dwfl_module_eh_cfi(mod_, &cfi_bias);
  Dwarf_Frame* frame = nullptr;
  if (cfi == nullptr || address < cfi_bias || dwarf_cfi_addrframe(cfi, address - cfi_bias, &frame) != 0)
    return std::nullopt;
  std::free(frame);
  return *std::prev(it) + bias_;
}

}  // namespace callprof::symbols_detail
