//! The built-in tool registry: the eight tools in reference order and their schemas.

use robota_engine::tools::{
    builtin_tool, builtin_tools, builtin_tools_named, ToolEnv, BUILTIN_TOOL_NAMES,
};

#[test]
fn registry_lists_the_eight_in_reference_order() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = builtin_tools(dir.path())
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(names, BUILTIN_TOOL_NAMES.to_vec());
    assert!(builtin_tool("Nope", dir.path()).is_none());
    let env = ToolEnv::new(dir.path());
    let err = builtin_tools_named(&["Read", "Nope"], &env).err().unwrap();
    assert_eq!(
        err,
        "Unknown built-in tool: Nope (available: Bash, Read, Write, Edit, Glob, Grep, WebFetch, WebSearch)"
    );
}

#[test]
fn registry_schemas_use_camel_case_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let props = |name: &str| -> Vec<String> {
        let t = builtin_tool(name, dir.path()).unwrap();
        let mut keys: Vec<String> = t.parameters()["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(props("Bash"), ["command", "timeout", "workingDirectory"]);
    assert_eq!(props("Read"), ["filePath", "limit", "offset"]);
    assert_eq!(props("Write"), ["content", "filePath"]);
    assert_eq!(
        props("Edit"),
        ["filePath", "newString", "oldString", "replaceAll"]
    );
    assert_eq!(props("Glob"), ["limit", "path", "pattern"]);
    assert_eq!(
        props("Grep"),
        [
            "caseInsensitive",
            "contextLines",
            "glob",
            "outputMode",
            "path",
            "pattern"
        ]
    );
    assert_eq!(props("WebFetch"), ["headers", "url"]);
    assert_eq!(props("WebSearch"), ["limit", "query"]);
    let read_only: Vec<bool> = builtin_tools(dir.path())
        .iter()
        .map(|t| t.read_only())
        .collect();
    assert_eq!(
        read_only,
        [false, true, false, false, true, true, true, true]
    );
}
