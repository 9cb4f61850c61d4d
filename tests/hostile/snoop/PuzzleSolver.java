// Snoops (Java): tries to list or read every path in @PATHS@ and prints what it gets;
// on stderr one line per path: read, listed, missing or denied; then its environment.
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

public class PuzzleSolver {
    public static void main(String[] args) {
        for (Map.Entry<String, String> e : System.getenv().entrySet())
            System.err.println("env\t" + e.getKey() + "=" + e.getValue());
        for (String name : "@PATHS@".split("\\|")) {
            Path path = Paths.get(name);
            try {
                if (Files.isDirectory(path)) {
                    int n = 0;
                    try (DirectoryStream<Path> dir = Files.newDirectoryStream(path)) {
                        for (Path entry : dir) {
                            System.out.println(entry);
                            n++;
                        }
                    }
                    System.err.println("listed\t" + name + "\t" + n);
                } else {
                    byte[] buf = new byte[4096];
                    int n;
                    try (InputStream in = Files.newInputStream(path)) {
                        n = Math.max(0, in.read(buf));
                    }
                    System.out.write(buf, 0, n);
                    System.err.println("read\t" + name + "\t" + n);
                }
            } catch (NoSuchFileException | NotDirectoryException e) {
                System.err.println("missing\t" + name);
            } catch (AccessDeniedException e) {
                System.err.println("denied\t" + name);
            } catch (Exception e) {
                System.err.println(e + "\t" + name);
            }
        }
        System.out.flush();
        System.exit(3);
    }
}
