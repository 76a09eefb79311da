import PacerCore
import CALSA
#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging

/// The board's buzzer or speaker through ALSA (libasound): `alsa:default`, `alsa:plughw:1,0`.
///
/// `play` only queues: a thread of the buzzer's own renders each cue with `ToneSynthesizer`
/// and writes it with `snd_pcm_writei` (16-bit mono, 100 ms of buffer, ALSA resampling if the
/// device does not run at the synthesizer's rate). The device is opened in `init` and kept
/// open; when the queue runs dry the thread drains it (`snd_pcm_drain`: the last cue plays
/// out and the stream stops, so an idle buzzer moves no data) and prepares it for the next
/// cue. Cues queued back to back play back to back.
///
/// A device that cannot be opened is not an error for the firmware: one warning is logged,
/// naming the device and ALSA's reason, and the buzzer is silent (plays are dropped without
/// further messages; `pacer hw check` uses `probe` to say what is wrong). A device that fails
/// while playing (a USB speaker unplugged) does the same, and lets go of the device at once.
/// A silent buzzer recovers by itself: a cue played while it is silent makes its thread try
/// to open the device again, at most once every `retryInterval` (2 s; plays in between are
/// dropped at once, so a missing card costs nothing), and when it opens the cue plays and
/// one info message says the sound is back. That is for a sound card that appears after
/// the device started (systemd starts `pacer device` before udev has brought up a USB card;
/// the emulated board's came 10 s late) or comes back after a reset. The open runs on the
/// buzzer's thread, so `play` never waits for it. A device that opens again but still cannot
/// play (`isSilent` again at once) is the same outage: nothing more is logged until it has
/// played. ALSA's own diagnostics, which it would print on stderr, are folded into the
/// warning.
///
/// Deinitialising the buzzer plays out what is queued, then closes the device.
public final class ALSABuzzer: Buzzer {
    public let device: String
    public let synthesizer: ToneSynthesizer
    private let player: Player?
    /// The playing thread could not be started: silent for good.
    private let startError: ALSAError?

    public var name: String { "alsa:\(device)" }

    /// - Parameters:
    ///   - device: an ALSA PCM name (`default`, `plughw:1,0`, a name from `asound.conf`).
    ///   - configuration: ALSA configuration text (`pcm.NAME { … }`) in which `device` is
    ///     looked up instead of the system's configuration. Tests use it to route the buzzer
    ///     into ALSA's `file` plugin without touching the process's environment.
    ///   - retryInterval: while the device cannot be used, a cue tries to open it again at
    ///     most this often.
    ///   - logger: receives the one warning when the device cannot be used, and the one info
    ///     message when it plays again.
    public init(
        device: String = "default", sampleRate: Int = ToneSynthesizer.defaultSampleRate,
        configuration: String? = nil, retryInterval: Duration = .seconds(2), logger: Logger? = nil
    ) {
        self.device = device
        let synthesizer = ToneSynthesizer(sampleRate: sampleRate)
        self.synthesizer = synthesizer
        let player = Player(
            device: device, sampleRate: sampleRate, configuration: configuration, synthesizer: synthesizer,
            retryInterval: retryInterval, logger: logger)
        // The first open is the caller's, as before: the power-on check reads at once whether
        // the device is there (`unavailableReason`).
        let opened = player.openFirst()
        if player.start() {
            self.player = player
            startError = nil
        } else {
            player.closeUnstarted()
            self.player = nil
            startError = ALSAError(device: device, operation: .startThread, code: -EAGAIN)
        }
        if let problem = startError ?? opened {
            logger?.warning("no sound: \(problem); cues will be silent")
        }
    }

    deinit {
        player?.stop()
    }

    /// True when no sound comes out: the device could not be opened, or failed since (and has
    /// not opened again).
    public var unavailableReason: String? { problem.map { "\($0)" } }

    public var isSilent: Bool { player?.failure != nil || player == nil }

    /// Why the buzzer is silent (the latest failure to open or to play), or nil while it works.
    public var problem: ALSAError? { startError ?? player?.failure }

    /// Queues the cue and returns at once; on a silent buzzer, may have its thread try the
    /// device again first.
    public func play(_ cue: Cue, tones: [Tone]) {
        guard !tones.isEmpty else { return }
        _ = player?.enqueue(.tones(tones))
    }

