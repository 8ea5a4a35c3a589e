//! HTML → readable plain text for WebFetch.
//!
//! `script`/`style`/`noscript`/`template`/`svg` elements and comments are dropped, block
//! elements become line breaks (list items get `- `), inline tags vanish, entities are decoded,
//! whitespace is collapsed within lines and empty lines are dropped.

const DROPPED: [&str; 5] = ["script", "style", "noscript", "template", "svg"];

const BLOCKS: [&str; 36] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "title",
    "tr",
    "ul",
    "body",
    "html",
];

/// Removes `<name ...> ... </name>` elements (ASCII case-insensitive) and `<!-- -->` comments.
fn drop_elements(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut i = 0;
    'outer: while i < html.len() {
        let Some(rel) = lower[i..].find('<') else {
            out.push_str(&html[i..]);
            break;
        };
        let lt = i + rel;
        out.push_str(&html[i..lt]);
        let rest = &lower[lt..];
        if rest.starts_with("<!--") {
            i = match rest.find("-->") {
                Some(end) => lt + end + 3,
                None => html.len(),
            };
            continue;
        }
        for name in DROPPED {
            let open = format!("<{name}");
            if rest.starts_with(&open) {
                let after = rest.as_bytes().get(open.len()).copied();
                if matches!(
                    after,
                    Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') | None
                ) {
                    let close = format!("</{name}");
                    i = match rest.find(&close) {
                        Some(c) => match rest[c..].find('>') {
                            Some(gt) => lt + c + gt + 1,
                            None => html.len(),
                        },
                        None => html.len(),
                    };
                    continue 'outer;
                }
            }
        }
        out.push('<');
        i = lt + 1;
    }
    out
}

fn named_entity(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "laquo" => '«',
        "raquo" => '»',
        "ldquo" => '“',
        "rdquo" => '”',
        "lsquo" => '‘',
        "rsquo" => '’',
        "bull" => '•',
        "middot" => '·',
        "times" => '×',
        "deg" => '°',
        "euro" => '€',
        "pound" => '£',
        "yen" => '¥',
        "cent" => '¢',
        "sect" => '§',
        "para" => '¶',
        _ => return None,
    })
}

/// Decodes `&name;`, `&#NNN;` and `&#xHH;` entities; unknown ones are kept as written.
pub fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.find(';').filter(|&s| s > 0 && s <= 10);
        let decoded = semi.and_then(|s| {
            let name = &after[..s];
            let ch = if let Some(num) = name.strip_prefix('#') {
                let code = match num.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => num.parse::<u32>().ok(),
                };
                code.and_then(char::from_u32)
            } else {
                named_entity(name)
            };
            ch.map(|c| (c, s))
        });
        match decoded {
            Some((c, s)) => {
                out.push(if c == '\u{a0}' { ' ' } else { c });
                rest = &after[s + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Converts an HTML document to readable text.
pub fn html_to_text(html: &str) -> String {
    let cleaned = drop_elements(html);
    let mut raw = String::with_capacity(cleaned.len());
    let mut rest = cleaned.as_str();
    while let Some(lt) = rest.find('<') {
        raw.push_str(&rest[..lt]);
        let after = &rest[lt + 1..];
        let is_tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!' || c == '?');
        if !is_tag {
            raw.push('<');
            rest = after;
            continue;
        }
        let Some(gt) = after.find('>') else {
            // An unclosed tag: drop the rest.
            rest = "";
            break;
        };
        let inner = &after[..gt];
        let closing = inner.starts_with('/');
        let name: String = inner
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if name == "li" && !closing {
            raw.push_str("\n- ");
        } else if name == "td" || name == "th" {
            raw.push(' ');
        } else if BLOCKS.contains(&name.as_str()) {
            raw.push('\n');
        }
        rest = &after[gt + 1..];
    }
    raw.push_str(rest);
    let text = decode_entities(&raw);
    text.split('\n')
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_document() {
        let html = "<html><head><title>T &amp; U</title><style>p{color:red}</style>\
            <script>var x = '<p>no</p>';</script></head><body><h1>Hello</h1>\
            <p>One <b>bold</b>   word&nbsp;here &#233;&#x263A;</p><!-- hidden -->\
            <ul><li>a</li><li>b</li></ul><p>x &lt; y &unknown; z</p></body></html>";
        assert_eq!(
            html_to_text(html),
            "T & U\nHello\nOne bold word here é☺\n- a\n- b\nx < y &unknown; z"
        );
    }

    #[test]
    fn stray_angle_brackets() {
        assert_eq!(html_to_text("a < b > c"), "a < b > c");
        assert_eq!(html_to_text("<SCRIPT type=x>bad()</SCRIPT >ok"), "ok");
    }
}
