//! System commands: the built-in ones, the registry that lists and invokes them, commands the
//! host declares, and skills.

pub mod builtin;
pub mod host;
pub mod registry;
pub mod skills;
