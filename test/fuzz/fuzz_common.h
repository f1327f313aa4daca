/*-------------------------------------------------------------------------
 *
 * fuzz_common.h
 *	  Helpers shared by the libFuzzer harnesses: input reading, failing,
 *	  and a reference CRC32C that checks the pager's own independently.
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

/*
 * CRC32C through a table built a bit at a time from the definition (the
 * polynomial), not from the pager's code.
 */
static inline uint32_t
ref_crc32c(uint32_t crc, const void *data, size_t len)
{
	static uint32_t table[256];
	static int	ready = 0;
	const uint8_t *p = data;

	if (!ready)
	{
		uint32_t	i;

		for (i = 0; i < 256; i++)
		{
			uint32_t	c = i;
			int			k;

			for (k = 0; k < 8; k++)
				c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
			table[i] = c;
		}
		ready = 1;
	}
	while (len-- > 0)
		crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

#endif							/* ARTRIE_FUZZ_COMMON_H */
