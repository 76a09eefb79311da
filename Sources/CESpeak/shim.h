// espeak-ng's C interface (libespeak-ng-dev): initialisation, voices, parameters and synthesis
// into a callback (AUDIO_OUTPUT_SYNCHRONOUS). Only LinuxHardware imports it.
#include <espeak-ng/speak_lib.h>
#include <espeak-ng/espeak_ng.h>

// libespeak-ng is opened when the device first speaks (dlopen), not linked: linking it made
// every command load it and the 30 libraries it needs (PulseAudio, X11, libsndfile and its
// codecs, ...) at start-up, about 5.6 M instructions, for a voice most commands never use.
#define PACER_LIBESPEAK_NG_SONAME "libespeak-ng.so.1"

// The functions Pacer calls, as pointer types, exactly as the headers declare them.
typedef __typeof__(&espeak_ng_InitializePath) pacer_espeak_ng_InitializePath_f;
typedef __typeof__(&espeak_Info) pacer_espeak_Info_f;
typedef __typeof__(&espeak_ng_Initialize) pacer_espeak_ng_Initialize_f;
typedef __typeof__(&espeak_ng_InitializeOutput) pacer_espeak_ng_InitializeOutput_f;
typedef __typeof__(&espeak_ng_GetStatusCodeMessage) pacer_espeak_ng_GetStatusCodeMessage_f;
typedef __typeof__(&espeak_ng_ClearErrorContext) pacer_espeak_ng_ClearErrorContext_f;
typedef __typeof__(&espeak_ng_GetSampleRate) pacer_espeak_ng_GetSampleRate_f;
typedef __typeof__(&espeak_SetSynthCallback) pacer_espeak_SetSynthCallback_f;
typedef __typeof__(&espeak_SetVoiceByName) pacer_espeak_SetVoiceByName_f;
typedef __typeof__(&espeak_SetParameter) pacer_espeak_SetParameter_f;
typedef __typeof__(&espeak_Synth) pacer_espeak_Synth_f;
