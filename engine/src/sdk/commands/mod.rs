//! System commands: the built-in ones, the registry that lists and invokes them, commands the
//! host declares, skills, the `Skill` tool and `context: fork` skills.

pub mod builtin;
pub mod fork;
pub mod host;
pub mod registry;
pub mod skill_tool;
pub mod skills;
