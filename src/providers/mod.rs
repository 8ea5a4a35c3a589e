//! Concrete providers behind [`crate::core::provider::Provider`], one file each.

pub mod scripted;

pub use scripted::ScriptedProvider;
