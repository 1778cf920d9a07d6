// value_span.h: a read-only view of float or double values, so every widget
// accepts decoded tensors of either precision without copying.
//
// Usage:
//   std::vector<float> loss = ...;
//   tvis::widgets::ValueSpan ys(loss);            // or ValueSpan(ptr, count)
//   double v = ys[i];                               // always read as double
//
// Contracts:
// - A ValueSpan never owns its data; the data must outlive the widget call.
// - An empty span (data == nullptr or count == 0) is valid everywhere and
//   draws an empty widget.
// - Reading is by index in [0, size()); operator[] does not bound-check.
#pragma once

#include <cstddef>
#include <vector>

namespace tvis::widgets {

class ValueSpan {
public:
    enum class Type { F32, F64 };

    ValueSpan() = default;
    ValueSpan(const float* data, std::size_t count) : data_(data), count_(data ? count : 0), type_(Type::F32) {}
    ValueSpan(const double* data, std::size_t count) : data_(data), count_(data ? count : 0), type_(Type::F64) {}
    ValueSpan(const std::vector<float>& v) : ValueSpan(v.data(), v.size()) {}   // NOLINT: implicit by design
    ValueSpan(const std::vector<double>& v) : ValueSpan(v.data(), v.size()) {}  // NOLINT: implicit by design

    std::size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    Type type() const { return type_; }
    const void* data() const { return data_; }  // identity for caches; read through operator[]

    double operator[](std::size_t i) const {
        return type_ == Type::F32 ? static_cast<double>(static_cast<const float*>(data_)[i])
                                  : static_cast<const double*>(data_)[i];
    }

    // The sub-range [first, first + count), clamped to the span.
    ValueSpan sub(std::size_t first, std::size_t count) const {
        if (first > count_) first = count_;
        if (count > count_ - first) count = count_ - first;
        ValueSpan s = *this;
        s.data_ = type_ == Type::F32 ? static_cast<const void*>(static_cast<const float*>(data_) + first)
                                     : static_cast<const void*>(static_cast<const double*>(data_) + first);
        s.count_ = count;
        return s;
    }

private:
    const void* data_ = nullptr;
    std::size_t count_ = 0;
    Type type_ = Type::F32;
};

}  // namespace tvis::widgets
