//! The `skill` tool result: one `<skill_content name="…">` block holding a
//! `<skill_resources>` hint for the skill's resource base and the body in
//! `<skill_instructions>`, plus the escaping rules the skill markup uses.
//!
//! The harness releases lay the block out in one of two ways ([`ContentLayout`]):
//! the earlier release (the design records) puts `<skill_instructions>` right
//! after `</skill_resources>`; release 0.1.1-rc.2 leaves one blank line between
//! them. Everything else is the same, so one renderer serves both.

use super::push_escaped;
use crate::model::ResourceBase;

/// Escapes text for an XML attribute value (`& < > " '`).
pub fn escape_attribute(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes text for XML character data (`& < >`).
pub fn escape_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// Resource hint for the `skill` tool result.
pub fn resource_hint(provider: &str, resource_base: Option<&ResourceBase>) -> String {
    match resource_base {
        Some(ResourceBase::Directory { path }) => format!(
            "This skill's files are in the directory {}. Relative paths in the instructions \
             (scripts, references, assets) resolve against that directory. Open a resource \
             only when the instructions call for it.",
            escape_text(path)
        ),
        Some(ResourceBase::Url { url }) => format!(
            "This skill's resources are published at {}. Relative references in the \
             instructions resolve against that URL. Fetch a resource only when the \
             instructions call for it.",
            escape_text(url)
        ),
        Some(ResourceBase::Opaque { description }) => format!(
            "Resources of this skill: {}. Use a resource only when the instructions call for it.",
            escape_text(description)
        ),
        None => format!(
            "Resources referenced by the instructions are managed by the {} skill provider; \
             they have no local path or URL.",
            escape_text(provider)
        ),
    }
}

/// How the `skill_content` block separates its resources from its instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContentLayout {
    /// `</skill_resources>` directly followed by `<skill_instructions>` (the
    /// earlier harness release, as the design records describe it).
    #[default]
    Compact,
    /// One blank line between `</skill_resources>` and `<skill_instructions>`
    /// (harness release 0.1.1-rc.2).
    Spaced,
}

/// The `skill` tool result for a loaded skill in the [`ContentLayout::Compact`]
/// layout. The body is included as is.
pub fn render_skill_content(
    name: &str,
    provider: &str,
    resource_base: Option<&ResourceBase>,
    content: &str,
) -> String {
    render_skill_content_as(
        ContentLayout::Compact,
        name,
        provider,
        resource_base,
        content,
    )
}

/// The `skill` tool result for a loaded skill in the given layout: the
/// opening tag with the name escaped for an attribute, the resource hint, the
/// body as is (followed by a line break when it does not end with one), and
/// the closing tags.
pub fn render_skill_content_as(
    layout: ContentLayout,
    name: &str,
    provider: &str,
    resource_base: Option<&ResourceBase>,
    content: &str,
) -> String {
    let name = escape_attribute(name);
    let hint = resource_hint(provider, resource_base);
    let mut out = String::with_capacity(name.len() + hint.len() + content.len() + 160);
    out.push_str("<skill_content name=\"");
    out.push_str(&name);
    out.push_str("\">\n<skill_resources>\n");
    out.push_str(&hint);
    out.push_str("\n</skill_resources>\n");
    if layout == ContentLayout::Spaced {
        out.push('\n');
    }
    out.push_str("<skill_instructions>\n");
    out.push_str(content);
    if !content.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("</skill_instructions>\n</skill_content>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_content() {
        let dir = ResourceBase::Directory {
            path: "/s/a&b".into(),
        };
        let text = render_skill_content("a\"<'>&", "local", Some(&dir), "Body\n");
        assert!(text.starts_with(
            "<skill_content name=\"a&quot;&lt;&#39;&gt;&amp;\">\n<skill_resources>\n"
        ));
        assert!(text.contains("/s/a&amp;b"));
        assert!(
            text.ends_with("<skill_instructions>\nBody\n</skill_instructions>\n</skill_content>")
        );
        let url = ResourceBase::Url {
            url: "https://x/y/".into(),
        };
        assert!(render_skill_content("a", "p", Some(&url), "B").contains("https://x/y/"));
        let opaque = ResourceBase::Opaque {
            description: "kept by the vault".into(),
        };
        assert!(render_skill_content("a", "p", Some(&opaque), "B").contains("kept by the vault"));
        let none = render_skill_content("a", "remote-x", None, "B");
        assert!(none.contains("managed by the remote-x skill provider"));
        assert!(none.ends_with("<skill_instructions>\nB\n</skill_instructions>\n</skill_content>"));
    }

    #[test]
    fn spaced_layout_differs_by_one_blank_line_only() {
        let bases = [
            None,
            Some(ResourceBase::Directory {
                path: "/s/a&b".into(),
            }),
            Some(ResourceBase::Url {
                url: "https://x/<y>/".into(),
            }),
            Some(ResourceBase::Opaque {
                description: "kept by the vault".into(),
            }),
        ];
        for base in &bases {
            for content in ["Body", "Body\n", "", "line one\n\nline two\n"] {
                let compact = render_skill_content("a-b", "p&q", base.as_ref(), content);
                let spaced = render_skill_content_as(
                    ContentLayout::Spaced,
                    "a-b",
                    "p&q",
                    base.as_ref(),
                    content,
                );
                assert_eq!(
                    spaced,
                    compact.replacen(
                        "</skill_resources>\n<skill_instructions>",
                        "</skill_resources>\n\n<skill_instructions>",
                        1
                    )
                );
                assert_eq!(
                    compact,
                    render_skill_content_as(
                        ContentLayout::default(),
                        "a-b",
                        "p&q",
                        base.as_ref(),
                        content
                    )
                );
            }
        }
        let spaced = render_skill_content_as(ContentLayout::Spaced, "n", "p", None, "Body");
        assert!(spaced.contains("\n</skill_resources>\n\n<skill_instructions>\nBody\n</skill_instructions>\n</skill_content>"));
        assert_eq!(spaced.matches("\n\n").count(), 1);
    }

    #[test]
    fn escapes_text_and_attributes() {
        assert_eq!(
            escape_text("a & b < c > d \"e\" 'f'"),
            "a &amp; b &lt; c &gt; d \"e\" 'f'"
        );
        assert_eq!(escape_text("&amp;"), "&amp;amp;");
        assert_eq!(escape_text("plain é 😀"), "plain é 😀");
        assert_eq!(escape_attribute("\"'&<>"), "&quot;&#39;&amp;&lt;&gt;");
    }
}
