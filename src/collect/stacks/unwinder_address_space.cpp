// AddressSpace: mappings of one process image and its libdwfl session (see header).
#include "collect/stacks/unwinder_address_space.h"

#include <gelf.h>
#include <unistd.h>

#include <algorithm>

#include "collect/stacks/unwinder_elf.h"

namespace callprof::stacks {
namespace {

// Separate debug files (for .debug_frame, when .eh_frame lacks a pc) are looked for
// next to the file, in .debug/ and under /usr/lib/debug, as gdb does.
char g_debuginfo_path[] = ":.debug:/usr/lib/debug";
char* g_debuginfo_path_ptr = g_debuginfo_path;
const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &g_debuginfo_path_ptr,
};

std::string dwfl_error() {
  const char* message = dwfl_errmsg(-1);
  return message != nullptr ? message : "unknown error";
}

bool overlaps(const perf::Mapping& a, const perf::Mapping& b) { return a.start < b.end && b.start < a.end; }

// Same file at the same place: re-reported (maps at attach, then MMAP2) or split by
// mprotect; the module it implies is unchanged.
bool same_image(const perf::Mapping& a, const perf::Mapping& b) {
  return a.path == b.path && a.start - a.pgoff == b.start - b.pgoff;
}

}  // namespace

void add_warning(std::vector<std::string>& warnings, std::string warning) {
  if (std::find(warnings.begin(), warnings.end(), warning) == warnings.end()) warnings.push_back(std::move(warning));
}

AddressSpace::AddressSpace(uint32_t pid, const AddressSpace& parent)
    : pid_(pid), mappings_(parent.mappings_), pending_(parent.mappings_) {}

AddressSpace::~AddressSpace() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

// A new mapping replaces what it overlaps; the parts of old mappings outside it stay
// (mmap over part of a region, mprotect splitting one).
void AddressSpace::add(const perf::Mapping& mapping) {
  if (mapping.end <= mapping.start) return;
  std::vector<perf::Mapping> kept;
  kept.reserve(mappings_.size() + 2);
  for (const perf::Mapping& old : mappings_) {
    if (!overlaps(old, mapping)) {
      kept.push_back(old);
      continue;
    }
    if (!same_image(old, mapping) && mapping_has_file(old.path)) rebuild_ = true;
    if (old.start < mapping.start) {
      kept.push_back(old);
      kept.back().end = mapping.start;
    }
    if (mapping.end < old.end) {
      kept.push_back(old);
      kept.back().pgoff += mapping.end - old.start;
      kept.back().start = mapping.end;
    }
  }
  kept.push_back(mapping);
  std::sort(kept.begin(), kept.end(), [](const perf::Mapping& a, const perf::Mapping& b) { return a.start < b.start; });
  mappings_ = std::move(kept);
  if (mapping_has_file(mapping.path)) pending_.push_back(mapping);
}

bool AddressSpace::executable(uint64_t address) const {
  auto it = std::upper_bound(mappings_.begin(), mappings_.end(), address,
                             [](uint64_t a, const perf::Mapping& m) { return a < m.start; });
  return it != mappings_.begin() && address < std::prev(it)->end;
}

Dwfl* AddressSpace::dwfl(std::vector<std::string>& warnings) {
  if (rebuild_ || dwfl_ == nullptr) {
    if (rebuild_ || !pending_.empty()) rebuild(warnings);
    return has_modules_ ? dwfl_ : nullptr;
  }
  if (pending_.empty()) return has_modules_ ? dwfl_ : nullptr;
  dwfl_report_begin_add(dwfl_);
  for (const perf::Mapping& mapping : pending_) report(mapping, warnings);
  pending_.clear();
  if (dwfl_report_end(dwfl_, nullptr, nullptr) != 0) add_warning(warnings, "unwinder: libdwfl: " + dwfl_error());
  return has_modules_ ? dwfl_ : nullptr;
}

// A new session with every current file mapping: libdwfl cannot drop one module, and
// replaced mappings (dlclose then dlopen at the same place, exec) are rare.
void AddressSpace::rebuild(std::vector<std::string>& warnings) {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
  dwfl_ = dwfl_begin(&kCallbacks);
  rebuild_ = false;
  pending_.clear();
  reported_.clear();
  has_modules_ = false;
  if (dwfl_ == nullptr) {
    add_warning(warnings, "unwinder: cannot start libdwfl: " + dwfl_error());
    return;
  }
  dwfl_report_begin(dwfl_);
  for (const perf::Mapping& mapping : mappings_) {
    if (mapping_has_file(mapping.path)) report(mapping, warnings);
  }
  if (dwfl_report_end(dwfl_, nullptr, nullptr) != 0) add_warning(warnings, "unwinder: libdwfl: " + dwfl_error());
}

void AddressSpace::report(const perf::Mapping& mapping, std::vector<std::string>& warnings) {
  Result<MappedElf> elf = open_mapped_elf(mapping);
  if (!elf.ok()) {
    add_warning(warnings, elf.error().message + "; its frames are not unwound by CFI");
    return;
  }
  std::pair<std::string, uint64_t> key{mapping.path, elf->bias};
  bool known = std::find(reported_.begin(), reported_.end(), key) != reported_.end();
  if (known || (!mapping.build_id.empty() && !elf->build_id.empty() && mapping.build_id != elf->build_id)) {
    if (!known) {
      add_warning(warnings, mapping.path + ": build id differs from the recording (file changed since?); " +
                                "its frames are not unwound by CFI");
    }
    close(elf->fd);
    return;
  }
  // On success libdwfl owns the descriptor; add_p_vaddr=true makes the base the bias.
  const char* path = mapping.path.c_str();
  if (dwfl_report_elf(dwfl_, path, path, elf->fd, elf->bias, true) == nullptr) {
    add_warning(warnings, mapping.path + ": libdwfl cannot use it (" + dwfl_error() + ")");
    close(elf->fd);
    return;
  }
  reported_.push_back(std::move(key));
  has_modules_ = true;
}

bool AddressSpace::read_file_word(uint64_t address, uint64_t* out) const {
  Dwfl_Module* module = dwfl_ != nullptr ? dwfl_addrmodule(dwfl_, address) : nullptr;
  GElf_Addr bias = 0;
  Elf* elf = module != nullptr ? dwfl_module_getelf(module, &bias) : nullptr;
  size_t size = 0, phnum = 0;
  const char* raw = elf != nullptr ? elf_rawfile(elf, &size) : nullptr;
  if (raw == nullptr || elf_getphdrnum(elf, &phnum) != 0) return false;
  const uint64_t vaddr = address - bias;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_LOAD || (ph.p_flags & PF_W) != 0) continue;
    if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr + sizeof *out > ph.p_filesz) continue;
    const uint64_t offset = ph.p_offset + (vaddr - ph.p_vaddr);
    if (offset + sizeof *out > size) return false;
    std::memcpy(out, raw + offset, sizeof *out);
    return true;
  }
  return false;
}

}  // namespace callprof::stacks
