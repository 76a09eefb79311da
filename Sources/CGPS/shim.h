#include <gps.h>

// libgps's API is not the same in every Debian: gpsd 3.22 (bookworm) reports API 11, 3.25
// (trixie) API 14, 3.27 (sid) API 16. Swift reads the parts that differ through these names
// only, so the Swift code is the same for all three; the API version the header reports
// decides, here and nowhere else.

// The socket: an int in API 11 and 14 (socket_t), declared differently in later headers.
static inline int pacer_gps_fd(const struct gps_data_t *data) {
    return (int)data->gps_fd;
}

// fix.status. API 12 renamed STATUS_NO_FIX, STATUS_FIX and STATUS_DGPS_FIX to STATUS_UNK,
// STATUS_GPS and STATUS_DGPS (same values); the others kept their names.
#if GPSD_API_MAJOR_VERSION >= 12
enum { PACER_GPS_STATUS_DGPS = STATUS_DGPS };
#else
enum { PACER_GPS_STATUS_DGPS = STATUS_DGPS_FIX };
#endif

// libgps is opened at first use (dlopen), not linked: linking it made every command, the
// ones that never read a receiver among them, load it and the 13 libraries it needs (D-Bus,
// systemd, libstdc++, libgcrypt, ...) at start-up, about 3.3 M instructions. The library
// opened is the one whose header this is: each API version ships under its own SONAME.
#if GPSD_API_MAJOR_VERSION == 11
#define PACER_LIBGPS_SONAME "libgps.so.28"
#elif GPSD_API_MAJOR_VERSION == 14
#define PACER_LIBGPS_SONAME "libgps.so.30"
#elif GPSD_API_MAJOR_VERSION == 16
#define PACER_LIBGPS_SONAME "libgps.so.32"
#else
#error "a libgps API this list does not know: add its SONAME (objdump -p /usr/lib/*/libgps.so | grep SONAME)"
#endif

// The functions Pacer calls, as pointer types, exactly as this header declares them.
typedef __typeof__(&gps_open) pacer_gps_open_f;
typedef __typeof__(&gps_close) pacer_gps_close_f;
typedef __typeof__(&gps_stream) pacer_gps_stream_f;
typedef __typeof__(&gps_unpack) pacer_gps_unpack_f;
typedef __typeof__(&gps_errstr) pacer_gps_errstr_f;

// gps_stream's third argument, a device path Pacer never names, is a void * in API 11 and a
// const char * in 14 and 16: the call is made here, with NULL, so Swift sees one signature.
static inline int pacer_gps_stream(pacer_gps_stream_f stream, struct gps_data_t *data, unsigned int flags) {
    return stream(data, flags, NULL);
}
