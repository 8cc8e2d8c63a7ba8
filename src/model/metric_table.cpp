// Column storage of per-node metrics.
#include "model/metric_table.h"

#include <algorithm>

#include "util/huge_pages.h"

namespace callprof {

Metrics MetricRow::metrics() const {
  Metrics out;
  for_each([&](Metric m, uint64_t v) { out[m] = v; });
  return out;
}

const MetricRowRef& MetricRowRef::operator=(const Metrics& m) const {
  for (size_t i = 0; i < kMetricCount; ++i) table_->set(row_, Metric(i), m[Metric(i)]);
  return *this;
}

const MetricRowRef& MetricRowRef::operator=(MetricRow m) const {
  for (Metric own : table_->metrics()) table_->set(row_, own, default_value(own));
  m.for_each([&](Metric metric, uint64_t v) { table_->set(row_, metric, v); });
  return *this;
}

// A default value is every merge kind's identity: only the others change the row.
void MetricRowRef::merge(const Metrics& m) const {
  for (size_t i = 0; i < kMetricCount; ++i) {
    const Metric metric = Metric(i);
    if (const uint64_t v = m[metric]; v != default_value(metric))
      table_->set(row_, metric, merge_values(metric, table_->get(row_, metric), v));
  }
}

void MetricRowRef::merge(MetricRow m) const {
  m.for_each([&](Metric metric, uint64_t v) {
    if (v != default_value(metric)) table_->set(row_, metric, merge_values(metric, table_->get(row_, metric), v));
  });
}

MetricTable::MetricTable(const MetricTable& other) : slot_(other.slot_), metrics_(other.metrics_) {
  grow(other.rows_);  // nothing to copy yet: rows_ is 0
  rows_ = other.rows_;
  for (size_t s = 0; s < metrics_.size(); ++s) std::copy_n(other.column_data(s), rows_, column_data(s));
}

MetricTable& MetricTable::operator=(const MetricTable& other) {
  if (this != &other) *this = MetricTable(other);
  return *this;
}

namespace {

std::unique_ptr<uint64_t[]> column_array(size_t rows) {
  std::unique_ptr<uint64_t[]> column(new uint64_t[rows]);  // uninitialised
  advise_huge_pages(column.get(), rows * sizeof(uint64_t));
  return column;
}

}  // namespace

void MetricTable::grow(size_t rows) {
  for (size_t s = 0; s < metrics_.size(); ++s) {
    std::unique_ptr<uint64_t[]> column = column_array(rows);
    std::copy_n(column_data(s), rows_, column.get());
    columns_[s] = std::move(column);
  }
  capacity_ = rows;
}

void MetricTable::add_column(Metric m) {
  const std::span<uint64_t> c = column_to_overwrite(m);
  std::fill(c.begin(), c.end(), default_value(m));
}

void MetricTable::reserve(size_t rows) {
  if (rows > capacity_) grow(rows);
}

void MetricTable::push_back() {
  if (rows_ == capacity_) grow(capacity_ < 8 ? 16 : capacity_ * 2);
  for (size_t s = 0; s < metrics_.size(); ++s) column_data(s)[rows_] = default_value(metrics_[s]);
  ++rows_;
}

void MetricTable::resize(size_t rows) {
  reserve(rows);
  if (rows > rows_)
    for (size_t s = 0; s < metrics_.size(); ++s)
      std::fill(column_data(s) + rows_, column_data(s) + rows, default_value(metrics_[s]));
  rows_ = rows;
}

void MetricTable::set(size_t row, Metric m, uint64_t v) {
  const int s = slot_[size_t(m)];
  if (s >= 0)
    column_data(size_t(s))[row] = v;
  else if (v != default_value(m))
    column_for(m)[row] = v;
}

std::span<uint64_t> MetricTable::column_to_overwrite(Metric m) {
  if (!has(m)) {
    slot_[size_t(m)] = int8_t(metrics_.size());
    metrics_.push_back(m);
    columns_[metrics_.size() - 1] = column_array(capacity_);
  }
  return column(m);
}

void MetricTable::set_column(Metric m, std::span<const uint64_t> values) {
  const bool added = !has(m);
  const std::span<uint64_t> c = column_to_overwrite(m);
  const size_t n = std::min(values.size(), rows_);
  std::copy_n(values.begin(), n, c.begin());
  if (added) std::fill(c.begin() + n, c.end(), default_value(m));  // at its default only past the values
}

void MetricTable::merge_rows(const MetricTable& from, std::span<const uint32_t> to) {
  for (Metric m : from.metrics()) {
    const std::span<const uint64_t> in = from.column(m);
    const std::span<uint64_t> out = column_for(m);
    switch (info(m).merge) {
      case MergeKind::Sum:
        for (size_t i = 0; i < in.size(); ++i) out[to[i]] += in[i];
        break;
      case MergeKind::Min:
        for (size_t i = 0; i < in.size(); ++i) out[to[i]] = std::min(out[to[i]], in[i]);
        break;
      case MergeKind::Max:
        for (size_t i = 0; i < in.size(); ++i) out[to[i]] = std::max(out[to[i]], in[i]);
        break;
    }
  }
}

std::span<uint64_t> MetricTable::column_for(Metric m) {
  if (!has(m)) add_column(m);
  return column(m);
}

}  // namespace callprof
