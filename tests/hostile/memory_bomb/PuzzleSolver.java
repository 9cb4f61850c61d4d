// Memory bomb (Java): fills the heap until OutOfMemoryError (uncaught).
import java.util.ArrayList;
import java.util.List;

public class PuzzleSolver {
    public static void main(String[] args) {
        List<long[]> hoard = new ArrayList<>();
        while (true) hoard.add(new long[1 << 17]);
    }
}
