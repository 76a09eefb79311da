"""A FIT activity file of COUNT records, as a watch writes them (scripts/bench-fit.sh,
scripts/companion-memory.py): a file_id (activity), then records of a time, a position, an
altitude, a speed and a distance (21 bytes each), a runner at 3 m/s round a 2 km circle from
2024-05-01T06:00Z, a record a second.

    python3 scripts/lib/fit_file.py COUNT OUT.fit
"""
import math
import struct
import sys


def crc(data, value=0):
    """FIT's CRC-16 (the protocol's nibble table)."""
    table = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
    for byte in data:
        tmp = table[value & 0xF]
        value = (value >> 4) & 0x0FFF
        value ^= tmp ^ table[byte & 0xF]
        tmp = table[value & 0xF]
        value = (value >> 4) & 0x0FFF
        value ^= tmp ^ table[(byte >> 4) & 0xF]
    return value


def activity(count):
    """The file's bytes."""
    semicircles = lambda degrees: int(round(degrees * 2**31 / 180))
    east = 111195.0 * math.cos(math.radians(45))
    t0 = 1_083_398_400  # 2024-05-01T06:00:00Z in FIT's seconds
    body = bytearray()
    body += bytes([0x40, 0, 0, 0, 0, 1, 0, 1, 0x00]) + bytes([0x00, 4])
    body += bytes([0x41, 0, 0, 20, 0, 6, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 6, 2, 0x84, 5, 4, 0x86])
    pack = struct.Struct("<BIiiHHI").pack
    for i in range(count):
        a = i * 3.0 / 2000
        lat, lon = 45 + 2000 * math.sin(a) / 111195.0, 6 + 2000 * (1 - math.cos(a)) / east
        altitude = int((200 + 20 * math.sin(i / 600) + 500) * 5)
        body += pack(0x01, t0 + i, semicircles(lat), semicircles(lon), altitude, 3000, i * 300)
    header = bytearray([14, 0x20, 0x54, 0x08]) + struct.pack("<I", len(body)) + b".FIT"
    header += struct.pack("<H", crc(header))
    whole = header + body
    return bytes(whole + struct.pack("<H", crc(whole)))


if __name__ == "__main__":
    with open(sys.argv[2], "wb") as f:
        f.write(activity(int(sys.argv[1])))
