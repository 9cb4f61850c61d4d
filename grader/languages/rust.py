"""Rust: rustc builds the crate whose root is puzzlesolver.rs (its `mod` files found by
rustc itself, so nothing is added to the command)."""

import re

from grader.languages import Language

LANGUAGE = Language(
    name="rust",
    display="Rust",
    source="puzzlesolver.rs",
    build=("rustc", "-O", "--edition=2021", "-o", "puzzlesolver", "puzzlesolver.rs"),
    run=("./puzzlesolver", "{input}"),
    suffixes=(".rs",),
    companions=(".rs",),
    compiled=(),
    main=re.compile(r"\bfn\s+main\s*\("),
    entry_words="holds fn main()",
    first_argument="std::env::args().nth(1)",
    success="Let main return (or call std::process::exit(0)).",
    canary=r"""use std::io::Read;

fn main() {
    let path = match std::env::args().nth(1) {
        Some(path) => path,
        None => std::process::exit(2),
    };
    let mut data = Vec::new();
    if let Err(error) = std::fs::File::open(&path).and_then(|mut f| f.read_to_end(&mut data)) {
        eprintln!("{}: {}", path, error);
        std::process::exit(3);
    }
    let lines = data.iter().filter(|&&b| b == b'\n').count();
    println!("canary {} {}", data.len(), lines);
}
""",
    startup="fn main() {}\n",
    tools=("rustc", "cargo"),
    install={
        "Windows": "install Rust from https://rustup.rs (rustup-init.exe), then open a new terminal",
        "Darwin": "install Rust from https://rustup.rs (or `brew install rust`)",
        "Linux": "`sudo apt install rustc` (Debian, Ubuntu) or `sudo dnf install rust` (Fedora)",
    },
    packages=("rustc",),
    allocation_failed=("memory allocation of",),  # "... of N bytes failed", then abort
)
