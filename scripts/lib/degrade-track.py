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

And one as a 5 s export (a phone's or a watch's "smart recording") delivers it:

  5s.nmea       every fifth second's epoch (those whose time's seconds are a multiple of 5),
                positions as-is, each speed derived from the positions: the great-circle
                length from the epoch before over the 5 s (the first epoch's: to the next),
                and the course likewise; no receiver's Doppler speed survives

Usage: python3 scripts/lib/degrade-track.py TRACK OUTDIR
"""
import math, random, sys

KINDS = ("as-is", "rounded", "jitter", "spikes", "5s")


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


def metres(a, b):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(min(1.0, h)))


def bearing(a, b):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dl = math.radians(b[1] - a[1])
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return (math.degrees(math.atan2(y, x)) + 360) % 360


def seconds(hhmmss):
    return int(hhmmss[0:2]) * 3600 + int(hhmmss[2:4]) * 60 + float(hhmmss[4:])


def resample(src, step=5):
    """Every `step`-th second's epoch, speeds and courses derived from the positions."""
    header, epochs = [], []          # epochs: [time, rmc fields, gga fields or None]
    for line in open(src):
        line = line.rstrip("\n")
        if not line.startswith("$") or "*" not in line:
            if not epochs: header.append(line)
            continue
        f = line[1:line.index("*")].split(",")
        if f[0].endswith("RMC") and f[2] == "A" and f[3] and f[5]:
            epochs.append([f[1], f, None])
        elif f[0].endswith("GGA") and epochs and epochs[-1][0] == f[1]:
            epochs[-1][2] = f
    kept = [e for e in epochs if int(seconds(e[0])) % step == 0]
    pos = [(to_deg(e[1][3], e[1][4]), to_deg(e[1][5], e[1][6])) for e in kept]
    lines = list(header)
    for k, (t, rmc, gga) in enumerate(kept):
        j = k - 1 if k > 0 else 1
        a, b = (pos[j], pos[k]) if j < k else (pos[k], pos[j])
        dt = abs(seconds(kept[k][0]) - seconds(kept[j][0])) or step
        rmc = list(rmc)
        rmc[7] = "%.2f" % (metres(a, b) / dt / 0.514444)
        rmc[8] = "%.1f" % bearing(a, b)
        for f in (rmc, gga):
            if f is None: continue
            body = ",".join(f)
            lines.append("$" + body + "*" + checksum(body))
    return lines


if __name__ == "__main__":
    src, out = sys.argv[1], sys.argv[2]
    for kind in KINDS:
        with open(f"{out}/{kind}.nmea", "w") as w:
            w.write("\n".join(resample(src) if kind == "5s" else degrade(src, kind)) + "\n")
