// The demo that `scripts/demo.sh` profiles: count word frequencies in a generated corpus
// and print the most frequent words. Deterministic, ~0.5 s, with a mix of hot leaf
// functions, a recursive sort, and callers that share callees — a profile worth reading.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Entry {
  std::string word;
  uint64_t count = 0;
};

// A xorshift generator so every run sees the same corpus.
uint64_t next_random(uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

std::string make_word(uint64_t& state) {
  static const char* syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "bo", "da", "fe"};
  // Few syllables are common, many are rare: a Zipf-like vocabulary.
  int n = 1 + int(next_random(state) % 3);
  std::string w;
  for (int i = 0; i < n; ++i) w += syllables[next_random(state) % (i == 0 ? 12 : 4)];
  return w;
}

std::string generate_corpus(size_t words, uint64_t seed) {
  std::string text;
  uint64_t state = seed;
  for (size_t i = 0; i < words; ++i) {
    std::string w = make_word(state);
    if (next_random(state) % 5 == 0) w[0] = char(std::toupper(w[0]));
    text += w;
    text += (next_random(state) % 9 == 0) ? ". " : " ";
  }
  return text;
}

uint64_t hash_word(const std::string& w) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : w) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string normalize(const std::string& raw) {
  std::string w;
  for (char c : raw)
    if (std::isalpha(static_cast<unsigned char>(c))) w += char(std::tolower(static_cast<unsigned char>(c)));
  return w;
}

class WordTable {
 public:
  explicit WordTable(size_t buckets) : slots_(buckets) {}
  void add(const std::string& word) {
    size_t i = hash_word(word) % slots_.size();
    while (!slots_[i].word.empty() && slots_[i].word != word) i = (i + 1) % slots_.size();
    if (slots_[i].word.empty()) slots_[i].word = word;
    ++slots_[i].count;
  }
  std::vector<Entry> entries() const {
    std::vector<Entry> out;
    for (const Entry& e : slots_)
      if (e.count) out.push_back(e);
    return out;
  }

 private:
  std::vector<Entry> slots_;
};

void count_words(const std::string& text, WordTable& table) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string w = normalize(text.substr(start, end - start));
    if (!w.empty()) table.add(w);
    start = end + 1;
  }
}

bool more_frequent(const Entry& a, const Entry& b) { return a.count != b.count ? a.count > b.count : a.word < b.word; }

void quicksort(std::vector<Entry>& v, long lo, long hi) {
  if (lo >= hi) return;
  Entry pivot = v[size_t((lo + hi) / 2)];
  long i = lo, j = hi;
  while (i <= j) {
    while (more_frequent(v[size_t(i)], pivot)) ++i;
    while (more_frequent(pivot, v[size_t(j)])) --j;
    if (i <= j) std::swap(v[size_t(i++)], v[size_t(j--)]);
  }
  quicksort(v, lo, j);
  quicksort(v, i, hi);
}

void print_top(const std::vector<Entry>& v, size_t n) {
  for (size_t i = 0; i < n && i < v.size(); ++i)
    std::printf("%2zu. %-12s %llu\n", i + 1, v[i].word.c_str(), (unsigned long long)v[i].count);
}

}  // namespace

int main(int argc, char** argv) {
  size_t words = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000000;
  std::string text = generate_corpus(words, 42);
  WordTable table(1 << 16);
  count_words(text, table);
  std::vector<Entry> entries = table.entries();
  quicksort(entries, 0, long(entries.size()) - 1);
  std::printf("%zu words, %zu distinct; most frequent:\n", words, entries.size());
  print_top(entries, 10);
  return 0;
}
