#!/usr/bin/env python3
"""Writes the binary seeds of the fuzz corpus (tests/fuzz/corpus/): images, Galbraith connection files, binary traces
and spike files. The text seeds are written by hand or copied from experiments/ and tests/data. Run from anywhere;
the files it writes are committed, so this only needs running to change them."""
import os
import struct
import zlib

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    os.makedirs(os.path.join(here, target), exist_ok=True)
    with open(os.path.join(here, target, name), "wb") as f:
        f.write(data)


def png(width, height, colour_type, bit_depth, rows):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def bmp24(width, height):
    row = bytes((x * 40) % 256 for x in range(width * 3))
    pad = (4 - len(row) % 4) % 4
    pixels = b"".join(row + b"\x00" * pad for _ in range(height))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(pixels), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    return header + info + pixels


put("image", "rgb_3x2.png", png(3, 2, 2, 8, [bytes(range(9)), bytes(range(9, 18))]))
put("image", "grey_4x1.png", png(4, 1, 0, 8, [b"\x00\x40\x80\xff"]))
put("image", "rgba_2x2.png", png(2, 2, 6, 8, [bytes(range(8)), bytes(range(8, 16))]))
put("image", "rgb_5x3.bmp", bmp24(5, 3))
put("image", "rgb_2x2.ppm", b"P6\n2 2\n255\n" + bytes(range(12)))
put("image", "grey_3x1.pgm", b"P5\n3 1\n255\n\x00\x80\xff")
put("image", "huge_header.ppm", b"P6\n100000 100000\n255\n\x00")  # refused from the header: too many pixels
put("image", "truncated.png", png(3, 2, 2, 8, [bytes(range(9)), bytes(range(9, 18))])[:40])


def record(src, dst, w, delay=0.0):
    return struct.pack("<IIff", src, dst, w, delay)


put("galbraith_connections", "ring_16.bin", b"".join(record(i, (i + 1) % 16, 0.25) for i in range(16)))
put("galbraith_connections", "mixed.bin", record(0, 1, 1.0) + record(3, 1, -2.0, 0.5) + record(15, 15, 0.0))
put("galbraith_connections", "out_of_range.bin", record(0, 16, 1.0))
put("galbraith_connections", "nan_weight.bin", record(0, 1, float("nan")))
put("galbraith_connections", "cut.bin", record(0, 1, 1.0)[:13])
put("galbraith_connections", "empty.bin", b"")


def trace(precision, names, cells, samples, declared=None, every=1, dt=0.05):
    head = b"KBTRACE1" + struct.pack("<IIIQqdq", 1, precision, len(names), len(cells), every, dt,
                                     len(samples) if declared is None else declared)
    head += b"".join(struct.pack("<I", len(n)) + n for n in names)
    head += b"".join(struct.pack("<q", c) for c in cells)
    fmt = "<f" if precision == 4 else "<d"
    body = b"".join(struct.pack("<q", step) + b"".join(struct.pack(fmt, v) for v in values) for step, values in samples)
    return head + body


two = [(0, [-60.0, -59.5, 1.0, 2.0]), (10, [-58.0, -57.0, 1.5, 2.5])]
put("trace_file", "double_2x2.kbt", trace(8, [b"v_axon", b"v_soma"], [0, 7], two))
put("trace_file", "float_open.kbt", trace(4, [b"v"], [3], [(0, [1.0]), (1, [2.0])], declared=-1))
put("trace_file", "cut_sample.kbt", trace(8, [b"v_axon", b"v_soma"], [0, 7], two)[:-5])
put("trace_file", "no_cells.kbt", trace(8, [b"v"], [], [(0, []), (5, [])]))
put("trace_file", "bad_version.kbt", b"KBTRACE1" + struct.pack("<I", 2) + b"\x00" * 40)


def spikes(events, declared=None):
    n = len(events) if declared is None else declared
    return b"KBSPIKE1" + struct.pack("<Q", n) + b"".join(struct.pack("<ii", s, c) for s, c in events)


put("spike_file", "three.kbs", spikes([(412, 3), (412, 8), (1240, 3)]))
put("spike_file", "open.kbs", spikes([(1, 2)], declared=0))
put("spike_file", "short.kbs", spikes([(1, 2)], declared=5))
put("spike_file", "bad_magic.kbs", b"KBSPIKE0" + b"\x00" * 8)
