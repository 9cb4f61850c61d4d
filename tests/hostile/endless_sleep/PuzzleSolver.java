// Endless sleeping loop (Java): blocks forever without using CPU.
public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        Object lock = new Object();
        synchronized (lock) {
            while (true) lock.wait();
        }
    }
}
