#ifndef EDGE_H
#define EDGE_H
/* An edge as a number: (letter - 'A') * 2 + digit. */
int edge_code(const char *e);
#endif
