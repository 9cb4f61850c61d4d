// Writes a huge file (Java): tries to create files outside its sandbox first, then
// writes 64 MiB into its working folder or, when that is read-only, into /tmp.
import java.io.FileOutputStream;
import java.io.IOException;

public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        for (String path : "@OUTSIDE@".split("\\|")) {
            if (path.isEmpty()) continue;
            try (FileOutputStream out = new FileOutputStream(path, true)) {
                out.write("escaped\n".getBytes());
                System.err.println("outside " + path + ": WROTE");
            } catch (IOException e) {
                System.err.println("outside " + path + ": " + e.getMessage());
            }
        }
        byte[] chunk = new byte[1 << 16];
        for (String name : new String[] {"big-@MARKER@.out", "/tmp/big-@MARKER@.out"}) {
            FileOutputStream out;
            try {
                out = new FileOutputStream(name);
            } catch (IOException e) {
                System.err.println(name + ": " + e.getMessage());
                continue;
            }
            System.err.println("writing " + name);
            for (int i = 0; i < 1024; i++) out.write(chunk);
            out.close();
            System.out.println("wrote 64 MiB");
            return;
        }
        System.exit(2);
    }
}
