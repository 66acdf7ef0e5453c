//! JavaScript's own values, exactly: `JsString` (a string as UTF-16 code
//! units, lone surrogates included) and `Json` (JSON read and written the
//! way `JSON.parse` and `JSON.stringify` do, which serde_json cannot: it
//! rejects lone surrogates). Everything above carries tool keys in these.

pub mod json;
pub mod string;
