/* Compile-time bomb: a few lines of macros that expand to 10^9 array elements. */
#define L0 1,
#define L1 L0 L0 L0 L0 L0 L0 L0 L0 L0 L0
#define L2 L1 L1 L1 L1 L1 L1 L1 L1 L1 L1
#define L3 L2 L2 L2 L2 L2 L2 L2 L2 L2 L2
#define L4 L3 L3 L3 L3 L3 L3 L3 L3 L3 L3
#define L5 L4 L4 L4 L4 L4 L4 L4 L4 L4 L4
#define L6 L5 L5 L5 L5 L5 L5 L5 L5 L5 L5
#define L7 L6 L6 L6 L6 L6 L6 L6 L6 L6 L6
#define L8 L7 L7 L7 L7 L7 L7 L7 L7 L7 L7
#define L9 L8 L8 L8 L8 L8 L8 L8 L8 L8 L8

static const char table[] = {L9};

int main(void) { return table[0] - 1; }
