// A compile error whose message is terminal-hostile: the build log must show it safely.
#error "[2J[1;31mred]0;pwned-title 6n done"
int main() { return 0; }
