/* edge.c -- edges as numbers: two edges match when their codes differ in bit 0. */
#include "edge.h"

int edge_code(const char *e)
{
    return (e[0] - 'A') * 2 + (e[1] - '0');
}
