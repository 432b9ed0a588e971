// Host copies of tensor contents for verification. Outputs reach 1 GiB and are read several
// times per pair: a std::vector<unsigned char> would zero every byte before the copy overwrote
// it, so HostBytes leaves its elements default-initialised (uninitialised for bytes).
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace aisp {

template <class T, class Base = std::allocator<T>>
class UninitialisedAllocator : public Base {
  using Traits = std::allocator_traits<Base>;

 public:
  template <class U>
  struct rebind {
    using other = UninitialisedAllocator<U, typename Traits::template rebind_alloc<U>>;
  };
  using Base::Base;

  // resize(n) and vector(n) construct with no arguments: leave the memory as it is.
  template <class U>
  void construct(U* where) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(where)) U;
  }
  template <class U, class... Args>
  void construct(U* where, Args&&... args) {
    Traits::construct(static_cast<Base&>(*this), where, std::forward<Args>(args)...);
  }
};

using HostBytes = std::vector<unsigned char, UninitialisedAllocator<unsigned char>>;

}  // namespace aisp
