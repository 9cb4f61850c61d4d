"""One build per content hash, shared between results folders; whether a toolchain is installed."""
