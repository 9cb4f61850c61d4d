"""Java: javac, then the JVM with its heap capped (-Xmx) instead of an address-space limit."""

import re

from grader.languages import Language

LANGUAGE = Language(
    name="java",
    display="Java",
    source="PuzzleSolver.java",
    # javac's own JVM stops at the quick compiler: a compile lasts under a second, so
    # optimising javac itself costs more than it saves (0.64 s of CPU instead of 1.07 s
    # for the example class's program, the same class files).
    build=("javac", "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8", "PuzzleSolver.java"),
    run=("java", "-Xmx{heap_mb}m", "-XX:+UseSerialGC", "PuzzleSolver", "{input}"),
    suffixes=(".java",),
    companions=(".java",),
    compiled=(".java",),
    main=re.compile(r"\bstatic\s+(?:final\s+)?void\s+main\s*\(|\bvoid\s+main\s*\(\s*\)"),
    entry_words="holds public static void main",
    rename="name it {source} and its class {stem}",
    first_argument="args[0]",
    success="Let main return, or call System.exit(0).",
    canary=r"""import java.nio.file.Files;
import java.nio.file.Paths;

public class PuzzleSolver {
    public static void main(String[] args) throws Exception {
        byte[] data = Files.readAllBytes(Paths.get(args[0]));
        long lines = 0;
        for (byte b : data) if (b == '\n') lines++;
        System.out.println("canary " + data.length + " " + lines);
    }
}
""",
    startup="public class {name} { public static void main(String[] args) { } }\n",
    tools=("javac", "java"),
    install={
        "Windows": (
            "install a JDK 17 or newer: `winget install Microsoft.OpenJDK.21` (or "
            "https://adoptium.net), then open a new terminal"
        ),
        "Darwin": "`brew install openjdk` (or a JDK from https://adoptium.net)",
        "Linux": (
            "`sudo apt install default-jdk` (Debian, Ubuntu) or `sudo dnf install "
            "java-21-openjdk-devel` (Fedora)"
        ),
    },
    packages=("default-jdk-headless",),
    memory_rlimit=False,
    allocation_failed=("OutOfMemoryError",),
)
