#!/usr/bin/env python3
"""Write the seed inputs of the fuzzers.

The seeds are committed under test/fuzz/corpus/<harness>/; run this again
(from the repository root) only if their formats change.  The input formats
are described at the top of fuzz_trie.c, fuzz_page.c and fuzz_journal.c.
"""
import os
import struct

PAGE = 8192
FILE_ID = (5, 16384, 3)         # fuzz_page.c's file_id


def crc32c(data, crc=0xFFFFFFFF):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def sealed(pageno, kind, ckpt_no, body):
    """A page with a valid header and checksum."""
    hdr = struct.pack('<IIIIIHHQ', 0, pageno, *FILE_ID, kind, 2, ckpt_no)
    page = bytearray((hdr + body).ljust(PAGE, b'\0'))
    struct.pack_into('<I', page, 0, crc32c(page[4:]))
    return bytes(page)


def meta_body(ckpt_no, nmap):
    body = struct.pack('<QIIQQIIII4I', 0x41525452494D4554, 2, PAGE, ckpt_no,
                       4096, 10, 12, 9, nmap, 1, 0, 0, 0)
    return body + b''.join(struct.pack('<I', 5 + i) for i in range(nmap))


def record(pos, epoch, op, entry, file_id=FILE_ID, root=1, lsn=0x1000):
    length = 48 + len(entry)
    rest = struct.pack('<IQIII3IQ', length, pos, epoch, op, root, *file_id, lsn)
    return struct.pack('<I', crc32c(rest + entry)) + rest + entry


def write(harness, name, data):
    d = os.path.join('test', 'fuzz', 'corpus', harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# fuzz_page, even modes: pages for the pager's checks (mode 0: as they are,
# mode 2: the harness stores the checksum).
write('page', 'meta-slot0', b'\x00' + sealed(0, 3, 7, meta_body(7, 1)))
write('page', 'meta-slot1', b'\x00' + sealed(1, 3, 8, meta_body(8, 3)))
write('page', 'map-page', b'\x00' + sealed(0, 2, 7, struct.pack('<4I', 2, 3, 0, 0xFFFFFFFF)))
write('page', 'data-page-reseal', b'\x02' + sealed(42, 1, 0, b'\x7e\xa2\x01\x00')[:64])
# fuzz_page, odd modes: the five tries, no patch, then a few changes.
for shape in range(5):
    write('page', 'trie-shape%d' % shape,
          bytes([1 + 2 * shape, 0]) + b'\x01\x02xy\x00\x00\x03\x03abc\x06\x01z')
# ...and with one patch into the record of slot 1 of page 0.
write('page', 'trie-shape0-patch', bytes([1, 1, 2, 0, 0, 1, 0x11]))

# fuzz_journal, raw mode: three records of epoch 3 from position 4096.
pos = 4096
raw = b''
for i, entry in enumerate([b'hello\x00' + bytes(6), b'', b'x' * 300]):
    r = record(pos, 3, 1 + i % 2, entry)
    raw += r
    pos += len(r)
write('journal', 'raw-three', b'\x00\x00\x00\x03' + raw)
# ...then a record of an earlier epoch, and zeros (a fresh segment).
write('journal', 'raw-stale', b'\x00\x00\x00\x03' + raw + record(pos, 2, 1, b'old') + bytes(64))
# fuzz_journal, generated mode: 5 records, no damage; a bit flipped in
# record 2; record 3 cut.
gen = b''.join(bytes([op, n, 0, op * 7]) for op, n in [(1, 10), (2, 0), (3, 200), (4, 1), (5, 33)])
write('journal', 'gen-clean', b'\x01\x10\x00\x05\x04\x00\x00\x00\x00' + gen)
write('journal', 'gen-flip', b'\x01\x10\x00\x05\x04\x01\x02\x21\x03' + gen)
write('journal', 'gen-cut', b'\x01\x10\x00\x05\x04\x02\x03\x50\x00' + gen)

# fuzz_trie: inserts (opcode 0) of a few keys, a long one (0xFF), a delete
# (4), a scan (9), verify (12), bulk rebuild (13).
write('trie', 'ops', b'\x00\x03abc\x00\x02ab\x01\x01b\x00\xff\x41\x02wxyz'
      b'\x04\x02ab\x09\x01a\x00\x2b\x0c\x00\x0d\x00\x06\x03abc')
