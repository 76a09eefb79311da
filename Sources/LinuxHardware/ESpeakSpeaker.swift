import CESpeak
#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging
import Synchronization

/// How espeak-ng should speak: a voice (`en`, `en-us`, `de`), words per minute, volume (0–200,
/// 100 normal). From `espeak:DEVICE?voice=en&rate=170&volume=100`.
public struct ESpeakVoice: Hashable, Sendable {
    public var name: String
    public var rate: Int
    public var volume: Int

    public static let defaultRate = 170

    public init(name: String = "en", rate: Int = ESpeakVoice.defaultRate, volume: Int = 100) {
        self.name = name
        self.rate = rate
        self.volume = volume
    }
}

/// Why espeak-ng cannot speak: it would not start (no data), a voice it does not have, a
/// synthesis that failed.
public struct ESpeakError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// The one espeak-ng of the process. espeak-ng keeps global state and is not thread-safe, so
/// every call into it runs on one thread of the engine's own, in the order asked; it is
/// initialised there, on first use, in synchronous mode (`espeak_ng_InitializeOutput` with
/// ENOUTPUT_MODE_SYNCHRONOUS): `espeak_Synth` returns when the text is rendered, its 16-bit
/// mono PCM collected by the synth callback. Nothing is played by espeak-ng itself: the
/// samples go to the buzzer's queue.
public final class ESpeakEngine: @unchecked Sendable {
    public static let shared = ESpeakEngine()

    /// Set once on the engine's thread by the first job; read after a `sync` only.
    private var started = false
    private var startError: ESpeakError?
    private var sampleRateStorage = 22_050
    private var versionStorage = ""
    private var dataPathStorage = ""
    /// The voice espeak-ng has loaded (engine thread only).
    private var selectedVoice: String?

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [() -> Void] = []
    private var thread = pthread_t()
    private var threadStarted = false

