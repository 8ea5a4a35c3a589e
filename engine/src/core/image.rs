//! Images in prompts and tool results: the formats (told by their magic bytes, never by a file
//! name), the limits, and the conversion of bytes to an inline image [`Part`].

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::message::{Message, Part};

/// Largest image, decoded (5 MiB, Anthropic's limit per image).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// Most images one prompt may carry.
pub const MAX_IMAGES_PER_PROMPT: usize = 20;

/// The media types accepted, in the order the documentation lists them.
pub const IMAGE_MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The media type of `bytes` by their magic bytes (PNG, JPEG, GIF, WebP), or `None`.
pub fn sniff_media_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// An inline image part of `bytes`: their media type told by their magic bytes; an error (what
/// is wrong, without naming the image) when they are no supported image or too large.
pub fn inline_image(bytes: &[u8]) -> Result<Part, String> {
    check_size(bytes.len())?;
    let mime_type = sniff_media_type(bytes).ok_or_else(|| {
        format!(
            "not a supported image (the data is none of {}; told by its first bytes)",
            IMAGE_MEDIA_TYPES.join(", ")
        )
    })?;
    Ok(Part::ImageInline {
        mime_type: mime_type.to_string(),
        data: STANDARD.encode(bytes),
    })
}

/// An inline image part from base64 `data` declared as `media_type`: the media type must be a
/// supported one and agree with the decoded data's magic bytes.
pub fn inline_image_base64(data: &str, media_type: &str) -> Result<Part, String> {
    if !IMAGE_MEDIA_TYPES.contains(&media_type) {
        return Err(format!(
            "unsupported media_type \"{media_type}\" (expected one of {})",
            IMAGE_MEDIA_TYPES.join(", ")
        ));
    }
    // A first bound before decoding: base64 is 4 characters per 3 bytes.
    check_size(data.len() / 4 * 3)?;
    let bytes = STANDARD
        .decode(data)
        .map_err(|e| format!("\"data\" is not valid base64 ({e})"))?;
    let part = inline_image(&bytes)?;
    match &part {
        Part::ImageInline { mime_type, .. } if mime_type != media_type => Err(format!(
            "media_type \"{media_type}\" does not match the data, which is {mime_type}"
        )),
        _ => Ok(part),
    }
}

/// Characters an inline image counts for in the context estimate in place of its base64 data:
/// 1,600 tokens (what Anthropic charges for an image of about 1.15 megapixels, the size it
/// scales larger ones down to) at the estimator's 4 characters per token.
pub const IMAGE_ESTIMATE_CHARS: usize = 6_400;

/// The serialized length `json_len` of `m` as the context estimate counts it: each inline
/// image's data (base64, written without escapes) counts as [`IMAGE_ESTIMATE_CHARS`], not as
/// its length (a 1 MiB image would otherwise count as 350,000 tokens).
pub fn estimated_json_len(m: &Message, json_len: usize) -> usize {
    let Some(parts) = &m.parts else {
        return json_len;
    };
    parts.iter().fold(json_len, |len, p| match p {
        Part::ImageInline { data, .. } => len.saturating_sub(data.len()) + IMAGE_ESTIMATE_CHARS,
        _ => len,
    })
}

fn check_size(len: usize) -> Result<(), String> {
    if len > MAX_IMAGE_BYTES {
        return Err(format!(
            "the image is {len} bytes, over the limit of {MAX_IMAGE_BYTES} bytes (5 MiB)"
        ));
    }
    Ok(())
}

/// The bytes of base64 `data` (for tests and hosts that read an inline part back).
pub fn decode_base64(data: &str) -> Option<Vec<u8>> {
    STANDARD.decode(data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn sniffs_each_format_and_nothing_else() {
        assert_eq!(sniff_media_type(PNG), Some("image/png"));
        assert_eq!(
            sniff_media_type(&[0xff, 0xd8, 0xff, 0xe0]),
            Some("image/jpeg")
        );
        assert_eq!(sniff_media_type(b"GIF89a...."), Some("image/gif"));
        assert_eq!(sniff_media_type(b"GIF87a...."), Some("image/gif"));
        assert_eq!(
            sniff_media_type(b"RIFF\x10\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(sniff_media_type(b"RIFF\x10\0\0\0WAVEfmt "), None);
        assert_eq!(sniff_media_type(b"hello"), None);
        assert_eq!(sniff_media_type(b""), None);
    }

    #[test]
    fn base64_input_must_agree_with_its_media_type() {
        let data = STANDARD.encode(PNG);
        assert_eq!(
            inline_image_base64(&data, "image/png"),
            Ok(Part::ImageInline {
                mime_type: "image/png".into(),
                data: data.clone()
            })
        );
        assert_eq!(
            inline_image_base64(&data, "image/jpeg"),
            Err("media_type \"image/jpeg\" does not match the data, which is image/png".into())
        );
        assert_eq!(
            inline_image_base64(&data, "image/bmp"),
            Err("unsupported media_type \"image/bmp\" (expected one of image/png, image/jpeg, image/gif, image/webp)".into())
        );
        assert_eq!(
            inline_image_base64("%%%", "image/png"),
            Err("\"data\" is not valid base64 (Invalid symbol 37, offset 0.)".into())
        );
    }

    #[test]
    fn an_image_counts_as_a_fixed_size_in_the_context_estimate() {
        use crate::core::store::ConversationStore;
        let mut big = PNG.to_vec();
        big.resize(MAX_IMAGE_BYTES, 0);
        let mut m = Message::user("look");
        m.parts = Some(vec![
            Part::Text {
                text: "look".into(),
            },
            inline_image(&big).unwrap_or_else(|e| panic!("{e}")),
        ]);
        let full = serde_json::to_string(&m).map_or(0, |s| s.len());
        let data_len = MAX_IMAGE_BYTES.div_ceil(3) * 4;
        assert_eq!(
            estimated_json_len(&m, full),
            full - data_len + IMAGE_ESTIMATE_CHARS
        );
        let mut store = ConversationStore::new();
        store.append(m.clone());
        assert_eq!(
            store.serialized_len(),
            2 + full - data_len + IMAGE_ESTIMATE_CHARS
        );
        assert_eq!(
            store.estimate_with(&m, None).serialized_tokens,
            ((2 + 2 * (full - data_len + IMAGE_ESTIMATE_CHARS) + 1) as u64).div_ceil(4)
        );
        let text_only = Message::user("look");
        let len = serde_json::to_string(&text_only).map_or(0, |s| s.len());
        assert_eq!(estimated_json_len(&text_only, len), len);
    }

    #[test]
    fn size_limit_is_exact() {
        let mut at_limit = PNG.to_vec();
        at_limit.resize(MAX_IMAGE_BYTES, 0);
        assert!(inline_image(&at_limit).is_ok());
        at_limit.push(0);
        assert_eq!(
            inline_image(&at_limit),
            Err("the image is 5242881 bytes, over the limit of 5242880 bytes (5 MiB)".into())
        );
    }
}
