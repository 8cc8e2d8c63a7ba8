// Building a profile's code locations (see code_lines.h).
#include "model/code_lines.h"

#include <algorithm>

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

void CallSiteSet::add(const CallSite& site) {
  const bool weighed = site.calls != 0 || site.wall_ns != 0;
  if (site.node == kNoNode || (site.location == kNoLocation && !weighed)) return;
  if (site.node >= has_site_.size()) has_site_.resize(std::max(size_t(site.node) + 1, 2 * has_site_.size()));
  if (!weighed && has_site_[site.node]) return;
  has_site_[site.node] = true;
  sites_.push_back(site);
}

void CallSiteSet::move_into(CodeCosts& costs) {
  auto key = [](const CallSite& s) { return std::pair(s.node, s.location); };
  auto by_key = [&](const CallSite& a, const CallSite& b) { return key(a) < key(b); };
  if (!std::is_sorted(sites_.begin(), sites_.end(), by_key)) std::sort(sites_.begin(), sites_.end(), by_key);
  // A place not known (it sorts last) matters only beside known ones, for its share.
  NodeId last = kNoNode;
  for (size_t i = 0; i < sites_.size();) {
    CallSite sum = sites_[i];
    for (++i; i < sites_.size() && key(sites_[i]) == key(sum); ++i) {
      sum.calls += sites_[i].calls;
      sum.wall_ns += sites_[i].wall_ns;
    }
    if (sum.location != kNoLocation || sum.node == last) costs.call_sites.push_back(sum);
    last = sum.node;
  }
  sites_.clear();
  has_site_.clear();
}

std::vector<SiteShare> site_shares(const std::vector<CallSite>& sites, size_t nodes) {
  struct Sum {
    uint64_t calls = 0, ns = 0;
    uint32_t count = 0;
  };
  std::vector<Sum> sum(nodes);
  for (const CallSite& c : sites)
    if (c.node < nodes) {
      sum[c.node].calls += c.calls;
      sum[c.node].ns += c.wall_ns;
      ++sum[c.node].count;
    }
  std::vector<SiteShare> out(sites.size());
  for (size_t i = 0; i < sites.size(); ++i) {
    const CallSite& c = sites[i];
    if (c.node >= nodes || sum[c.node].count < 2) continue;  // one site: all of the node
    const Sum& s = sum[c.node];
    const double even = 1.0 / s.count;
    const double calls = s.calls ? double(c.calls) / double(s.calls) : s.ns ? double(c.wall_ns) / double(s.ns) : even;
    out[i] = {calls, s.ns ? double(c.wall_ns) / double(s.ns) : calls};
  }
  return out;
}

std::vector<LocationId> main_call_sites(const std::vector<CallSite>& sites, size_t nodes) {
  std::vector<LocationId> out(nodes, kNoLocation);
  std::vector<const CallSite*> best(nodes, nullptr);
  for (const CallSite& c : sites) {
    if (c.node >= nodes || c.location == kNoLocation) continue;
    const CallSite* b = best[c.node];
    if (!b || c.calls > b->calls || (c.calls == b->calls && c.wall_ns > b->wall_ns)) best[c.node] = &c;
  }
  for (size_t n = 0; n < nodes; ++n)
    if (best[n]) out[n] = best[n]->location;
  return out;
}

}  // namespace callprof
