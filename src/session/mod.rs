//! The generic Session: permission enforcer, hooks lifecycle, context tracking (issue 4).
