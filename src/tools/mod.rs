//! Built-in tools and function tools (issue 4).
