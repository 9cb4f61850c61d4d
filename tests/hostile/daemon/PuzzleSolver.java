// Leaves processes behind (Java): a setsid'ed shell loop and a nohup'ed one, both
// with the marker in their argv; then exits at once.
import java.io.File;

public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        String loop = "while :; do sleep 1; done";
        for (String[] command : new String[][] {
                {"setsid", "sh", "-c", loop, "@MARKER@"},
                {"nohup", "sh", "-c", loop, "@MARKER@"}}) {
            new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        }
        System.out.println("started");
    }
}
