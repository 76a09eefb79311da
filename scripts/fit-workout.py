#!/usr/bin/env python3
"""Writes a FIT workout file with fit-tool (pip: fit-tool), an encoder independent of Pacer's,
from a JSON description: the files `pacer plan import` is tested on, and a way to make one
by hand.

    /usr/bin/python3 scripts/fit-workout.py SPEC.json OUT.fit

SPEC is {"name": "...", "sport": "running", "steps": [STEP, ...]} with, optionally,
"description", "num_valid_steps" (default: the steps' count) and "file_type" (default
"workout"). A STEP has "duration": a wkt_step_duration's name (time, distance, open,
repeat_until_steps_cmplt, hr_less_than, ...) with "seconds" (time), "metres" (distance),
"from" and "count" (a repeat) or "value" (any other, raw); "target": a wkt_step_target's name
(speed, open, heart_rate, cadence, power, ...) with "low" and "high" in m/s (speed), "zone"
(target_value), "low_raw"/"high_raw" (the custom values, raw); and optionally "name",
"notes", "intensity" (an intensity's name), "secondary_target". Values go through fit-tool's
named fields (duration_time in s, duration_distance in m, custom_target_speed_low in m/s), so
its own scales are what is tested.
"""
import json
import sys

from fit_tool.fit_file_builder import FitFileBuilder
from fit_tool.profile.messages.file_id_message import FileIdMessage
from fit_tool.profile.messages.workout_message import WorkoutMessage
from fit_tool.profile.messages.workout_step_message import WorkoutStepMessage
from fit_tool.profile.profile_type import (FileType, Intensity, Manufacturer, Sport, WorkoutStepDuration,
                                           WorkoutStepTarget)


def enum(kind, name):
    return kind[name.upper()]


def step_message(index, spec):
    m = WorkoutStepMessage()
    m.message_index = index
    if "name" in spec:
        m.workout_step_name = spec["name"]
    if "notes" in spec:
        m.notes = spec["notes"]
    if "intensity" in spec:
        m.intensity = enum(Intensity, spec["intensity"])
    duration = spec["duration"]
    m.duration_type = enum(WorkoutStepDuration, duration)
    if duration == "time":
        m.duration_time = float(spec["seconds"])
    elif duration == "distance":
        m.duration_distance = float(spec["metres"])
    elif duration == "repeat_until_steps_cmplt":
        m.duration_step = int(spec["from"])
        m.target_repeat_steps = int(spec["count"])
    elif "value" in spec:
        m.duration_value = int(spec["value"])
    target = spec.get("target")
    if target is not None:
        m.target_type = enum(WorkoutStepTarget, target)
        if "zone" in spec:
            m.target_value = int(spec["zone"])
        if target == "speed" and "low" in spec:
            m.target_value = spec.get("zone", 0)
            m.custom_target_speed_low = float(spec["low"])
            m.custom_target_speed_high = float(spec["high"])
        if "low_raw" in spec:
            m.custom_target_value_low = int(spec["low_raw"])
            m.custom_target_value_high = int(spec["high_raw"])
    if "secondary_target" in spec:
        m.secondary_target_type = enum(WorkoutStepTarget, spec["secondary_target"])
    return m


def main(spec_path, out_path):
    with open(spec_path) as f:
        spec = json.load(f)
    builder = FitFileBuilder(auto_define=True, min_string_size=8)
    file_id = FileIdMessage()
    file_id.type = enum(FileType, spec.get("file_type", "workout"))
    file_id.manufacturer = Manufacturer.DEVELOPMENT.value
    file_id.product = 0
    file_id.serial_number = 0x12345678
    file_id.time_created = 1_780_000_000_000
    builder.add(file_id)
    workout = WorkoutMessage()
    workout.workout_name = spec["name"]
    workout.sport = enum(Sport, spec.get("sport", "running"))
    workout.num_valid_steps = spec.get("num_valid_steps", len(spec["steps"]))
    if "description" in spec:
        workout.workout_description = spec["description"]
    builder.add(workout)
    for index, step in enumerate(spec["steps"]):
        builder.add(step_message(index, step))
    with open(out_path, "wb") as f:
        f.write(builder.build_bytes())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
