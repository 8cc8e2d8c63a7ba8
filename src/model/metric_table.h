// A table of metric vectors, one row per calling-context-tree node, that stores only the
// metrics some row has (one column each). A node used to carry all 18 metrics inline: an
// exact profile uses 6 to 9 of them, a sampled one 2 or 3, and on a million-node profile the
// unused ones were most of the memory every view had to fault in and zero (bench/analysis).
//
// A metric no row has reads as its default (0, or Metrics::kUnset for a minimum); writing a
// non-default value to such a metric adds its column. Rows are read through MetricRow and
// written through MetricRowRef, small handles that stay valid while rows are only read or
// written, not added.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "model/metrics.h"

namespace callprof {

class MetricTable;

// The default a metric has in a fresh Metrics (the identity of its merge kind).
inline constexpr uint64_t default_value(Metric m) { return info(m).merge == MergeKind::Min ? Metrics::kUnset : 0; }

// One row, read-only.
class MetricRow {
 public:
  MetricRow(const MetricTable& table, size_t row) : table_(&table), row_(row) {}
  uint64_t operator[](Metric m) const;
  bool has_min(Metric m) const { return (*this)[m] != Metrics::kUnset; }
  Metrics metrics() const;
  operator Metrics() const { return metrics(); }  // NOLINT: a row is a metric vector
  // f(Metric, value) for each metric the table has a column for.
  template <typename F>
  void for_each(F&& f) const;

 private:
  const MetricTable* table_;
  size_t row_;
};

// One row, writable.
class MetricRowRef {
 public:
  // One metric of the row: reads without adding a column, writes add it when needed.
  class Cell {
   public:
    Cell(MetricTable& table, size_t row, Metric m) : table_(&table), row_(row), metric_(m) {}
    operator uint64_t() const;  // NOLINT: reads as the value
    Cell& operator=(uint64_t v);
    Cell& operator=(const Cell& other) { return *this = uint64_t(other); }
    Cell& operator+=(uint64_t v) { return *this = uint64_t(*this) + v; }
    Cell& operator-=(uint64_t v) { return *this = uint64_t(*this) - v; }

   private:
    MetricTable* table_;
    size_t row_;
    Metric metric_;
  };

  MetricRowRef(MetricTable& table, size_t row) : table_(&table), row_(row) {}
  MetricRowRef(const MetricRowRef&) = default;
  // Assignment copies the values, never rebinds the handle.
  const MetricRowRef& operator=(const MetricRowRef& other) const { return *this = MetricRow(other); }
  Cell operator[](Metric m) const { return Cell(*table_, row_, m); }
  bool has_min(Metric m) const { return MetricRow(*this)[m] != Metrics::kUnset; }
  operator MetricRow() const { return MetricRow(*table_, row_); }  // NOLINT
  operator Metrics() const { return MetricRow(*this).metrics(); }  // NOLINT
  Metrics metrics() const { return MetricRow(*this).metrics(); }
  // Every metric set to `m`'s.
  const MetricRowRef& operator=(const Metrics& m) const;
  const MetricRowRef& operator=(MetricRow m) const;
  // Each metric combined by its merge kind (as Metrics::merge).
  void merge(const Metrics& m) const;
  void merge(MetricRow m) const;
  void merge(const MetricRowRef& m) const { merge(MetricRow(m)); }

 private:
  MetricTable* table_;
  size_t row_;
};

class MetricTable {
 public:
  MetricTable() { slot_.fill(-1); }
  MetricTable(const MetricTable& other);
  MetricTable(MetricTable&& other) noexcept = default;
  MetricTable& operator=(const MetricTable& other);
  MetricTable& operator=(MetricTable&& other) noexcept = default;

  size_t size() const { return rows_; }
  // Room for `rows` rows in each column (on huge pages when large).
  void reserve(size_t rows);
  // One more row, every metric at its default.
  void push_back();
  // `rows` rows: those added at every metric's default.
  void resize(size_t rows);

  MetricRow operator[](size_t row) const { return MetricRow(*this, row); }
  MetricRowRef operator[](size_t row) { return MetricRowRef(*this, row); }

  bool has(Metric m) const { return slot_[size_t(m)] >= 0; }
  uint64_t get(size_t row, Metric m) const {
    const int s = slot_[size_t(m)];
    return s < 0 ? default_value(m) : columns_[size_t(s)][row];
  }
  void set(size_t row, Metric m, uint64_t v);
  // The metrics that have a column, in column order.
  std::span<const Metric> metrics() const { return metrics_; }
  // A metric's column (one value per row); it must exist.
  std::span<const uint64_t> column(Metric m) const { return {column_data(size_t(slot_[size_t(m)])), rows_}; }
  std::span<uint64_t> column(Metric m) { return {column_data(size_t(slot_[size_t(m)])), rows_}; }
  // An additive metric summed over the rows from `first` on.
  uint64_t sum(Metric m, size_t first = 0) const {
    uint64_t s = 0;
    if (has(m))
      for (uint64_t v : column(m).subspan(first < rows_ ? first : rows_)) s += v;
    return s;
  }
  // The metric's column set to `values` (one per row), added when absent.
  void set_column(Metric m, std::span<const uint64_t> values);
  // The metric's column, added uninitialised when absent, for the caller to write every row.
  std::span<uint64_t> column_to_overwrite(Metric m);
  // `from`'s rows merged into this table's rows `to[i]` (one per row of `from`), metric by
  // metric by its merge kind; columns `from` has and this one lacks are added.
  void merge_rows(const MetricTable& from, std::span<const uint32_t> to);

