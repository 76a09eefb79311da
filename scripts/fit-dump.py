#!/usr/bin/env python3
"""Reads a FIT file with Garmin's FIT SDK for Python (pip: garmin-fit-sdk), an independent
reader, and prints what it found as JSON: whether the header and the file CRC are right
(check_integrity), the decoder's errors, and every message by kind, each field by its
profile name (times as seconds since 1970, positions in degrees).

    /usr/bin/python3 scripts/fit-dump.py FILE.fit
"""
import datetime
import json
import sys

from garmin_fit_sdk import Decoder, Stream

SEMICIRCLE = 180 / 2**31


def value(name, v):
    if isinstance(v, datetime.datetime):
        return v.timestamp()
    if name.endswith(("_lat", "_long")) and isinstance(v, int):
        return v * SEMICIRCLE
    if isinstance(v, (list, tuple)):
        return [value(name, x) for x in v]
    if isinstance(v, bytes):
        return v.hex()
    return v


def main(path):
    integrity = Decoder(Stream.from_file(path)).check_integrity()
    is_fit = Decoder(Stream.from_file(path)).is_fit()
    messages, errors = Decoder(Stream.from_file(path)).read(
        apply_scale_and_offset=True, convert_datetimes_to_dates=True,
        convert_types_to_strings=True, expand_sub_fields=True, expand_components=True,
        merge_heart_rates=False)
    out = {"is_fit": is_fit, "integrity": integrity, "errors": [str(e) for e in errors],
           "messages": {kind: [{k: value(str(k), v) for k, v in m.items()} for m in ms]
                        for kind, ms in messages.items()}}
    json.dump(out, sys.stdout, default=str)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
