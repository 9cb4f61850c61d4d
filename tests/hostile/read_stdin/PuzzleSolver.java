// Reads standard input to its end (Java), then says how much it got.
public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        byte[] all = System.in.readAllBytes();
        System.out.println("stdin: " + all.length + " bytes");
    }
}
