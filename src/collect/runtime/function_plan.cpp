#include "collect/runtime/function_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <set>

#include "symbols/elf_functions.h"
#include "symbols/elf_sections.h"
#include "symbols/hook_sites_cache.h"
#include "util/pattern.h"
#include "wire/raw_dump.h"

namespace callprof {
namespace {

// RE2: a program's symbol can be 100,000 characters long, which std::regex's recursive
// matcher cannot search without overflowing the stack.
Result<std::vector<Pattern>> compile(const std::vector<std::string>& patterns, const char* option) {
  std::vector<Pattern> out;
  for (const auto& p : patterns) {
    auto pattern = Pattern::compile(p, option);
    if (!pattern) return pattern.error();
    out.push_back(std::move(pattern).value());
  }
  return out;
}

void append_hex(std::string& out, uint64_t value) {
  char digits[16];
  const auto end = std::to_chars(digits, digits + sizeof digits, value, 16).ptr;
  out.append(digits, end);
}

bool is_checkpoint(const std::set<std::string>& names, const ElfFunction& f) {
  if (names.count(f.name) || names.count(f.linkage_name)) return true;
  size_t paren = f.name.find('(');
  return paren != std::string::npos && names.count(f.name.substr(0, paren));
}

// The module's hook call sites as "s ADDR ADDR ..." lines (hex ELF addresses, ascending).
void add_sites(const std::string& path, FunctionPlan& plan) {
  auto sites = cached_hook_call_sites(path);
  if (!sites) return;  // the module was read just before: its functions stay hooked
  std::vector<uint64_t> all = sites->enter;
  all.insert(all.end(), sites->exit.begin(), sites->exit.end());
  // Each list is ascending (hook_call_sites.h): merged, not sorted again.
  const auto middle = all.begin() + ptrdiff_t(sites->enter.size());
  if (std::is_sorted(all.begin(), middle) && std::is_sorted(middle, all.end()))
    std::inplace_merge(all.begin(), middle, all.end());
  else
    std::sort(all.begin(), all.end());
  // Written with to_chars into the string's own room: a format call per address was most
  // of the plan's cost (zstd's 1,510 sites: 1.0 M of the recorder's 12.3 M instructions).
  plan.text.reserve(plan.text.size() + all.size() * 17 + (all.size() / 16 + 1) * 3);
  for (size_t i = 0; i < all.size(); ++i) {
    if (i % 16 == 0) plan.text += "s ";
    append_hex(plan.text, all[i]);
    plan.text += i % 16 == 15 || i + 1 == all.size() ? '\n' : ' ';
  }
  auto out = std::back_inserter(plan.text);
  if (sites->ret_byte != 0) fmt::format_to(out, "r {:x}\n", sites->ret_byte);
  for (const HookCallSites::TailExit& t : sites->tail_exits) fmt::format_to(out, "t {:x} {:x}\n", t.function, t.site);
  plan.sites += all.size() + sites->tail_exits.size();
  plan.unrewritable_sites += sites->other_calls;
}

// The module's -fpatchable-function-entry sections as "p START END" lines (hex ELF addresses).
Status add_patchable_sections(const std::string& path, FunctionPlan& plan) {
  auto sections = allocated_sections(path, kPatchableSection);
  if (!sections) return sections.error();
  for (const auto& [start, end] : *sections) plan.text += fmt::format("p {:x} {:x}\n", start, end);
  plan.patchable_sections += sections->size();
  return Ok{};
}

}  // namespace

Result<FunctionPlan> make_function_plan(const std::vector<std::string>& modules, const FunctionSelection& sel,
                                        PlanSites sites) {
  NameFilter m;
  for (auto [patterns, option, out] :
       {std::tuple{&sel.include, "--include", &m.include}, std::tuple{&sel.exclude, "--exclude", &m.exclude},
        std::tuple{&sel.include_modules, "--include-module", &m.include_modules},
        std::tuple{&sel.exclude_modules, "--exclude-module", &m.exclude_modules}}) {
    auto compiled = compile(*patterns, option);
    if (!compiled) return compiled.error();
    *out = std::move(*compiled);
  }
  const std::set<std::string> checkpoint_names(sel.checkpoints.begin(), sel.checkpoints.end());
  std::set<std::string> checkpoints_found;
  FunctionPlan plan;
  // Functions of modules not listed here (loaded later with dlopen) cannot be matched by
  // name: an include filter leaves them out, anything else keeps them.
  bool include_only = !sel.include.empty() || !sel.include_modules.empty();
  plan.text = fmt::format("callprof-functions 1\ndefault {}\n", include_only ? wire::kNodeExcluded : 0);
  for (const std::string& path : modules) {
    plan.text += "module " + path + "\n";
    if (sites.hook_calls) add_sites(path, plan);
    if (sites.patchable_entries)
      if (Status s = add_patchable_sections(path, plan); !s) return s.error();
    if (sel.empty()) continue;
    auto functions = elf_functions(path);
    if (!functions) return functions.error();
    const bool whole_module = m.module_excluded(path);
    for (const ElfFunction& f : *functions) {
      ++plan.functions;
      uint32_t flags = whole_module || m.function_excluded(f.name) ? wire::kNodeExcluded : 0;
      if (is_checkpoint(checkpoint_names, f)) {
        flags |= wire::kNodeCheckpoint;
        checkpoints_found.insert(checkpoint_names.count(f.linkage_name) ? f.linkage_name : f.name);
        ++plan.checkpoints;
      }
      if (flags & wire::kNodeExcluded) ++plan.excluded;
      if (flags != 0) plan.text += fmt::format("{:x} {}\n", f.address, flags);
    }
  }
  for (const std::string& name : sel.checkpoints) {
    bool found = std::any_of(checkpoints_found.begin(), checkpoints_found.end(),
                             [&](const std::string& f) { return f == name || f.rfind(name + "(", 0) == 0; });
    if (!found) return make_error("--checkpoint '" + name + "': no function of that name in the instrumented program");
  }
  return plan;
}

}  // namespace callprof
