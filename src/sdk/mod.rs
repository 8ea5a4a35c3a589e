//! Assembly: InteractiveSession, runtime config, commands (issue 5).
