# Tries the network (Python): TCP to 127.0.0.1:@PORT@ (the test listens there), TCP and
# UDP to 192.0.2.1 (TEST-NET-1: never routed), the abstract unix socket "@ABSTRACT@"
# and a DNS lookup. One line per attempt on stderr; CONNECTED on stdout for any that
# worked; exit 4 when none did.
import socket
import sys

worked = False


def attempt(what, action):
    global worked
    try:
        action()
    except OSError as error:
        print(f"{what}: {error}", file=sys.stderr)
    else:
        print(f"{what}: CONNECTED", file=sys.stderr)
        print(f"CONNECTED {what}")
        worked = True


def connect(family, address):
    def go():
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect(address)
    return go


def udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"x", ("192.0.2.1", 53))


attempt("tcp 127.0.0.1", connect(socket.AF_INET, ("127.0.0.1", @PORT@)))
attempt("tcp 192.0.2.1", connect(socket.AF_INET, ("192.0.2.1", 80)))
attempt("udp 192.0.2.1", udp)
attempt("abstract unix socket", connect(socket.AF_UNIX, "\0@ABSTRACT@"))
attempt("dns example.com", lambda: socket.getaddrinfo("example.com", 80))
sys.exit(0 if worked else 4)
