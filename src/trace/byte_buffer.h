// A growable byte array for the writer's large buffers (the payload, the compressed file):
// new room is left uninitialised, since every byte is written right after, and a large
// block grows by realloc, which the C library does by remapping pages rather than copying.
// On a merged profile of 96 MB, zero-filling and copying these was a second of page faults.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>
#include <utility>

namespace callprof::trace {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(ByteBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  ByteBuffer& operator=(ByteBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  ~ByteBuffer() { std::free(data_); }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  // `n` more bytes at the end, uninitialised: the caller writes them. Throws std::bad_alloc.
  uint8_t* extend(size_t n) {
    if (size_ + n > capacity_) grow(size_ + n);
    return data_ + std::exchange(size_, size_ + n);
  }
  // Keeps the first `n` bytes (n <= size()).
  void truncate(size_t n) { size_ = n < size_ ? n : size_; }

 private:
  void grow(size_t needed) {
    size_t capacity = capacity_ < 4096 ? 4096 : capacity_ * 2;
    if (capacity < needed) capacity = needed;
    void* p = std::realloc(data_, capacity);
    if (!p) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(p);
    capacity_ = capacity;
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace callprof::trace
