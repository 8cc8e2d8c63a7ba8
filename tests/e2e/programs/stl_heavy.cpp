// An STL-heavy C++ program for the web report's browser test (tests/browser): containers,
// algorithms, std::function and lambdas, so that a build with -finstrument-functions and no
// exclude list records the library's template instantiations with their long names
// (std::_Rb_tree<...>::_M_insert_unique, std::__introsort_loop<...>, ...). Deterministic.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace inventory {

struct Item {
  std::string name;
  int weight = 0;
  double price = 0;
};

template <typename Key, typename Value>
class Index {
 public:
  void add(const Key& key, Value value) { entries_[key].push_back(std::move(value)); }
  size_t count(const Key& key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? 0 : it->second.size();
  }
  const std::map<Key, std::vector<Value>>& entries() const { return entries_; }

 private:
  std::map<Key, std::vector<Value>> entries_;
};

std::vector<Item> make_items(int n) {
  std::vector<Item> items;
  unsigned state = 12345;
  for (int i = 0; i < n; ++i) {
    state = state * 1103515245u + 12345u;
    items.push_back({"item" + std::to_string(state % 997), int(state % 100), double(state % 1000) / 10});
  }
  return items;
}

double total_price(const std::vector<Item>& items, const std::function<bool(const Item&)>& keep) {
  return std::accumulate(items.begin(), items.end(), 0.0,
                         [&](double sum, const Item& it) { return keep(it) ? sum + it.price : sum; });
}

}  // namespace inventory

int main() {
  using namespace inventory;
  std::vector<Item> items = make_items(20000);
  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.weight != b.weight ? a.weight < b.weight : a.name < b.name; });
  Index<std::string, int> by_name;
  for (const Item& it : items) by_name.add(it.name, it.weight);
  std::unordered_map<int, std::set<std::string>> by_weight;
  for (const Item& it : items) by_weight[it.weight].insert(it.name);
  std::priority_queue<std::pair<double, std::string>> heaviest;
  for (const Item& it : items) heaviest.emplace(it.price, it.name);
  const double cheap = total_price(items, [](const Item& it) { return it.price < 20; });
  std::printf("%zu names, %zu weights, top %s, cheap %.1f, item42 %zu\n", by_name.entries().size(), by_weight.size(),
              heaviest.top().second.c_str(), cheap, by_name.count("item42"));
  return 0;
}