    /// Queues speech behind the cues (resampled to the buzzer's rate): the same thread and
    /// stream play both, so words and beeps take turns. False when the buzzer is silent (and
    /// does not try the device again for it now).
    public func play(_ clip: SoundClip) -> Bool {
        guard let player, !clip.samples.isEmpty else { return false }
        return player.enqueue(.clip(clip.resampled(to: synthesizer.sampleRate)))
    }

    /// Drops the cuttable clips waiting; the one playing stops within 20 ms.
    public func cutClips() {
        player?.cut()
    }

    /// Blocks until every queued cue has been written and played out by the device (or
    /// dropped, the device being missing).
    public func drain() {
        player?.waitUntilIdle()
    }

    /// Tries to open `device` for playback as the buzzer would (16-bit mono at `sampleRate`),
    /// then closes it: for the hardware check.
    public static func probe(
        device: String = "default", sampleRate: Int = ToneSynthesizer.defaultSampleRate,
        configuration: String? = nil
    ) -> Result<Void, ALSAError> {
        probeInDetail(device: device, sampleRate: sampleRate, configuration: configuration).result.map { _ in }
    }

    /// `probe`, with what `HardwareProbe.alsa` reports besides: the PCM's type on success
    /// (`hw`, `plug`, `dmix`, …), and every diagnostic ALSA gave (the error keeps the first).
    static func probeInDetail(
        device: String, sampleRate: Int = ToneSynthesizer.defaultSampleRate, configuration: String? = nil
    ) -> (result: Result<String, ALSAError>, diagnostics: [String]) {
        let diagnostics = ALSADiagnostics()
        let result = ALSAPlayback.open(
            device: device, sampleRate: sampleRate, configuration: configuration, diagnostics: diagnostics
        ).map { playback in
            defer { playback.close() }
            return playback.typeName
        }
        return (result, diagnostics.messages)
    }
}

/// An ALSA call that failed: the device, what was being done, ALSA's error code, and the first
/// diagnostic ALSA gave (`Unknown PCM x`, `cannot find card '0'`).
public struct ALSAError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Operation: String, Hashable, Sendable {
        case load, readConfiguration, open, configure, write, startThread
    }

    public var device: String
    public var operation: Operation
    /// A negative errno, as libasound returns them.
    public var code: Int32
    public var detail: String?

    public init(device: String, operation: Operation, code: Int32, detail: String? = nil) {
        self.device = device
        self.operation = operation
        self.code = code
        self.detail = detail
    }

    /// `snd_strerror` of the code.
    public var reason: String { LibASound.errorText(code) }

    /// No libasound to open: its error (which names the library and how to install it).
    static func load(device: String, _ problem: DynamicLibraryError) -> ALSAError {
        ALSAError(device: device, operation: .load, code: -ELIBACC, detail: problem.description)
    }

    public var description: String {
        let what: String
        switch operation {
        case .load: return "no sound from ALSA device '\(device)': \(detail ?? reason)"
        case .readConfiguration: what = "cannot read the ALSA configuration given for device '\(device)'"
        case .open: what = "cannot open ALSA device '\(device)'"
        case .configure: what = "cannot set ALSA device '\(device)' to 16-bit mono"
        case .write: what = "writing to ALSA device '\(device)' failed"
        case .startThread: what = "cannot start the sound thread for ALSA device '\(device)'"
        }
        return detail.map { "\(what) (\(reason): \($0))" } ?? "\(what) (\(reason))"
    }
}

/// An open playback PCM, and the private configuration it was opened from (kept until close).
struct ALSAPlayback {
    let pcm: OpaquePointer
    let configuration: OpaquePointer?

    static let latencyMicroseconds: UInt32 = 100_000

