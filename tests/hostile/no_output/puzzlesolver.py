# Prints nothing at all and exits 0.
