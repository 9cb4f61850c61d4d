// Scramble Squares solver
// usage: ./puzzlesolver INPUT
//
// Depth-first search that fills the 3x3 board row by row.  Tiles are tried in
// increasing number order, so the solutions come out already in lexicographic
// order of their tile numbers and need no sorting.  Only the board rotation
// whose top-left tile is the smallest corner is searched.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace std;

struct Orientation {
    int tile;          // 0-based
    string edge[4];    // top, right, bottom, left
};

static vector<vector<Orientation>> orientations(9);
static vector<const Orientation*> grid(9, nullptr);
static vector<vector<const Orientation*>> solutions;
static bool used[9];

static bool match(const string& a, const string& b) {
    return a[0] == b[0] && a[1] != b[1];
}

static void search(int pos) {
    if (pos == 9) {
        solutions.push_back(grid);
        return;
    }
    for (int t = 0; t < 9; ++t) {
        if (used[t]) continue;
        if (pos == 0 && t > 5) break;
        if ((pos == 2 || pos == 6 || pos == 8) && t < grid[0]->tile) continue;
        used[t] = true;
        for (const Orientation& o : orientations[t]) {
            if (pos % 3 != 0 && !match(grid[pos - 1]->edge[1], o.edge[3])) continue;
            if (pos >= 3 && !match(grid[pos - 3]->edge[2], o.edge[0])) continue;
            grid[pos] = &o;
            search(pos + 1);
        }
        used[t] = false;
    }
}

static void printBoard(ostream& out, const vector<const Orientation*>& b) {
    const string bar = "+--------+--------+--------+\n";
    out << bar;
    for (int r = 0; r < 9; r += 3) {
        for (int c = r; c < r + 3; ++c) out << '|' << b[c]->tile + 1 << "  " << b[c]->edge[0] << "   ";
        out << "|\n";
        for (int c = r; c < r + 3; ++c) out << '|' << b[c]->edge[3] << "    " << b[c]->edge[1];
        out << "|\n";
        for (int c = r; c < r + 3; ++c) out << "|   " << b[c]->edge[2] << "   ";
        out << "|\n" << bar;
    }
}

int main(int argc, char* argv[]) {
    if (argc != 2) {
        cerr << "usage: " << argv[0] << " INPUT" << endl;
        return 1;
    }
    ifstream in(argv[1]);
    vector<vector<string>> tiles;
    string line;
    while (getline(in, line) && tiles.size() < 9) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        vector<string> edges;
        stringstream ss(line);
        string e;
        while (getline(ss, e, ',')) edges.push_back(e);
        tiles.push_back(edges);
    }
    if (tiles.size() != 9) {
        cerr << "expected 9 tiles" << endl;
        return 1;
    }

    for (int t = 0; t < 9; ++t) {
        for (int k = 0; k < 4; ++k) {
            Orientation o;
            o.tile = t;
            for (int s = 0; s < 4; ++s) o.edge[s] = tiles[t][(s + 4 - k) % 4];
            bool dup = false;
            for (const Orientation& p : orientations[t]) {
                bool same = true;
                for (int s = 0; s < 4; ++s) same = same && p.edge[s] == o.edge[s];
                dup = dup || same;
            }
            if (!dup) orientations[t].push_back(o);
        }
    }

    search(0);

    ostringstream out;
    out << "Input tiles:\n";
    for (int t = 0; t < 9; ++t)
        out << t + 1 << ". <" << tiles[t][0] << ", " << tiles[t][1] << ", " << tiles[t][2] << ", "
            << tiles[t][3] << ">\n";
    out << '\n';
    if (solutions.empty())
        out << "No solution found.\n";
    else if (solutions.size() == 1)
        out << "1 unique solution found:\n";
    else
        out << solutions.size() << " unique solutions found:\n";
    for (size_t i = 0; i < solutions.size(); ++i) {
        if (i) out << '\n';
        printBoard(out, solutions[i]);
    }
    cout << out.str();
    return 0;
}
