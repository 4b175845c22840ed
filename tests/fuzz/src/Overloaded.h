// Overloaded: a visitor for std::visit made of one lambda per alternative.
#pragma once

namespace strata::fuzz {

template <class... Fs>
struct Overloaded : Fs... {
    using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace strata::fuzz
