//! The C library's tests: the exports of `robota::ffi`, the header, the C examples and
//! quick starts, and the documents' compiled snippets.

mod c_abi;
mod c_examples;
mod config_unknown_keys;
mod crash_safety;
mod docs_snippets;
mod ffi_abi12;
mod ffi_error_classes;
mod ffi_host_provider;
mod ffi_images;
mod ffi_inline_delivery;
mod ffi_session_run;
mod ffi_thread_delivery;
mod ffi_wait_delivered;
mod header_hygiene;
mod hooks_command_executor;
mod json_error_classes;
mod library_log;
mod readme_doctests;
mod record_replay;
mod sdk_commands;
mod sdk_host_commands;
mod sdk_params;
mod sdk_plugins;
mod sdk_query;
mod sdk_settings;
mod sdk_settings_provider;
mod sdk_shared_provider;
mod sdk_store;
mod sdk_transcript;
mod session_compaction_rounds;
mod session_files;
mod session_lifecycle;
mod store_runtime_home;
mod team_tools;