    private init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(work, nil)
    }

    /// Runs `job` on the engine's thread, after those queued; returns at once.
    public func async(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        if !threadStarted {
            threadStarted = true
            let context = Unmanaged.passUnretained(self).toOpaque()
            pthread_create(&thread, nil, { context in
                Unmanaged<ESpeakEngine>.fromOpaque(context!).takeUnretainedValue().run()
                return nil
            }, context)
        }
        jobs.append(job)
        pthread_cond_signal(work)
        pthread_mutex_unlock(mutex)
    }

    /// Runs `body` on the engine's thread and waits for its result.
    public func sync<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = Mutex<T?>(nil)
        let done = Mutex<Bool>(false)
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let c = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        pthread_cond_init(c, nil)
        defer {
            pthread_cond_destroy(c)
            pthread_mutex_destroy(m)
            m.deallocate()
            c.deallocate()
        }
        let signal = UnsafeSendable((m, c))
        async {
            let value = body()
            box.withLock { $0 = value }
            pthread_mutex_lock(signal.value.0)
            done.withLock { $0 = true }
            pthread_cond_signal(signal.value.1)
            pthread_mutex_unlock(signal.value.0)
        }
        pthread_mutex_lock(m)
        while !done.withLock({ $0 }) { pthread_cond_wait(c, m) }
        pthread_mutex_unlock(m)
        return box.withLock { $0! }
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            while jobs.isEmpty { pthread_cond_wait(work, mutex) }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
        }
    }

    // MARK: on the engine's thread

    /// Starts espeak-ng if it has not been; its error, if it cannot start. Engine thread only.
    private func start() -> ESpeakError? {
        if started { return startError }
        started = true
        let espeak: LibESpeakNG
        switch LibESpeakNG.loaded {
        case .success(let library): espeak = library
        case .failure(let problem):
            startError = ESpeakError(problem.description)
            return startError
        }
        // The data folder: ESPEAK_DATA_PATH, else the one built in (espeak_Info reports it).
        espeak.initializePath(nil)
        var path: UnsafePointer<CChar>?
        versionStorage = espeak.info(&path).map { String(cString: $0) } ?? "?"
        // espeak_Info reports the data folder it would use; without its phoneme table
        // espeak-ng would fail (older versions print to stderr and exit), so look first.
        dataPathStorage = path.map { String(cString: $0) } ?? ""
        if access(dataPathStorage + "/phontab", R_OK) != 0 {
            startError = ESpeakError(
                "no espeak-ng data at \(dataPathStorage.isEmpty ? "its default folder" : dataPathStorage) "
                    + "(install espeak-ng-data)")
            return startError
        }
        var context: espeak_ng_ERROR_CONTEXT?
        var status = espeak.initialize(&context)
        if status == ENS_OK {
            status = espeak.initializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
        }
        if status != ENS_OK {
            var text = [CChar](repeating: 0, count: 512)
            espeak.statusCodeMessage(status, &text, text.count)
            espeak.clearErrorContext(&context)
            startError = ESpeakError("espeak-ng \(versionStorage) would not start: \(String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))")
            return startError
        }
        sampleRateStorage = Int(espeak.sampleRate())
        espeak.setSynthCallback { samples, count, events in
            guard let events, let user = events.pointee.user_data else { return 0 }
            let collector = Unmanaged<Collector>.fromOpaque(user).takeUnretainedValue()
            if let samples, count > 0 {
                collector.samples.append(contentsOf: UnsafeBufferPointer(start: samples, count: Int(count)))
            }
            return 0
        }
        return nil
    }

    private final class Collector {
        var samples: [Int16] = []
    }

    /// Selects `voice`: nil, or why it cannot be used. Engine thread only.
    private func select(_ voice: ESpeakVoice) -> ESpeakError? {
        if let error = start() { return error }
        if voice.name != selectedVoice {
            let espeak = LibESpeakNG.functions
            let status = voice.name.withCString { espeak.setVoiceByName($0) }
            guard status == EE_OK else {
                // A failed selection leaves espeak-ng's voice half changed: reload the last
                // good one, so the next speaker of it sounds as before.
                if let good = selectedVoice {
                    selectedVoice = nil
                    if good.withCString({ espeak.setVoiceByName($0) }) == EE_OK { selectedVoice = good }
                }
                return ESpeakError("espeak-ng \(versionStorage) has no voice '\(voice.name)' (espeak-ng --voices lists them)")
            }
            selectedVoice = voice.name
        }
        let espeak = LibESpeakNG.functions
        _ = espeak.setParameter(espeakRATE, Int32(voice.rate), 0)
        _ = espeak.setParameter(espeakVOLUME, Int32(voice.volume), 0)
        return nil
    }

    /// Renders `text` in `voice`. Engine thread only (call through `sync` or `async`).
    public func renderHere(_ text: String, voice: ESpeakVoice) -> Result<SoundClip, ESpeakError> {
        if let error = select(voice) { return .failure(error) }
        let collector = Collector()
        let status = withExtendedLifetime(collector) { () -> espeak_ERROR in
            text.withCString { p in
                LibESpeakNG.functions.synth(
                    p, strlen(p) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil,
                    Unmanaged.passUnretained(collector).toOpaque())
            }
        }
        guard status == EE_OK else { return .failure(ESpeakError("espeak-ng could not render '\(text)' (error \(status.rawValue))")) }
        return .success(SoundClip(samples: collector.samples, sampleRate: sampleRateStorage, cuttable: false))
    }

    /// Renders `text` and waits for it.
    public func render(_ text: String, voice: ESpeakVoice) -> Result<SoundClip, ESpeakError> {
        sync { self.renderHere(text, voice: voice) }
    }

    /// Whether `voice` can speak, with the engine's version: what `hw check` reports.
    public func check(_ voice: ESpeakVoice) -> (version: String, dataPath: String, problem: ESpeakError?) {
        sync {
            let problem = self.select(voice)
            return (self.versionStorage, self.dataPathStorage, problem)
        }
    }
}

