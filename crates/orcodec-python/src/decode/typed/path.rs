//! The `$` path of the value being validated: a chain of segments on the
//! stack, one per level of the recursion, each pointing at its parent. It
//! costs a few words per level and is turned into text only when an error
//! is raised (`$.items[3].qty`).

use core::fmt::Write;

#[derive(Clone, Copy)]
pub enum Seg<'a> {
    Root,
    /// A field of a class or TypedDict: `.name`.
    Field(&'a str),
    /// An item of an array: `[3]`.
    Index(usize),
    /// A value of a dict: `[...]` (its key is not shown).
    Value,
    /// A dict's key: the message says `` `key` in `$...` ``.
    Key,
}

#[derive(Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
}

impl<'a> Path<'a> {
    pub const ROOT: Path<'static> = Path { parent: None, seg: Seg::Root };

    #[inline(always)]
    pub fn push(&'a self, seg: Seg<'a>) -> Path<'a> {
        Path { parent: Some(self), seg }
    }

    /// The path as text (`$`, `$.a[1]`), and whether it ends at a key.
    #[expect(
        clippy::disallowed_methods,
        reason = "one segment per level (the nesting limit bounds them), names from the type"
    )]
    pub fn render(&self) -> (String, bool) {
        let mut segs = Vec::new();
        let mut at = Some(self);
        while let Some(p) = at {
            segs.push(p.seg);
            at = p.parent;
        }
        let is_key = matches!(segs.first(), Some(Seg::Key));
        let mut out = String::from("$");
        for seg in segs.iter().rev() {
            match seg {
                Seg::Root | Seg::Key => {}
                Seg::Field(name) => {
                    out.push('.');
                    out.push_str(name);
                }
                Seg::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
                Seg::Value => out.push_str("[...]"),
            }
        }
        (out, is_key)
    }

    /// `message` with the location appended as msgspec words it: nothing at
    /// the root, `` - at `$.a` `` elsewhere, `` - at `key` in `$.a` `` for a key.
    pub fn message(&self, message: &str) -> (String, String) {
        let (path, is_key) = self.render();
        let text = if is_key {
            format!("{message} - at `key` in `{path}`")
        } else if path == "$" {
            message.to_owned()
        } else {
            format!("{message} - at `{path}`")
        };
        (text, path)
    }
}