 private:
  // The metric's column, added (at its default) when absent.
  std::span<uint64_t> column_for(Metric m);
  // A new column for `m` with room for `capacity_` rows, its first `rows_` at the default.
  void add_column(Metric m);
  uint64_t* column_data(size_t slot) const { return columns_[slot].get(); }
  // Room for `rows` rows: new arrays, the columns in use copied.
  void grow(size_t rows);

  std::array<int8_t, kMetricCount> slot_;  // column of each metric, -1 when none
  std::vector<Metric> metrics_;            // by column
  // One array per column in use, `capacity_` rows each, uninitialised past `rows_`; a new
  // column never moves the others. Apart rather than one block for every metric: a
  // million-row column is 8 MB, small enough to reuse memory the process freed (the parsed
  // file's), where an 18-column block was always a fresh mapping (bench/analysis).
  std::array<std::unique_ptr<uint64_t[]>, kMetricCount> columns_;
  size_t capacity_ = 0;
  size_t rows_ = 0;
};

// Read access to a metric vector wherever it lives, a Metrics or a table's row, for code
// that takes both (report columns). Only for parameters: it may view a temporary.
class MetricView {
 public:
  MetricView(const Metrics& m) : dense_(&m) {}               // NOLINT
  MetricView(MetricRow r) : row_(r) {}                       // NOLINT
  MetricView(const MetricRowRef& r) : row_(MetricRow(r)) {}  // NOLINT
  uint64_t operator[](Metric m) const { return dense_ ? (*dense_)[m] : (*row_)[m]; }
  bool has_min(Metric m) const { return (*this)[m] != Metrics::kUnset; }

 private:
  const Metrics* dense_ = nullptr;
  std::optional<MetricRow> row_;
};

// Equal when every metric is.
inline bool operator==(MetricView a, MetricView b) {
  for (size_t i = 0; i < kMetricCount; ++i)
    if (a[Metric(i)] != b[Metric(i)]) return false;
  return true;
}

// A row combined into a metric vector, metric by metric (as Metrics::merge / add_sums),
// without building a vector for the row.
inline void merge(Metrics& into, MetricRow row) {
  row.for_each([&](Metric m, uint64_t v) {
    uint64_t& x = into[m];
    switch (info(m).merge) {
      case MergeKind::Sum:
        x += v;
        break;
      case MergeKind::Min:
        x = v < x ? v : x;
        break;
      case MergeKind::Max:
        x = v > x ? v : x;
        break;
    }
  });
}
inline void add_sums(Metrics& into, MetricRow row) {
  row.for_each([&](Metric m, uint64_t v) {
    if (info(m).merge == MergeKind::Sum) into[m] += v;
  });
}

// Totals: each row plus every descendant's row for the additive metrics; minimum and maximum
// stay each row's own. `parent[i] < i` for every row but 0.
template <typename Parent>
void add_to_parents(std::span<uint64_t> col, Parent parent_of) {
  for (size_t i = col.size(); i-- > 1;) col[parent_of(i)] += col[i];
}

template <typename Parent>
MetricTable cumulative_rows(const MetricTable& base, Parent parent_of) {
  MetricTable cum = base;
  for (Metric m : cum.metrics())
    if (info(m).merge == MergeKind::Sum) add_to_parents(cum.column(m), parent_of);
  return cum;
}

// The same for `metrics` alone: the table has columns only for those of them `base` has.
template <typename Parent>
MetricTable cumulative_rows(const MetricTable& base, Parent parent_of, std::span<const Metric> metrics) {
  MetricTable cum;
  cum.resize(base.size());
  for (Metric m : metrics) {
    if (!base.has(m) || cum.has(m)) continue;
    cum.set_column(m, base.column(m));
    if (info(m).merge == MergeKind::Sum) add_to_parents(cum.column(m), parent_of);
  }
  return cum;
}

inline uint64_t MetricRow::operator[](Metric m) const { return table_->get(row_, m); }

template <typename F>
void MetricRow::for_each(F&& f) const {
  for (Metric m : table_->metrics()) f(m, table_->get(row_, m));
}

inline MetricRowRef::Cell::operator uint64_t() const { return table_->get(row_, metric_); }

inline MetricRowRef::Cell& MetricRowRef::Cell::operator=(uint64_t v) {
  table_->set(row_, metric_, v);
  return *this;
}

}  // namespace callprof
