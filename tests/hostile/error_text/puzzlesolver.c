/* The compiler made to print the machine's failures: the grader must not take the
   student's own words for a full disk or a machine out of memory (once an IE, retried
   for ever, never graded). A CE, the words shown in the log. @MARKER@ */
#error No space left on device
#error Cannot allocate memory
#error virtual memory exhausted
int main(void) { return 0; }
