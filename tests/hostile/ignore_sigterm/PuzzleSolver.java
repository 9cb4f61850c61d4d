// Ignores SIGTERM the Java way: a shutdown hook that never returns keeps the JVM alive
// after a SIGTERM; SIGHUP and SIGINT are caught and dropped.
import sun.misc.Signal;

public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            while (true) {
                try { Thread.sleep(1000); } catch (InterruptedException e) { }
            }
        }));
        Signal.handle(new Signal("HUP"), s -> { });
        Signal.handle(new Signal("INT"), s -> { });
        while (true) Thread.sleep(1000);
    }
}
