/* morton.h — Morton (z-order) keys and the sort of cells by key that the z-curve orders use. */
#ifndef PILLAR_MORTON_H
#define PILLAR_MORTON_H

#include <stddef.h>
#include <stdint.h>

/* Bits of x and y interleaved, x in the lowest bit (32 bits each). */
uint64_t morton2(uint32_t x, uint32_t y);
/* Bits of x, y and z interleaved, x in the lowest bit (the low 21 bits of each). */
uint64_t morton3(uint32_t x, uint32_t y, uint32_t z);

typedef struct {
    uint64_t key;
    int cell;
} cell_key;

/* Sorts by key, equal keys by cell: the same input always gives the same order. */
void cell_key_sort(cell_key *k, size_t n);

#endif
