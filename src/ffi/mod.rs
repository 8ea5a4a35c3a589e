//! The C ABI (issue 5). The only module where `unsafe` is allowed.
