#!/usr/bin/env python3
"""Write the seed inputs of the fuzzers.

The seeds are committed under test/fuzz/corpus/<harness>/; run this again
(from the repository root) only if their formats change.  The input formats
are described at the top of fuzz_trie.c, fuzz_page.c and fuzz_wal.c.
"""
import os
import struct

PAGE = 8192
FILE_ID = (5, 16384, 3)         # fuzz_page.c's file_id
VERSION = 3                     # PAGER_FORMAT_VERSION
BODY = PAGE - 32                # WAL_IMAGE_BODY


def crc32c(data, crc=0xFFFFFFFF):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def sealed(pageno, kind, ckpt_no, body):
    """A page with a valid header and checksum."""
    hdr = struct.pack('<IIIIIHHQ', 0, pageno, *FILE_ID, kind, VERSION, ckpt_no)
    page = bytearray((hdr + body).ljust(PAGE, b'\0'))
    struct.pack_into('<I', page, 0, crc32c(page[4:]))
    return bytes(page)


def meta_body(ckpt_no, fanout, ndir):
    """A meta page's body: 10 logical pages mapped with this fanout."""
    body = struct.pack('<QIIQQQIIIII4II', 0x41525452494D4554, VERSION, PAGE,
                       ckpt_no, 0x3000028, 7301234567890123456, 10, 12, 9,
                       fanout, ndir, 1, 0, 0, 0, 1)
    return body + b''.join(struct.pack('<I', 5 + i) for i in range(ndir))


def entry_record(entry, file_id=FILE_ID, root=1):
    """An entry record's payload."""
    return struct.pack('<3III', *file_id, root, len(entry)) + entry


def image_record(flags, first, npages, used, free=(), user=(0, 0, 0, 0),
                 file_id=FILE_ID):
    """An image record's payload, the pages' bodies filled with their number."""
    hdr = struct.pack('<3IIIIII4I', *file_id, flags, first, npages, used,
                      len(free), *user)
    bodies = b''.join(bytes([first + i & 0xFF]) * BODY
                      for i in range(npages) if used >> i & 1)
    return hdr + bodies + b''.join(struct.pack('<I', p) for p in free)


def write(harness, name, data):
    d = os.path.join('test', 'fuzz', 'corpus', harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# fuzz_page, even modes: pages for the pager's checks (mode 0: as they are,
# mode 2: the harness stores the checksum).
write('page', 'meta-slot0', b'\x00' + sealed(0, 3, 7, meta_body(7, 1020, 1)))
write('page', 'meta-slot1', b'\x00' + sealed(1, 3, 8, meta_body(8, 2, 3)))
write('page', 'map-page', b'\x00' + sealed(0, 2, 7, struct.pack('<4I', 2, 3, 0, 0xFFFFFFFF)))
write('page', 'dir-page', b'\x00' + sealed(1, 4, 8, struct.pack('<2I', 9, 10)))
write('page', 'data-page-reseal', b'\x02' + sealed(42, 1, 0, b'\x7e\xa2\x01\x00')[:64])
# fuzz_page, odd modes: the five tries, no patch, then a few changes.
for shape in range(5):
    write('page', 'trie-shape%d' % shape,
          bytes([1 + 2 * shape, 0]) + b'\x01\x02xy\x00\x00\x03\x03abc\x06\x01z')
# ...and with one patch into the record of slot 1 of page 0.
write('page', 'trie-shape0-patch', bytes([1, 1, 2, 0, 0, 1, 0x11]))

# fuzz_wal, raw mode: entry records (an index entry, one byte, one a byte
# short), image records (no page and a free list; one page; the used
# bitmap with a bit past npages).
write('wal', 'raw-entry', b'\x00' + entry_record(b'hello\x00' + bytes(6), root=7))
write('wal', 'raw-entry-1', b'\x00' + entry_record(b'x'))
write('wal', 'raw-entry-short', b'\x00' + entry_record(b'abcdef')[:-1])
write('wal', 'raw-image-free', b'\x00' + image_record(3, 0, 0, 0, free=(4, 9, 2),
                                                     user=(1, 2, 3, 4)))
write('wal', 'raw-image-page', b'\x00' + image_record(1, 64, 2, 2))
write('wal', 'raw-image-stray', b'\x00' + image_record(0, 64, 2, 4))
# ...and packed (flag 0x10): a page without bytes [60, 8000), a page whole.
write('wal', 'raw-image-packed', b'\x00'
      + struct.pack('<3IIIIII4I', *FILE_ID, 0x11, 5, 2, 3, 0, 0, 0, 0, 0)
      + struct.pack('<HH', 60, 8000) + bytes(range(28)) + bytes(192)
      + struct.pack('<HH', 8192, 8192) + b'\x07' * BODY)
# fuzz_wal, generated mode: an entry (kind 0) and images (kind 1) of a
# few pages, a whole run and the last of a file, broken in different ways
# by their damage byte.
ids = struct.pack('<3I', *FILE_ID)
write('wal', 'gen-entry', b'\x01\x00' + ids + b'\x01\x00\x00\x00\x10\x30\x00\x05\x00' + b'key')
write('wal', 'gen-entry-long', b'\x01\x00' + ids + b'\x01\x00\x00\x00\xf5\x61\x01\x02\x00\x00\x04')
write('wal', 'gen-image-few', b'\x01\x01' + ids + b'\x01\x04\x00\x00\x00\x00\x0b\x00\x00\x00'
      + bytes(16) + b'\x55\x00')
write('wal', 'gen-image-run', b'\x01\x01' + ids + b'\x00\x20\x20\x00\x00\x00\xff\xff\xff\x7f'
      + bytes(16) + b'\x33\x14')
write('wal', 'gen-image-packed', b'\x01\x01' + ids + b'\x10\x04\x00\x00\x00\x00\x05\x00\x00\x00'
      + bytes(16) + b'\x21\x09' + struct.pack('<4H', 100, 300, 8000, 8100))
write('wal', 'gen-image-last', b'\x01\x01' + ids + b'\x02\x05\x40\x00\x00\x00\x15\x00\x00\x00'
      + b'\x09\x00' + b'\x01\x00\x00\x00' * 4 + b'\x77\x06')

# fuzz_trie: inserts (opcode 0) of a few keys, a long one (0xFF), a delete
# (4), a scan (9), verify (12), bulk rebuild (13).
write('trie', 'ops', b'\x00\x03abc\x00\x02ab\x01\x01b\x00\xff\x41\x02wxyz'
      b'\x04\x02ab\x09\x01a\x00\x2b\x0c\x00\x0d\x00\x06\x03abc')
