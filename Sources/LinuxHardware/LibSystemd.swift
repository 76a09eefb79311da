import CSDBus

/// libsystemd's sd-bus functions, opened at first use (see `DynamicLibrary`), with the header's
/// own signatures (CSDBus's `pacer_sd_bus_…_f` types). The BlueZ heart-rate source, the scan
/// and the check call them through `LibSystemd.functions` once `LibSystemd.problem` is nil,
/// always by way of `DBusConnection` and `DBusMessageReader`/`Writer` (BlueZDBus.swift).
struct LibSystemd: OpenedLibrary {
    /// How to install the library, for the error a missing one gives.
    static let install = "install libsystemd (sudo apt install libsystemd0; it is on every Debian with systemd)"

    let openSystem: pacer_sd_bus_open_system_f
    let new: pacer_sd_bus_new_f
    let setAddress: pacer_sd_bus_set_address_f
    let setBusClient: pacer_sd_bus_set_bus_client_f
    let start: pacer_sd_bus_start_f
    let flushCloseUnref: pacer_sd_bus_flush_close_unref_f
    let getFD: pacer_sd_bus_get_fd_f
    let getEvents: pacer_sd_bus_get_events_f
    let getTimeout: pacer_sd_bus_get_timeout_f
    let process: pacer_sd_bus_process_f
    let addMatch: pacer_sd_bus_add_match_f
    let slotUnref: pacer_sd_bus_slot_unref_f
    let call: pacer_sd_bus_call_f
    let callAsync: pacer_sd_bus_call_async_f
    let newMethodCall: pacer_sd_bus_message_new_method_call_f
    let messageRef: pacer_sd_bus_message_ref_f
    let messageUnref: pacer_sd_bus_message_unref_f
    let appendBasic: pacer_sd_bus_message_append_basic_f
    let openContainer: pacer_sd_bus_message_open_container_f
    let closeContainer: pacer_sd_bus_message_close_container_f
    let readBasic: pacer_sd_bus_message_read_basic_f
    let readArray: pacer_sd_bus_message_read_array_f
    let enterContainer: pacer_sd_bus_message_enter_container_f
    let exitContainer: pacer_sd_bus_message_exit_container_f
    let peekType: pacer_sd_bus_message_peek_type_f
    let skip: pacer_sd_bus_message_skip_f
    let getPath: pacer_sd_bus_message_get_path_f
    let getInterface: pacer_sd_bus_message_get_interface_f
    let getMember: pacer_sd_bus_message_get_member_f
    let getError: pacer_sd_bus_message_get_error_f
    let errorFree: pacer_sd_bus_error_free_f

    /// Opened once, on first use; the error is kept and given again to every caller.
    static let loaded = opening(PACER_LIBSYSTEMD_SONAME, install: install, LibSystemd.init)

    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        openSystem = try library.function("sd_bus_open_system", as: pacer_sd_bus_open_system_f.self)
        new = try library.function("sd_bus_new", as: pacer_sd_bus_new_f.self)
        setAddress = try library.function("sd_bus_set_address", as: pacer_sd_bus_set_address_f.self)
        setBusClient = try library.function("sd_bus_set_bus_client", as: pacer_sd_bus_set_bus_client_f.self)
        start = try library.function("sd_bus_start", as: pacer_sd_bus_start_f.self)
        flushCloseUnref = try library.function("sd_bus_flush_close_unref", as: pacer_sd_bus_flush_close_unref_f.self)
        getFD = try library.function("sd_bus_get_fd", as: pacer_sd_bus_get_fd_f.self)
        getEvents = try library.function("sd_bus_get_events", as: pacer_sd_bus_get_events_f.self)
        getTimeout = try library.function("sd_bus_get_timeout", as: pacer_sd_bus_get_timeout_f.self)
        process = try library.function("sd_bus_process", as: pacer_sd_bus_process_f.self)
        addMatch = try library.function("sd_bus_add_match", as: pacer_sd_bus_add_match_f.self)
        slotUnref = try library.function("sd_bus_slot_unref", as: pacer_sd_bus_slot_unref_f.self)
        call = try library.function("sd_bus_call", as: pacer_sd_bus_call_f.self)
        callAsync = try library.function("sd_bus_call_async", as: pacer_sd_bus_call_async_f.self)
        newMethodCall = try library.function("sd_bus_message_new_method_call", as: pacer_sd_bus_message_new_method_call_f.self)
        messageRef = try library.function("sd_bus_message_ref", as: pacer_sd_bus_message_ref_f.self)
        messageUnref = try library.function("sd_bus_message_unref", as: pacer_sd_bus_message_unref_f.self)
        appendBasic = try library.function("sd_bus_message_append_basic", as: pacer_sd_bus_message_append_basic_f.self)
        openContainer = try library.function("sd_bus_message_open_container", as: pacer_sd_bus_message_open_container_f.self)
        closeContainer = try library.function("sd_bus_message_close_container", as: pacer_sd_bus_message_close_container_f.self)
        readBasic = try library.function("sd_bus_message_read_basic", as: pacer_sd_bus_message_read_basic_f.self)
        readArray = try library.function("sd_bus_message_read_array", as: pacer_sd_bus_message_read_array_f.self)
        enterContainer = try library.function("sd_bus_message_enter_container", as: pacer_sd_bus_message_enter_container_f.self)
        exitContainer = try library.function("sd_bus_message_exit_container", as: pacer_sd_bus_message_exit_container_f.self)
        peekType = try library.function("sd_bus_message_peek_type", as: pacer_sd_bus_message_peek_type_f.self)
        skip = try library.function("sd_bus_message_skip", as: pacer_sd_bus_message_skip_f.self)
        getPath = try library.function("sd_bus_message_get_path", as: pacer_sd_bus_message_get_path_f.self)
        getInterface = try library.function("sd_bus_message_get_interface", as: pacer_sd_bus_message_get_interface_f.self)
        getMember = try library.function("sd_bus_message_get_member", as: pacer_sd_bus_message_get_member_f.self)
        getError = try library.function("sd_bus_message_get_error", as: pacer_sd_bus_message_get_error_f.self)
        errorFree = try library.function("sd_bus_error_free", as: pacer_sd_bus_error_free_f.self)
    }
}
