import CESpeak

/// libespeak-ng's functions, opened when the device first speaks (see `DynamicLibrary`), each
/// with the headers' own signature (`initialize` is `espeak_ng_Initialize`, ...); the speaker
/// calls them through `LibESpeakNG.functions` once `LibESpeakNG.problem` is nil.
struct LibESpeakNG: OpenedLibrary {
    /// How to install the library, for the error a missing one gives.
    static let install = "install it: apt-get install libespeak-ng1 espeak-ng-data"

    let initializePath: pacer_espeak_ng_InitializePath_f
    let info: pacer_espeak_Info_f
    let initialize: pacer_espeak_ng_Initialize_f
    let initializeOutput: pacer_espeak_ng_InitializeOutput_f
    let statusCodeMessage: pacer_espeak_ng_GetStatusCodeMessage_f
    let clearErrorContext: pacer_espeak_ng_ClearErrorContext_f
    let sampleRate: pacer_espeak_ng_GetSampleRate_f
    let setSynthCallback: pacer_espeak_SetSynthCallback_f
    let setVoiceByName: pacer_espeak_SetVoiceByName_f
    let setParameter: pacer_espeak_SetParameter_f
    let synth: pacer_espeak_Synth_f

    /// Opened once, on first use; the error is kept and given again to every caller.
    static let loaded = opening(PACER_LIBESPEAK_NG_SONAME, install: install, LibESpeakNG.init)


    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        initializePath = try library.function("espeak_ng_InitializePath", as: pacer_espeak_ng_InitializePath_f.self)
        info = try library.function("espeak_Info", as: pacer_espeak_Info_f.self)
        initialize = try library.function("espeak_ng_Initialize", as: pacer_espeak_ng_Initialize_f.self)
        initializeOutput = try library.function("espeak_ng_InitializeOutput", as: pacer_espeak_ng_InitializeOutput_f.self)
        statusCodeMessage = try library.function("espeak_ng_GetStatusCodeMessage", as: pacer_espeak_ng_GetStatusCodeMessage_f.self)
        clearErrorContext = try library.function("espeak_ng_ClearErrorContext", as: pacer_espeak_ng_ClearErrorContext_f.self)
        sampleRate = try library.function("espeak_ng_GetSampleRate", as: pacer_espeak_ng_GetSampleRate_f.self)
        setSynthCallback = try library.function("espeak_SetSynthCallback", as: pacer_espeak_SetSynthCallback_f.self)
        setVoiceByName = try library.function("espeak_SetVoiceByName", as: pacer_espeak_SetVoiceByName_f.self)
        setParameter = try library.function("espeak_SetParameter", as: pacer_espeak_SetParameter_f.self)
        synth = try library.function("espeak_Synth", as: pacer_espeak_Synth_f.self)
    }
}
