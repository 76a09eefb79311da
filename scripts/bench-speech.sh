#!/usr/bin/env bash
# How long espeak-ng takes to render each of Pacer's kinds of phrase, on this machine (issue 25;
# docs/measured.md has the figures and what they mean for a Pi Zero 2 W).
#
# A small C program links the same libespeak-ng the firmware links and renders as
# ESpeakSpeaker does (synchronous mode, 16-bit PCM collected by the synth callback, voice en,
# 170 words a minute): it prints, per phrase, the audio's length, the median and worst
# render time over RUNS renderings, how many times faster than real time it renders (audio
# time / median render time) and the render's CPU time per second of audio (the process's
# CPU clock, median over the runs: the figure Hardware/parts/speakers/*.yaml's
# render_cpu_share is scaled from); then the same over all the phrases together (sum of the
# medians' CPU time over the sum of their audio). The first rendering of the process
# (espeak-ng's start: loading the voice and dictionary) is timed on its own. Then `pacer say` end to end, into a WAV, with hyperfine when present.
#
#   scripts/bench-speech.sh            RUNS=50 VOICE=en-us scripts/bench-speech.sh
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-30}"
voice="${VOICE:-en}"
rate="${RATE:-170}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/bench.c" <<'C'
#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static long samples;
static int collect(short *wav, int n, espeak_EVENT *e) { (void)wav; (void)e; if (n > 0) samples += n; return 0; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double last_cpu;
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double render(const char *text) {
    samples = 0; double c0 = cpu(), t0 = now();
    espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL);
    double t = now() - t0;
    last_cpu = cpu() - c0;
    return t;
}
int main(int argc, char **argv) {
    int runs = atoi(argv[1]);
    double t0 = now();
    espeak_ng_InitializePath(NULL);
    if (espeak_ng_Initialize(NULL) != ENS_OK || espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, NULL) != ENS_OK) { fprintf(stderr, "no espeak-ng\n"); return 69; }
    espeak_SetSynthCallback(collect);
    if (espeak_SetVoiceByName(argv[2]) != EE_OK) { fprintf(stderr, "no voice %s\n", argv[2]); return 69; }
    espeak_SetParameter(espeakRATE, atoi(argv[3]), 0);
    double init = now() - t0;
    int rate = espeak_ng_GetSampleRate();
    double first = render("split 1");
    printf("espeak-ng %s, voice %s, %s wpm, %d Hz; start %.1f ms; first rendering (\"split 1\") %.1f ms\n",
           espeak_Info(NULL), argv[2], argv[3], rate, init * 1e3, first * 1e3);
    printf("%-58s %7s %9s %9s %7s %9s\n", "phrase", "audio s", "median ms", "worst ms", "x real", "cpu s/s");
    char line[512];
    double *t = malloc(sizeof(double) * runs), *c = malloc(sizeof(double) * runs);
    double all_audio = 0, all_cpu = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        if (!*line) continue;
        for (int i = 0; i < runs; i++) { t[i] = render(line); c[i] = last_cpu; }
        qsort(t, runs, sizeof(double), cmp);
        qsort(c, runs, sizeof(double), cmp);
        double audio = (double)samples / rate;
        all_audio += audio; all_cpu += c[runs / 2];
        printf("%-58s %7.2f %9.2f %9.2f %7.0f %9.5f\n", line, audio, t[runs / 2] * 1e3, t[runs - 1] * 1e3,
               audio / t[runs / 2], c[runs / 2] / audio);
    }
    printf("all phrases: %.2f s of audio, %.2f ms of render CPU (medians): %.5f CPU s per second of audio\n",
           all_audio, all_cpu * 1e3, all_cpu / all_audio);
    return 0;
}
C
cc -O2 "$work/bench.c" -o "$work/bench" $(pkg-config --cflags --libs espeak-ng)

echo "machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
"$work/bench" "$runs" "$voice" "$rate" <<'PHRASES'
split 1
on pace
speed up
ease off
GPS lost
battery low, 15 percent
kilometre 8 done, 2 kilometres to go
pace 4 50 per kilometre
split 1, 5 minutes 41 seconds, pace 5 41 per kilometre
split 12, 6 minutes 3 seconds, pace 6 3 per kilometre
interval 3 of 6: 800 metres at 4 10 per kilometre, then 2 minutes easy
workout complete: 10 kilometres in 56 minutes 20 seconds, average pace 5 38 per kilometre
PHRASES

pacer="${PACER:-$repo_root/.build/debug/pacer}"
if [ -x "$pacer" ] && "$pacer" say --help >/dev/null 2>&1; then
    text="split 1, 5 minutes 41 seconds, pace 5 41 per kilometre"
    if command -v hyperfine >/dev/null; then
        hyperfine -N --warmup 2 --runs 10 "$pacer say --speaker wav:$work/say.wav $text" 2>&1 | sed -n '1,3p'
    else
        t0=$(date +%s%N); "$pacer" say --speaker "wav:$work/say.wav" "$text" >/dev/null; t1=$(date +%s%N)
        echo "pacer say into a WAV (start, render, write, exit): $(( (t1 - t0) / 1000000 )) ms ($pacer)"
    fi
fi
