// Building a profile's code locations (see code_lines.h).
#include "model/code_lines.h"

#include "model/profile.h"

namespace callprof {

LocationTable::LocationTable(Profile& profile) : profile_(profile) {
  for (size_t i = 0; i < profile.source_files.size(); ++i) files_.try_emplace(profile.source_files[i], uint32_t(i));
  for (size_t i = 0; i < profile.locations.size(); ++i) {
    const CodeLocation& l = profile.locations[i];
    ids_.try_emplace({l.function, l.address, l.file, l.line}, LocationId(i));
  }
}

LocationId LocationTable::add(FunctionId function, uint64_t address, const std::string& file, uint32_t line) {
  auto [f, new_file] = files_.try_emplace(file, uint32_t(profile_.source_files.size()));
  if (new_file) profile_.source_files.push_back(file);
  auto [it, added] = ids_.try_emplace({function, address, f->second, line}, LocationId(profile_.locations.size()));
  if (added) profile_.locations.push_back({function, address, f->second, line});
  return it->second;
}

void InstructionSums::move_into(CodeCosts& costs) {
  for (const auto& [key, sum] : sums_) costs.instructions.push_back({key.first, key.second, sum.first, sum.second});
  sums_.clear();
}

void CallSiteSet::move_into(CodeCosts& costs) {
  for (NodeId node = 0; node < sites_.size(); ++node)
    if (sites_[node] != kNoLocation) costs.call_sites.push_back({node, sites_[node]});
  sites_.clear();
}

}  // namespace callprof
