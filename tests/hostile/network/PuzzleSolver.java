// Tries the network (Java): TCP to 127.0.0.1:@PORT@ (the test listens there), TCP and
// UDP to 192.0.2.1 (TEST-NET-1: never routed), a DNS lookup. One line per attempt on
// stderr; CONNECTED on stdout for any that worked; exit 4 when none did.
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

public class PuzzleSolver {
    static boolean worked = false;

    static void tcp(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2000);
            System.out.println("CONNECTED tcp " + host);
            System.err.println("tcp " + host + ": CONNECTED");
            worked = true;
        } catch (Exception e) {
            System.err.println("tcp " + host + ": " + e.getMessage());
        }
    }

    public static void main(String[] args) {
        tcp("127.0.0.1", @PORT@);
        tcp("192.0.2.1", 80);
        try (DatagramSocket s = new DatagramSocket()) {
            s.send(new DatagramPacket(new byte[] {1}, 1, InetAddress.getByName("192.0.2.1"), 53));
            System.out.println("CONNECTED udp");
            System.err.println("udp 192.0.2.1: CONNECTED");
            worked = true;
        } catch (Exception e) {
            System.err.println("udp 192.0.2.1: " + e.getMessage());
        }
        try {
            InetAddress a = InetAddress.getByName("example.com");
            System.out.println("CONNECTED dns " + a);
            System.err.println("dns example.com: CONNECTED");
            worked = true;
        } catch (Exception e) {
            System.err.println("dns example.com: " + e);
        }
        System.exit(worked ? 0 : 4);
    }
}
