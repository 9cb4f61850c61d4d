// Scramble Squares solver (CS 2)
// g++ -O2 -std=gnu++17 -o puzzlesolver puzzlesolver.cpp && ./puzzlesolver INPUT

#include <algorithm>
#include <array>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace std;

struct Tile {
    int id;
    array<string, 4> e;  // top, right, bottom, left
}

struct Board {
    array<Tile, 9> cells;
    string digits() const {
        string s;
        for (const Tile& t : cells) s += char('1' + t.id);
        return s;
    }
    string draw() const {
        const string bar = "+--------+--------+--------+\n";
        string out = bar;
        for (int r = 0; r < 9; r += 3) {
            for (int c = r; c < r + 3; ++c) out += "|" + to_string(cells[c].id + 1) + "  " + cells[c].e[0] + "   ";
            out += "|\n";
            for (int c = r; c < r + 3; ++c) out += "|" + cells[c].e[3] + "    " + cells[c].e[1];
            out += "|\n";
            for (int c = r; c < r + 3; ++c) out += "|   " + cells[c].e[2] + "   ";
            out += "|\n" + bar;
        }
        return out;
    }
};

static vector<vector<Tile>> turns(9);
static Board current;
static bool used[9];
static vector<Board> found;

static bool fits(const string& a, const string& b) { return a[0] == b[0] && a[1] != b[1]; }

static void solve(int pos) {
    if (pos == 9) {
        found.push_back(current);
        return;
    }
    for (int t = 0; t < 9; ++t) {
        if (used[t] || (pos == 0 && t > 5)) continue;
        if ((pos == 2 || pos == 6 || pos == 8) && t < current.cells[0].id) continue;
        used[t] = true;
        for (const Tile& o : turns[t]) {
            if (pos % 3 && !fits(current.cells[pos - 1].e[1], o.e[3])) continue;
            if (pos >= 3 && !fits(current.cells[pos - 3].e[2], o.e[0])) continue;
            current.cells[pos] = o;
            solve(pos + 1);
        }
        used[t] = false;
    }
}

int main(int argc, char** argv) {
    if (argc != 2) {
        cerr << "usage: " << argv[0] << " INPUT\n";
        return 1;
    }
    ifstream in(argv[1]);
    vector<array<string, 4>> tiles;
    string line;
    while (getline(in, line)) {
        array<string, 4> e;
        int n = 0;
        for (size_t i = 0; i + 1 < line.size(); ++i)
            if (isupper(line[i]) && (line[i + 1] == '0' || line[i + 1] == '1') && n < 4) e[n++] = line.substr(i, 2);
        if (n == 4) tiles.push_back(e);
    }
    for (int t = 0; t < 9; ++t)
        for (int k = 0; k < 4; ++k) {
            Tile o{t, {}};
            for (int s = 0; s < 4; ++s) o.e[s] = tiles[t][(s + 4 - k) % 4];
            bool seen = false;
            for (const Tile& p : turns[t]) seen = seen || p.e == o.e;
            if (!seen) turns[t].push_back(o);
        }
    solve(0);
    sort(found.begin(), found.end(), [](const Board& a, const Board& b) {
        return make_pair(a.digits(), a.draw()) < make_pair(b.digits(), b.draw());
    });

    string out = "Input tiles:\n";
    for (int t = 0; t < 9; ++t)
        out += to_string(t + 1) + ". <" + tiles[t][0] + ", " + tiles[t][1] + ", " + tiles[t][2] + ", " + tiles[t][3] + ">\n";
    out += "\n";
    if (found.empty()) out += "No solution found.\n";
    else if (found.size() == 1) out += "1 unique solution found:\n";
    else out += to_string(found.size()) + " unique solutions found:\n";
    for (size_t i = 0; i < found.size(); ++i) {
        if (i) out += "\n";
        out += found[i].draw();
    }
    cout << out;
}
