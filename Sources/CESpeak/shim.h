// espeak-ng's C interface (libespeak-ng-dev): initialisation, voices, parameters and synthesis
// into a callback (AUDIO_OUTPUT_SYNCHRONOUS). Only LinuxHardware imports it.
#include <espeak-ng/speak_lib.h>
#include <espeak-ng/espeak_ng.h>
