#!/usr/bin/env python3
"""Degrades a real 1 Hz NMEA track as a runner's receiver would deliver it.

Used by scripts/odometer-figures.sh and scripts/pace-figures.sh (docs/figures.md), so that
both measure on the same recordings. Writes these recordings into OUTDIR:

  as-is.nmea    the positions as the watch wrote them (0.0001' in the NMEA)
  rounded.nmea  positions rounded to 0.001' (about 1.9 m in latitude; as gpsbabel writes NMEA)
  jitter.nmea   Gaussian noise, 3 m per axis (north, east), first-order Gauss-Markov in time
                (correlation time 10 s: x[k] = a x[k-1] + sqrt(1-a^2) 3 m n[k], a = exp(-1/10)),
                seeded (Python random.Random(2024)), same noise for an epoch's RMC and GGA

Speeds and times are untouched in those three, so only the positions' noise differs. One
more, for the pace cues (scripts/pace-figures.sh), leaves the positions and spoils speeds:

  spikes.nmea   the positions as-is; one epoch in 65 (seeded, Python random.Random(65))
                with its speed 1.7 times the watch's (a spike: the issue's 18.7 km/h for 11)
                and one in 100 with a fifth of it (a dropout)

Usage: python3 scripts/lib/degrade-track.py TRACK OUTDIR
"""
import math, random, sys

KINDS = ("as-is", "rounded", "jitter", "spikes")


def checksum(body):
    c = 0
    for ch in body: c ^= ord(ch)
    return "%02X" % c


def to_deg(v, h):
    d = 2 if h in "NS" else 3
    x = int(v[:d]) + float(v[d:]) / 60
    return -x if h in "SW" else x


def fmt(x, lat, decimals):
    h = ("N" if x >= 0 else "S") if lat else ("E" if x >= 0 else "W")
    x = abs(x)
    d = int(x)
    m = round((x - d) * 60, decimals)
    if m >= 60: d, m = d + 1, m - 60
    return ("%02d" if lat else "%03d") % d + ("%0" + str(3 + decimals) + "." + str(decimals) + "f") % m, h


def degrade(src, kind):
    rng = random.Random(2024)
    a = math.exp(-1 / 10.0)
    q = math.sqrt(1 - a * a)
    nx = rng.gauss(0, 3.0); ny = rng.gauss(0, 3.0)
    noise = {}
    spoil = random.Random(65)
    lines = []
    for line in open(src):
        line = line.rstrip("\n")
        if not line.startswith("$") or "*" not in line:
            lines.append(line); continue
        body = line[1:line.index("*")]
        f = body.split(",")
        if f[0].endswith("RMC"): i = 3
        elif f[0].endswith("GGA"): i = 2
        else:
            lines.append(line); continue
        if not f[i] or not f[i + 2]:
            lines.append(line); continue
        lat, lon = to_deg(f[i], f[i + 1]), to_deg(f[i + 2], f[i + 3])
        decimals = 4
        if kind == "rounded":
            decimals = 3
        elif kind == "jitter":
            t = f[1]
            if t not in noise:
                noise[t] = (nx, ny)
                nx = a * nx + q * rng.gauss(0, 3.0); ny = a * ny + q * rng.gauss(0, 3.0)
            dn, de = noise[t]
            lat += dn / 111195.0
            lon += de / (111195.0 * math.cos(math.radians(lat)))
        if kind == "spikes" and i == 3 and f[7]:
            u = spoil.random()
            if u < 1 / 65: f[7] = "%.2f" % (float(f[7]) * 1.7)
            elif u < 1 / 65 + 1 / 100: f[7] = "%.2f" % (float(f[7]) / 5)
        f[i], f[i + 1] = fmt(lat, True, decimals)
        f[i + 2], f[i + 3] = fmt(lon, False, decimals)
        body = ",".join(f)
        lines.append("$" + body + "*" + checksum(body))
    return lines


if __name__ == "__main__":
    src, out = sys.argv[1], sys.argv[2]
    for kind in KINDS:
        with open(f"{out}/{kind}.nmea", "w") as w:
            w.write("\n".join(degrade(src, kind)) + "\n")
