/*-------------------------------------------------------------------------
 *
 * fuzz_common.h
 *	  Helpers shared by the libFuzzer harnesses: input reading, failing,
 *	  and a bitwise CRC32C that checks the pager's own CRC32C
 *	  independently.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_FUZZ_COMMON_H
#define ARTRIE_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) \
	do { \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		abort(); \
	} while (0)

/* The unread part of the fuzzer's input; reads past its end give zeros. */
typedef struct Input
{
	const uint8_t *p;
	size_t		n;
} Input;

static inline uint8_t
next_byte(Input *in)
{
	uint8_t		b;

	if (in->n == 0)
		return 0;
	b = *in->p++;
	in->n--;
	return b;
}

static inline uint16_t
next_u16(Input *in)
{
	uint16_t	lo = next_byte(in);

	return (uint16_t) (lo | (next_byte(in) << 8));
}

/* CRC32C a bit at a time, straight from the definition. */
static inline uint32_t
ref_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len-- > 0)
	{
		int			k;

		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return crc;
}

#endif							/* ARTRIE_FUZZ_COMMON_H */
