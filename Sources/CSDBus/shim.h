#include <systemd/sd-bus.h>

// libsystemd's sd-bus, the D-Bus client the BlueZ heart-rate source talks to bluetoothd
// with. It is opened when a strap is first looked for (dlopen), not linked: every command
// would load it at start-up otherwise, for a strap only `pacer device`, `pacer hr` and
// `pacer hw check` look for. libsystemd has had the one SONAME since it was made (2014);
// the header has no version macro to check it against.
#define PACER_LIBSYSTEMD_SONAME "libsystemd.so.0"

// The functions Pacer calls, as pointer types, exactly as the header declares them. Only
// the fixed-argument ones: sd_bus_call_method, sd_bus_message_append and _read are variadic
// and cannot be called from Swift (their va_list forms neither: a Swift function type that
// names a va_list crashes the compiler on aarch64, see CALSA's shim.h).
typedef __typeof__(&sd_bus_open_system) pacer_sd_bus_open_system_f;
typedef __typeof__(&sd_bus_new) pacer_sd_bus_new_f;
typedef __typeof__(&sd_bus_set_address) pacer_sd_bus_set_address_f;
typedef __typeof__(&sd_bus_set_bus_client) pacer_sd_bus_set_bus_client_f;
typedef __typeof__(&sd_bus_start) pacer_sd_bus_start_f;
typedef __typeof__(&sd_bus_flush_close_unref) pacer_sd_bus_flush_close_unref_f;
typedef __typeof__(&sd_bus_get_fd) pacer_sd_bus_get_fd_f;
typedef __typeof__(&sd_bus_get_events) pacer_sd_bus_get_events_f;
typedef __typeof__(&sd_bus_get_timeout) pacer_sd_bus_get_timeout_f;
typedef __typeof__(&sd_bus_process) pacer_sd_bus_process_f;
typedef __typeof__(&sd_bus_add_match) pacer_sd_bus_add_match_f;
typedef __typeof__(&sd_bus_slot_unref) pacer_sd_bus_slot_unref_f;
typedef __typeof__(&sd_bus_call) pacer_sd_bus_call_f;
typedef __typeof__(&sd_bus_call_async) pacer_sd_bus_call_async_f;
typedef __typeof__(&sd_bus_message_new_method_call) pacer_sd_bus_message_new_method_call_f;
typedef __typeof__(&sd_bus_message_ref) pacer_sd_bus_message_ref_f;
typedef __typeof__(&sd_bus_message_unref) pacer_sd_bus_message_unref_f;
typedef __typeof__(&sd_bus_message_append_basic) pacer_sd_bus_message_append_basic_f;
typedef __typeof__(&sd_bus_message_open_container) pacer_sd_bus_message_open_container_f;
typedef __typeof__(&sd_bus_message_close_container) pacer_sd_bus_message_close_container_f;
typedef __typeof__(&sd_bus_message_read_basic) pacer_sd_bus_message_read_basic_f;
typedef __typeof__(&sd_bus_message_read_array) pacer_sd_bus_message_read_array_f;
typedef __typeof__(&sd_bus_message_enter_container) pacer_sd_bus_message_enter_container_f;
typedef __typeof__(&sd_bus_message_exit_container) pacer_sd_bus_message_exit_container_f;
typedef __typeof__(&sd_bus_message_peek_type) pacer_sd_bus_message_peek_type_f;
typedef __typeof__(&sd_bus_message_skip) pacer_sd_bus_message_skip_f;
typedef __typeof__(&sd_bus_message_get_path) pacer_sd_bus_message_get_path_f;
typedef __typeof__(&sd_bus_message_get_interface) pacer_sd_bus_message_get_interface_f;
typedef __typeof__(&sd_bus_message_get_member) pacer_sd_bus_message_get_member_f;
typedef __typeof__(&sd_bus_message_get_error) pacer_sd_bus_message_get_error_f;
typedef __typeof__(&sd_bus_error_free) pacer_sd_bus_error_free_f;
