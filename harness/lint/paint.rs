//! `Paint`: the colour of lint's text, and `count`, its plurals.
//!
//! In: whether to colour (the command decides, from `--color` and
//! `NO_COLOR`). Out: the severity labels padded to one width, then coloured
//! (so columns line up either way), and the other spans lint colours: where
//! a finding is, notes, rule ids. Plain when colour is off: the text is
//! then byte for byte what scripts and tests read.

use super::Severity;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paint {
    color: bool,
}

const RESET: &str = "\x1b[0m";

impl Paint {
    pub fn new(color: bool) -> Paint {
        Paint { color }
    }

    pub fn plain() -> Paint {
        Paint { color: false }
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    /// `error  `, `warning`, `ok     `: one width, red, yellow, green.
    pub fn severity(self, s: Severity) -> String {
        let (label, code) = match s {
            Severity::Error => ("error", "1;31"),
            Severity::Warning => ("warning", "1;33"),
            Severity::Ok => ("ok", "32"),
        };
        self.wrap(code, &format!("{label:<7}"))
    }

    /// Where a finding is: `file:line:col`.
    pub fn place(self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub fn note(self, text: &str) -> String {
        self.wrap("36", text)
    }

    /// Rule ids and other asides.
    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }
}

/// `1 agent`, `2 agents`, `0 agents`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_keep_their_width_coloured_or_not() {
        assert_eq!(Paint::plain().severity(Severity::Error), "error  ");
        assert_eq!(
            Paint::new(true).severity(Severity::Warning),
            "\x1b[1;33mwarning\x1b[0m"
        );
        assert_eq!(Paint::plain().place("a.ts:1:2"), "a.ts:1:2");
    }

    #[test]
    fn one_is_singular() {
        assert_eq!(count(1, "warning"), "1 warning");
        assert_eq!(count(0, "warning"), "0 warnings");
        assert_eq!(count(2, "agent"), "2 agents");
    }
}
