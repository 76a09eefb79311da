#!/usr/bin/env python3
"""Writes Hardware/recordings/track-loop.nmea: the bundled sample recording.

Ten minutes of a runner lapping a 400 m track at 1 Hz, as a u-blox-style receiver reports
it (GNRMC, GNGGA, GNGSA, GPGSV/GLGSV, GNVTG each second), starting 2026-05-02T07:00:00Z.
Deterministic: no randomness, so the file is the same every time it is made.
The main job (`scripts/demo.sh`) decodes it; tests make their own NMEA.
"""
import math, os, sys

def cs(body):
    x = 0
    for c in body.encode():
        x ^= c
    return "$%s*%02X" % (body, x)

def ddmm(value, lat):
    h = ("N" if value >= 0 else "S") if lat else ("E" if value >= 0 else "W")
    v = abs(value)
    d = int(v)
    m = (v - d) * 60
    return ("%02d%08.5f" if lat else "%03d%08.5f") % (d, m), h

LAT0, LON0 = 52.0705, 4.3007           # a 400 m athletics track, made up
R = 400 / (2 * math.pi)                # a circle with a 400 m lap
M_PER_DEG_LAT = 111_320.0
M_PER_DEG_LON = M_PER_DEG_LAT * math.cos(math.radians(LAT0))

out = ["# Name: Pacer sample recording: ten minutes on a 400 m track",
       "# Receiver: synthetic, u-blox M8 sentence set (GN talker, GPS + GLONASS)",
       "# Date: 2026-05-02",
       "# Made by: scripts/make-sample-recording.py (deterministic)",
       "#"]
t0 = 7 * 3600
dist = 0.0
for s in range(600):
    speed = 3.0 + 0.5 * math.sin(s / 60.0)          # m/s, a gentle surge every few minutes
    dist += speed
    a = dist / R
    lat = LAT0 + R * math.sin(a) / M_PER_DEG_LAT
    lon = LON0 + R * math.cos(a) / M_PER_DEG_LON
    course = (360 - math.degrees(a)) % 360            # anticlockwise laps starting due east
    tod = t0 + s
    hhmmss = "%02d%02d%02d.00" % (tod // 3600, tod // 60 % 60, tod % 60)
    la, ns = ddmm(lat, True)
    lo, ew = ddmm(lon, False)
    knots = speed / (1852 / 3600)
    alt = 2.0 + 0.3 * math.sin(a)
    out.append(cs("GNRMC,%s,A,%s,%s,%s,%s,%.3f,%.2f,020526,,,A" % (hhmmss, la, ns, lo, ew, knots, course)))
    out.append(cs("GNVTG,%.2f,T,,M,%.3f,N,%.3f,K,A" % (course, knots, speed * 3.6)))
    out.append(cs("GNGGA,%s,%s,%s,%s,%s,1,09,0.92,%.1f,M,46.3,M,," % (hhmmss, la, ns, lo, ew, alt)))
    out.append(cs("GNGSA,A,3,02,05,12,13,15,18,,,,,,,1.61,0.92,1.32"))
    out.append(cs("GNGSA,A,3,67,68,77,,,,,,,,,,1.61,0.92,1.32"))
    if s % 5 == 0:
        out.append(cs("GPGSV,2,1,07,02,43,064,41,05,61,178,44,12,20,312,38,13,55,260,42"))
        out.append(cs("GPGSV,2,2,07,15,34,112,40,18,12,041,33,20,05,350,"))
        out.append(cs("GLGSV,1,1,03,67,40,210,39,68,62,301,43,77,18,090,35"))
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Hardware", "recordings", "track-loop.nmea")
with open(path, "w", newline="") as f:
    f.write("\r\n".join(out) + "\r\n")
print("wrote", os.path.normpath(path), len(out), "lines", file=sys.stderr)
