// Compile-time bomb: a template whose every instantiation needs two new ones, 2^27 in
// all. The compiler runs out of time or memory long before it is done.
template <int Depth, long Index>
struct Explode {
    static constexpr long value =
        Explode<Depth - 1, 2 * Index>::value + Explode<Depth - 1, 2 * Index + 1>::value;
};

template <long Index>
struct Explode<0, Index> {
    static constexpr long value = Index;
};

int main() { return Explode<26, 0>::value == 0; }
