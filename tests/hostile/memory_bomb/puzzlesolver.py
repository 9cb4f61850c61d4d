# Memory bomb (Python): 1 MiB bytearrays until MemoryError (uncaught).
hoard = []
while True:
    hoard.append(bytearray(1 << 20))
