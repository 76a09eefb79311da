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
