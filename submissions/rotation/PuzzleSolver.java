import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Scramble Squares puzzle solver.
 * Usage: java PuzzleSolver INPUT
 *
 * Finds every arrangement of the nine tiles with backtracking, then throws away
 * the arrangements that are just rotations of another one: of the four
 * rotations of a board only the one with the "best" tile string is kept.
 */
public class PuzzleSolver {

    static String[][] tiles = new String[9][];
    static List<String[]>[] turns;
    static int[] tileAt = new int[9];
    static String[][] edgesAt = new String[9][];
    static boolean[] used = new boolean[9];
    static List<String[]> solutions = new ArrayList<>(); // {digits, drawing}

    // board positions after a quarter turn clockwise of the whole board
    static final int[] QUARTER_TURN = {6, 3, 0, 7, 4, 1, 8, 5, 2};

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java PuzzleSolver INPUT");
            System.exit(1);
        }
        readInput(args[0]);
        makeTurns();
        place(0);
        Collections.sort(solutions, (a, b) -> {
            int c = a[0].compareTo(b[0]);
            return c != 0 ? c : a[1].compareTo(b[1]);
        });
        printResult();
    }

    static void readInput(String file) throws IOException {
        try (BufferedReader in = new BufferedReader(new FileReader(file))) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null && n < 9) {
                line = line.trim();
                if (line.isEmpty()) continue;
                tiles[n++] = line.split("\\s*,\\s*");
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static void makeTurns() {
        turns = new List[9];
        for (int t = 0; t < 9; t++) {
            turns[t] = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                String[] e = new String[4];
                for (int s = 0; s < 4; s++) e[s] = tiles[t][(s + 4 - k) % 4];
                boolean seen = false;
                for (String[] other : turns[t]) seen |= String.join("", other).equals(String.join("", e));
                if (!seen) turns[t].add(e);
            }
        }
    }

    static boolean fit(String a, String b) {
        return a.charAt(0) == b.charAt(0) && a.charAt(1) != b.charAt(1);
    }

    static void place(int pos) {
        if (pos == 9) {
            keepIfCanonical();
            return;
        }
        for (int t = 0; t < 9; t++) {
            if (used[t]) continue;
            used[t] = true;
            for (String[] e : turns[t]) {
                if (pos % 3 != 0 && !fit(edgesAt[pos - 1][1], e[3])) continue;
                if (pos >= 3 && !fit(edgesAt[pos - 3][2], e[0])) continue;
                tileAt[pos] = t;
                edgesAt[pos] = e;
                place(pos + 1);
            }
            used[t] = false;
        }
    }

    static String digits(int[] board) {
        StringBuilder sb = new StringBuilder();
        for (int t : board) sb.append(t + 1);
        return sb.toString();
    }

    /** The same board is found four times, once per rotation: keep one of them. */
    static void keepIfCanonical() {
        String mine = digits(tileAt);
        int[] turned = tileAt.clone();
        for (int k = 1; k < 4; k++) {
            int[] next = new int[9];
            for (int i = 0; i < 9; i++) next[i] = turned[QUARTER_TURN[i]];
            turned = next;
            if (digits(turned).compareTo(mine) > 0) return; // another rotation wins
        }
        solutions.add(new String[] {mine, drawBoard()});
    }

    static String drawBoard() {
        String bar = "+--------+--------+--------+\n";
        StringBuilder sb = new StringBuilder(bar);
        for (int r = 0; r < 9; r += 3) {
            for (int c = r; c < r + 3; c++) sb.append("|").append(tileAt[c] + 1).append("  ").append(edgesAt[c][0]).append("   ");
            sb.append("|\n");
            for (int c = r; c < r + 3; c++) sb.append("|").append(edgesAt[c][3]).append("    ").append(edgesAt[c][1]);
            sb.append("|\n");
            for (int c = r; c < r + 3; c++) sb.append("|   ").append(edgesAt[c][2]).append("   ");
            sb.append("|\n").append(bar);
        }
        return sb.toString();
    }

    static void printResult() {
        StringBuilder out = new StringBuilder("Input tiles:\n");
        for (int t = 0; t < 9; t++) out.append(t + 1).append(". <").append(String.join(", ", tiles[t])).append(">\n");
        out.append("\n");
        if (solutions.isEmpty()) {
            out.append("No solution found.\n");
        } else {
            out.append(solutions.size() == 1 ? "1 unique solution found:" : solutions.size() + " unique solutions found:").append("\n");
            for (int i = 0; i < solutions.size(); i++) {
                if (i > 0) out.append("\n");
                out.append(solutions.get(i)[1]);
            }
        }
        System.out.print(out);
        System.out.flush();
    }
}
