#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// libasound is opened when a sound is first played or probed (dlopen), not linked: linking it
// would make every command load and relocate it at start-up (docs/measured.md has the cost),
// for the buzzer only `pacer device`, `pacer play` and `pacer hw check` open. Every release
// of ALSA 1.x ships libasound.so.2.
#if SND_LIB_MAJOR == 1
#define PACER_LIBASOUND_SONAME "libasound.so.2"
#else
#error "an ALSA library major version this header does not know: add its SONAME (objdump -p /usr/lib/*/libasound.so | grep SONAME)"
#endif

// The functions Pacer calls, as pointer types, exactly as the headers declare them.
typedef __typeof__(&snd_asoundlib_version) pacer_snd_asoundlib_version_f;
typedef __typeof__(&snd_strerror) pacer_snd_strerror_f;
typedef __typeof__(&snd_config_top) pacer_snd_config_top_f;
typedef __typeof__(&snd_config_load) pacer_snd_config_load_f;
typedef __typeof__(&snd_config_delete) pacer_snd_config_delete_f;
typedef __typeof__(&snd_input_buffer_open) pacer_snd_input_buffer_open_f;
typedef __typeof__(&snd_input_close) pacer_snd_input_close_f;
typedef __typeof__(&snd_pcm_open) pacer_snd_pcm_open_f;
typedef __typeof__(&snd_pcm_open_lconf) pacer_snd_pcm_open_lconf_f;
typedef __typeof__(&snd_pcm_nonblock) pacer_snd_pcm_nonblock_f;
typedef __typeof__(&snd_pcm_set_params) pacer_snd_pcm_set_params_f;
typedef __typeof__(&snd_pcm_type) pacer_snd_pcm_type_f;
typedef __typeof__(&snd_pcm_type_name) pacer_snd_pcm_type_name_f;
typedef __typeof__(&snd_pcm_close) pacer_snd_pcm_close_f;
typedef __typeof__(&snd_pcm_writei) pacer_snd_pcm_writei_f;
typedef __typeof__(&snd_pcm_recover) pacer_snd_pcm_recover_f;
typedef __typeof__(&snd_pcm_prepare) pacer_snd_pcm_prepare_f;
typedef __typeof__(&snd_pcm_drop) pacer_snd_pcm_drop_f;
typedef __typeof__(&snd_pcm_drain) pacer_snd_pcm_drain_f;

// libasound's diagnostics ("ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM x") as
// plain text. ALSA hands its thread-local error handler a printf format and a va_list; a
// va_list is a struct on aarch64, and Swift 6.2 crashes compiling any Swift function type that
// mentions one there. So the handler is C: it formats the message and passes the text to
// pacer_alsa_diagnostic, which LinuxHardware defines in Swift (@_cdecl). Swift only calls the
// two functions below, whose types have no va_list, with the opened snd_lib_error_set_local
// as an untyped pointer (its type has the va_list: the compiler crashed reading it back from
// LinuxHardware's module).
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
static inline void *pacer_alsa_diagnostics_begin(void *set_local) {
    return (void *)((__typeof__(&snd_lib_error_set_local))set_local)(pacer_alsa_local_handler);
}

// Puts back the handler pacer_alsa_diagnostics_begin returned.
static inline void pacer_alsa_diagnostics_end(void *set_local, void *previous) {
    ((__typeof__(&snd_lib_error_set_local))set_local)((snd_local_error_handler_t)previous);
}