    /// Opens `device` for playback and sets it to 16-bit mono at `sampleRate`. What ALSA says
    /// meanwhile is collected in `diagnostics`; an error carries the first of it.
    ///
    /// The open is non-blocking (a blocking open of a busy `hw:` device waits until the other
    /// program lets go); the stream is switched to blocking writes afterwards.
    static func open(
        device: String, sampleRate: Int, configuration text: String?, diagnostics: ALSADiagnostics = ALSADiagnostics()
    ) -> Result<ALSAPlayback, ALSAError> {
        if let problem = LibASound.problem { return .failure(.load(device: device, problem)) }
        let asound = LibASound.functions
        return diagnostics.collecting { () -> Result<ALSAPlayback, ALSAError> in
            func failure(_ operation: ALSAError.Operation, _ code: Int32) -> Result<ALSAPlayback, ALSAError> {
                .failure(ALSAError(device: device, operation: operation, code: code, detail: diagnostics.first))
            }
            var configuration: OpaquePointer?
            if let text {
                var top: OpaquePointer?
                var input: OpaquePointer?
                var err = asound.configTop(&top)
                if err >= 0 {
                    err = text.withCString { asound.inputBufferOpen(&input, $0, strlen($0)) }
                }
                if err >= 0, let input {
                    err = asound.configLoad(top, input)
                    _ = asound.inputClose(input)
                }
                if err < 0 {
                    if let top { _ = asound.configDelete(top) }
                    return failure(.readConfiguration, err)
                }
                configuration = top
            }
            var pcm: OpaquePointer?
            var err: Int32
            if let configuration {
                err = asound.pcmOpenLconf(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK, configuration)
            } else {
                err = asound.pcmOpen(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
            }
            guard err >= 0, let pcm else {
                if let configuration { _ = asound.configDelete(configuration) }
                return failure(.open, err)
            }
            let playback = ALSAPlayback(pcm: pcm, configuration: configuration)
            err = asound.pcmNonblock(pcm, 0)
            if err >= 0 {
                err = asound.pcmSetParams(
                    pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1,
                    latencyMicroseconds)
            }
            guard err >= 0 else {
                playback.close()
                return failure(.configure, err)
            }
            return .success(playback)
        }
    }

    /// The PCM's type (`hw`, `plug`, `dmix`, `file`, …), or empty when ALSA has no name for it.
    var typeName: String {
        let asound = LibASound.functions
        return asound.pcmTypeName(asound.pcmType(pcm)).map { String(cString: $0) } ?? ""
    }

    func close() {
        let asound = LibASound.functions
        _ = asound.pcmClose(pcm)
        if let configuration { _ = asound.configDelete(configuration) }
    }
}

/// Collects the diagnostics libasound prints (`ALSA lib pcm.c:2666:(snd_pcm_open_noupdate)
/// Unknown PCM x`) while calls run on this thread, instead of letting them reach stderr. Uses
/// libasound's thread-local error handler, so other threads are unaffected. Used by one thread.
final class ALSADiagnostics {
    private(set) var messages: [String] = []

    var first: String? { messages.first }

    func removeAll() { messages.removeAll() }

    /// Runs `body` with this thread's ALSA diagnostics collected into `messages`.
    func collecting<T>(_ body: () -> T) -> T {
        let previousContext = pthread_getspecific(ALSADiagnostics.key)
        pthread_setspecific(ALSADiagnostics.key, Unmanaged.passUnretained(self).toOpaque())
        let setLocal = LibASound.functions.errorSetLocal
        let previousHandler = pacer_alsa_diagnostics_begin(setLocal)
        defer {
            pacer_alsa_diagnostics_end(setLocal, previousHandler)
            pthread_setspecific(ALSADiagnostics.key, previousContext)
        }
        return withExtendedLifetime(self) { body() }
    }

    /// What ALSA said on this thread, formatted by CALSA's C handler; kept when `collecting`
    /// runs on this thread, dropped otherwise (as the handler ALSA had before would print it).
    fileprivate static func append(_ text: UnsafePointer<CChar>, code: Int32) {
        guard let context = pthread_getspecific(key) else { return }
        var message = String(cString: text)
        // As ALSA's own printer does: a system error's text after the message.
        if code != 0 { message += ": " + LibASound.errorText(code) }
        Unmanaged<ALSADiagnostics>.fromOpaque(context).takeUnretainedValue().messages.append(message)
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}

/// Called by CALSA's C error handler (`pacer_alsa_local_handler`) with ALSA's message formatted.
@_cdecl("pacer_alsa_diagnostic")
func pacerALSADiagnostic(_ text: UnsafePointer<CChar>, _ code: Int32) {
    ALSADiagnostics.append(text, code: code)
}

/// The queue and the thread that plays it.
///
/// Guarded by `mutex`: `queue`, `cuts`, `busy`, `stopping`, `failureStorage`, `reopening`,
/// `lastAttempt`, `warned`. Touched only by the playing thread once it has started (before,
/// by `init`'s): `playback`, `needsDrain`. `work` is signalled when a cue is queued or the
/// player must stop; `idle` is broadcast when the queue is empty and the device has drained.
private final class Player: @unchecked Sendable {
    private let device: String
    private let sampleRate: Int
    private let configuration: String?
    private let synthesizer: ToneSynthesizer
    private let retryInterval: Duration
    private let logger: Logger?

