// puzzlesolver.cpp - finds every unique solution of a Scramble Squares puzzle.
// Grace, CS 2.
//
//   g++ -O2 -std=gnu++17 -o puzzlesolver puzzlesolver.cpp
//   ./puzzlesolver INPUT
//
// Approach
//  * Each tile in each rotation that looks different is a Piece.  A tile that
//    looks the same after a half turn (R0,B1,R0,B1) only gets two Pieces, so
//    the same drawing is never counted twice.
//  * Pieces are bucketed by (edge needed on the left, edge needed on top);
//    the depth-first search fills the board row by row and only tries the
//    bucket that fits.
//  * Whole-board rotations: only the rotation with the smallest corner tile in
//    the top-left is searched (its 9-digit string is the smallest).
//  * Every solution gets a sort key: its nine tile numbers, then its edges in
//    the order they are drawn.  Sorting keys sorts the boards by their digits
//    and, for equal digits, by their drawn text.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr int kTiles = 9;
constexpr int kCodes = 52;     // 26 letters x {0, 1}
constexpr int kAny = kCodes;   // bucket index for "no neighbour there"
enum Side { kTop, kRight, kBottom, kLeft };

// Code of an edge: letter * 2 + digit.  Two edges match when the codes differ
// in the lowest bit only.  Codes sort exactly like the 2-character strings.
int Code(const std::string& edge) { return (edge[0] - 'A') * 2 + (edge[1] - '0'); }
struct EdgeNames {
  char name[kCodes][3];
  EdgeNames() {
    for (int c = 0; c < kCodes; ++c) {
      name[c][0] = static_cast<char>('A' + c / 2);
      name[c][1] = static_cast<char>('0' + c % 2);
      name[c][2] = '\0';
    }
  }
};
const char* EdgeText(int code) {
  static const EdgeNames names;
  return names.name[code];
}

struct Piece {
  int tile;                   // 1..9
  std::array<int, 4> edge;    // top, right, bottom, left after rotation
};

// 9 tile numbers + 36 edge codes in drawing order.
using Key = std::array<std::uint8_t, kTiles + 4 * kTiles>;

class Solver {
 public:
  explicit Solver(const std::vector<std::array<std::string, 4>>& tiles) {
    for (int t = 0; t < kTiles; ++t) {
      std::vector<std::array<int, 4>> seen;
      for (int turn = 0; turn < 4; ++turn) {
        std::array<int, 4> e{};
        for (int side = 0; side < 4; ++side) e[side] = Code(tiles[t][(side + 4 - turn) % 4]);
        if (std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
        seen.push_back(e);
        const int id = static_cast<int>(pieces_.size());
        pieces_.push_back({t + 1, e});
        for (int left : {e[kLeft], kAny})
          for (int top : {e[kTop], kAny}) bucket_[left][top].push_back(id);
      }
    }
  }

  std::vector<Key> Solve() {
    Search(0, 0);
    std::sort(keys_.begin(), keys_.end());
    return keys_;
  }

 private:
  void Search(int pos, unsigned used) {
    if (pos == kTiles) {
      keys_.push_back(MakeKey());
      return;
    }
    const int left = pos % 3 ? pieces_[cell_[pos - 1]].edge[kRight] ^ 1 : kAny;
    const int top = pos >= 3 ? pieces_[cell_[pos - 3]].edge[kBottom] ^ 1 : kAny;
    const bool corner = pos == 2 || pos == 6 || pos == 8;
    for (int id : bucket_[left][top]) {
      const Piece& p = pieces_[id];
      if (used & (1u << p.tile)) continue;
      if (pos == 0 && p.tile > kTiles - 3) continue;  // needs three larger corners
      if (corner && p.tile < pieces_[cell_[0]].tile) continue;
      cell_[pos] = id;
      Search(pos + 1, used | (1u << p.tile));
    }
  }

  Key MakeKey() const {
    Key key{};
    int k = 0;
    for (int i = 0; i < kTiles; ++i) key[k++] = static_cast<std::uint8_t>(pieces_[cell_[i]].tile);
    for (int row = 0; row < 3; ++row) {
      const Piece* p[3] = {&pieces_[cell_[row * 3]], &pieces_[cell_[row * 3 + 1]],
                           &pieces_[cell_[row * 3 + 2]]};
      for (auto* q : p) key[k++] = static_cast<std::uint8_t>(q->edge[kTop]);
      for (auto* q : p) {
        key[k++] = static_cast<std::uint8_t>(q->edge[kLeft]);
        key[k++] = static_cast<std::uint8_t>(q->edge[kRight]);
      }
      for (auto* q : p) key[k++] = static_cast<std::uint8_t>(q->edge[kBottom]);
    }
    return key;
  }

  std::vector<Piece> pieces_;
  std::vector<int> bucket_[kCodes + 1][kCodes + 1];
  std::array<int, kTiles> cell_{};
  std::vector<Key> keys_;
};

// A key holds everything needed to draw the board again.
void DrawBoard(const Key& key, std::string& out) {
  static const char kSeparator[] = "+--------+--------+--------+\n";
  out += kSeparator;
  for (int row = 0; row < 3; ++row) {
    const std::uint8_t* e = key.data() + kTiles + row * 12;  // 12 edges per row
    for (int col = 0; col < 3; ++col)
      out.append("|").append(1, static_cast<char>('0' + key[row * 3 + col]))
          .append("  ").append(EdgeText(e[col])).append("   ");
    out += "|\n";
    for (int col = 0; col < 3; ++col)
      out.append("|").append(EdgeText(e[3 + 2 * col])).append("    ")
          .append(EdgeText(e[4 + 2 * col]));
    out += "|\n";
    for (int col = 0; col < 3; ++col) out.append("|   ").append(EdgeText(e[9 + col])).append("   ");
    out += "|\n";
    out += kSeparator;
  }
}

bool ReadTiles(const char* path, std::vector<std::array<std::string, 4>>& tiles) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line) && tiles.size() < kTiles) {
    std::array<std::string, 4> edges;
    int n = 0;
    for (std::size_t i = 0; i + 1 < line.size() && n < 4; ++i)
      if (line[i] >= 'A' && line[i] <= 'Z' && (line[i + 1] == '0' || line[i + 1] == '1'))
        edges[n++] = line.substr(i, 2);
    if (n == 0) continue;  // blank line (e.g. a trailing one)
    if (n != 4) return false;
    tiles.push_back(edges);
  }
  return tiles.size() == kTiles;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " INPUT\n";
    return 1;
  }
  std::vector<std::array<std::string, 4>> tiles;
  if (!ReadTiles(argv[1], tiles)) {
    std::cerr << argv[1] << ": expected 9 tiles of 4 edges\n";
    return 1;
  }

  const std::vector<Key> solutions = Solver(tiles).Solve();

  std::string out = "Input tiles:\n";
  for (int t = 0; t < kTiles; ++t) {
    const auto& e = tiles[t];
    out += std::to_string(t + 1) + ". <" + e[0] + ", " + e[1] + ", " + e[2] + ", " + e[3] + ">\n";
  }
  out += "\n";
  if (solutions.empty()) {
    out += "No solution found.\n";
  } else if (solutions.size() == 1) {
    out += "1 unique solution found:\n";
  } else {
    out += std::to_string(solutions.size()) + " unique solutions found:\n";
  }

  constexpr std::size_t kFlushAt = 1 << 16;
  out.reserve(kFlushAt + 512);
  for (std::size_t i = 0; i < solutions.size(); ++i) {
    if (i > 0) out += '\n';
    DrawBoard(solutions[i], out);
    if (out.size() >= kFlushAt) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
