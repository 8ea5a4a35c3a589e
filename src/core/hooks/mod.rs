//! Lifecycle hooks: config, runner, command and http executors (issue 4).