    enum Item {
        case tones([Tone])
        case clip(SoundClip)

        var cuttable: Bool {
            if case .clip(let clip) = self { return clip.cuttable }
            return false
        }
    }

    /// The device while it is open; nil while the buzzer is silent.
    private var playback: ALSAPlayback?
    private var queue: [Item] = []
    /// Bumped by `cut`: a cuttable item being written stops when it changes.
    private var cuts = 0
    private var busy = false
    private var stopping = false
    /// Why the device is not open; nil while it is.
    private var failureStorage: ALSAError?
    /// A play on the silent buzzer asked the thread to open the device again.
    private var reopening = false
    /// When the device was last tried (opened, or found failing): the next try waits
    /// `retryInterval` from it.
    private var lastAttempt = ContinuousClock.now
    /// The silence was warned about and nothing has played since: a second failure within it
    /// (a device that opens but cannot play) says nothing more.
    private var warned = false
    private var needsDrain = false

    /// Plays queued while the thread tries the device are kept up to this many (one try is
    /// quick; one that hangs must not gather speech without end).
    static let queuedWhileOpening = 8

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let idle = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread = pthread_t()

    init(
        device: String, sampleRate: Int, configuration: String?, synthesizer: ToneSynthesizer,
        retryInterval: Duration, logger: Logger?
    ) {
        self.device = device
        self.sampleRate = sampleRate
        self.configuration = configuration
        self.synthesizer = synthesizer
        self.retryInterval = retryInterval
        self.logger = logger
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(work, nil)
        pthread_cond_init(idle, nil)
    }

    deinit {
        pthread_cond_destroy(idle)
        pthread_cond_destroy(work)
        pthread_mutex_destroy(mutex)
        idle.deallocate()
        work.deallocate()
        mutex.deallocate()
    }

    private func open() -> Result<ALSAPlayback, ALSAError> {
        ALSAPlayback.open(device: device, sampleRate: sampleRate, configuration: configuration)
    }

    /// The first open, before the thread starts: the error when the device cannot be used
    /// (the caller warns).
    func openFirst() -> ALSAError? {
        switch open() {
        case .success(let handle):
            playback = handle
            return nil
        case .failure(let error):
            failureStorage = error
            warned = true
            lastAttempt = .now
            return error
        }
    }

    /// Lets go of the device when the thread could not be started.
    func closeUnstarted() {
        playback?.close()
        playback = nil
    }

    /// Starts the playing thread, which holds a reference to the player until it ends.
    func start() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            let player = Unmanaged<Player>.fromOpaque(context!).takeRetainedValue()
            player.run()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<Player>.fromOpaque(context).release()
            return false
        }
        return true
    }

