// Endless busy loop (Java), on two threads: the JVM's CPU time is spread over threads.
public class PuzzleSolver {
    static volatile long spins = 0;

    public static void main(String[] args) throws Exception {
        Thread other = new Thread(() -> { while (true) spins++; });
        other.start();
        while (true) spins--;
    }
}
