//! puzzlesolver.rs -- Scramble Squares solver in Rust (the example class's ada-c,
//! translated): every tile in every rotation that looks different is a placement,
//! filed by the edges it shows on its left and on its top; the backtracking builds
//! only the canonical rotation of each board (the top-left tile the smallest corner).

use std::io::Write;

const NTILES: usize = 9;
const ANY: usize = 52; // "no constraint" slot of the lookup table
const NSLOTS: usize = 53;
const TOP: usize = 0;
const RIGHT: usize = 1;
const BOTTOM: usize = 2;
const LEFT: usize = 3;

// TILES BEGIN
pub struct Placement {
    pub tile: usize,
    pub code: [usize; 4],
    pub line: [String; 3],
}

pub fn die(message: &str) -> ! {
    eprintln!("puzzlesolver: {}", message);
    std::process::exit(1);
}

/// Edges are an upper-case letter followed by 0 or 1; anything else is a separator.
pub fn read_tiles(path: &str) -> Vec<[String; 4]> {
    let data = std::fs::read(path).unwrap_or_else(|_| die(&format!("cannot open {}", path)));
    let mut found: Vec<String> = Vec::new();
    let mut prev: Option<u8> = None;
    for &c in &data {
        if found.len() == 9 * 4 {
            break;
        }
        if let Some(p) = prev {
            if (c == b'0' || c == b'1') && p.is_ascii_uppercase() {
                found.push(format!("{}{}", p as char, c as char));
            }
        }
        prev = Some(c);
    }
    if found.len() != 9 * 4 {
        die(&format!("expected 9 tiles of 4 edges in {}", path));
    }
    found.chunks(4).map(|t| [t[0].clone(), t[1].clone(), t[2].clone(), t[3].clone()]).collect()
}

fn edge_code(edge: &str) -> usize {
    let bytes = edge.as_bytes();
    (bytes[0] - b'A') as usize * 2 + (bytes[1] - b'0') as usize
}

/// Every tile turned clockwise 0 to 3 times (the old left edge comes to the top); a
/// symmetric tile keeps one of the rotations that look the same.
pub fn placements(edges: &[[String; 4]]) -> Vec<Placement> {
    let mut found: Vec<Placement> = Vec::new();
    for (t, tile) in edges.iter().enumerate() {
        let first = found.len();
        for rot in 0..4 {
            let e: Vec<&String> = (0..4).map(|side| &tile[(side + 4 - rot) % 4]).collect();
            let code = [edge_code(e[0]), edge_code(e[1]), edge_code(e[2]), edge_code(e[3])];
            if found[first..].iter().any(|p| p.code == code) {
                continue;
            }
            let line = [
                format!("|{}  {}   ", t + 1, e[0]),
                format!("|{}    {}", e[3], e[1]),
                format!("|   {}   ", e[2]),
            ];
            found.push(Placement { tile: t + 1, code, line });
        }
    }
    found
}
// TILES END

struct Search<'a> {
    pl: &'a [Placement],
    fit: Vec<Vec<Vec<usize>>>,
    board: [usize; NTILES],
    solutions: Vec<[usize; NTILES]>,
}

impl<'a> Search<'a> {
    fn new(pl: &'a [Placement]) -> Self {
        let mut fit = vec![vec![Vec::new(); NSLOTS]; NSLOTS];
        for (id, p) in pl.iter().enumerate() {
            let (l, u) = (p.code[LEFT], p.code[TOP]);
            fit[l][u].push(id);
            fit[l][ANY].push(id);
            fit[ANY][u].push(id);
            fit[ANY][ANY].push(id);
        }
        Search { pl, fit, board: [0; NTILES], solutions: Vec::new() }
    }

    fn search(&mut self, pos: usize, used: u32) {
        if pos == NTILES {
            self.solutions.push(self.board);
            return;
        }
        // matching edges: same letter, opposite digit: codes differ in bit 0
        let need_left = if pos % 3 > 0 { self.pl[self.board[pos - 1]].code[RIGHT] ^ 1 } else { ANY };
        let need_top = if pos >= 3 { self.pl[self.board[pos - 3]].code[BOTTOM] ^ 1 } else { ANY };
        let first_tile = if pos > 0 { self.pl[self.board[0]].tile } else { 0 };
        let candidates = self.fit[need_left][need_top].clone();
        for id in candidates {
            let tile = self.pl[id].tile;
            if used & (1 << tile) != 0 {
                continue;
            }
            // the canonical rotation: the top-left tile is the smallest corner
            if pos == 0 && tile > NTILES - 3 {
                continue;
            }
            if (pos == 2 || pos == 6 || pos == 8) && tile < first_tile {
                continue;
            }
            self.board[pos] = id;
            self.search(pos + 1, used | (1 << tile));
        }
    }
}

const SEP: &str = "+--------+--------+--------+\n";

fn draw(out: &mut Vec<u8>, pl: &[Placement], cells: &[usize; NTILES]) {
    out.extend_from_slice(SEP.as_bytes());
    for row in 0..3 {
        for line in 0..3 {
            for col in 0..3 {
                out.extend_from_slice(pl[cells[row * 3 + col]].line[line].as_bytes());
            }
            out.extend_from_slice(b"|\n");
        }
        out.extend_from_slice(SEP.as_bytes());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 {
        die("usage: puzzlesolver INPUT");
    }
    let edges = read_tiles(&args[1]);
    let pl = placements(&edges);
    let mut search = Search::new(&pl);
    search.search(0, 0);
    let mut solutions = search.solutions;
    // tile numbers left to right, top to bottom; ties by the drawn text
    solutions.sort_by(|a, b| {
        let tiles = |s: &[usize; NTILES]| s.iter().map(|&id| pl[id].tile).collect::<Vec<_>>();
        let text = |s: &[usize; NTILES]| {
            let mut all = Vec::new();
            for row in 0..3 {
                for line in 0..3 {
                    for col in 0..3 {
                        all.push(pl[s[row * 3 + col]].line[line].clone());
                    }
                }
            }
            all
        };
        tiles(a).cmp(&tiles(b)).then_with(|| text(a).cmp(&text(b)))
    });
    let mut out: Vec<u8> = Vec::new();
    out.extend_from_slice(b"Input tiles:\n");
    for (t, e) in edges.iter().enumerate() {
        out.extend_from_slice(format!("{}. <{}, {}, {}, {}>\n", t + 1, e[0], e[1], e[2], e[3]).as_bytes());
    }
    out.push(b'\n');
    match solutions.len() {
        0 => out.extend_from_slice(b"No solution found.\n"),
        1 => out.extend_from_slice(b"1 unique solution found:\n"),
        n => out.extend_from_slice(format!("{} unique solutions found:\n", n).as_bytes()),
    }
    for (i, cells) in solutions.iter().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        draw(&mut out, &pl, cells);
    }
    let stdout = std::io::stdout();
    let mut handle = stdout.lock();
    if handle.write_all(&out).and_then(|_| handle.flush()).is_err() {
        std::process::exit(1);
    }
}
