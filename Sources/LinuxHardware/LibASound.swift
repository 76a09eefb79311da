import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// libasound's functions, opened when a sound is first played or probed (see `DynamicLibrary`),
/// each with the headers' own signature (`pcmOpen` is `snd_pcm_open`, ...); the buzzer and the
/// hardware check call them through `LibASound.functions` once `LibASound.problem` is nil.
struct LibASound: OpenedLibrary {
    /// How to install the library, for the error a missing one gives.
    static let install = "install it: apt-get install libasound2 (Debian 13: libasound2t64)"

    let version: pacer_snd_asoundlib_version_f
    let strerror: pacer_snd_strerror_f
    /// `snd_lib_error_set_local`, untyped: its type holds a `va_list` (see CALSA's shim.h).
    nonisolated(unsafe) let errorSetLocal: UnsafeMutableRawPointer
    let configTop: pacer_snd_config_top_f
    let configLoad: pacer_snd_config_load_f
    let configDelete: pacer_snd_config_delete_f
    let inputBufferOpen: pacer_snd_input_buffer_open_f
    let inputClose: pacer_snd_input_close_f
    let pcmOpen: pacer_snd_pcm_open_f
    let pcmOpenLconf: pacer_snd_pcm_open_lconf_f
    let pcmNonblock: pacer_snd_pcm_nonblock_f
    let pcmSetParams: pacer_snd_pcm_set_params_f
    let pcmType: pacer_snd_pcm_type_f
    let pcmTypeName: pacer_snd_pcm_type_name_f
    let pcmClose: pacer_snd_pcm_close_f
    let pcmWritei: pacer_snd_pcm_writei_f
    let pcmRecover: pacer_snd_pcm_recover_f
    let pcmPrepare: pacer_snd_pcm_prepare_f
    let pcmDrop: pacer_snd_pcm_drop_f
    let pcmDrain: pacer_snd_pcm_drain_f

    /// Opened once, on first use; the error is kept and given again to every caller.
    static let loaded = opening(PACER_LIBASOUND_SONAME, install: install, LibASound.init)

    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        version = try library.function("snd_asoundlib_version", as: pacer_snd_asoundlib_version_f.self)
        strerror = try library.function("snd_strerror", as: pacer_snd_strerror_f.self)
        errorSetLocal = try library.function("snd_lib_error_set_local", as: UnsafeMutableRawPointer.self)
        configTop = try library.function("snd_config_top", as: pacer_snd_config_top_f.self)
        configLoad = try library.function("snd_config_load", as: pacer_snd_config_load_f.self)
        configDelete = try library.function("snd_config_delete", as: pacer_snd_config_delete_f.self)
        inputBufferOpen = try library.function("snd_input_buffer_open", as: pacer_snd_input_buffer_open_f.self)
        inputClose = try library.function("snd_input_close", as: pacer_snd_input_close_f.self)
        pcmOpen = try library.function("snd_pcm_open", as: pacer_snd_pcm_open_f.self)
        pcmOpenLconf = try library.function("snd_pcm_open_lconf", as: pacer_snd_pcm_open_lconf_f.self)
        pcmNonblock = try library.function("snd_pcm_nonblock", as: pacer_snd_pcm_nonblock_f.self)
        pcmSetParams = try library.function("snd_pcm_set_params", as: pacer_snd_pcm_set_params_f.self)
        pcmType = try library.function("snd_pcm_type", as: pacer_snd_pcm_type_f.self)
        pcmTypeName = try library.function("snd_pcm_type_name", as: pacer_snd_pcm_type_name_f.self)
        pcmClose = try library.function("snd_pcm_close", as: pacer_snd_pcm_close_f.self)
        pcmWritei = try library.function("snd_pcm_writei", as: pacer_snd_pcm_writei_f.self)
        pcmRecover = try library.function("snd_pcm_recover", as: pacer_snd_pcm_recover_f.self)
        pcmPrepare = try library.function("snd_pcm_prepare", as: pacer_snd_pcm_prepare_f.self)
        pcmDrop = try library.function("snd_pcm_drop", as: pacer_snd_pcm_drop_f.self)
        pcmDrain = try library.function("snd_pcm_drain", as: pacer_snd_pcm_drain_f.self)
    }

    /// The text for a libasound error code (`snd_strerror`); a system error's own text
    /// (`strerror`) when the library could not be opened, for the codes Pacer makes itself.
    static func errorText(_ code: Int32) -> String {
        if case .success(let library) = loaded, let text = library.strerror(code) { return String(cString: text) }
        return Glibc.strerror(abs(code)).map { String(cString: $0) } ?? "error \(code)"
    }
}