    var failure: ALSAError? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return failureStorage
    }

    /// Queues `item`; false when it is dropped. While the device is not open, an item queued
    /// `retryInterval` or more after the last try has the thread try again (and plays if it
    /// opens); one queued sooner is dropped.
    func enqueue(_ item: Item) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !stopping else { return false }
        if failureStorage != nil {
            if reopening {
                guard queue.count < Self.queuedWhileOpening else { return false }
            } else {
                guard ContinuousClock.now - lastAttempt >= retryInterval else { return false }
                reopening = true
            }
        }
        queue.append(item)
        pthread_cond_signal(work)
        return true
    }

    func cut() {
        pthread_mutex_lock(mutex)
        queue.removeAll { $0.cuttable }
        cuts &+= 1
        pthread_mutex_unlock(mutex)
    }

    private var cutCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return cuts
    }

    func waitUntilIdle() {
        pthread_mutex_lock(mutex)
        while !queue.isEmpty || busy {
            pthread_cond_wait(idle, mutex)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Plays out what is queued, then ends the thread and closes the device.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_signal(work)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
    }

    private func run() {
        // Everything libasound reports on this thread goes into the warning, not to stderr.
        let diagnostics = ALSADiagnostics()
        diagnostics.collecting {
            pthread_mutex_lock(mutex)
            while true {
                var error: ALSAError?
                if reopening {
                    // A play on the silent buzzer: the device again, off the caller's thread.
                    busy = true
                    pthread_mutex_unlock(mutex)
                    let opened = open()
                    pthread_mutex_lock(mutex)
                    reopening = false
                    lastAttempt = .now
                    switch opened {
                    case .success(let handle):
                        playback = handle
                        failureStorage = nil
                    case .failure(let failure):
                        // Still missing: what was queued for it is dropped, silently.
                        failureStorage = failure
                        queue.removeAll()
                    }
                    continue
                }
                if let playback, !queue.isEmpty {
                    let item = queue.removeFirst()
                    busy = true
                    let cutsAtStart = cuts
                    pthread_mutex_unlock(mutex)
                    switch item {
                    case .tones(let tones):
                        error = write(synthesizer.render(tones), to: playback, diagnostics: diagnostics)
                    case .clip(let clip):
                        error = write(
                            clip.samples, to: playback, diagnostics: diagnostics, inPieces: true,
                            stopWhen: clip.cuttable ? { [unowned self] in cutCount != cutsAtStart } : nil)
                    }
                    pthread_mutex_lock(mutex)
                    if error == nil, warned {
                        // The first sound since the warning: say once that it is back.
                        warned = false
                        pthread_mutex_unlock(mutex)
                        logger?.info("sound is back: ALSA device '\(device)' plays again")
                        pthread_mutex_lock(mutex)
                    }
                } else if let playback, needsDrain {
                    pthread_mutex_unlock(mutex)
                    error = drainDevice(playback, diagnostics: diagnostics)
                    pthread_mutex_lock(mutex)
                } else {
                    queue.removeAll()  // none without a device (a failure emptied it)
                    busy = false
                    pthread_cond_broadcast(idle)
                    if stopping { break }
                    pthread_cond_wait(work, mutex)
                    continue
                }
                if let error, failureStorage == nil {
                    // Silent until a play tries again: drop what is queued, let go of the
                    // device, then say so once (not under the lock).
                    failureStorage = error
                    lastAttempt = .now
                    queue.removeAll()
                    needsDrain = false
                    let warn = !warned
                    warned = true
                    pthread_mutex_unlock(mutex)
                    playback?.close()
                    playback = nil
                    if warn { logger?.warning("no sound: \(error); cues will be silent") }
                    pthread_mutex_lock(mutex)
                }
            }
            pthread_mutex_unlock(mutex)
        }
        playback?.close()
        playback = nil
    }

    /// Writes `samples`. Speech goes `inPieces` of 20 ms: seconds of it in one `writei`
    /// came out longer than written through the `file` plugin (ALSA's recovery from an
    /// underrun inside the call repeats part of it), and a piece is the grain at which
    /// `stopWhen` is asked; when it turns true the device drops what it holds (the sound stops
    /// at once) and the rest is not written.
    private func write(
        _ samples: [Int16], to playback: ALSAPlayback, diagnostics: ALSADiagnostics, inPieces: Bool = false,
        stopWhen: (() -> Bool)? = nil
    ) -> ALSAError? {
        diagnostics.removeAll()
        let pcm = playback.pcm
        let asound = LibASound.functions
        let piece = inPieces ? max(1, synthesizer.sampleRate / 50) : Int.max
        var stopped = false
        let code: Int32? = samples.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                if let stopWhen, stopWhen() {
                    _ = asound.pcmDrop(pcm)
                    stopped = true
                    let err = asound.pcmPrepare(pcm)
                    return err < 0 ? err : nil
                }
                let frames = min(buffer.count - offset, piece)
                let written = asound.pcmWritei(pcm, buffer.baseAddress! + offset, snd_pcm_uframes_t(frames))
                if written >= 0 {
                    offset += written
                    continue
                }
                // An underrun (-EPIPE), a suspend (-ESTRPIPE) or a signal (-EINTR): recover
                // and write the rest; anything else ends the sound.
                let recovered = asound.pcmRecover(pcm, Int32(written), 1)
                if recovered < 0 { return recovered }
            }
            return nil
        }
        needsDrain = !stopped
        return code.map { ALSAError(device: device, operation: .write, code: $0, detail: diagnostics.first) }
    }

    private func drainDevice(_ playback: ALSAPlayback, diagnostics: ALSADiagnostics) -> ALSAError? {
        diagnostics.removeAll()
        needsDrain = false
        let pcm = playback.pcm
        let asound = LibASound.functions
        if asound.pcmDrain(pcm) < 0 {
            _ = asound.pcmDrop(pcm)
        }
        let err = asound.pcmPrepare(pcm)
        return err < 0 ? ALSAError(device: device, operation: .write, code: err, detail: diagnostics.first) : nil
    }
}
