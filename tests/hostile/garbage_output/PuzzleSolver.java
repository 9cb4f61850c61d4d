// Prints terminal-hostile bytes (Java) on stdout and stderr and exits 0.
public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        byte[] garbage = new byte[] {
            (byte) 0xff, (byte) 0xfe, (byte) 0xc3, 0x28, '\n',
            'n', 'u', 'l', '>', 0, '<', '\n',
            0x1b, '[', '2', 'J', 0x1b, '[', '1', ';', '3', '1', 'm', 'r', 'e', 'd',
            0x1b, ']', '0', ';', 'p', 'w', 'n', 'e', 'd', 0x07, ' ',
            (byte) 0xc2, (byte) 0x9b, '6', 'n', ' ', (byte) 0x9b, '\n',
            'o', 'k', '\r', 'F', 'A', 'K', 'E', 8, 8, '\n',
            (byte) 0xe2, (byte) 0x80, (byte) 0xae, 'd', 'e', 's', 'r', 'e', 'v', 'e', 'r', '\n',
        };
        System.out.write(garbage);
        System.out.flush();
        System.err.write(garbage);
        System.err.flush();
    }
}
