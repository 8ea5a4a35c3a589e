//! The `images` of a prompt: `[{"path"}|{"data","media_type"}|{"url","media_type"?}]`, each
//! checked and turned into an image [`Part`] before anything is submitted (formats and limits:
//! [`crate::core::image`]).

use std::path::Path;

use serde_json::{Map, Value};

use crate::core::image::{
    inline_image, inline_image_base64, IMAGE_MEDIA_TYPES, MAX_IMAGES_PER_PROMPT, MAX_IMAGE_BYTES,
};
use crate::core::message::Part;
use crate::sdk::error::{SdkError, SdkResult};

/// The image parts of `images` (absent or `null`: none). `what` names the document in errors
/// (`input_json: images[1]: …`); a relative `path` is read from `cwd`.
pub fn parse(what: &str, images: Option<&Value>, cwd: &Path) -> SdkResult<Vec<Part>> {
    let list = match images {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(SdkError::config(format!(
                "{what}: field \"images\" must be an array"
            )))
        }
    };
    if list.len() > MAX_IMAGES_PER_PROMPT {
        return Err(SdkError::config(format!(
            "{what}: field \"images\" has {} images, over the limit of {MAX_IMAGES_PER_PROMPT}",
            list.len()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            image(v, cwd).map_err(|e| SdkError::config(format!("{what}: images[{i}]: {e}")))
        })
        .collect()
}

fn image(v: &Value, cwd: &Path) -> Result<Part, String> {
    let Value::Object(map) = v else {
        return Err("must be an object with \"path\", \"data\" or \"url\"".into());
    };
    let kinds: Vec<&str> = ["path", "data", "url"]
        .into_iter()
        .filter(|k| map.contains_key(*k))
        .collect();
    let allowed: &[&str] = match kinds.as_slice() {
        ["path"] => &["path"],
        ["data"] => &["data", "media_type"],
        ["url"] => &["url", "media_type"],
        [] => return Err("must have one of \"path\", \"data\" or \"url\"".into()),
        _ => return Err(format!("has both \"{}\" and \"{}\"", kinds[0], kinds[1])),
    };
    if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "unknown field \"{k}\" (expected {})",
            allowed
                .iter()
                .map(|a| format!("\"{a}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    match kinds[0] {
        "path" => from_file(string(map, "path")?, cwd),
        "data" => {
            if !map.contains_key("media_type") {
                return Err("\"data\" needs \"media_type\"".into());
            }
            let media_type = string(map, "media_type")?;
            inline_image_base64(string(map, "data")?, media_type)
        }
        _ => from_url(string(map, "url")?, optional_media_type(map)?),
    }
}

fn string<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(format!("field \"{key}\" must be a string")),
    }
}

fn optional_media_type(map: &Map<String, Value>) -> Result<Option<String>, String> {
    if !map.contains_key("media_type") {
        return Ok(None);
    }
    let t = string(map, "media_type")?;
    if !IMAGE_MEDIA_TYPES.contains(&t) {
        return Err(format!(
            "unsupported media_type \"{t}\" (expected one of {})",
            IMAGE_MEDIA_TYPES.join(", ")
        ));
    }
    Ok(Some(t.to_string()))
}

fn from_file(path: &str, cwd: &Path) -> Result<Part, String> {
    let full = cwd.join(path);
    let meta = std::fs::metadata(&full).map_err(|e| format!("cannot read \"{path}\": {e}"))?;
    if !meta.is_file() {
        return Err(format!("\"{path}\" is not a file"));
    }
    // Checked before reading: a huge file is never loaded.
    if meta.len() > MAX_IMAGE_BYTES as u64 {
        return Err(format!(
            "\"{path}\" is {} bytes, over the limit of {MAX_IMAGE_BYTES} bytes (5 MiB)",
            meta.len()
        ));
    }
    let bytes = std::fs::read(&full).map_err(|e| format!("cannot read \"{path}\": {e}"))?;
    inline_image(&bytes).map_err(|e| format!("\"{path}\": {e}"))
}

fn from_url(url: &str, mime_type: Option<String>) -> Result<Part, String> {
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(Part::ImageUri {
            uri: url.to_string(),
            mime_type,
        }),
        _ => Err(format!(
            "\"url\" must be an http:// or https:// URL, not \"{url}\""
        )),
    }
}
