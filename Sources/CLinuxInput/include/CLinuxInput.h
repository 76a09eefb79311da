// The kernel's input events (evdev), for the Linux button adapter.
//
// struct input_event carries its time as a struct timeval on 64-bit boards and as two
// unsigned longs on 32-bit boards built with 64-bit time: its size differs (24 bytes on
// aarch64 and x86_64, 16 on armhf). The kernel headers name both layouts' fields through
// the input_event_sec / input_event_usec macros, which Swift cannot call; these helpers do.
#ifndef PACER_CLINUXINPUT_H
#define PACER_CLINUXINPUT_H

#include <linux/input.h>
#include <stddef.h>

static inline size_t pacer_input_event_size(void) { return sizeof(struct input_event); }

static inline long long pacer_input_event_sec(const struct input_event *e) { return (long long)e->input_event_sec; }

static inline long long pacer_input_event_usec(const struct input_event *e) { return (long long)e->input_event_usec; }

// Whether NTP keeps the system clock synchronized, for the system-time adapter
// (RealtimeSystemTime): adjtimex with no change asked (no privilege needed) gives the
// kernel's clock state and its status bits, STA_UNSYNC set while nobody synchronizes it.
// <sys/timex.h> is not in Swift's Glibc module, hence this helper here with the other
// kernel interfaces the Linux adapters need.
#include <sys/timex.h>

static inline int pacer_clock_synchronized(void) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    return state != -1 && state != TIME_ERROR && (tx.status & STA_UNSYNC) == 0;
}

#endif