/// A value moved to another thread that the caller vouches for.
struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Speech through espeak-ng: `espeak:DEVICE?voice=en&rate=170&volume=100`.
///
/// `say` returns at once: the engine's thread renders the text a sentence at a time
/// (`Utterance.sentences`: it holds one sentence's sound, not the utterance's; each sentence
/// from the cache when it was said before) and hands the samples to `output`, the buzzer, whose one queue plays words and cue tones in
/// turn on one ALSA stream, so they never sound together. Announcements are queued cuttable:
/// `cutAnnouncements` drops those waiting (in the engine's queue and the buzzer's) and stops
/// the one playing. Rendered sentences are cached by text, so `duration(of:)` — the rendered
/// sample count over the rate — costs one rendering per distinct sentence.
///
/// A failed start, a missing voice or an output that cannot play: `unavailableReason` says
/// which, utterances are dropped, and the buzzer goes on beeping.
public final class ESpeakSpeaker: Speaker {
    public let name: String
    public let voice: ESpeakVoice
    public let output: any Buzzer
    private let engine: ESpeakEngine
    private let problem: ESpeakError?
    private let logger: Logger?

    private struct State {
        var cache: [String: SoundClip] = [:]
        /// Bumped by `cutAnnouncements`: an announcement rendered after a cut asked before it
        /// was queued is dropped.
        var cuts = 0
    }
    private let state = Mutex(State())
    /// At most this many phrases are kept (a 5-second phrase is 220 kB at 22 050 Hz): the fixed
    /// phrases repeat, a split's figures rarely do, and a Pi Zero 2 W has 512 MB.
    static let cacheLimit = 32

    public init(
        name: String, voice: ESpeakVoice = ESpeakVoice(), output: any Buzzer,
        engine: ESpeakEngine = .shared, logger: Logger? = nil
    ) {
        self.name = name
        self.voice = voice
        self.output = output
        self.engine = engine
        self.logger = logger
        let check = engine.check(voice)
        problem = check.problem
        if let problem { logger?.warning("no speech: \(problem); the device beeps only") }
    }

    public var unavailableReason: String? {
        if let problem { return problem.description }
        if let reason = output.unavailableReason { return "no sound output for speech: \(reason)" }
        return nil
    }

    /// The rendered clip of `text`, cached. Engine thread only.
    private func clipHere(_ text: String) -> SoundClip? {
        if let clip = state.withLock({ $0.cache[text] }) { return clip }
        guard case .success(let clip) = engine.renderHere(text, voice: voice) else { return nil }
        state.withLock {
            if $0.cache.count >= Self.cacheLimit { $0.cache.removeAll() }
            $0.cache[text] = clip
        }
        return clip
    }

    public func say(_ utterance: Utterance) {
        guard problem == nil else { return }
        let cuttable = utterance.priority == .announcement
        let cutsAtSay = state.withLock { $0.cuts }
        let output = UnsafeSendable(self.output)
        engine.async { [self] in
            // A sentence at a time: the engine holds one sentence's sound, and the first is
            // queued to play while the next renders.
            for sentence in Utterance.sentences(of: utterance.text) {
                guard var clip = clipHere(sentence) else { return }
                if cuttable && state.withLock({ $0.cuts }) != cutsAtSay { return }
                clip.cuttable = cuttable
                _ = output.value.play(clip)
            }
        }
    }

    public func duration(of whole: String) -> Duration {
        // As much as an utterance says (the engine renders what it is asked to time).
        let text = Utterance.capped(whole)
        if problem == nil {
            // The sentences as `say` renders them, one after the other.
            let sentences = Utterance.sentences(of: text)
            let clips = sentences.map { sentence in
                state.withLock { $0.cache[sentence] } ?? engine.sync({ [self] in UnsafeSendable(clipHere(sentence)) }).value
            }
            if !clips.isEmpty, clips.allSatisfy({ $0 != nil }) {
                return clips.reduce(Duration.zero) { $0 + ($1?.duration ?? .zero) }
            }
        }
        // No engine: an estimate at the speaker's rate.
        let words = text.split(whereSeparator: { $0 == " " }).count
        return .milliseconds(words * 60_000 / max(voice.rate, 1))
    }

    public func cutAnnouncements() {
        state.withLock { $0.cuts += 1 }
        output.cutClips()
    }

    public func drain() {
        _ = engine.sync { true }
        output.drain()
    }

    /// Renders `phrases` now, so that saying them later costs no rendering.
    public func prerender(_ phrases: [String]) {
        guard problem == nil else { return }
        for text in phrases.flatMap({ Utterance.sentences(of: $0) }) {
            engine.async { [self] in _ = clipHere(text) }
        }
    }
}
