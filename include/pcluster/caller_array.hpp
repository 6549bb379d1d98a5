// A growable array in memory from the caller's allocator, whose buffer the caller then takes over.
//
// For a library that frees its matrices' arrays itself (hypre: hypre_TAlloc, hypre_TFree): a product
// writes its result straight into an array that library can own, so the result is written once and
// no second array of its size is held beside it (BoomerAMG's coarse operators,
// plugins/petsc/hypre_rap.cxx). It offers the part of std::vector that a result's writer uses, so
// one kernel serves both (FusedTripleProduct::symbolic).
#pragma once

#include <cstddef>
#include <new>
#include <stdexcept>
#include <type_traits>

namespace pcluster {

// reallocate: as std::realloc (old null: a fresh allocation; null returned: failure, old left
// alone); never asked for 0 bytes. release: frees what reallocate returned.
struct CallerAllocator {
  void *(*reallocate)(void *context, void *old, std::size_t bytes) = nullptr;
  void (*release)(void *context, void *p) = nullptr;
  void *context = nullptr;
};

template <class T>
class CallerArray {
  static_assert(std::is_trivially_copyable_v<T>, "the buffer is moved by reallocate, as by realloc");

 public:
  explicit CallerArray(CallerAllocator allocator) : allocator_(allocator) {}
  CallerArray(const CallerArray &) = delete;
  CallerArray &operator=(const CallerArray &) = delete;
  ~CallerArray()
  {
    if (data_) allocator_.release(allocator_.context, data_);
  }

  T *data() { return data_; }
  const T *data() const { return data_; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  T &operator[](std::size_t k) { return data_[k]; }
  const T &operator[](std::size_t k) const { return data_[k]; }

  void clear() { size_ = 0; }
  void reserve(std::size_t n)
  {
    if (n > capacity_) reallocate(n);
  }
  void resize(std::size_t n) // new elements value-initialised, as std::vector's
  {
    reserve(n);
    for (std::size_t k = size_; k < n; ++k) data_[k] = T();
    size_ = n;
  }
  void push_back(const T &x)
  {
    if (size_ == capacity_) reallocate(grown(size_ + 1));
    data_[size_++] = x;
  }
  // Appends [first, last): pos must be end() (the only insertion a result's writer makes).
  template <class It>
  T *insert(const T *pos, It first, It last)
  {
    if (pos != end()) throw std::logic_error("CallerArray::insert: only at the end");
    const std::size_t n = static_cast<std::size_t>(last - first);
    if (size_ + n > capacity_) reallocate(grown(size_ + n));
    T *const at = data_ + size_;
    for (std::size_t k = 0; k < n; ++k) at[k] = first[k];
    size_ += n;
    return at;
  }
  // Returns the memory past size() to the allocator (realloc shrinks in place).
  void shrink_to_fit()
  {
    if (size_ < capacity_ && size_ > 0) reallocate(size_);
  }
  // Hands the buffer over (null if nothing was ever allocated): the caller frees it from now on.
  T *release()
  {
    T *const p = data_;
    data_ = nullptr;
    size_ = capacity_ = 0;
    return p;
  }

 private:
  std::size_t grown(std::size_t needed) const { return needed > 2 * capacity_ ? needed : 2 * capacity_; }
  void reallocate(std::size_t n)
  {
    void *const p = allocator_.reallocate(allocator_.context, data_, n * sizeof(T));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<T *>(p);
    capacity_ = n;
  }

  CallerAllocator allocator_;
  T *data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

} // namespace pcluster
