#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// libasound's diagnostics ("ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM x") as
// plain text. ALSA hands its thread-local error handler a printf format and a va_list; a
// va_list is a struct on aarch64, and Swift 6.2 crashes compiling any Swift function type that
// mentions one there. So the handler is C: it formats the message and passes the text to
// pacer_alsa_diagnostic, which LinuxHardware defines in Swift (@_cdecl). Swift only calls the
// two functions below, whose types have no va_list.
void pacer_alsa_diagnostic(const char *text, int code);

static inline void pacer_alsa_local_handler(const char *file, int line, const char *function,
                                            int code, const char *format, va_list arguments) {
    (void)file; (void)line; (void)function;
    if (format == NULL) return;
    char text[512];
    vsnprintf(text, sizeof text, format, arguments);
    pacer_alsa_diagnostic(text, code);
}

// Sends this thread's ALSA diagnostics to pacer_alsa_diagnostic; returns the handler it replaced.
static inline void *pacer_alsa_diagnostics_begin(void) {
    return (void *)snd_lib_error_set_local(pacer_alsa_local_handler);
}

// Puts back the handler pacer_alsa_diagnostics_begin returned.
static inline void pacer_alsa_diagnostics_end(void *previous) {
    snd_lib_error_set_local((snd_local_error_handler_t)previous);
}
