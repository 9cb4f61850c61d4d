// Output flood (Java): 4 GiB through System.out unless stopped.
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.util.Arrays;

public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        byte[] chunk = new byte[1 << 16];
        Arrays.fill(chunk, (byte) 'x');
        OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
        for (int i = 0; i < 65536; i++) out.write(chunk);
        out.flush();
    }
}
